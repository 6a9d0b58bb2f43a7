// Variables: creation in containers, sharing by name, Assign and its
// shape rules, the uninitialized-value error, and locked concurrent updates.
#include <string>
#include <thread>
#include <vector>

#include "core/resource_mgr.h"
#include "core/variable.h"
#include "tests/kernels/state_test_util.h"
#include "tests/test_util.h"

namespace af::test {
namespace {

using testing::Contains;

BOOST_AUTO_TEST_SUITE(state_variables)

BOOST_AUTO_TEST_CASE(variable_starts_uninitialized_and_assign_initializes_it) {
  TestVariable v(DT_FLOAT, "v_init");
  AF_REQUIRE_OK(v.status());
  BOOST_TEST(!v.storage()->IsInitialized());

  KernelRunner is_init("IsVariableInitialized");
  is_init.Attr("dtype", DT_FLOAT).RefInput(v.storage(), v.mu());
  auto out = is_init.Run();
  AF_REQUIRE_OK(out.status());
  BOOST_TEST((*out)[0].scalar<bool>() == false);

  AF_REQUIRE_OK(v.Assign(Tensor::FromVector<float>({1, 2, 3})));
  AF_EXPECT_OK(CheckTensor(v.Value(), DT_FLOAT, {3}, {1, 2, 3}));
  out = is_init.Run();
  AF_REQUIRE_OK(out.status());
  BOOST_TEST((*out)[0].scalar<bool>() == true);
}

BOOST_AUTO_TEST_CASE(assign_outputs_the_reference) {
  TestVariable v(DT_INT32, "v_ref");
  KernelRunner assign("Assign");
  assign.RefInput(v.storage(), v.mu()).Input(Tensor::FromVector<int32_t>({7, 8}));
  auto out = assign.Run();
  AF_REQUIRE_OK(out.status());
  // The output shares the variable's buffer.
  BOOST_TEST((*out)[0].SharesBufferWith(*v.storage()));
}

BOOST_AUTO_TEST_CASE(two_variable_kernels_with_one_shared_name_share_storage) {
  KernelRunner a("VariableV2", "a"), b("VariableV2", "b"), c("VariableV2", "c");
  for (KernelRunner* r : {&a, &b}) {
    r->Attr("dtype", DT_FLOAT).Attr("shape", PartialTensorShape()).Attr("container", "share_test")
        .Attr("shared_name", "w");
  }
  c.Attr("dtype", DT_FLOAT).Attr("shape", PartialTensorShape()).Attr("container", "other_test")
      .Attr("shared_name", "w");
  AF_REQUIRE_OK(a.Run().status());
  AF_REQUIRE_OK(b.Run().status());
  AF_REQUIRE_OK(c.Run().status());
  ResourceRef<Var> va, vc;
  AF_REQUIRE_OK(TestDeviceResourceMgr()->Lookup<Var>("share_test", "w", &va));
  AF_REQUIRE_OK(TestDeviceResourceMgr()->Lookup<Var>("other_test", "w", &vc));
  BOOST_TEST(va.get() != vc.get());

  // Reset the container: the kernels find a fresh, uninitialized variable.
  {
    KernelRunner assign("Assign");
    assign.RefInput(va->tensor(), va->mu()).Input(Tensor::Scalar<float>(5));
    AF_REQUIRE_OK(assign.Run().status());
  }
  BOOST_TEST(va->tensor()->IsInitialized());
  AF_REQUIRE_OK(TestDeviceResourceMgr()->Cleanup("share_test"));
  AF_REQUIRE_OK(b.Run().status());
  ResourceRef<Var> fresh;
  AF_REQUIRE_OK(TestDeviceResourceMgr()->Lookup<Var>("share_test", "w", &fresh));
  BOOST_TEST(fresh.get() != va.get());
  BOOST_TEST(!fresh->tensor()->IsInitialized());
  TestDeviceResourceMgr()->Cleanup("share_test").ok();
  TestDeviceResourceMgr()->Cleanup("other_test").ok();
}

BOOST_AUTO_TEST_CASE(sharing_a_variable_with_another_dtype_fails) {
  KernelRunner a("VariableV2", "a"), b("VariableV2", "b");
  a.Attr("dtype", DT_FLOAT).Attr("shape", PartialTensorShape()).Attr("shared_name", "mixed")
      .Attr("container", "dtype_test");
  b.Attr("dtype", DT_INT32).Attr("shape", PartialTensorShape()).Attr("shared_name", "mixed")
      .Attr("container", "dtype_test");
  AF_REQUIRE_OK(a.Run().status());
  Status s = b.Run().status();
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_CHECK_MESSAGE(Contains(s.message(), "mixed"), s.message());
  TestDeviceResourceMgr()->Cleanup("dtype_test").ok();
}

BOOST_AUTO_TEST_CASE(validate_shape_rejects_a_new_shape) {
  TestVariable v(DT_FLOAT, "v_shape");
  AF_REQUIRE_OK(v.Assign(Tensor::FromVector<float>({1, 2})));
  Status s = v.Assign(Tensor::FromVector<float>({1, 2, 3}));
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_CHECK_MESSAGE(Contains(s.message(), "lhs shape= [2] rhs shape= [3]"), s.message());
  AF_EXPECT_OK(CheckTensor(v.Value(), DT_FLOAT, {2}, {1, 2}));  // unchanged

  AF_REQUIRE_OK(v.Assign(Tensor::FromVector<float>({4, 5, 6}), /*validate_shape=*/false));
  AF_EXPECT_OK(CheckTensor(v.Value(), DT_FLOAT, {3}, {4, 5, 6}));
}

BOOST_AUTO_TEST_CASE(assign_never_writes_a_buffer_someone_still_reads) {
  TestVariable v(DT_FLOAT, "v_cow");
  AF_REQUIRE_OK(v.Assign(Tensor::FromVector<float>({1, 2})));
  const Tensor earlier_read = *v.storage();  // like a fetched value
  AF_REQUIRE_OK(v.Assign(Tensor::FromVector<float>({3, 4})));
  AF_EXPECT_OK(CheckTensor(earlier_read, DT_FLOAT, {2}, {1, 2}));
  AF_EXPECT_OK(CheckTensor(v.Value(), DT_FLOAT, {2}, {3, 4}));
  // With no other reader the variable's buffer is reused in place.
  const void* before = v.storage()->raw_data();
  AF_REQUIRE_OK(v.Assign(Tensor::FromVector<float>({5, 6})));
  BOOST_TEST(v.storage()->raw_data() == before);
}

BOOST_AUTO_TEST_CASE(strings_assign_too) {
  TestVariable v(DT_STRING, "v_str");
  AF_REQUIRE_OK(v.Assign(Tensor::FromVector<std::string>({"a", "bc"})));
  AF_REQUIRE_OK(v.Assign(Tensor::FromVector<std::string>({"x", "yz"})));
  BOOST_TEST(v.storage()->data<std::string>()[1] == "yz");
}

BOOST_AUTO_TEST_CASE(using_an_uninitialized_variable_names_it) {
  TestVariable v(DT_FLOAT, "v_uninit");
  for (const char* op : {"AssignAdd", "AssignSub"}) {
    KernelRunner r(op, std::string("update_") + op);
    r.RefInput(v.storage(), v.mu()).Input(Tensor::Scalar<float>(1));
    Status s = r.Run().status();
    BOOST_TEST(s.code() == Code::FAILED_PRECONDITION);
    BOOST_CHECK_MESSAGE(Contains(s.message(), "Attempting to use uninitialized value input_0"),
                        s.message());
    BOOST_CHECK_MESSAGE(Contains(s.message(), std::string("update_") + op), s.message());
  }
  KernelRunner count("CountUpTo");
  count.Attr("limit", int64_t{3}).Attr("T", DT_INT32);
  TestVariable counter(DT_INT32, "v_counter");
  count.RefInput(counter.storage(), counter.mu());
  BOOST_TEST(count.Run().status().code() == Code::FAILED_PRECONDITION);
}

BOOST_AUTO_TEST_CASE(assign_add_and_sub_update_in_place) {
  TestVariable v(DT_DOUBLE, "v_add");
  AF_REQUIRE_OK(v.Assign(Tensor::FromVector<double>({1.5, -2, 10})));
  const void* buffer = v.storage()->raw_data();
  KernelRunner add("AssignAdd");
  add.RefInput(v.storage(), v.mu()).Input(Tensor::FromVector<double>({0.25, 2, -20}));
  AF_REQUIRE_OK(add.Run().status());
  AF_EXPECT_OK(CheckTensor(v.Value(), DT_DOUBLE, {3}, {1.75, 0, -10}));
  KernelRunner sub("AssignSub");
  sub.RefInput(v.storage(), v.mu()).Input(Tensor::FromVector<double>({1, 1, 1}));
  AF_REQUIRE_OK(sub.Run().status());
  AF_EXPECT_OK(CheckTensor(v.Value(), DT_DOUBLE, {3}, {0.75, -1, -11}));
  BOOST_TEST(v.storage()->raw_data() == buffer);

  KernelRunner bad("AssignAdd");
  bad.RefInput(v.storage(), v.mu()).Input(Tensor::FromVector<double>({1, 2}));
  Status s = bad.Run().status();
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_CHECK_MESSAGE(Contains(s.message(), "shapes must be equal"), s.message());
}

BOOST_AUTO_TEST_CASE(concurrent_locked_assign_add_gives_the_exact_sum) {
  TestVariable v(DT_INT64, "v_concurrent");
  constexpr int kElements = 256, kThreads = 6, kSteps = 400;
  AF_REQUIRE_OK(v.Assign(Tensor(DT_INT64, TensorShape{kElements})));
  std::fill_n(v.storage()->data<int64_t>(), kElements, 0);
  std::vector<std::thread> threads;
  std::vector<Status> results(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      KernelRunner add("AssignAdd", "add_" + std::to_string(t));
      add.Attr("use_locking", true).RefInput(v.storage(), v.mu());
      add.Input(Tensor(DT_INT64, TensorShape{kElements}));
      for (int step = 0; step < kSteps && results[t].ok(); ++step) {
        Tensor delta(DT_INT64, TensorShape{kElements});
        std::fill_n(delta.data<int64_t>(), kElements, int64_t{t + 1});
        results[t] = add.Run({delta}).status();
      }
    });
  }
  for (auto& th : threads) th.join();
  for (const Status& s : results) AF_EXPECT_OK(s);
  // sum over threads of (t + 1) * kSteps
  const double want = kSteps * (kThreads * (kThreads + 1) / 2);
  AF_EXPECT_OK(CheckTensor(v.Value(), DT_INT64, {kElements},
                           std::vector<double>(kElements, want)));
}

