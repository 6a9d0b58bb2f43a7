// Loops and conditionals on hand-built graphs: frames, iterations and dead
// tensors as the executor implements them.
#include <boost/test/unit_test.hpp>

#include <thread>

#include "tests/runtime/executor_test_util.h"

namespace af::test {
namespace {

const std::string kT = "attr { key: 'T' value { type: DT_INT32 } }";

// while (i < n) i += 1, as TensorFlow lowers it.
std::string CountingLoop(int n, int parallel_iterations) {
  return ConstInt("i0", 0) + ConstInt("n", n) +
         Enter("enter_i", "i0", "loop", false, parallel_iterations) +
         Enter("enter_n", "n", "loop", true, parallel_iterations) +
         Node("merge_i", "Merge", {"enter_i", "next_i"},
              kT + " attr { key: 'N' value { i: 2 } }") +
         Node("less", "Less", {"merge_i", "enter_n"}, kT) +
         Node("cond", "LoopCond", {"less"}) +
         Node("switch_i", "Switch", {"merge_i", "cond"}, kT) +
         Node("exit_i", "Exit", {"switch_i:0"}, kT) +
         Node("body_i", "Identity", {"switch_i:1"}, kT) + ConstInt("one", 1, "body_i") +
         Node("add_i", "Add", {"body_i", "one"}, kT) +
         Node("next_i", "NextIteration", {"add_i"}, kT) + Retval("ret", "exit_i", 0);
}

BOOST_AUTO_TEST_CASE(counting_while_loop_runs_n_iterations) {
  for (int n : {0, 1, 10, 257}) {
    for (int parallel : {1, 10}) {
      ExecutorFixture f;
      Status s = f.Build(ParseGraph(CountingLoop(n, parallel)));
      BOOST_TEST_REQUIRE(s.ok(), s.ToString());
      std::vector<Tensor> out;
      s = f.Run({}, 1, &out);
      BOOST_TEST_REQUIRE(s.ok(), s.ToString());
      BOOST_TEST(out[0].scalar<int32_t>() == n);
    }
  }
}

// for i in range(3): for j in range(4): acc += 1  -> 12
std::string NestedLoop() {
  return ConstInt("i0", 0) + ConstInt("acc0", 0) + ConstInt("n_out", 3) +
         Enter("oi_enter", "i0", "outer") + Enter("oacc_enter", "acc0", "outer") +
         Enter("on_enter", "n_out", "outer", true) +
         Node("oi_merge", "Merge", {"oi_enter", "oi_next"}, kT + " attr { key: 'N' value { i: 2 } }") +
         Node("oacc_merge", "Merge", {"oacc_enter", "oacc_next"}, kT + " attr { key: 'N' value { i: 2 } }") +
         Node("o_less", "Less", {"oi_merge", "on_enter"}, kT) + Node("o_cond", "LoopCond", {"o_less"}) +
         Node("oi_switch", "Switch", {"oi_merge", "o_cond"}, kT) +
         Node("oacc_switch", "Switch", {"oacc_merge", "o_cond"}, kT) +
         Node("oi_exit", "Exit", {"oi_switch:0"}, kT) + Node("oacc_exit", "Exit", {"oacc_switch:0"}, kT) +
         Node("oi_body", "Identity", {"oi_switch:1"}, kT) +
         Node("oacc_body", "Identity", {"oacc_switch:1"}, kT) + ConstInt("o_one", 1, "oi_body") +
         Node("oi_add", "Add", {"oi_body", "o_one"}, kT) +
         // The inner loop, entered from the outer body.
         ConstInt("n_in", 4, "oi_body") + ConstInt("ij0", 0, "oi_body") +
         Enter("ij_enter", "ij0", "inner") + Enter("iacc_enter", "oacc_body", "inner") +
         Enter("in_enter", "n_in", "inner", true) +
         Node("ij_merge", "Merge", {"ij_enter", "ij_next"}, kT + " attr { key: 'N' value { i: 2 } }") +
         Node("iacc_merge", "Merge", {"iacc_enter", "iacc_next"}, kT + " attr { key: 'N' value { i: 2 } }") +
         Node("i_less", "Less", {"ij_merge", "in_enter"}, kT) + Node("i_cond", "LoopCond", {"i_less"}) +
         Node("ij_switch", "Switch", {"ij_merge", "i_cond"}, kT) +
         Node("iacc_switch", "Switch", {"iacc_merge", "i_cond"}, kT) +
         Node("ij_exit", "Exit", {"ij_switch:0"}, kT) + Node("iacc_exit", "Exit", {"iacc_switch:0"}, kT) +
         Node("ij_body", "Identity", {"ij_switch:1"}, kT) +
         Node("iacc_body", "Identity", {"iacc_switch:1"}, kT) + ConstInt("i_one", 1, "ij_body") +
         Node("ij_add", "Add", {"ij_body", "i_one"}, kT) +
         Node("iacc_add", "Add", {"iacc_body", "i_one"}, kT) +
         Node("ij_next", "NextIteration", {"ij_add"}, kT) +
         Node("iacc_next", "NextIteration", {"iacc_add"}, kT) +
         Node("oi_next", "NextIteration", {"oi_add"}, kT) +
         Node("oacc_next", "NextIteration", {"iacc_exit"}, kT) + Retval("ret", "oacc_exit", 0) +
         Retval("ret_i", "oi_exit", 1);
}

BOOST_AUTO_TEST_CASE(nested_loop_runs_inner_loop_per_outer_iteration) {
  ExecutorFixture f;
  Status s = f.Build(ParseGraph(NestedLoop()));
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  for (int rep = 0; rep < 3; ++rep) {
    std::vector<Tensor> out;
    s = f.Run({}, 2, &out);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    BOOST_TEST(out[0].scalar<int32_t>() == 12);
    BOOST_TEST(out[1].scalar<int32_t>() == 3);
  }
}

// Switch on a constant predicate; the untaken branch is dead and the Merge
// forwards the live one.
std::string Cond(bool pred) {
  const std::string tf = "attr { key: 'T' value { type: DT_FLOAT } }";
  return ConstFloat("x", 3.0f) + ConstBool("pred", pred) +
         Node("sw", "Switch", {"x", "pred"}, tf) + Node("if_false", "Neg", {"sw:0"}, tf) +
         Node("if_true", "Add", {"sw:1", "sw:1"}, tf) +
         Node("merge", "Merge", {"if_false", "if_true"}, tf + " attr { key: 'N' value { i: 2 } }") +
         Retval("ret", "merge", 0, "DT_FLOAT") + Retval("ret_index", "merge:1", 1);
}

BOOST_AUTO_TEST_CASE(cond_takes_one_branch_and_the_other_is_dead) {
  for (bool pred : {true, false}) {
    ExecutorFixture f;
    Status s = f.Build(ParseGraph(Cond(pred)));
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    std::vector<Tensor> out;
    s = f.Run({}, 2, &out);
    BOOST_TEST_REQUIRE(s.ok(), s.ToString());
    BOOST_TEST(out[0].scalar<float>() == (pred ? 6.0f : -3.0f));
    BOOST_TEST(out[1].scalar<int32_t>() == (pred ? 1 : 0));
  }
}

BOOST_AUTO_TEST_CASE(fetching_a_dead_tensor_is_an_error_not_a_hang) {
  const std::string tf = "attr { key: 'T' value { type: DT_FLOAT } }";
  ExecutorFixture f;
  Status s = f.Build(ParseGraph(ConstFloat("x", 1.0f) + ConstBool("pred", true) +
                                Node("sw", "Switch", {"x", "pred"}, tf) +
                                Node("dead", "Identity", {"sw:0"}, tf) +
                                Retval("ret", "dead", 0, "DT_FLOAT")));
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  std::vector<Tensor> out;
  s = f.Run({}, 1, &out);
  BOOST_TEST(s.code() == Code::FAILED_PRECONDITION);
}

// A loop inside the untaken branch of a cond: its Exit is dead, so the
// value after the cond comes from the other branch.
BOOST_AUTO_TEST_CASE(loop_in_untaken_branch_is_dead_throughout) {
  const std::string ti = kT;
  std::string g = ConstInt("x", 5) + ConstBool("pred", false) +
                  Node("sw", "Switch", {"x", "pred"}, ti) +
                  // taken branch (false): x * 1 via Identity
                  Node("taken", "Identity", {"sw:0"}, ti) +
                  // untaken branch (true): a loop counting from sw:1
                  Enter("enter_i", "sw:1", "dead_loop") + ConstInt("n", 10) +
                  Enter("enter_n", "n", "dead_loop", true) +
                  Node("merge_i", "Merge", {"enter_i", "next_i"}, ti + " attr { key: 'N' value { i: 2 } }") +
                  Node("less", "Less", {"merge_i", "enter_n"}, ti) + Node("cond", "LoopCond", {"less"}) +
                  Node("switch_i", "Switch", {"merge_i", "cond"}, ti) +
                  Node("exit_i", "Exit", {"switch_i:0"}, ti) +
                  Node("body_i", "Identity", {"switch_i:1"}, ti) + ConstInt("one", 1, "body_i") +
                  Node("add_i", "Add", {"body_i", "one"}, ti) +
                  Node("next_i", "NextIteration", {"add_i"}, ti) +
                  Node("merge", "Merge", {"taken", "exit_i"}, ti + " attr { key: 'N' value { i: 2 } }") +
                  Retval("ret", "merge", 0);
  ExecutorFixture f;
  Status s = f.Build(ParseGraph(g));
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  std::vector<Tensor> out;
  s = f.Run({}, 1, &out);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST(out[0].scalar<int32_t>() == 5);
}

BOOST_AUTO_TEST_CASE(concurrent_steps_on_one_executor) {
  ExecutorFixture f(2);
  Status s = f.Build(ParseGraph(CountingLoop(50, 4)));
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        std::vector<Tensor> out;
        Status st = f.Run({}, 1, &out);
        if (!st.ok() || out[0].scalar<int32_t>() != 50) failures++;
      }
    });
  }
  for (auto& t : threads) t.join();
  BOOST_TEST(failures.load() == 0);
}

BOOST_AUTO_TEST_CASE(frame_errors_name_the_node) {
  // An Exit with no Enter leaves the root frame.
  ExecutorFixture f;
  Status s = f.Build(ParseGraph(ConstInt("x", 1) + Node("exit", "Exit", {"x"}, kT)));
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(s.message().find("'exit'") != std::string::npos, s.ToString());
}

}  // namespace
}  // namespace af::test
