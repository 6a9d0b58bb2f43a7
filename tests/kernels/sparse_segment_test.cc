// SparseSegmentSum/Mean/SqrtN (with and without num_segments) and their
// *Grad ops against double-precision reference loops, their shape
// functions, and their errors.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/op_registry.h"
#include "core/shape_inference.h"
#include "tests/kernels/array_test_util.h"

namespace af::test {
namespace {

#define EXPECT_INVALID(out, text)                                                                 \
  do {                                                                                            \
    const auto& af_out_ = (out);                                                                  \
    BOOST_REQUIRE(!af_out_.ok());                                                                 \
    BOOST_CHECK_EQUAL(af_out_.status().code(), Code::INVALID_ARGUMENT);                           \
    BOOST_CHECK_MESSAGE(Contains(af_out_.status().message(), text), af_out_.status().ToString()); \
  } while (0)

enum class Kind { kSum, kMean, kSqrtN };

const char* OpName(Kind k) {
  if (k == Kind::kMean) return "SparseSegmentMean";
  if (k == Kind::kSqrtN) return "SparseSegmentSqrtN";
  return "SparseSegmentSum";
}

double Divisor(Kind k, int64_t n) {
  if (k == Kind::kMean) return static_cast<double>(n);
  if (k == Kind::kSqrtN) return std::sqrt(static_cast<double>(n));
  return 1.0;
}

// One random problem: data rows, an index per j (repeats allowed) and
// sorted segment ids with gaps (empty segments) and repeats.
struct Problem {
  TensorShape data_shape;
  std::vector<int64_t> indices, ids;
  int64_t inner = 1;
};

Problem RandomProblem(std::mt19937& rng, int64_t rows, const TensorShape& row_shape, int64_t n) {
  Problem p;
  p.data_shape = TensorShape{rows};
  for (int d = 0; d < row_shape.dims(); ++d) p.data_shape.AddDim(row_shape.dim_size(d));
  p.inner = row_shape.num_elements();
  int64_t id = static_cast<int64_t>(rng() % 2);
  for (int64_t j = 0; j < n; ++j) {
    p.indices.push_back(static_cast<int64_t>(rng() % static_cast<uint64_t>(rows)));
    p.ids.push_back(id);
    id += static_cast<int64_t>(rng() % 3);  // 0: same segment, 2: skip one
  }
  return p;
}

// output[s] = sum over ids[j] == s of data[indices[j]] / divisor(count).
std::vector<double> ReferenceReduce(const Problem& p, const Tensor& data, int64_t num_rows,
                                    Kind k) {
  std::vector<double> out(static_cast<size_t>(num_rows * p.inner), 0.0);
  std::vector<int64_t> count(static_cast<size_t>(num_rows), 0);
  for (size_t j = 0; j < p.ids.size(); ++j) {
    ++count[static_cast<size_t>(p.ids[j])];
    for (int64_t i = 0; i < p.inner; ++i)
      out[static_cast<size_t>(p.ids[j] * p.inner + i)] +=
          ValueAsDouble(data, p.indices[j] * p.inner + i);
  }
  for (int64_t s = 0; s < num_rows; ++s) {
    if (count[static_cast<size_t>(s)] == 0) continue;
    for (int64_t i = 0; i < p.inner; ++i)
      out[static_cast<size_t>(s * p.inner + i)] /= Divisor(k, count[static_cast<size_t>(s)]);
  }
  return out;
}

template <typename T>
void CheckReduction(Kind k, std::mt19937& rng, uint32_t seed) {
  const DataType dt = DataTypeToEnum<T>::value;
  for (const TensorShape& row_shape : {TensorShape{}, TensorShape{3}, TensorShape{2, 2}}) {
    for (int64_t n : {0, 1, 7, 20}) {
      const Problem p = RandomProblem(rng, 5, row_shape, n);
      const Tensor data = RandomTensor<T>(p.data_shape, seed++, -10, 10);
      const int64_t last = n == 0 ? 0 : p.ids.back() + 1;
      for (DataType tidx : {DT_INT32, DT_INT64}) {
        for (DataType tseg : {DT_INT32, DT_INT64}) {
          BOOST_TEST_CONTEXT(OpName(k)
                             << "<" << DataTypeString(dt) << "> n=" << n << " row "
                             << row_shape.DebugString() << " Tidx " << DataTypeString(tidx)
                             << " Tsegmentids " << DataTypeString(tseg)) {
            KernelRunner plain(OpName(k));
            plain.Input(data).Input(Ints(p.indices, tidx)).Input(Ints(p.ids, tseg));
            auto out = plain.Run();
            AF_REQUIRE_OK(out.status());
            TensorShape want{last};
            for (int d = 0; d < row_shape.dims(); ++d) want.AddDim(row_shape.dim_size(d));
            AF_EXPECT_OK(CheckTensor((*out)[0], dt, want, ReferenceReduce(p, data, last, k),
                                     Tolerance<T>() * 10, Tolerance<T>() * 10));

            // num_segments beyond the last id: the extra rows are zero.
            const int64_t num = last + 2;
            KernelRunner with(std::string(OpName(k)) + "WithNumSegments");
            with.Input(data).Input(Ints(p.indices, tidx)).Input(Ints(p.ids, tseg));
            with.Input(IntScalar(num, tseg));
            out = with.Run();
            AF_REQUIRE_OK(out.status());
            want.set_dim(0, num);
            AF_EXPECT_OK(CheckTensor((*out)[0], dt, want, ReferenceReduce(p, data, num, k),
                                     Tolerance<T>() * 10, Tolerance<T>() * 10));
          }
        }
      }
    }
  }
}

// output[indices[j]] += grad[ids[j]] / divisor(size of segment ids[j]).
std::vector<double> ReferenceGrad(const std::vector<int64_t>& indices,
                                  const std::vector<int64_t>& ids, const Tensor& grad, int64_t dim0,
                                  int64_t inner, Kind k) {
  std::vector<double> out(static_cast<size_t>(dim0 * inner), 0.0);
  for (size_t j = 0; j < ids.size(); ++j) {
    const auto n = std::count(ids.begin(), ids.end(), ids[j]);
    for (int64_t i = 0; i < inner; ++i)
      out[static_cast<size_t>(indices[j] * inner + i)] +=
          ValueAsDouble(grad, ids[j] * inner + i) / Divisor(k, n);
  }
  return out;
}

template <typename T>
void CheckGrad(Kind k, std::mt19937& rng, uint32_t seed) {
  const DataType dt = DataTypeToEnum<T>::value;
  const std::string op = std::string(OpName(k)) + "Grad";
  for (int64_t n : {0, 1, 9}) {
    // Unsorted ids: the *Grad ops do not need them sorted.
    std::vector<int64_t> indices, ids;
    for (int64_t j = 0; j < n; ++j) {
      indices.push_back(static_cast<int64_t>(rng() % 6));
      ids.push_back(static_cast<int64_t>(rng() % 4));
    }
    const Tensor grad = RandomTensor<T>({4, 3}, seed++, -5, 5);
    for (DataType tidx : {DT_INT32, DT_INT64}) {
      BOOST_TEST_CONTEXT(op << "<" << DataTypeString(dt) << "> n=" << n << " Tidx "
                            << DataTypeString(tidx)) {
        KernelRunner r(op);
        r.Input(grad).Input(Ints(indices, tidx)).Input(Ints(ids, DT_INT64)).Input(IntScalar(6));
        auto out = r.Run();
        AF_REQUIRE_OK(out.status());
        AF_EXPECT_OK(CheckTensor((*out)[0], dt, {6, 3}, ReferenceGrad(indices, ids, grad, 6, 3, k),
                                 Tolerance<T>() * 10, Tolerance<T>() * 10));
      }
    }
  }
}

// Runs `op`'s shape function on a node named "n".
Status Infer(const std::string& op, std::vector<PartialTensorShape> inputs,
             std::vector<const Tensor*> tensors, std::vector<PartialTensorShape>* out) {
  tensorflow::NodeDef def;
  def.set_name("n");
  def.set_op(op);
  for (size_t i = 0; i < inputs.size(); ++i) def.add_input("in" + std::to_string(i));
  SetAttr(&def, "T", DT_FLOAT);
  const OpRegistrationData* reg = OpRegistry::Global()->LookUp(op);
  BOOST_REQUIRE(reg != nullptr);
  AddDefaultsToNodeDef(reg->op_def, &def);
  tensors.resize(inputs.size(), nullptr);
  return InferShapes(def, reg->op_def, reg->shape_fn, inputs, tensors, out);
}

BOOST_AUTO_TEST_SUITE(sparse_segment)

BOOST_AUTO_TEST_CASE(reductions_match_the_reference) {
  std::mt19937 rng(61);
  CheckReduction<float>(Kind::kSum, rng, 1);
  CheckReduction<double>(Kind::kSum, rng, 100);
  CheckReduction<int32_t>(Kind::kSum, rng, 200);
  CheckReduction<int64_t>(Kind::kSum, rng, 300);
  for (Kind k : {Kind::kMean, Kind::kSqrtN}) {
    CheckReduction<float>(k, rng, 400);
    CheckReduction<double>(k, rng, 500);
  }
}

BOOST_AUTO_TEST_CASE(grad_ops_match_the_reference) {
  std::mt19937 rng(67);
  for (Kind k : {Kind::kSum, Kind::kMean, Kind::kSqrtN}) {
    CheckGrad<float>(k, rng, 1);
    CheckGrad<double>(k, rng, 50);
  }
}

BOOST_AUTO_TEST_CASE(tensorflow_example) {
  // The rows of c picked by [0, 1, 2] into segments [0, 0, 1].
  const Tensor c = Tensor::FromVector<float>({1, 2, 3, 4, -1, -2, -3, -4, 5, 6, 7, 8}, {3, 4});
  auto out = RunKernel("SparseSegmentSum", {c, Ints({0, 1, 2}), Ints({0, 0, 1})});
  AF_REQUIRE_OK(out.status());
  AF_EXPECT_OK(CheckTensor((*out)[0], DT_FLOAT, {2, 4}, {0, 0, 0, 0, 5, 6, 7, 8}));
  // Missing ids leave zero rows; num_segments pads to 4.
  out = RunKernel("SparseSegmentSumWithNumSegments", {c, Ints({0, 1}), Ints({0, 2}), IntScalar(4)});
  AF_REQUIRE_OK(out.status());
  AF_EXPECT_OK(CheckTensor((*out)[0], DT_FLOAT, {4, 4},
                           {1, 2, 3, 4, 0, 0, 0, 0, -1, -2, -3, -4, 0, 0, 0, 0}));
  out = RunKernel("SparseSegmentMean", {c, Ints({0, 2, 2}), Ints({0, 0, 0})});
  AF_REQUIRE_OK(out.status());
  AF_EXPECT_OK(
      CheckTensor((*out)[0], DT_FLOAT, {1, 4}, {11.0 / 3, 14.0 / 3, 17.0 / 3, 20.0 / 3}, 1e-6));
}

BOOST_AUTO_TEST_CASE(unsorted_or_out_of_range_ids_are_invalid) {
  const Tensor data = Tensor::FromVector<float>({1, 2, 3, 4}, {4, 1});
  {
    KernelRunner r("SparseSegmentSum", "ss");
    r.Input(data).Input(Ints({0, 1, 2})).Input(Ints({0, 2, 1}));
    EXPECT_INVALID(r.Run(), "node 'ss' (op 'SparseSegmentSum'): segment_ids[2] = 1 is below "
                            "segment_ids[1] = 2: segment ids must be sorted");
  }
  {
    KernelRunner r("SparseSegmentMean", "sm");
    r.Input(data).Input(Ints({0, 9})).Input(Ints({0, 0}));
    EXPECT_INVALID(r.Run(), "node 'sm' (op 'SparseSegmentMean'): indices[1] = 9 is not in [0, 4)");
  }
  {
    KernelRunner r("SparseSegmentSqrtN");
    r.Input(data).Input(Ints({0, -1})).Input(Ints({0, 1}, DT_INT64));
    EXPECT_INVALID(r.Run(), "indices[1] = -1 is not in [0, 4)");
  }
  {
    KernelRunner r("SparseSegmentSum");
    r.Input(data).Input(Ints({0, 1})).Input(Ints({-1, 0}));
    EXPECT_INVALID(r.Run(), "segment_ids[0] = -1 must not be negative");
  }
  {
    KernelRunner r("SparseSegmentSumWithNumSegments", "sn");
    r.Input(data).Input(Ints({0, 1})).Input(Ints({0, 3})).Input(IntScalar(3));
    EXPECT_INVALID(r.Run(), "node 'sn' (op 'SparseSegmentSumWithNumSegments'): segment_ids[1] = 3 "
                            "is out of range [0, 3)");
  }
  {
    KernelRunner r("SparseSegmentSumWithNumSegments");
    r.Input(data).Input(Ints({0})).Input(Ints({0})).Input(IntScalar(-1));
    EXPECT_INVALID(r.Run(), "num_segments == -1 must not be negative");
  }
  {
    KernelRunner r("SparseSegmentSumWithNumSegments");
    r.Input(data).Input(Ints({0})).Input(Ints({0})).Input(Ints({2}));
    EXPECT_INVALID(r.Run(), "num_segments must be a scalar");
  }
}

BOOST_AUTO_TEST_CASE(malformed_inputs_are_invalid) {
  const Tensor data = Tensor::FromVector<double>({1, 2, 3, 4}, {4});
  EXPECT_INVALID(RunKernel("SparseSegmentSum", {data, Ints({0, 1}), Ints({0})}),
                 "segment_ids and indices should have same size");
  EXPECT_INVALID(RunKernel("SparseSegmentSum",
                           {data, IntsOfShape({0, 1}, {1, 2}), IntsOfShape({0, 0}, {1, 2})}),
                 "indices should be a vector");
  EXPECT_INVALID(RunKernel("SparseSegmentSum", {Tensor::Scalar<double>(1), Ints({0}), Ints({0})}),
                 "data must be at least 1-D");
  // The largest id would make last id + 1 wrap.
  EXPECT_INVALID(
      RunKernel("SparseSegmentSum",
                {data, Ints({0}), Ints({std::numeric_limits<int64_t>::max()}, DT_INT64)}),
      "segment_ids[0] = 9223372036854775807 is out of range");
  const Tensor grad = Tensor::FromVector<double>({1, 2}, {2, 1});
  EXPECT_INVALID(RunKernel("SparseSegmentMeanGrad", {grad, Ints({0}), Ints({2}), IntScalar(3)}),
                 "segment_ids[0] = 2 is out of range [0, 2)");
  EXPECT_INVALID(RunKernel("SparseSegmentSumGrad", {grad, Ints({3}), Ints({0}), IntScalar(3)}),
                 "indices[0] = 3 is not in [0, 3)");
  EXPECT_INVALID(RunKernel("SparseSegmentSqrtNGrad", {grad, Ints({0}), Ints({0}), IntScalar(-2)}),
                 "output_dim0 = -2 must not be negative");
  EXPECT_INVALID(RunKernel("SparseSegmentSqrtNGrad", {grad, Ints({0}), Ints({0}), Ints({3})}),
                 "output_dim0 must be a scalar");
}

BOOST_AUTO_TEST_CASE(mean_and_sqrtn_take_only_floating_types) {
  KernelRunner r("SparseSegmentMean");
  r.Input(Tensor::FromVector<int32_t>({1, 2})).Input(Ints({0})).Input(Ints({0}));
  BOOST_CHECK(!r.Run().ok());
}

BOOST_AUTO_TEST_CASE(shape_functions_follow_tensorflow) {
  std::vector<PartialTensorShape> out;
  AF_REQUIRE_OK(
      Infer("SparseSegmentSum",
            {PartialTensorShape({5, 3, -1}), PartialTensorShape({4}), PartialTensorShape({-1})}, {},
            &out));
  BOOST_CHECK(out[0] == PartialTensorShape({-1, 3, -1}));
  const Tensor num = Tensor::Scalar<int32_t>(7);
  AF_REQUIRE_OK(Infer("SparseSegmentMeanWithNumSegments",
                      {PartialTensorShape({5, 3}), PartialTensorShape({4}), PartialTensorShape({4}),
                       PartialTensorShape({})},
                      {nullptr, nullptr, nullptr, &num}, &out));
  BOOST_CHECK(out[0] == PartialTensorShape({7, 3}));
  const Tensor dim0 = Tensor::Scalar<int32_t>(9);
  AF_REQUIRE_OK(Infer("SparseSegmentSqrtNGrad",
                      {PartialTensorShape({2, 3}), PartialTensorShape({4}), PartialTensorShape({4}),
                       PartialTensorShape({})},
                      {nullptr, nullptr, nullptr, &dim0}, &out));
  BOOST_CHECK(out[0] == PartialTensorShape({9, 3}));
  Status bad =
      Infer("SparseSegmentSum",
            {PartialTensorShape({5}), PartialTensorShape({4}), PartialTensorShape({3})}, {}, &out);
  BOOST_CHECK_MESSAGE(!bad.ok() && Contains(bad.message(), "node 'n'"), bad.ToString());
  const Tensor negative = Tensor::Scalar<int32_t>(-1);
  bad = Infer("SparseSegmentSumWithNumSegments",
              {PartialTensorShape({5}), PartialTensorShape({4}), PartialTensorShape({4}),
               PartialTensorShape({})},
              {nullptr, nullptr, nullptr, &negative}, &out);
  BOOST_CHECK_MESSAGE(Contains(bad.message(), "Cannot specify a negative value for num_segments"),
                      bad.ToString());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
