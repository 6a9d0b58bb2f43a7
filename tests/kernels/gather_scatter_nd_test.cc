// GatherNd, ScatterNd and the variable updates ScatterNdUpdate/Add/Sub
// against reference loops (gathers bit for bit over every element size,
// scatters in double), their bad-index policy, shape functions and errors.
#include <random>
#include <string>
#include <vector>

#include "core/op_registry.h"
#include "core/shape_inference.h"
#include "tests/kernels/array_test_util.h"
#include "tests/kernels/state_test_util.h"

namespace af::test {
namespace {

#define EXPECT_INVALID(out, text)                                                                 \
  do {                                                                                            \
    const auto& af_out_ = (out);                                                                  \
    BOOST_REQUIRE(!af_out_.ok());                                                                 \
    BOOST_CHECK_EQUAL(af_out_.status().code(), Code::INVALID_ARGUMENT);                           \
    BOOST_CHECK_MESSAGE(Contains(af_out_.status().message(), text), af_out_.status().ToString()); \
  } while (0)

// An index tensor of `shape` in int16, int32 or int64.
Tensor Indices(const std::vector<int64_t>& values, const TensorShape& shape, DataType dtype) {
  if (dtype != DT_INT16) return IntsOfShape(values, shape, dtype);
  Tensor t(DT_INT16, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i)
    t.data<int16_t>()[i] = static_cast<int16_t>(values[static_cast<size_t>(i)]);
  return t;
}

// A random index problem against `target`: rows_shape + [k] coordinates,
// each in range, so slices repeat as often as chance has it.
struct NdProblem {
  TensorShape indices_shape, slices_shape;  // indices; rows + target[k:]
  std::vector<int64_t> coords;
  int64_t rows = 0, slice_size = 1;
};

NdProblem RandomNdProblem(std::mt19937& rng, const TensorShape& target, int k,
                          const TensorShape& rows_shape) {
  NdProblem p;
  p.indices_shape = rows_shape;
  p.indices_shape.AddDim(k);
  p.slices_shape = rows_shape;
  for (int d = k; d < target.dims(); ++d) {
    p.slices_shape.AddDim(target.dim_size(d));
    p.slice_size *= target.dim_size(d);
  }
  p.rows = rows_shape.num_elements();
  for (int64_t r = 0; r < p.rows; ++r)
    for (int d = 0; d < k; ++d)
      p.coords.push_back(static_cast<int64_t>(rng() % static_cast<uint64_t>(target.dim_size(d))));
  return p;
}

// The first flat position in `target` of row r's slice.
int64_t SliceStart(const NdProblem& p, const TensorShape& target, int64_t r) {
  const int k = static_cast<int>(p.indices_shape.dim_size(p.indices_shape.dims() - 1));
  std::vector<int64_t> index(static_cast<size_t>(target.dims()), 0);
  for (int d = 0; d < k; ++d)
    index[static_cast<size_t>(d)] = p.coords[static_cast<size_t>(r * k + d)];
  return Flatten(target, index);
}

// Runs `op`'s shape function on a node named "n".
Status Infer(const std::string& op, const std::vector<std::pair<std::string, DataType>>& types,
             std::vector<PartialTensorShape> inputs, std::vector<const Tensor*> tensors,
             std::vector<PartialTensorShape>* out) {
  tensorflow::NodeDef def;
  def.set_name("n");
  def.set_op(op);
  for (size_t i = 0; i < inputs.size(); ++i) def.add_input("in" + std::to_string(i));
  for (const auto& [name, t] : types) SetAttr(&def, name, t);
  const OpRegistrationData* reg = OpRegistry::Global()->LookUp(op);
  BOOST_REQUIRE(reg != nullptr);
  AddDefaultsToNodeDef(reg->op_def, &def);
  tensors.resize(inputs.size(), nullptr);
  return InferShapes(def, reg->op_def, reg->shape_fn, inputs, tensors, out);
}

BOOST_AUTO_TEST_SUITE(gather_scatter_nd)

BOOST_AUTO_TEST_CASE(gather_nd_matches_the_reference) {
  std::mt19937 rng(71);
  uint32_t seed = 1;
  for (int rank = 1; rank <= 4; ++rank) {
    for (int k = 0; k <= rank; ++k) {
      const TensorShape params = RandomShape(rng, rank, 1, 4);
      const TensorShape rows = RandomShape(rng, static_cast<int>(rng() % 3), 0, 3);
      const NdProblem p = RandomNdProblem(rng, params, k, rows);
      std::vector<int64_t> source;
      for (int64_t r = 0; r < p.rows; ++r)
        for (int64_t i = 0; i < p.slice_size; ++i) source.push_back(SliceStart(p, params, r) + i);
      for (DataType index_type : {DT_INT16, DT_INT32, DT_INT64}) {
        for (DataType dt : MovableTestTypes()) {
          BOOST_TEST_CONTEXT("params " << params.DebugString() << " indices "
                                       << p.indices_shape.DebugString() << " " << DataTypeString(dt)
                                       << " by " << DataTypeString(index_type)) {
            const Tensor in = RandomValues(dt, params, seed++);
            KernelRunner r("GatherNd");
            r.Input(in).Input(Indices(p.coords, p.indices_shape, index_type));
            auto out = r.Run();
            AF_REQUIRE_OK(out.status());
            AF_EXPECT_OK(CheckPicked((*out)[0], p.slices_shape, in, source));
          }
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(gather_nd_tensorflow_examples) {
  Tensor params(DT_STRING, TensorShape{2, 2, 2});
  const std::vector<std::string> names = {"a0", "b0", "c0", "d0", "a1", "b1", "c1", "d1"};
  for (int i = 0; i < 8; ++i) params.data<std::string>()[i] = names[static_cast<size_t>(i)];
  auto out = RunKernel("GatherNd", {params, IntsOfShape({0, 1, 1, 0}, {2, 2})});
  AF_REQUIRE_OK(out.status());
  BOOST_REQUIRE((*out)[0].shape() == TensorShape({2, 2}));
  const std::string* s = (*out)[0].data<std::string>();
  BOOST_CHECK(s[0] == "c0" && s[1] == "d0" && s[2] == "a1" && s[3] == "b1");
  out = RunKernel("GatherNd", {params, IntsOfShape({0, 0, 1, 1, 0, 1}, {2, 3})});
  AF_REQUIRE_OK(out.status());
  BOOST_REQUIRE((*out)[0].shape() == TensorShape({2}));
  BOOST_CHECK((*out)[0].data<std::string>()[0] == "b0");
  BOOST_CHECK((*out)[0].data<std::string>()[1] == "b1");
}

BOOST_AUTO_TEST_CASE(gather_nd_names_a_bad_index_or_ignores_it_when_asked) {
  const Tensor params = Tensor::FromVector<float>({1, 2, 3, 4}, {2, 2});
  {
    KernelRunner r("GatherNd", "g");
    r.Input(params).Input(IntsOfShape({0, 0, 2, 0}, {2, 2}));
    EXPECT_INVALID(r.Run(), "node 'g' (op 'GatherNd'): indices[1] = [2, 0] does not index into "
                            "params shape [2,2]");
  }
  {
    KernelRunner r("GatherNd");
    r.Input(params).Input(IntsOfShape({-1}, {1, 1}, DT_INT64));
    EXPECT_INVALID(r.Run(), "indices[0] = [-1] does not index into params shape [2,2]");
  }
  {
    KernelRunner r("GatherNd");
    r.Attr("bad_indices_policy", std::string("IGNORE"));
    r.Input(params).Input(IntsOfShape({1, 5, 0}, {3, 1}));
    auto out = r.Run();
    AF_REQUIRE_OK(out.status());
    AF_EXPECT_OK(CheckTensor((*out)[0], DT_FLOAT, {3, 2}, {3, 4, 0, 0, 1, 2}));
  }
  {
    KernelRunner r("GatherNd");
    r.Attr("bad_indices_policy", std::string("SOMETIMES"));
    r.Input(params).Input(IntsOfShape({0}, {1, 1}));
    EXPECT_INVALID(r.Run(), "bad_indices_policy must be");
  }
}

BOOST_AUTO_TEST_CASE(gather_nd_rejects_bad_shapes) {
  const Tensor params = Tensor::FromVector<float>({1, 2, 3, 4}, {2, 2});
  EXPECT_INVALID(RunKernel("GatherNd", {Tensor::Scalar<float>(1), IntsOfShape({0}, {1, 1})}),
                 "params must be at least a vector");
  EXPECT_INVALID(RunKernel("GatherNd", {params, IntScalar(0)}),
                 "indices must be at least a vector");
  EXPECT_INVALID(RunKernel("GatherNd", {params, IntsOfShape({0, 0, 0}, {1, 3})}),
                 "indices.shape[-1] must be <= params.rank");
}

template <typename T>
void CheckScatterNd(std::mt19937& rng, uint32_t seed) {
  const DataType dt = DataTypeToEnum<T>::value;
  for (int rank = 1; rank <= 3; ++rank) {
    for (int k = 1; k <= rank; ++k) {
      const TensorShape shape = RandomShape(rng, rank, 1, 4);
      // More rows than slices: repeats that must add up.
      const NdProblem p = RandomNdProblem(rng, shape, k, TensorShape{6});
      const Tensor updates = RandomTensor<T>(p.slices_shape, seed++, -10, 10);
      std::vector<double> want(static_cast<size_t>(shape.num_elements()), 0.0);
      for (int64_t r = 0; r < p.rows; ++r)
        for (int64_t i = 0; i < p.slice_size; ++i)
          want[static_cast<size_t>(SliceStart(p, shape, r) + i)] +=
              ValueAsDouble(updates, r * p.slice_size + i);
      for (DataType index_type : {DT_INT16, DT_INT32, DT_INT64}) {
        BOOST_TEST_CONTEXT("ScatterNd<" << DataTypeString(dt) << "> shape " << shape.DebugString()
                                        << " k " << k << " by " << DataTypeString(index_type)) {
          KernelRunner r("ScatterNd");
          r.Input(Indices(p.coords, p.indices_shape, index_type)).Input(updates);
          r.Input(Indices(shape.dim_vector(), TensorShape{rank}, index_type));
          auto out = r.Run();
          AF_REQUIRE_OK(out.status());
          AF_EXPECT_OK(
              CheckTensor((*out)[0], dt, shape, want, Tolerance<T>() * 10, Tolerance<T>() * 10));
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(scatter_nd_sums_repeats_like_the_reference) {
  std::mt19937 rng(73);
  CheckScatterNd<float>(rng, 1);
  CheckScatterNd<double>(rng, 100);
  CheckScatterNd<int32_t>(rng, 200);
  CheckScatterNd<int64_t>(rng, 300);
}

BOOST_AUTO_TEST_CASE(scatter_nd_tensorflow_example_and_errors) {
  const Tensor updates = Tensor::FromVector<int32_t>({9, 10, 11, 12});
  auto out = RunKernel("ScatterNd", {IntsOfShape({4, 3, 1, 7}, {4, 1}), updates, Ints({8})});
  AF_REQUIRE_OK(out.status());
  AF_EXPECT_OK(CheckTensor((*out)[0], DT_INT32, {8}, {0, 11, 0, 10, 9, 0, 0, 12}));
  {
    KernelRunner r("ScatterNd", "sc");
    r.Input(IntsOfShape({4, 8}, {2, 1}))
        .Input(Tensor::FromVector<int32_t>({1, 2}))
        .Input(Ints({8}));
    EXPECT_INVALID(r.Run(),
                   "node 'sc' (op 'ScatterNd'): indices[1] = [8] does not index into output "
                   "shape [8]");
  }
  {
    KernelRunner r("ScatterNd");
    r.Attr("bad_indices_policy", std::string("IGNORE"));
    r.Input(IntsOfShape({4, 8}, {2, 1}))
        .Input(Tensor::FromVector<int32_t>({1, 2}))
        .Input(Ints({8}));
    out = r.Run();
    AF_REQUIRE_OK(out.status());
    AF_EXPECT_OK(CheckTensor((*out)[0], DT_INT32, {8}, {0, 0, 0, 0, 1, 0, 0, 0}));
  }
  EXPECT_INVALID(RunKernel("ScatterNd", {IntsOfShape({1}, {1, 1}), updates, Ints({8})}),
                 "updates.shape [4] must be indices.shape[:-1] + shape.shape[indices.shape[-1]:] "
                 "= [1]");
  EXPECT_INVALID(RunKernel("ScatterNd", {IntsOfShape({1}, {1, 1}), Tensor::FromVector<int32_t>({1}),
                                         IntScalar(8)}),
                 "shape must be a vector");
  EXPECT_INVALID(RunKernel("ScatterNd", {IntsOfShape({1}, {1, 1}), Tensor::FromVector<int32_t>({1}),
                                         Ints({-2})}),
                 "-2");
  EXPECT_INVALID(RunKernel("ScatterNd", {IntsOfShape({1, 1}, {1, 2}),
                                         Tensor::FromVector<int32_t>({1}), Ints({8})}),
                 "indices.shape[-1] must be <= shape.rank");
}

enum class Update { kSet, kAdd, kSub };

template <typename T, typename Index>
void CheckVariableScatterNd(Update kind, const char* op) {
  BOOST_TEST_CONTEXT(op << "<" << DataTypeString(DataTypeToEnum<T>::value) << ", "
                        << DataTypeString(DataTypeToEnum<Index>::value) << ">") {
    TestVariable v(DataTypeToEnum<T>::value, std::string("scatter_nd_") + op);
    const Tensor initial = RandomTensor<T>({3, 2, 2}, 5, -10, 10);
    BOOST_REQUIRE(v.Assign(initial.DeepCopy()).ok());
    // Slice [1, 0] twice: adds accumulate, the last update wins.
    const std::vector<Index> idx = {1, 0, 2, 1, 1, 0};
    const Tensor updates = RandomTensor<T>({3, 2}, 6, -10, 10);
    KernelRunner r(op);
    r.RefInput(v.storage(), v.mu()).Input(Tensor::FromVector<Index>(idx, {3, 2})).Input(updates);
    auto out = r.Run();
    AF_REQUIRE_OK(out.status());
    BOOST_TEST((*out)[0].SharesBufferWith(*v.storage()));
    std::vector<double> want(12);
    for (int i = 0; i < 12; ++i) want[static_cast<size_t>(i)] = ValueAsDouble(initial, i);
    for (size_t row = 0; row < 3; ++row) {
      const int64_t start = (static_cast<int64_t>(idx[2 * row]) * 2 + idx[2 * row + 1]) * 2;
      for (int64_t j = 0; j < 2; ++j) {
        double& w = want[static_cast<size_t>(start + j)];
        const double u = ValueAsDouble(updates, static_cast<int64_t>(row) * 2 + j);
        if (kind == Update::kSet) w = u;
        if (kind == Update::kAdd) w += u;
        if (kind == Update::kSub) w -= u;
      }
    }
    AF_EXPECT_OK(CheckTensor(v.Value(), DataTypeToEnum<T>::value, {3, 2, 2}, want, 1e-6, 1e-6));
  }
}

template <typename T>
void CheckAllVariableScatterNds() {
  CheckVariableScatterNd<T, int32_t>(Update::kSet, "ScatterNdUpdate");
  CheckVariableScatterNd<T, int64_t>(Update::kSet, "ScatterNdUpdate");
  CheckVariableScatterNd<T, int32_t>(Update::kAdd, "ScatterNdAdd");
  CheckVariableScatterNd<T, int64_t>(Update::kAdd, "ScatterNdAdd");
  CheckVariableScatterNd<T, int32_t>(Update::kSub, "ScatterNdSub");
  CheckVariableScatterNd<T, int64_t>(Update::kSub, "ScatterNdSub");
}

BOOST_AUTO_TEST_CASE(variable_updates_match_the_reference) {
  CheckAllVariableScatterNds<float>();
  CheckAllVariableScatterNds<double>();
  CheckAllVariableScatterNds<int32_t>();
  CheckAllVariableScatterNds<int64_t>();
}

BOOST_AUTO_TEST_CASE(variable_update_defaults_follow_tensorflow) {
  const OpRegistrationData* update = OpRegistry::Global()->LookUp("ScatterNdUpdate");
  const OpRegistrationData* add = OpRegistry::Global()->LookUp("ScatterNdAdd");
  BOOST_REQUIRE(update != nullptr && add != nullptr);
  tensorflow::NodeDef a, b;
  AddDefaultsToNodeDef(update->op_def, &a);
  AddDefaultsToNodeDef(add->op_def, &b);
  bool lock_update = false, lock_add = true;
  AF_REQUIRE_OK(GetNodeAttr(a, "use_locking", &lock_update));
  AF_REQUIRE_OK(GetNodeAttr(b, "use_locking", &lock_add));
  BOOST_TEST(lock_update);
  BOOST_TEST(!lock_add);
}

BOOST_AUTO_TEST_CASE(a_bad_index_leaves_the_variable_unchanged) {
  TestVariable v(DT_FLOAT, "scatter_nd_range");
  BOOST_REQUIRE(v.Assign(Tensor::FromVector<float>({1, 2, 3, 4}, {2, 2})).ok());
  KernelRunner r("ScatterNdAdd", "add");
  // The valid first row must not be applied either.
  r.RefInput(v.storage(), v.mu())
      .Input(Tensor::FromVector<int64_t>({0, 0, 0, 2}, {2, 2}))
      .Input(Tensor::FromVector<float>({9, 9}));
  EXPECT_INVALID(r.Run(),
                 "node 'add' (op 'ScatterNdAdd'): indices[1] = [0, 2] does not index into ref "
                 "shape [2,2]");
  AF_EXPECT_OK(CheckTensor(v.Value(), DT_FLOAT, {2, 2}, {1, 2, 3, 4}));

  KernelRunner ignore("ScatterNdUpdate");
  ignore.Attr("bad_indices_policy", std::string("IGNORE"));
  ignore.RefInput(v.storage(), v.mu())
      .Input(Tensor::FromVector<int32_t>({1, 5}, {2, 1}))
      .Input(Tensor::FromVector<float>({7, 8, 9, 9}, {2, 2}));
  AF_REQUIRE_OK(ignore.Run().status());
  AF_EXPECT_OK(CheckTensor(v.Value(), DT_FLOAT, {2, 2}, {1, 2, 7, 8}));
}

BOOST_AUTO_TEST_CASE(variable_update_errors) {
  TestVariable v(DT_FLOAT, "scatter_nd_errors");
  KernelRunner uninit("ScatterNdUpdate");
  uninit.RefInput(v.storage(), v.mu())
      .Input(Tensor::FromVector<int32_t>({0}, {1, 1}))
      .Input(Tensor::FromVector<float>({1}));
  BOOST_TEST(uninit.Run().status().code() == Code::FAILED_PRECONDITION);

  BOOST_REQUIRE(v.Assign(Tensor::FromVector<float>({1, 2, 3, 4}, {2, 2})).ok());
  KernelRunner r("ScatterNdSub");
  r.RefInput(v.storage(), v.mu())
      .Input(Tensor::FromVector<int32_t>({0}, {1, 1}))
      .Input(Tensor::FromVector<float>({1, 2, 3}, {1, 3}));
  EXPECT_INVALID(r.Run(), "updates.shape [1,3] must be indices.shape[:-1] + "
                          "ref.shape[indices.shape[-1]:] = [1,2]");
  KernelRunner deep("ScatterNdUpdate");
  deep.RefInput(v.storage(), v.mu())
      .Input(Tensor::FromVector<int32_t>({0, 0, 0}, {1, 3}))
      .Input(Tensor::FromVector<float>({1}));
  EXPECT_INVALID(deep.Run(), "indices.shape[-1] must be <= ref.rank");
  AF_EXPECT_OK(CheckTensor(v.Value(), DT_FLOAT, {2, 2}, {1, 2, 3, 4}));
}

BOOST_AUTO_TEST_CASE(shape_functions_follow_tensorflow) {
  std::vector<PartialTensorShape> out;
  AF_REQUIRE_OK(Infer("GatherNd", {{"Tparams", DT_FLOAT}, {"Tindices", DT_INT32}},
                      {PartialTensorShape({4, 5, 6}), PartialTensorShape({-1, 3, 2})}, {}, &out));
  BOOST_CHECK(out[0] == PartialTensorShape({-1, 3, 6}));
  AF_REQUIRE_OK(Infer("GatherNd", {{"Tparams", DT_FLOAT}, {"Tindices", DT_INT32}},
                      {PartialTensorShape({4, 5}), PartialTensorShape({3, -1})}, {}, &out));
  BOOST_CHECK(out[0].unknown_rank());
  Status bad = Infer("GatherNd", {{"Tparams", DT_FLOAT}, {"Tindices", DT_INT32}},
                     {PartialTensorShape({4}), PartialTensorShape({3, 2})}, {}, &out);
  BOOST_CHECK_MESSAGE(Contains(bad.message(), "node 'n'") &&
                          Contains(bad.message(), "indices.shape[-1] must be <= params.rank"),
                      bad.ToString());

  const Tensor shape = Tensor::FromVector<int32_t>({8, 3});
  AF_REQUIRE_OK(
      Infer("ScatterNd", {{"T", DT_FLOAT}, {"Tindices", DT_INT32}},
            {PartialTensorShape({5, 1}), PartialTensorShape({5, 3}), PartialTensorShape({2})},
            {nullptr, nullptr, &shape}, &out));
  BOOST_CHECK(out[0] == PartialTensorShape({8, 3}));
  AF_REQUIRE_OK(Infer(
      "ScatterNd", {{"T", DT_FLOAT}, {"Tindices", DT_INT32}},
      {PartialTensorShape({5, 1}), PartialTensorShape({5, 3}), PartialTensorShape({2})}, {}, &out));
  BOOST_CHECK(out[0] == PartialTensorShape::UnknownOfRank(2));
  bad = Infer("ScatterNd", {{"T", DT_FLOAT}, {"Tindices", DT_INT32}},
              {PartialTensorShape({5, 1}), PartialTensorShape({4, 3}), PartialTensorShape({2})},
              {nullptr, nullptr, &shape}, &out);
  BOOST_CHECK_MESSAGE(Contains(bad.message(), "updates.shape [4,3]"), bad.ToString());

  bad = Infer("ScatterNdUpdate", {{"T", DT_FLOAT}, {"Tindices", DT_INT32}},
              {PartialTensorShape({4, 3}), PartialTensorShape({2, 1}), PartialTensorShape({2, 4})},
              {}, &out);
  BOOST_CHECK_MESSAGE(Contains(bad.message(), "ref.shape[indices.shape[-1]:] = [2,3]"),
                      bad.ToString());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