BOOST_AUTO_TEST_CASE(count_up_to_stops_at_its_limit) {
  TestVariable v(DT_INT64, "v_count");
  AF_REQUIRE_OK(v.Assign(Tensor::Scalar<int64_t>(0)));
  KernelRunner count("CountUpTo");
  count.Attr("limit", int64_t{2}).RefInput(v.storage(), v.mu());
  for (int64_t want : {0, 1}) {
    auto out = count.Run();
    AF_REQUIRE_OK(out.status());
    BOOST_TEST((*out)[0].scalar<int64_t>() == want);
  }
  Status s = count.Run().status();
  BOOST_TEST(s.code() == Code::OUT_OF_RANGE);
  BOOST_CHECK_MESSAGE(Contains(s.message(), "Reached limit of 2"), s.message());
  BOOST_TEST(v.storage()->scalar<int64_t>() == 2);
}

BOOST_AUTO_TEST_CASE(a_plain_tensor_where_a_variable_belongs_is_rejected) {
  KernelRunner add("AssignAdd");
  add.Attr("T", DT_FLOAT).Input(Tensor::Scalar<float>(1)).Input(Tensor::Scalar<float>(1));
  Status s = add.Run().status();
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_CHECK_MESSAGE(Contains(s.message(), "must be a reference"), s.message());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
