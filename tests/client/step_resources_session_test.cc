// Stacks and tensor arrays through a session: each Run gets fresh objects,
// freed before Run returns; kernel errors reach the caller naming the node;
// and every op using a handle runs on the device that made it.
#include <boost/test/unit_test.hpp>
#include <set>
#include <string>

#include "client/client_session.h"
#include "client/gradients.h"
#include "client/standard_ops.h"
#include "core/resource_handle.h"
#include "kernels/stack/stack.h"
#include "kernels/tensor_array/tensor_array.h"

namespace af {
namespace {

std::string HandleName(const Tensor& t) {
  const ResourceHandle* h = nullptr;
  if (!GetResourceHandle(t, "handle", &h).ok()) return "";
  return h->name;
}

BOOST_AUTO_TEST_SUITE(step_resources_session)

BOOST_AUTO_TEST_CASE(each_run_gets_a_fresh_stack_freed_when_the_run_ends) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root, DT_FLOAT, PartialTensorShape({2}));
  auto stack = ops::StackV2(root.WithOpName("stack"), -1, DT_FLOAT);
  auto push = ops::StackPushV2(root, stack.handle, x);
  auto pop =
      ops::StackPopV2(root.WithControlDependencies({push.operation}), stack.handle, DT_FLOAT);
  ClientSession session(root);
  const int64_t before = Stack::NumLive();
  std::set<std::string> names;
  for (int i = 0; i < 3; ++i) {
    std::vector<Tensor> out;
    const Status s = session.Run({{x, Tensor::FromVector<float>({1.0f * i, 2.0f})}},
                                 {pop.elem, stack.handle}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s);
    BOOST_TEST(out[0].data<float>()[0] == 1.0f * i);
    names.insert(HandleName(out[1]));
    BOOST_TEST(Stack::NumLive() == before);
  }
  BOOST_TEST(names.size() == 3u);
}

BOOST_AUTO_TEST_CASE(a_second_run_starts_from_an_empty_stack) {
  Scope root = Scope::NewRootScope();
  auto stack = ops::StackV2(root, -1, DT_INT32);
  auto push = ops::StackPushV2(root, stack.handle, 5);
  ClientSession session(root);
  // Run 1 pushes only; Run 2 pops without pushing and must find it empty.
  Status s = session.Run({}, {}, {push.operation}, nullptr);
  BOOST_TEST_REQUIRE(s.ok(), s);
  auto pop = ops::StackPopV2(root.WithOpName("lonely_pop"), stack.handle, DT_INT32);
  std::vector<Tensor> out;
  s = session.Run({pop.elem}, &out);
  BOOST_TEST(!s.ok());
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(s.message().find("node 'lonely_pop' (op 'StackPopV2')") != std::string::npos, s);
}

BOOST_AUTO_TEST_CASE(tensor_arrays_live_for_one_run) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root, DT_FLOAT, PartialTensorShape({3}));
  auto ta = ops::TensorArrayV3(root, 2, DT_FLOAT);
  auto w = ops::TensorArrayWriteV3(root, ta.handle, 1, x, ta.flow);
  auto grad = ops::TensorArrayGradV3(root, ta.handle, w.flow_out, "gradients");
  auto r = ops::TensorArrayReadV3(root, ta.handle, 1, grad.flow_out, DT_FLOAT);
  ClientSession session(root);
  const int64_t before = TensorArray::NumLive();
  for (int i = 0; i < 3; ++i) {
    std::vector<Tensor> out;
    const Status s =
        session.Run({{x, Tensor::FromVector<float>({1, 2, 1.0f * i})}}, {r.value}, &out);
    BOOST_TEST_REQUIRE(s.ok(), s);
    BOOST_TEST(out[0].data<float>()[2] == 1.0f * i);
    BOOST_TEST(TensorArray::NumLive() == before);
  }
}

BOOST_AUTO_TEST_CASE(handle_users_run_on_the_creating_device) {
  Scope root = Scope::NewRootScope();
  SessionOptions options;
  options.num_cpu_devices = 2;
  const std::string cpu1 = "/job:localhost/replica:0/task:0/device:CPU:1";
  Output x = ops::Placeholder(root.WithDevice("/device:CPU:0"), DT_FLOAT, PartialTensorShape({2}));
  auto ta = ops::TensorArrayV3(root.WithOpName("ta").WithDevice("/device:CPU:1"), 2, DT_FLOAT);
  auto stack = ops::StackV2(root.WithOpName("stack").WithDevice("/device:CPU:1"), -1, DT_FLOAT);
  // No device requested for any user: the resource edges pull them to CPU:1.
  auto w = ops::TensorArrayWriteV3(root.WithOpName("write"), ta.handle, 0, x, ta.flow);
  auto r = ops::TensorArrayReadV3(root.WithOpName("read"), ta.handle, 0, w.flow_out, DT_FLOAT);
  auto push = ops::StackPushV2(root.WithOpName("push"), stack.handle, r.value);
  auto pop = ops::StackPopV2(root.WithOpName("pop").WithControlDependencies({push.operation}),
                             stack.handle, DT_FLOAT);
  // The gradient's ops take the handles too (TensorArrayGradV3, and the
  // gradient array's Write and Read).
  std::vector<Output> grads;
  const Status gs = AddSymbolicGradients(root, {r.value}, {x}, &grads);
  BOOST_TEST_REQUIRE(gs.ok(), gs);
  ClientSession session(root, options);
  RunOptions run_options;
  run_options.trace_level = RunOptions::SOFTWARE_TRACE;
  RunMetadata metadata;
  std::vector<Tensor> out;
  const Status s = session.Run(run_options, {{x, Tensor::FromVector<float>({3, 4})}},
                               {pop.elem, grads[0]}, {}, &out, &metadata);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(out[0].data<float>()[1] == 4.0f);
  std::set<std::string> on_cpu1, elsewhere;
  for (const auto& dev : metadata.step_stats.dev_stats()) {
    for (const auto& n : dev.node_stats())
      (dev.device() == cpu1 ? on_cpu1 : elsewhere).insert(n.node_name());
  }
  int gradient_array_ops = 0;
  for (const std::string& name : on_cpu1)
    if (name.rfind("gradients/", 0) == 0 && name.find("TensorArray") != std::string::npos)
      ++gradient_array_ops;
  BOOST_TEST(gradient_array_ops >= 3);
  for (const std::string& name : elsewhere)
    BOOST_TEST(name.find("TensorArray") == std::string::npos, name << " left CPU:1");
  for (const char* name : {"ta", "stack", "write", "read", "push", "pop"}) {
    BOOST_TEST(on_cpu1.count(name) == 1u, name << " did not run on CPU:1");
    BOOST_TEST(elsewhere.count(name) == 0u, name << " ran elsewhere too");
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
