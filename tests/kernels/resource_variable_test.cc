// Resource variables at the kernel level: handles, creation by the first
// assignment, TensorFlow's errors (uninitialized, dtype, shape, destroyed,
// other device), reads that never change after an update, gathers and
// scatters against reference loops, and the fused optimizer updates
// against double-precision references.
#include <cmath>
#include <string>
#include <vector>

#include "core/resource_handle.h"
#include "core/resource_mgr.h"
#include "core/resource_variable.h"
#include "tests/kernels/state_test_util.h"
#include "tests/test_util.h"

namespace af::test {
namespace {

using testing::Contains;

constexpr const char* kContainer = "resource_variable_test";

// Each case starts with an empty container and leaves none behind.
struct CleanContainer {
  CleanContainer() { TestDeviceResourceMgr()->Cleanup(kContainer).ok(); }
  ~CleanContainer() { TestDeviceResourceMgr()->Cleanup(kContainer).ok(); }
};

Tensor Handle(const std::string& shared_name, DataType dtype = DT_FLOAT,
              const std::string& node = "v") {
  KernelRunner r("VarHandleOp", node);
  r.Attr("dtype", dtype)
      .Attr("shape", PartialTensorShape())
      .Attr("container", kContainer)
      .Attr("shared_name", shared_name);
  auto out = r.Run();
  BOOST_REQUIRE_MESSAGE(out.ok(), out.status().ToString());
  return (*out)[0];
}

Status Assign(const Tensor& handle, Tensor value, bool validate_shape = false) {
  KernelRunner r("AssignVariableOp", "assign");
  r.Attr("validate_shape", validate_shape).Input(handle).Input(std::move(value));
  return r.Run().status();
}

StatusOr<Tensor> Read(const Tensor& handle, DataType dtype = DT_FLOAT) {
  KernelRunner r("ReadVariableOp", "read");
  r.Attr("dtype", dtype).Input(handle);
  auto out = r.Run();
  if (!out.ok()) return out.status();
  return (*out)[0];
}

// Runs `op` on (handle, inputs...) and returns its status.
Status Update(const std::string& op, const Tensor& handle, std::vector<Tensor> inputs) {
  KernelRunner r(op, "update");
  r.Input(handle);
  for (Tensor& t : inputs) r.Input(std::move(t));
  return r.Run().status();
}

bool IsInitialized(const Tensor& handle) {
  KernelRunner r("VarIsInitializedOp", "is_init");
  r.Input(handle);
  auto out = r.Run();
  BOOST_REQUIRE_MESSAGE(out.ok(), out.status().ToString());
  return (*out)[0].scalar<bool>();
}

BOOST_AUTO_TEST_SUITE(resource_variables)

BOOST_AUTO_TEST_CASE(handle_names_the_variable_and_an_empty_shared_name_means_the_node) {
  CleanContainer clean;
  const Tensor h = Handle("w");
  BOOST_TEST(h.dtype() == DT_RESOURCE);
  const ResourceHandle* named = nullptr;
  AF_REQUIRE_OK(GetResourceHandle(h, "h", &named));
  BOOST_TEST(named->name == "w");
  BOOST_TEST(named->container == kContainer);
  BOOST_TEST(named->device == TestCpuDevice().name());
  const Tensor anonymous = Handle("", DT_FLOAT, "my_node");
  AF_REQUIRE_OK(GetResourceHandle(anonymous, "h", &named));
  BOOST_TEST(named->name == "my_node");
  // A handle alone creates nothing.
  BOOST_TEST(!IsInitialized(h));
}

BOOST_AUTO_TEST_CASE(reading_before_any_assignment_is_failed_precondition_naming_it) {
  CleanContainer clean;
  auto r = Read(Handle("never_assigned"));
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(r.status().code() == Code::FAILED_PRECONDITION);
  BOOST_TEST(Contains(r.status(), "uninitialized"), r.status());
  BOOST_TEST(Contains(r.status(), "never_assigned"), r.status());
  BOOST_TEST(Contains(r.status(), "node 'read' (op 'ReadVariableOp')"), r.status());
}

BOOST_AUTO_TEST_CASE(assign_creates_and_read_shares_the_value) {
  CleanContainer clean;
  const Tensor h = Handle("w");
  AF_REQUIRE_OK(Assign(h, Tensor::FromVector<float>({1, 2, 3})));
  BOOST_TEST(IsInitialized(h));
  auto a = Read(h);
  auto b = Read(h);
  AF_REQUIRE_OK(a.status());
  AF_REQUIRE_OK(b.status());
  AF_EXPECT_OK(CheckTensor(*a, DT_FLOAT, {3}, {1, 2, 3}));
  // No copy per read.
  BOOST_TEST(a->SharesBufferWith(*b));
  ResourceRef<ResourceVariable> var;
  AF_REQUIRE_OK(TestDeviceResourceMgr()->Lookup<ResourceVariable>(kContainer, "w", &var));
  BOOST_TEST(var->dtype() == DT_FLOAT);
}

BOOST_AUTO_TEST_CASE(a_value_read_earlier_never_changes) {
  CleanContainer clean;
  const Tensor h = Handle("w");
  AF_REQUIRE_OK(Assign(h, Tensor::FromVector<float>({1, 2})));
  auto before = Read(h);
  AF_REQUIRE_OK(before.status());
  AF_REQUIRE_OK(Update("AssignAddVariableOp", h, {Tensor::FromVector<float>({10, 20})}));
  AF_EXPECT_OK(CheckTensor(*before, DT_FLOAT, {2}, {1, 2}));
  auto after_add = Read(h);
  AF_EXPECT_OK(CheckTensor(*after_add, DT_FLOAT, {2}, {11, 22}));
  BOOST_TEST(!after_add->SharesBufferWith(*before));

  // The same for a full assignment, a scatter and an optimizer step.
  AF_REQUIRE_OK(Assign(h, Tensor::FromVector<float>({5, 6})));
  AF_EXPECT_OK(CheckTensor(*after_add, DT_FLOAT, {2}, {11, 22}));
  auto after_assign = Read(h);
  AF_REQUIRE_OK(Update("ResourceScatterAdd", h,
                       {Tensor::FromVector<int32_t>({1}), Tensor::FromVector<float>({1})}));
  AF_EXPECT_OK(CheckTensor(*after_assign, DT_FLOAT, {2}, {5, 6}));
  auto after_scatter = Read(h);
  AF_REQUIRE_OK(Update("ResourceApplyGradientDescent", h,
                       {Tensor::Scalar<float>(1), Tensor::FromVector<float>({1, 1})}));
  AF_EXPECT_OK(CheckTensor(*after_scatter, DT_FLOAT, {2}, {5, 7}));
  AF_EXPECT_OK(CheckTensor(*Read(h), DT_FLOAT, {2}, {4, 6}));
}

BOOST_AUTO_TEST_CASE(an_update_nobody_shares_happens_in_place) {
  CleanContainer clean;
  const Tensor h = Handle("w");
  AF_REQUIRE_OK(Assign(h, Tensor::FromVector<float>({1, 2})));
  ResourceRef<ResourceVariable> var;
  AF_REQUIRE_OK(TestDeviceResourceMgr()->Lookup<ResourceVariable>(kContainer, "w", &var));
  const void* storage = var->tensor()->raw_data();
  AF_REQUIRE_OK(Update("AssignSubVariableOp", h, {Tensor::FromVector<float>({1, 1})}));
  BOOST_TEST(var->tensor()->raw_data() == storage);
  AF_EXPECT_OK(CheckTensor(*Read(h), DT_FLOAT, {2}, {0, 1}));
}

BOOST_AUTO_TEST_CASE(dtype_mismatches_are_invalid_argument) {
  CleanContainer clean;
  const Tensor h = Handle("w");
  AF_REQUIRE_OK(Assign(h, Tensor::FromVector<float>({1})));
  Status s = Assign(h, Tensor::FromVector<int32_t>({1}));
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s, "float"), s);
  auto r = Read(h, DT_INT32);
  BOOST_TEST(r.status().code() == Code::INVALID_ARGUMENT);
  s = Update("AssignAddVariableOp", h, {Tensor::FromVector<double>({1})});
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  // The variable is as it was.
  AF_EXPECT_OK(CheckTensor(*Read(h), DT_FLOAT, {1}, {1}));
}

