// Stack kernels: LIFO order without copies, every element type, the
// empty/full/closed/type errors naming the node, one fresh stack per step
// freed when the step ends, and concurrent pushes.
#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "core/resource_handle.h"
#include "kernels/stack/stack.h"
#include "tests/kernels/step_resource_test_util.h"

namespace af::test {
namespace {

Tensor MakeStack(TestStep* step, DataType dtype, int32_t max_size = -1,
                 const std::string& name = "stack") {
  auto out = step->Run("StackV2", name, {Tensor::Scalar<int32_t>(max_size)},
                       [dtype](KernelRunner& r) { r.Attr("elem_type", dtype); });
  BOOST_TEST_REQUIRE(out.ok(), out.status().ToString());
  return (*out)[0];
}

Status Push(TestStep* step, const Tensor& handle, const Tensor& value,
            const std::string& name = "push") {
  auto out = step->Run("StackPushV2", name, {handle, value});
  if (!out.ok()) return out.status();
  if (!(*out)[0].SharesBufferWith(value) && value.NumElements() > 0)
    return errors::Internal("push did not pass its element through");
  return Status::OK();
}

StatusOr<Tensor> Pop(TestStep* step, const Tensor& handle, DataType dtype,
                     const std::string& name = "pop") {
  auto out = step->Run("StackPopV2", name, {handle},
                       [dtype](KernelRunner& r) { r.Attr("elem_type", dtype); });
  if (!out.ok()) return out.status();
  return (*out)[0];
}

BOOST_AUTO_TEST_SUITE(stack_ops)

BOOST_AUTO_TEST_CASE(pops_in_reverse_order_sharing_the_pushed_buffers) {
  TestStep step;
  const Tensor h = MakeStack(&step, DT_FLOAT);
  BOOST_TEST(h.dtype() == DT_RESOURCE);
  BOOST_TEST(h.dims() == 0);
  std::vector<Tensor> pushed;
  for (int i = 0; i < 3; ++i) {
    pushed.push_back(Tensor::FromVector<float>({1.0f * i, 10.0f * i}));
    AF_REQUIRE_OK(Push(&step, h, pushed.back()));
  }
  for (int i = 2; i >= 0; --i) {
    auto got = Pop(&step, h, DT_FLOAT);
    AF_REQUIRE_OK(got.status());
    AF_EXPECT_OK(CheckTensor(*got, DT_FLOAT, {2}, {1.0 * i, 10.0 * i}));
    BOOST_TEST(got->SharesBufferWith(pushed[i]));
  }
}

BOOST_AUTO_TEST_CASE(holds_every_element_type) {
  TestStep step;
  const Tensor hi = MakeStack(&step, DT_INT32, -1, "si");
  AF_REQUIRE_OK(Push(&step, hi, Tensor::FromVector<int32_t>({7, -8})));
  auto i = Pop(&step, hi, DT_INT32);
  AF_REQUIRE_OK(i.status());
  AF_EXPECT_OK(CheckTensor(*i, DT_INT32, {2}, {7, -8}));

  const Tensor hl = MakeStack(&step, DT_INT64, -1, "sl");
  AF_REQUIRE_OK(Push(&step, hl, Tensor::Scalar<int64_t>(int64_t{1} << 40)));
  auto l = Pop(&step, hl, DT_INT64);
  AF_REQUIRE_OK(l.status());
  BOOST_TEST(l->scalar<int64_t>() == (int64_t{1} << 40));

  const Tensor hb = MakeStack(&step, DT_BOOL, -1, "sb");
  AF_REQUIRE_OK(Push(&step, hb, Tensor::FromVector<bool>({true, false})));
  auto b = Pop(&step, hb, DT_BOOL);
  AF_REQUIRE_OK(b.status());
  AF_EXPECT_OK(CheckTensor(*b, DT_BOOL, {2}, {1, 0}));

  const Tensor hd = MakeStack(&step, DT_DOUBLE, -1, "sd");
  AF_REQUIRE_OK(Push(&step, hd, Tensor::Scalar<double>(0.125)));
  auto d = Pop(&step, hd, DT_DOUBLE);
  AF_REQUIRE_OK(d.status());
  BOOST_TEST(d->scalar<double>() == 0.125);

  const Tensor hs = MakeStack(&step, DT_STRING, -1, "ss");
  AF_REQUIRE_OK(Push(&step, hs, Tensor::Scalar<std::string>("abc")));
  auto s = Pop(&step, hs, DT_STRING);
  AF_REQUIRE_OK(s.status());
  BOOST_TEST(s->scalar<std::string>() == "abc");

  // A stack of handles: the inner stack's handle comes back usable.
  const Tensor hr = MakeStack(&step, DT_RESOURCE, -1, "sr");
  const Tensor inner = MakeStack(&step, DT_FLOAT, -1, "inner");
  AF_REQUIRE_OK(Push(&step, hr, inner));
  auto r = Pop(&step, hr, DT_RESOURCE);
  AF_REQUIRE_OK(r.status());
  BOOST_TEST(HandleName(*r) == HandleName(inner));
  AF_REQUIRE_OK(Push(&step, *r, Tensor::Scalar<float>(3.0f)));
  auto f = Pop(&step, inner, DT_FLOAT);
  AF_REQUIRE_OK(f.status());
  BOOST_TEST(f->scalar<float>() == 3.0f);
}

BOOST_AUTO_TEST_CASE(pop_of_an_empty_stack_names_the_node) {
  TestStep step;
  const Tensor h = MakeStack(&step, DT_FLOAT, -1, "my_stack");
  auto got = Pop(&step, h, DT_FLOAT, "my_pop");
  BOOST_REQUIRE(!got.ok());
  const Status& s = got.status();
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s.message(), "node 'my_pop' (op 'StackPopV2')"), s.ToString());
  BOOST_TEST(Contains(s.message(), "my_stack"), s.ToString());
  BOOST_TEST(Contains(s.message(), "empty"), s.ToString());
}

