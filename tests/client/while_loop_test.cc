// WhileLoop: TensorFlow's graph structure, values against plain C++ loops,
// captured tensors, nesting, maximum_iterations, shape invariants and the
// errors a user meets.
#include <boost/test/unit_test.hpp>

#include <cmath>

#include "client/client_session.h"
#include "client/control_flow/cond.h"
#include "client/control_flow/while_loop.h"
#include "client/standard_ops.h"
#include "control_flow_test_util.h"
#include "core/node_def_util.h"

namespace af {
namespace {

using testing::CountBelow;

Tensor RunOne(const Scope& root, const Output& fetch, const ClientSession::FeedType& feeds = {}) {
  ClientSession session(root);
  std::vector<Tensor> out;
  Status s = session.Run(feeds, {fetch}, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  return out[0];
}

BOOST_AUTO_TEST_SUITE(while_loop)

BOOST_AUTO_TEST_CASE(builds_tensorflows_node_names_and_frame) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  std::vector<Output> out;
  Status s = WhileLoop(
      root, {ops::Const(root, 0), x}, CountBelow(10),
      [](const Scope& sc, const std::vector<Output>& v, std::vector<Output>* next) {
        *next = {ops::Add(sc, v[0], 1), ops::Mul(sc, v[1], 2.0f)};
        return sc.status();
      },
      &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  const Graph& g = *root.graph();
  for (const char* name : {"while/Enter", "while/Enter_1", "while/Merge", "while/Merge_1",
                           "while/LoopCond", "while/Switch", "while/Switch_1", "while/Identity",
                           "while/Identity_1", "while/NextIteration", "while/NextIteration_1",
                           "while/Exit", "while/Exit_1"})
    BOOST_TEST(g.FindNode(name) != nullptr, name);
  std::string frame;
  BOOST_TEST_REQUIRE(GetNodeAttr(g.FindNode("while/Enter")->def(), "frame_name", &frame).ok());
  BOOST_TEST(frame == "while/while_context");
  BOOST_TEST(out[0].node()->name() == "while/Exit");
  BOOST_TEST(out[1].node()->name() == "while/Exit_1");
  // The Merge reads the Enter and the NextIteration (the back edge).
  const Node* merge = g.FindNode("while/Merge_1");
  BOOST_TEST(merge->def().input(0) == "while/Enter_1");
  BOOST_TEST(merge->def().input(1) == "while/NextIteration_1");
  BOOST_TEST(RunOne(root, out[1], {{x, 3.0f}}).scalar<float>() == 3.0f * 1024.0f);
  BOOST_TEST(RunOne(root, out[0], {{x, 3.0f}}).scalar<int32_t>() == 10);
}

BOOST_AUTO_TEST_CASE(runs_zero_one_and_many_iterations) {
  for (int n : {0, 1, 7, 1000}) {
    Scope root = Scope::NewRootScope();
    auto limit = ops::Placeholder(root, DT_INT32);
    std::vector<Output> out;
    Status s = WhileLoop(
        root, {ops::Const(root, 0), ops::Const(root, 0.0)},
        [&](const Scope& sc, const std::vector<Output>& v, Output* c) {
          *c = ops::Less(sc, v[0], limit);  // a captured placeholder
          return sc.status();
        },
        [](const Scope& sc, const std::vector<Output>& v, std::vector<Output>* next) {
          auto i = ops::Cast(sc, v[0], DT_DOUBLE);
          *next = {ops::Add(sc, v[0], 1), ops::Add(sc, v[1], ops::Mul(sc, i, i))};
          return sc.status();
        },
        &out);
    BOOST_TEST_REQUIRE(s.ok(), s);
    double expected = 0;
    for (int i = 0; i < n; ++i) expected += double(i) * i;
    BOOST_TEST(RunOne(root, out[1], {{limit, n}}).scalar<double>() == expected);
  }
}

BOOST_AUTO_TEST_CASE(reads_tensors_from_outside_through_one_constant_enter_each) {
  Scope root = Scope::NewRootScope();
  auto w = ops::Const(root.WithOpName("w"), {{1.0, 2.0}, {3.0, 4.0}});
  auto v0 = ops::Const(root, {{1.0, 1.0}});
  std::vector<Output> out;
  Status s = WhileLoop(
      root, {ops::Const(root, 0), v0}, CountBelow(3),
      [&](const Scope& sc, const std::vector<Output>& v, std::vector<Output>* next) {
        auto h = ops::MatMul(sc, v[1], w);
        // w read twice; the second read adds sum(w) - 10 = 0.
        *next = {ops::Add(sc, v[0], 1), ops::Add(sc, h, ops::Sub(sc, ops::Sum(sc, w, {0, 1}), 10.0))};
        return sc.status();
      },
      &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  int constant_enters = 0;
  for (Node* n : root.graph()->nodes()) {
    bool c = false;
    if (n->IsEnter() && GetNodeAttr(n->def(), "is_constant", &c).ok() && c) {
      ++constant_enters;
      BOOST_TEST(n->in_edges().front()->src()->name() == "w");
    }
  }
  BOOST_TEST(constant_enters == 1);
  // v <- v w, three times: [1 1] -> [4 6] -> [22 32] -> [118 172].
  Tensor r = RunOne(root, out[1]);
  BOOST_TEST(r.data<double>()[0] == 118.0);
  BOOST_TEST(r.data<double>()[1] == 172.0);
}

BOOST_AUTO_TEST_CASE(constants_in_the_body_run_every_iteration) {
  Scope root = Scope::NewRootScope();
  std::vector<Output> out;
  Status s = WhileLoop(
      root, {ops::Const(root, 0), ops::Const(root, 1.0f)}, CountBelow(5),
      [](const Scope& sc, const std::vector<Output>& v, std::vector<Output>* next) {
        *next = {ops::Add(sc, v[0], ops::Const(sc, 1)), ops::Mul(sc, v[1], 3.0f)};
        return sc.status();
      },
      &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(RunOne(root, out[1]).scalar<float>() == 243.0f);
}

BOOST_AUTO_TEST_CASE(maximum_iterations_stops_a_loop_whose_condition_still_holds) {
  for (int max : {0, 1, 4}) {
    Scope root = Scope::NewRootScope();
    WhileLoopOptions options;
    options.maximum_iterations = max;
    std::vector<Output> out;
    Status s = WhileLoop(
        root, {ops::Const(root, 1.0)},
        [](const Scope& sc, const std::vector<Output>& v, Output* c) {
          *c = ops::Less(sc, v[0], 1e9);
          return sc.status();
        },
        [](const Scope& sc, const std::vector<Output>& v, std::vector<Output>* next) {
          *next = {ops::Mul(sc, v[0], 2.0)};
          return sc.status();
        },
        &out, options);
    BOOST_TEST_REQUIRE(s.ok(), s);
    BOOST_TEST_REQUIRE(out.size() == 1u);
    BOOST_TEST(RunOne(root, out[0]).scalar<double>() == std::pow(2.0, max));
  }
}

BOOST_AUTO_TEST_CASE(nested_loops_with_a_cond_inside) {
  Scope root = Scope::NewRootScope();
  std::vector<Output> out;
  Status s = testing::NestedLoopsWithCond(root, &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(root.graph()->FindNode("while/while/Enter") != nullptr);
  BOOST_TEST(RunOne(root, out[1]).scalar<double>() == testing::NestedLoopsWithCondValue());
}

BOOST_AUTO_TEST_CASE(parallel_iterations_one_and_many_give_the_same_values) {
  for (int p : {1, 2, 32}) {
    Scope root = Scope::NewRootScope();
    WhileLoopOptions options;
    options.parallel_iterations = p;
    std::vector<Output> out;
    BOOST_TEST_REQUIRE(WhileLoop(root, {ops::Const(root, 0), ops::Const(root, 0)}, CountBelow(200),
                                 [](const Scope& sc, const std::vector<Output>& v,
                                    std::vector<Output>* next) {
                                   *next = {ops::Add(sc, v[0], 1), ops::Add(sc, v[1], v[0])};
                                   return sc.status();
                                 },
                                 &out, options)
                           .ok());
    BOOST_TEST(RunOne(root, out[1]).scalar<int32_t>() == 199 * 200 / 2);
  }
}

BOOST_AUTO_TEST_CASE(shape_invariants_let_a_shape_grow) {
  Scope root = Scope::NewRootScope();
  auto body = [](const Scope& sc, const std::vector<Output>& v, std::vector<Output>* next) {
    *next = {ops::Add(sc, v[0], 1), ops::ConcatV2(sc, {v[1], v[1]}, 0)};
    return sc.status();
  };
  std::vector<Output> out;
  Status s = WhileLoop(root, {ops::Const(root, 0), ops::Const(root, {1.0f})}, CountBelow(3), body,
                       &out);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(s.message().find("shape invariant") != std::string::npos, s);
  BOOST_TEST(s.message().find("[1]") != std::string::npos, s);

  Scope root2 = Scope::NewRootScope();
  WhileLoopOptions options;
  options.shape_invariants = {PartialTensorShape({}), PartialTensorShape({-1})};
  s = WhileLoop(root2, {ops::Const(root2, 0), ops::Const(root2, {1.0f})}, CountBelow(3), body, &out,
                options);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(RunOne(root2, out[1]).NumElements() == 8);
}

BOOST_AUTO_TEST_CASE(refuses_bad_bodies_and_conditions_naming_the_loop) {
  auto expect = [](const Status& s, const std::string& part) {
    BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, s);
    BOOST_TEST(s.message().find(part) != std::string::npos, s);
  };
  {
    Scope root = Scope::NewRootScope();
    std::vector<Output> out;
    expect(WhileLoop(root, {ops::Const(root, 0)}, CountBelow(3),
                     [](const Scope& sc, const std::vector<Output>& v, std::vector<Output>* n) {
                       *n = {v[0], v[0]};
                       return sc.status();
                     },
                     &out),
           "returned 2 values for 1 loop variables");
    BOOST_TEST(!root.ok());
  }
  {
    Scope root = Scope::NewRootScope();
    std::vector<Output> out;
    expect(WhileLoop(root, {ops::Const(root, 0)}, CountBelow(3),
                     [](const Scope& sc, const std::vector<Output>& v, std::vector<Output>* n) {
                       *n = {ops::Cast(sc, v[0], DT_FLOAT)};
                       return sc.status();
                     },
                     &out),
           "enters as int32 but the body returns float");
  }
  {
    Scope root = Scope::NewRootScope();
    std::vector<Output> out;
    expect(WhileLoop(root, {ops::Const(root, 0)},
                     [](const Scope& sc, const std::vector<Output>& v, Output* c) {
                       *c = v[0];
                       return sc.status();
                     },
                     [](const Scope& sc, const std::vector<Output>& v, std::vector<Output>* n) {
                       *n = {v[0]};
                       return sc.status();
                     },
                     &out),
           "bool scalar");
  }
}

BOOST_AUTO_TEST_CASE(a_tensor_of_the_loop_used_outside_it_is_refused_when_built) {
  Scope root = Scope::NewRootScope();
  Output leaked;
  std::vector<Output> out;
  BOOST_TEST_REQUIRE(WhileLoop(root, {ops::Const(root, 0)}, CountBelow(3),
                               [&](const Scope& sc, const std::vector<Output>& v,
                                   std::vector<Output>* n) {
                                 leaked = ops::Add(sc.WithOpName("inside"), v[0], 1);
                                 *n = {leaked};
                                 return sc.status();
                               },
                               &out)
                         .ok());
  ops::Mul(root.WithOpName("outside"), leaked, 2);
  Status s = root.status();
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  for (const char* part : {"'outside'", "'while/inside:0'", "the root frame", "'while/while_context'"})
    BOOST_TEST(s.message().find(part) != std::string::npos, s);
}

BOOST_AUTO_TEST_CASE(a_control_dependency_into_the_loop_from_outside_is_refused) {
  Scope root = Scope::NewRootScope();
  auto outside = ops::NoOp(root.WithOpName("setup"));
  std::vector<Output> out;
  Status s = WhileLoop(root, {ops::Const(root, 0)}, CountBelow(3),
                       [&](const Scope& sc, const std::vector<Output>& v,
                           std::vector<Output>* n) {
                         *n = {ops::Add(sc.WithControlDependencies({outside}).WithOpName("step"),
                                        v[0], v[0])};
                         return sc.status();
                       },
                       &out);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  for (const char* part : {"'while/step'", "'setup'", "the root frame", "'while/while_context'",
                           "control input"})
    BOOST_TEST(s.message().find(part) != std::string::npos, s);
}

BOOST_AUTO_TEST_CASE(the_callers_control_dependencies_hold_the_loop_entry) {
  Scope root = Scope::NewRootScope();
  auto setup = ops::NoOp(root.WithOpName("setup"));
  std::vector<Output> out;
  Status s = WhileLoop(root.WithControlDependencies({setup}), {ops::Const(root, 0)}, CountBelow(3),
                       [](const Scope& sc, const std::vector<Output>& v,
                          std::vector<Output>* n) {
                         *n = {ops::Add(sc, v[0], 1)};
                         return sc.status();
                       },
                       &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  const Node* enter = root.graph()->FindNode("while/Enter");
  bool held = false;
  for (const Edge* e : enter->in_edges()) held = held || (e->IsControlEdge() && e->src()->name() == "setup");
  BOOST_TEST(held);
  BOOST_TEST(RunOne(root, out[0]).scalar<int32_t>() == 3);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