BOOST_AUTO_TEST_CASE(assign_may_change_the_shape_unless_validate_shape) {
  CleanContainer clean;
  const Tensor h = Handle("w");
  AF_REQUIRE_OK(Assign(h, Tensor::FromVector<float>({1, 2})));
  AF_REQUIRE_OK(Assign(h, Tensor::FromVector<float>({1, 2, 3}, {3, 1})));
  AF_EXPECT_OK(CheckTensor(*Read(h), DT_FLOAT, {3, 1}, {1, 2, 3}));
  Status s = Assign(h, Tensor::FromVector<float>({4, 5}), /*validate_shape=*/true);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s, "wrong shape"), s);
  AF_REQUIRE_OK(Assign(h, Tensor::FromVector<float>({7, 8, 9}, {3, 1}), true));
  AF_EXPECT_OK(CheckTensor(*Read(h), DT_FLOAT, {3, 1}, {7, 8, 9}));
  s = Update("AssignAddVariableOp", h, {Tensor::FromVector<float>({1, 1})});
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s, "shapes must be equal"), s);
}

BOOST_AUTO_TEST_CASE(destroy_removes_the_variable) {
  CleanContainer clean;
  const Tensor h = Handle("w");
  AF_REQUIRE_OK(Assign(h, Tensor::FromVector<float>({1})));
  auto held = Read(h);
  AF_REQUIRE_OK(Update("DestroyResourceOp", h, {}));
  BOOST_TEST(!IsInitialized(h));
  auto r = Read(h);
  BOOST_TEST(r.status().code() == Code::FAILED_PRECONDITION);
  // What was read before stays readable.
  AF_EXPECT_OK(CheckTensor(*held, DT_FLOAT, {1}, {1}));
  // Destroying it again: fine by default, NOT_FOUND when asked.
  AF_EXPECT_OK(Update("DestroyResourceOp", h, {}));
  KernelRunner strict("DestroyResourceOp", "strict");
  strict.Attr("ignore_lookup_error", false).Input(h);
  BOOST_TEST(strict.Run().status().code() == Code::NOT_FOUND);
}