BOOST_AUTO_TEST_CASE(max_size_bounds_pushes_and_negative_is_unbounded) {
  TestStep step;
  const Tensor h = MakeStack(&step, DT_INT32, 2);
  AF_REQUIRE_OK(Push(&step, h, Tensor::Scalar<int32_t>(1)));
  AF_REQUIRE_OK(Push(&step, h, Tensor::Scalar<int32_t>(2)));
  const Status s = Push(&step, h, Tensor::Scalar<int32_t>(3), "third");
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s.message(), "node 'third' (op 'StackPushV2')"), s.ToString());
  BOOST_TEST(Contains(s.message(), "maximum size 2"), s.ToString());
  // Popping makes room again.
  AF_REQUIRE_OK(Pop(&step, h, DT_INT32).status());
  AF_EXPECT_OK(Push(&step, h, Tensor::Scalar<int32_t>(3)));

  const Tensor unbounded = MakeStack(&step, DT_INT32, -1, "unbounded");
  for (int i = 0; i < 1000; ++i) AF_REQUIRE_OK(Push(&step, unbounded, Tensor::Scalar<int32_t>(i)));
}

BOOST_AUTO_TEST_CASE(type_mismatches_and_closed_stacks_are_errors) {
  TestStep step;
  const Tensor h = MakeStack(&step, DT_FLOAT);
  Status s = Push(&step, h, Tensor::Scalar<int32_t>(1), "bad_push");
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s.message(), "node 'bad_push' (op 'StackPushV2')"), s.ToString());
  BOOST_TEST(Contains(s.message(), "int32"), s.ToString());

  AF_REQUIRE_OK(Push(&step, h, Tensor::Scalar<float>(1)));
  auto p = Pop(&step, h, DT_INT32, "bad_pop");
  BOOST_REQUIRE(!p.ok());
  BOOST_TEST(Contains(p.status().message(), "node 'bad_pop' (op 'StackPopV2')"));

  AF_REQUIRE_OK(step.Run("StackCloseV2", "close", {h}).status());
  s = Push(&step, h, Tensor::Scalar<float>(2), "after_close");
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s.message(), "closed"), s.ToString());
}

BOOST_AUTO_TEST_CASE(outside_a_step_the_kernels_refuse_to_run) {
  KernelRunner runner("StackV2", "lonely");
  runner.Attr("elem_type", DT_FLOAT).Input(Tensor::Scalar<int32_t>(-1));
  auto out = runner.Run();
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST(out.status().code() == Code::FAILED_PRECONDITION);
  BOOST_TEST(Contains(out.status().message(), "node 'lonely' (op 'StackV2')"));
}

BOOST_AUTO_TEST_CASE(each_step_makes_a_fresh_stack_freed_when_the_step_ends) {
  const int64_t before = Stack::NumLive();
  Tensor first_handle;
  {
    TestStep step;
    first_handle = MakeStack(&step, DT_FLOAT);
    AF_REQUIRE_OK(Push(&step, first_handle, Tensor::Scalar<float>(1)));
    BOOST_TEST(Stack::NumLive() == before + 1);
    const Tensor again = MakeStack(&step, DT_FLOAT);
    BOOST_TEST(HandleName(again) != HandleName(first_handle));
    BOOST_TEST(Stack::NumLive() == before + 2);
    step.End();
    BOOST_TEST(Stack::NumLive() == before);
  }
  // The next step runs the same node and gets an empty stack of its own;
  // the old handle names nothing there.
  TestStep next;
  const Tensor h = MakeStack(&next, DT_FLOAT);
  BOOST_TEST(HandleName(h) != HandleName(first_handle));
  BOOST_TEST(Pop(&next, h, DT_FLOAT).status().code() == Code::INVALID_ARGUMENT);
  auto stale = Pop(&next, first_handle, DT_FLOAT, "stale_pop");
  BOOST_REQUIRE(!stale.ok());
  BOOST_TEST(stale.status().code() == Code::NOT_FOUND);
  BOOST_TEST(Contains(stale.status().message(), "node 'stale_pop'"));
}

BOOST_AUTO_TEST_CASE(concurrent_pushes_and_pops_lose_nothing) {
  TestStep step;
  const Tensor h = MakeStack(&step, DT_INT32);
  constexpr int kThreads = 8, kPerThread = 200;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i)
        if (!Push(&step, h, Tensor::Scalar<int32_t>(t * kPerThread + i)).ok()) ++failures;
    });
  }
  for (auto& th : threads) th.join();
  BOOST_TEST(failures.load() == 0);
  std::vector<int> seen(kThreads * kPerThread, 0);
  threads.clear();
  std::mutex mu;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kPerThread; ++i) {
        auto v = Pop(&step, h, DT_INT32);
        if (!v.ok()) {
          ++failures;
          continue;
        }
        std::lock_guard<std::mutex> lock(mu);
        ++seen[v->scalar<int32_t>()];
      }
    });
  }
  for (auto& th : threads) th.join();
  BOOST_TEST(failures.load() == 0);
  BOOST_TEST(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
  BOOST_TEST(Pop(&step, h, DT_INT32).status().code() == Code::INVALID_ARGUMENT);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
