#include "examples/fashion_mnist/input_pipeline.h"

#include "client/standard_ops.h"

namespace af::fmnist {
namespace {

constexpr int kReadChunk = 500;  // records per ReaderReadUpTo

// Mean and standard deviation of the training pixels scaled to [0, 1]:
// standardised inputs let the first steps move all layers alike.
constexpr float kPixelMean = 0.2860f, kPixelStd = 0.3530f;

// uint8 records of 784 bytes each -> float [n, 28, 28, 1], standardised.
Output DecodeImages(const Scope& scope, const Output& records) {
  return StandardizePixels(scope, ops::DecodeRaw(scope, records, DT_UINT8));
}

Output DecodeLabels(const Scope& scope, const Output& records) {
  auto bytes = ops::DecodeRaw(scope, records, DT_UINT8);
  return ops::Reshape(scope, ops::Cast(scope, bytes, DT_INT32), ops::Const(scope, {-1}));
}

std::string File(const std::string& dir, const std::string& name) { return dir + "/" + name; }

// The records of one IDX file, read whole through a reader op (queue
// filled and closed by the caller's runs of `fill` and `close`).
Output ReadAllRecords(const Scope& scope, const std::string& path, int64_t count,
                      std::vector<Operation>* fill, std::vector<Operation>* close) {
  auto files = ops::FIFOQueueV2(scope, {DT_STRING}, ops::FIFOQueueV2::Capacity(1));
  fill->push_back(ops::QueueEnqueueV2(scope, files.handle, {ops::Const(scope, path)}).operation);
  close->push_back(ops::QueueCloseV2(scope, files.handle).operation);
  auto reader = ops::IdxRecordReaderV2(scope);
  return ops::ReaderReadUpToV2(scope, reader.reader_handle, files.handle,
                               ops::Const(scope, count))
      .values;
}

// Runs `decoded` (images first, labels second) after filling and closing
// the file queues; checks that both hold as many examples.
Status RunReaders(const ClientSession& session, const std::vector<Operation>& fill,
                  const std::vector<Operation>& close, const std::vector<Output>& decoded,
                  const std::string& what, Tensor* images, Tensor* labels) {
  AF_RETURN_IF_ERROR(session.Run({}, {}, fill, nullptr));
  AF_RETURN_IF_ERROR(session.Run({}, {}, close, nullptr));
  std::vector<Tensor> tensors;
  AF_RETURN_IF_ERROR(session.Run(decoded, &tensors));
  if (tensors[0].dim_size(0) != tensors[1].dim_size(0))
    return errors::DataLoss(what, ": ", tensors[0].dim_size(0), " images but ",
                            tensors[1].dim_size(0), " labels");
  *images = tensors[0];
  *labels = tensors[1];
  return Status::OK();
}

}  // namespace

Output StandardizePixels(const Scope& scope, const Output& pixels) {
  auto scaled = ops::Add(scope, ops::Mul(scope, ops::Cast(scope, pixels, DT_FLOAT),
                                         ops::Const(scope, 1.0f / (255 * kPixelStd))),
                         ops::Const(scope, -kPixelMean / kPixelStd));
  return ops::Reshape(scope, scaled, ops::Const(scope, {-1, 28, 28, 1}));
}

Status ReadRawExamples(const Scope& root, const ClientSession& session,
                       const std::string& data_dir, const std::string& prefix,
                       RawExamples* out) {
  Scope scope = root.NewSubScope(prefix + "_raw_input");
  std::vector<Operation> fill, close;
  const int64_t most = 1 << 20;
  auto images = ReadAllRecords(scope, File(data_dir, prefix + "-images-idx3-ubyte.gz"), most,
                               &fill, &close);
  auto labels = ReadAllRecords(scope, File(data_dir, prefix + "-labels-idx1-ubyte.gz"), most,
                               &fill, &close);
  const std::vector<Output> decoded = {
      ops::DecodeRaw(scope, images, DT_UINT8),
      ops::Reshape(scope, ops::Cast(scope, ops::DecodeRaw(scope, labels, DT_UINT8), DT_INT32),
                   ops::Const(scope, {-1}))};
  AF_RETURN_IF_ERROR(scope.status());
  return RunReaders(session, fill, close, decoded, prefix + " set", &out->pixels, &out->labels);
}

TrainInput BuildTrainInput(const Scope& root, const std::string& data_dir, int batch, int epochs,
                           int64_t seed) {
  Scope scope = root.NewSubScope("input");
  TrainInput in;
  StringInputProducerOptions files;
  files.num_epochs = epochs;
  files.shuffle = false;  // one file each; the shuffle queue mixes examples
  files.name = "image_files";
  in.image_files = StringInputProducer(scope, {File(data_dir, "train-images-idx3-ubyte.gz")}, files);
  files.name = "label_files";
  in.label_files = StringInputProducer(scope, {File(data_dir, "train-labels-idx1-ubyte.gz")}, files);

  auto image_reader = ops::IdxRecordReaderV2(scope.WithOpName("image_reader"));
  auto label_reader = ops::IdxRecordReaderV2(scope.WithOpName("label_reader"));
  auto image_records =
      ops::ReaderReadUpToV2(scope, image_reader.reader_handle, in.image_files.queue,
                            ops::Const(scope, int64_t{kReadChunk}));
  auto label_records =
      ops::ReaderReadUpToV2(scope, label_reader.reader_handle, in.label_files.queue,
                            ops::Const(scope, int64_t{kReadChunk}));
  auto images = DecodeImages(scope, image_records.values);
  auto labels = DecodeLabels(scope, label_records.values);

  // Capacity and min_after_dequeue as in TensorFlow's input tutorials:
  // enough examples to mix well, small next to the data set (~30 MB).
  const int64_t min_after_dequeue = 5000;
  auto shuffle = ops::RandomShuffleQueueV2(
      scope.WithOpName("shuffle_queue"), {DT_FLOAT, DT_INT32},
      ops::RandomShuffleQueueV2::Shapes({PartialTensorShape({28, 28, 1}), PartialTensorShape({})})
          .Capacity(min_after_dequeue + 3 * std::max(batch, kReadChunk))
          .MinAfterDequeue(min_after_dequeue)
          .Seed(seed)
          .Seed2(seed + 1));
  auto enqueue = ops::QueueEnqueueManyV2(scope, shuffle.handle, {images, labels});
  auto close = ops::QueueCloseV2(scope, shuffle.handle);
  auto cancel = ops::QueueCloseV2(scope, shuffle.handle,
                                  ops::QueueCloseV2::CancelPendingEnqueues(true));
  in.shuffle_runner = std::make_unique<QueueRunner>(std::vector<Operation>{enqueue.operation},
                                                    close.operation, cancel.operation);
  auto dequeue = ops::QueueDequeueUpToV2(scope.WithOpName("batch"), shuffle.handle,
                                         ops::Const(scope, batch), {DT_FLOAT, DT_INT32});
  in.images = dequeue.components[0];
  in.labels = dequeue.components[1];
  return in;
}

Status ReadTestSet(const Scope& root, const ClientSession& session, const std::string& data_dir,
                   TestSet* out) {
  Scope scope = root.NewSubScope("test_input");
  std::vector<Operation> fill, close;
  auto images = ReadAllRecords(scope, File(data_dir, "t10k-images-idx3-ubyte.gz"), 10000, &fill,
                               &close);
  auto labels = ReadAllRecords(scope, File(data_dir, "t10k-labels-idx1-ubyte.gz"), 10000, &fill,
                               &close);
  const std::vector<Output> decoded = {DecodeImages(scope, images), DecodeLabels(scope, labels)};
  AF_RETURN_IF_ERROR(scope.status());
  return RunReaders(session, fill, close, decoded, "test set", &out->images, &out->labels);
}

}  // namespace af::fmnist