BOOST_AUTO_TEST_CASE(a_handle_of_another_device_or_type_is_refused) {
  CleanContainer clean;
  ResourceHandle elsewhere;
  elsewhere.device = "/job:localhost/replica:0/task:0/device:CPU:7";
  elsewhere.container = kContainer;
  elsewhere.name = "w";
  elsewhere.maybe_type_name = ResourceVariable::kTypeName;
  elsewhere.hash_code = ResourceTypeHash(ResourceVariable::kTypeName);
  Status s = Assign(MakeResourceHandleTensor(elsewhere), Tensor::FromVector<float>({1}));
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s, "CPU:7"), s);
  ResourceHandle queue = elsewhere;
  queue.device = TestCpuDevice().name();
  queue.maybe_type_name = "FIFOQueue";
  queue.hash_code = ResourceTypeHash("FIFOQueue");
  s = Read(MakeResourceHandleTensor(queue)).status();
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s, "not a resource variable"), s);
}

BOOST_AUTO_TEST_CASE(two_handles_with_one_shared_name_share_the_variable) {
  CleanContainer clean;
  const Tensor a = Handle("shared", DT_FLOAT, "a");
  const Tensor b = Handle("shared", DT_FLOAT, "b");
  AF_REQUIRE_OK(Assign(a, Tensor::FromVector<float>({3})));
  AF_REQUIRE_OK(Update("AssignAddVariableOp", b, {Tensor::FromVector<float>({4})}));
  AF_EXPECT_OK(CheckTensor(*Read(a), DT_FLOAT, {1}, {7}));
}

BOOST_AUTO_TEST_CASE(variable_shape_reports_the_current_shape) {
  CleanContainer clean;
  const Tensor h = Handle("w");
  AF_REQUIRE_OK(Assign(h, Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3})));
  KernelRunner r("VariableShape", "shape");
  r.Attr("out_type", DT_INT64).Input(h);
  auto out = r.Run();
  AF_REQUIRE_OK(out.status());
  AF_EXPECT_OK(CheckTensor((*out)[0], DT_INT64, {2}, {2, 3}));
}

