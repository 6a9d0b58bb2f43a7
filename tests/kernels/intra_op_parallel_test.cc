// Kernels split over an intra-op pool give the same bits as inline runs, and
// finish even when no pool thread ever picks up their shards.
#include "kernels/math/intra_op_parallel.h"

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "tests/kernels/math_test_util.h"

namespace af::test {
namespace {

// One kernel invocation: op, attrs and inputs.
struct Invocation {
  std::string op;
  std::vector<Tensor> inputs;
  std::function<void(KernelRunner&)> attrs = [](KernelRunner&) {};
};

StatusOr<std::vector<Tensor>> RunOn(const Invocation& inv, DeviceBase* device) {
  KernelRunner runner(inv.op);
  if (device) runner.OnDevice(device);
  inv.attrs(runner);
  for (const Tensor& t : inv.inputs) runner.Input(t);
  return runner.Run();
}

// Big enough that every kernel splits its work.
std::vector<Invocation> Invocations() {
  const Tensor big = RandomTensor<float>({256, 1024}, 1, 0.5, 1.5);
  const Tensor big_d = RandomTensor<double>({64, 96, 48}, 2, -1, 1);
  auto axes = [](std::vector<int32_t> a) { return Tensor::FromVector(a); };
  std::vector<Invocation> list = {
      {"Exp", {big}},
      {"Abs", {RandomTensor<int64_t>({300000}, 3, -100, 100)}},
      {"AddV2", {big, RandomTensor<float>({1024}, 4)}},
      {"Pow", {big, RandomTensor<float>({256, 1}, 5, -2, 2)}},
      {"FloorMod",
       {RandomTensor<int32_t>({4, 1, 50000}, 6, -99, 99), RandomTensor<int32_t>({3, 1}, 7, 1, 9)}},
      {"TanhGrad", {big, big}},
      {"SelectV2", {RandomTensor<bool>({256, 1}, 8), big, RandomTensor<float>({1024}, 9)}},
      {"Select", {RandomTensor<bool>({256}, 10), big, big}},
      {"Sum", {big, axes({0})}},
      {"Sum", {big, axes({1})}},
      {"Sum", {RandomTensor<float>({1 << 20}, 11), axes({0})}},
      {"Mean", {big_d, axes({0, 2})}},
      {"Max", {big_d, axes({1})}},
      {"Prod", {big, axes({1})}},
      {"ArgMax", {big_d, Tensor::Scalar<int32_t>(1)}},
      {"ArgMin", {big, Tensor::Scalar<int32_t>(1)}},
      {"BatchMatMulV2",
       {RandomTensor<double>({64, 20, 30}, 12), RandomTensor<double>({64, 30, 10}, 13)}},
      {"MatrixInverse", {RandomTensor<double>({64, 12, 12}, 14)}},
      {"MatrixDeterminant", {RandomTensor<double>({64, 12, 12}, 15)}},
  };
  Invocation cast{"Cast", {big}};
  cast.attrs = [](KernelRunner& r) { r.Attr("DstT", DT_INT32); };
  list.push_back(cast);
  return list;
}

void ExpectSameAsInline(ThreadPoolInterface* pool) {
  PooledCpuDevice device(pool);
  for (const Invocation& inv : Invocations()) {
    BOOST_TEST_CONTEXT(inv.op << " on " << inv.inputs[0].shape().DebugString()) {
      auto inline_out = RunOn(inv, nullptr);
      auto pooled_out = RunOn(inv, &device);
      AF_REQUIRE_OK(inline_out.status());
      AF_REQUIRE_OK(pooled_out.status());
      BOOST_CHECK(SameBits((*inline_out)[0], (*pooled_out)[0]));
    }
  }
}

BOOST_AUTO_TEST_SUITE(intra_op_parallel)

BOOST_AUTO_TEST_CASE(pooled_results_match_inline_results) {
  ThreadPerTaskPool pool(4);
  ExpectSameAsInline(&pool);
  BOOST_CHECK_GT(pool.scheduled(), 0);  // the work really was offered to the pool
}

BOOST_AUTO_TEST_CASE(a_stalled_pool_cannot_deadlock_a_kernel) {
  // Every helper task stays queued until after the kernels have returned;
  // the calling thread must do all the shards itself.
  StalledPool pool;
  ExpectSameAsInline(&pool);
}

BOOST_AUTO_TEST_CASE(shards_cover_every_unit_once) {
  ThreadPerTaskPool pool(3);
  PooledCpuDevice device(&pool);
  OpKernelContext::Params params;  // ShardedFor only needs the device
  params.device = &device;
  OpKernelContext ctx(&params);
  for (int64_t units : {int64_t{1}, int64_t{7}, int64_t{1000}, int64_t{123457}}) {
    std::vector<std::atomic<int>> hits(units);
    ShardedFor(&ctx, units, 1000, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) hits[i].fetch_add(1);
    });
    for (int64_t i = 0; i < units; ++i) BOOST_REQUIRE_EQUAL(hits[i].load(), 1);
  }
}

BOOST_AUTO_TEST_CASE(small_work_stays_inline) {
  ThreadPerTaskPool pool(4);
  PooledCpuDevice device(&pool);
  auto out = RunOn({"Exp", {RandomTensor<float>({100}, 1)}}, &device);
  AF_REQUIRE_OK(out.status());
  BOOST_CHECK_EQUAL(pool.scheduled(), 0);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
