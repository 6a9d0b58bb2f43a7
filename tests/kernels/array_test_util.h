// Helpers for the array kernel tests. Data-moving kernels are checked
// type-agnostically: a reference loop says, for every output element,
// which input element it must equal (or that it must equal a fill value),
// and elements are compared bit for bit (strings by value).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tests/kernels/op_test_util.h"
#include "tests/test_util.h"

namespace af::test {

using testing::Contains;

// A 1-D int tensor (DT_INT32 or DT_INT64).
Tensor Ints(const std::vector<int64_t>& values, DataType dtype = DT_INT32);
// An int tensor of `shape` (DT_INT32 or DT_INT64).
Tensor IntsOfShape(const std::vector<int64_t>& values, const TensorShape& shape,
                   DataType dtype = DT_INT32);
Tensor IntScalar(int64_t value, DataType dtype = DT_INT32);

// One type per element size (1, 2, 4, 8, 16 bytes), plus bool and string.
std::vector<DataType> MovableTestTypes();

// Random elements of any fixed-size type or string, fixed by seed (bools
// 0/1, other types random bits).
Tensor RandomValues(DataType dtype, const TensorShape& shape, uint32_t seed);

// Whether a[i] and b[j] hold the same element (same dtype assumed).
bool SameElement(const Tensor& a, int64_t i, const Tensor& b, int64_t j);

// Checks out's dtype (in's), shape, and out[i] == in[source[i]] for every i
// (source[i] == -1: out[i] == fill[0]).
Status CheckPicked(const Tensor& out, const TensorShape& shape, const Tensor& in,
                   const std::vector<int64_t>& source, const Tensor* fill = nullptr);

// Row-major index <-> flat position.
std::vector<int64_t> Unflatten(const TensorShape& shape, int64_t flat);
int64_t Flatten(const TensorShape& shape, const std::vector<int64_t>& index);

// dims in [lo, hi] per dim.
TensorShape RandomShape(std::mt19937& rng, int rank, int64_t lo, int64_t hi);

}  // namespace af::test