BOOST_AUTO_TEST_CASE(gather_matches_a_reference_loop) {
  CleanContainer clean;
  const Tensor h = Handle("table");
  const Tensor table = RandomTensor<float>({5, 3}, 7);
  AF_REQUIRE_OK(Assign(h, table));
  const std::vector<int64_t> ids = {4, 0, 4, 2};
  KernelRunner r("ResourceGather", "gather");
  r.Attr("dtype", DT_FLOAT).Input(h).Input(Tensor::FromVector<int64_t>(ids, {2, 2}));
  auto out = r.Run();
  AF_REQUIRE_OK(out.status());
  std::vector<double> want;
  for (int64_t id : ids)
    for (int j = 0; j < 3; ++j) want.push_back(table.data<float>()[id * 3 + j]);
  AF_EXPECT_OK(CheckTensor((*out)[0], DT_FLOAT, {2, 2, 3}, want));

  KernelRunner bad("ResourceGather", "bad_gather");
  bad.Attr("dtype", DT_FLOAT).Input(h).Input(Tensor::FromVector<int32_t>({1, 5}));
  Status s = bad.Run().status();
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s, "indices[1] = 5 is not in [0, 5)"), s);
}

BOOST_AUTO_TEST_CASE(gather_with_batch_dims_gathers_within_each_batch) {
  CleanContainer clean;
  const Tensor h = Handle("batched");
  const Tensor table = RandomTensor<float>({2, 3, 2}, 9);
  AF_REQUIRE_OK(Assign(h, table));
  const std::vector<int32_t> ids = {2, 0, 1, 1};
  std::vector<double> want;
  for (int b = 0; b < 2; ++b)
    for (int k = 0; k < 2; ++k)
      for (int j = 0; j < 2; ++j)
        want.push_back(table.data<float>()[(b * 3 + ids[b * 2 + k]) * 2 + j]);
  for (int64_t batch_dims : {1, -1}) {
    KernelRunner r("ResourceGather", "gather");
    r.Attr("dtype", DT_FLOAT)
        .Attr("batch_dims", batch_dims)
        .Input(h)
        .Input(Tensor::FromVector<int32_t>(ids, {2, 2}));
    auto out = r.Run();
    AF_REQUIRE_OK(out.status());
    AF_EXPECT_OK(CheckTensor((*out)[0], DT_FLOAT, {2, 2, 2}, want));
  }
  KernelRunner bad("ResourceGather", "bad_batch");
  bad.Attr("dtype", DT_FLOAT)
      .Attr("batch_dims", int64_t{1})
      .Input(h)
      .Input(Tensor::FromVector<int32_t>({0, 0, 0}, {3, 1}));
  Status s = bad.Run().status();
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s, "batch dimensions must match"), s);
}

BOOST_AUTO_TEST_CASE(scatter_add_sums_duplicates_and_scatter_update_overwrites) {
  CleanContainer clean;
  const Tensor h = Handle("w", DT_DOUBLE);
  AF_REQUIRE_OK(Assign(h, Tensor::FromVector<double>({0, 0, 1, 1, 2, 2}, {3, 2})));
  AF_REQUIRE_OK(Update("ResourceScatterAdd", h,
                       {Tensor::FromVector<int32_t>({2, 0, 2}),
                        Tensor::FromVector<double>({1, 2, 3, 4, 5, 6}, {3, 2})}));
  AF_EXPECT_OK(CheckTensor(*Read(h, DT_DOUBLE), DT_DOUBLE, {3, 2}, {3, 4, 1, 1, 8, 10}));
  AF_REQUIRE_OK(
      Update("ResourceScatterUpdate", h,
             {Tensor::FromVector<int64_t>({1}), Tensor::FromVector<double>({9, 9}, {1, 2})}));
  AF_EXPECT_OK(CheckTensor(*Read(h, DT_DOUBLE), DT_DOUBLE, {3, 2}, {3, 4, 9, 9, 8, 10}));
  // A bad index changes nothing, even the rows before it.
  Status s = Update(
      "ResourceScatterAdd", h,
      {Tensor::FromVector<int32_t>({0, 3}), Tensor::FromVector<double>({1, 1, 1, 1}, {2, 2})});
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  AF_EXPECT_OK(CheckTensor(*Read(h, DT_DOUBLE), DT_DOUBLE, {3, 2}, {3, 4, 9, 9, 8, 10}));
  s = Update("ResourceScatterUpdate", h,
             {Tensor::FromVector<int32_t>({0}), Tensor::FromVector<double>({1, 1, 1}, {1, 3})});
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
}

