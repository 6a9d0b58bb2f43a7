// ExampleBatchParser: the part of ParseExample, ParseExampleV2 and
// ParseSingleExample that they share — turning serialized tf.Example
// records into dense, sparse and ragged tensors for a set of keys.
//
// One record (a scalar `serialized`, ParseSingleExample and ParseExampleV2)
// gives outputs without a batch dimension; a vector of records gives outputs
// whose first dimension (dense, ragged splits) or first index column
// (sparse) is the record.
//
// Semantics (TensorFlow's):
//  - dense, fixed shape S: a present feature must hold exactly
//    S.num_elements() values of the dense dtype; a missing one takes its
//    default, and with an empty default it is required.
//  - dense, shape [-1, rest...] ("variable length"): a feature holds any
//    multiple of rest's element count; the output is padded to the longest
//    record with the default, which must be a single value.
//  - sparse: indices [N, rank+1] (record, position), values [N], and
//    dense_shape [batch, longest] (without the batch for one record).
//  - ragged: values [N] and row_splits [batch + 1] of int32 or int64.
//  - a feature of another kind than asked for is INVALID_ARGUMENT; a
//    feature present with no list set counts as holding no values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "core/types.h"

namespace af::parsing {

struct DenseFeatureSpec {
  std::string key;
  DataType dtype = DT_FLOAT;
  PartialTensorShape shape;  // fully known, but for an unknown first dim
};

struct ListFeatureSpec {  // a sparse or ragged feature
  std::string key;
  DataType dtype = DT_FLOAT;
  DataType split_dtype = DT_INT64;  // ragged only
};

struct ExampleParserConfig {
  std::vector<DenseFeatureSpec> dense;
  std::vector<ListFeatureSpec> sparse;
  std::vector<ListFeatureSpec> ragged;
};

struct ExampleParserOutputs {
  std::vector<Tensor> sparse_indices, sparse_values, sparse_shapes;
  std::vector<Tensor> dense_values;
  std::vector<Tensor> ragged_values, ragged_row_splits;
};

// Checks the config (dtypes in {float, int64, string}, dense shapes with at
// most a leading unknown dim, split dtypes) and each default against its
// shape. Errors are INVALID_ARGUMENT naming the dense key's position.
Status ValidateExampleParserConfig(const ExampleParserConfig& config,
                                   const std::vector<Tensor>& dense_defaults);

// Parses `num_records` records. `names` (may be null) names each record in
// errors. `single` gives outputs without the batch dimension (num_records
// must then be 1).
Status ParseExamples(const ExampleParserConfig& config, const std::string* serialized,
                     int64_t num_records, const std::string* names, bool single,
                     const std::vector<Tensor>& dense_defaults, ExampleParserOutputs* out);

}  // namespace af::parsing
