// The input side of the trainer, built from reader and queue ops
// (whitepaper §4.5-4.6):
//
//   train-images/labels-idx*.gz --StringInputProducer(num_epochs)--> filename queues
//     --IdxRecordReaderV2 + ReaderReadUpToV2 (chunks of 500)--> DecodeRaw, Cast, scale
//     --QueueEnqueueManyV2--> RandomShuffleQueueV2 --QueueDequeueUpToV2(batch)--> model
//
// One enqueue thread reads images and labels in the same step, so the two
// readers stay in lockstep. The test set is read once, whole, by the same
// reader ops.
#pragma once

#include <memory>
#include <string>

#include "client/client_session.h"
#include "client/input_producer.h"
#include "client/queue_runner.h"
#include "client/scope.h"
#include "core/tensor.h"

namespace af::fmnist {

struct TrainInput {
  Output images;  // float [n, 28, 28, 1], standardised; n = batch except at the very end
  Output labels;  // int32 [n]
  InputProducer image_files, label_files;
  std::unique_ptr<QueueRunner> shuffle_runner;
};

// `epochs` passes over the training files; the batches run dry (OUT_OF_RANGE)
// after the last.
TrainInput BuildTrainInput(const Scope& scope, const std::string& data_dir, int batch,
                           int epochs, int64_t seed);

struct TestSet {
  Tensor images;  // float [10000, 28, 28, 1], standardised as the training images
  Tensor labels;  // int32 [10000]
};

// Reads the t10k files through reader ops (a graph of its own in `scope`).
Status ReadTestSet(const Scope& scope, const ClientSession& session, const std::string& data_dir,
                   TestSet* out);

// The examples of one IDX pair as stored: what a program that feeds its
// batches (the cluster trainer) keeps in memory, 47 MB for the training set.
struct RawExamples {
  Tensor pixels;  // uint8 [n, 784]
  Tensor labels;  // int32 [n]
};

// Reads <prefix>-images-idx3-ubyte.gz and <prefix>-labels-idx1-ubyte.gz
// ("train" or "t10k") whole, through reader ops.
Status ReadRawExamples(const Scope& scope, const ClientSession& session,
                       const std::string& data_dir, const std::string& prefix, RawExamples* out);

// uint8 pixels [n, 784] -> float [n, 28, 28, 1], standardised as the
// training pipeline's images.
Output StandardizePixels(const Scope& scope, const Output& pixels);

}  // namespace af::fmnist