BOOST_AUTO_TEST_CASE(momentum_and_adam_match_double_references) {
  CleanContainer clean;
  const int n = 6;
  const Tensor var0 = RandomTensor<double>({n}, 1), grad = RandomTensor<double>({n}, 2);
  const Tensor accum0 = RandomTensor<double>({n}, 3, 0.0, 1.0);
  const Tensor var = Handle("var", DT_DOUBLE, "var"), accum = Handle("accum", DT_DOUBLE, "accum");
  AF_REQUIRE_OK(Assign(var, var0));
  AF_REQUIRE_OK(Assign(accum, accum0));
  const double lr = 0.1, momentum = 0.9;
  AF_REQUIRE_OK(
      Update("ResourceApplyMomentum", var,
             {accum, Tensor::Scalar<double>(lr), grad, Tensor::Scalar<double>(momentum)}));
  std::vector<double> want_var, want_accum;
  for (int i = 0; i < n; ++i) {
    const double a = accum0.data<double>()[i] * momentum + grad.data<double>()[i];
    want_accum.push_back(a);
    want_var.push_back(var0.data<double>()[i] - lr * a);
  }
  AF_EXPECT_OK(CheckTensor(*Read(var, DT_DOUBLE), DT_DOUBLE, {n}, want_var, 1e-12));
  AF_EXPECT_OK(CheckTensor(*Read(accum, DT_DOUBLE), DT_DOUBLE, {n}, want_accum, 1e-12));

  const Tensor m = Handle("m", DT_DOUBLE, "m"), v = Handle("v", DT_DOUBLE, "v");
  const Tensor m0 = RandomTensor<double>({n}, 4), v0 = RandomTensor<double>({n}, 5, 0.0, 1.0);
  AF_REQUIRE_OK(Assign(var, var0));
  AF_REQUIRE_OK(Assign(m, m0));
  AF_REQUIRE_OK(Assign(v, v0));
  const double b1p = 0.9, b2p = 0.999, alr = 0.01, b1 = 0.9, b2 = 0.999, eps = 1e-8;
  AF_REQUIRE_OK(Update(
      "ResourceApplyAdam", var,
      {m, v, Tensor::Scalar<double>(b1p), Tensor::Scalar<double>(b2p), Tensor::Scalar<double>(alr),
       Tensor::Scalar<double>(b1), Tensor::Scalar<double>(b2), Tensor::Scalar<double>(eps), grad}));
  const double lr_t = alr * std::sqrt(1 - b2p) / (1 - b1p);
  std::vector<double> want_m, want_v, want_w;
  for (int i = 0; i < n; ++i) {
    const double g = grad.data<double>()[i];
    const double mi = m0.data<double>()[i] + (g - m0.data<double>()[i]) * (1 - b1);
    const double vi = v0.data<double>()[i] + (g * g - v0.data<double>()[i]) * (1 - b2);
    want_m.push_back(mi);
    want_v.push_back(vi);
    want_w.push_back(var0.data<double>()[i] - lr_t * mi / (std::sqrt(vi) + eps));
  }
  AF_EXPECT_OK(CheckTensor(*Read(m, DT_DOUBLE), DT_DOUBLE, {n}, want_m, 1e-12));
  AF_EXPECT_OK(CheckTensor(*Read(v, DT_DOUBLE), DT_DOUBLE, {n}, want_v, 1e-12));
  AF_EXPECT_OK(CheckTensor(*Read(var, DT_DOUBLE), DT_DOUBLE, {n}, want_w, 1e-12));
}

BOOST_AUTO_TEST_CASE(apply_checks_shapes_and_initialization) {
  CleanContainer clean;
  const Tensor h = Handle("w");
  Status s = Update("ResourceApplyGradientDescent", h,
                    {Tensor::Scalar<float>(1), Tensor::FromVector<float>({1})});
  BOOST_TEST(s.code() == Code::FAILED_PRECONDITION);
  AF_REQUIRE_OK(Assign(h, Tensor::FromVector<float>({1, 2})));
  s = Update("ResourceApplyGradientDescent", h,
             {Tensor::Scalar<float>(1), Tensor::FromVector<float>({1})});
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s, "delta"), s);
  s = Update("ResourceApplyGradientDescent", h,
             {Tensor::FromVector<float>({1, 1}), Tensor::FromVector<float>({1, 1})});
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s, "alpha is not a scalar"), s);
  AF_EXPECT_OK(CheckTensor(*Read(h), DT_FLOAT, {2}, {1, 2}));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
