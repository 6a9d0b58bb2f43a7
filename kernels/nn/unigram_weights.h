// The table behind FixedUnigramCandidateSampler: one weight per id, from
// counts given in the graph (`unigrams`) or read from a vocabulary file,
// raised to `distortion` (0 flattens to uniform, 1 keeps the counts, 0.75
// is word2vec's choice), after `num_reserved_ids` ids of weight 0 (an
// unknown-word token, padding). Ids are these reserved ids followed by the
// counted entries, in order; a sampler of shard s of num_shards keeps only
// the ids with id % num_shards == s, and samples positions in that subset,
// so its range_max is the subset's size.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace af::sampling {

struct UnigramTableOptions {
  float distortion = 1.0f;
  int64_t num_reserved_ids = 0;
  int64_t num_shards = 1;
  int64_t shard = 0;
};

// INVALID_ARGUMENT for a negative or non-finite count or a bad shard.
Status UnigramWeightsFromCounts(const std::vector<float>& unigrams,
                                const UnigramTableOptions& options, std::vector<double>* weights);

// A CSV file, one id per non-blank line, whose last column is the id's
// count (earlier columns, such as the word itself, are ignored). Errors
// name the file and, for a bad count, the line.
Status UnigramWeightsFromVocabFile(const std::string& path, const UnigramTableOptions& options,
                                   std::vector<double>* weights);

}  // namespace af::sampling
