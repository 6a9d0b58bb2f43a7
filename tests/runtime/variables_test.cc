// Variables, checkpoints and random ops in running graphs: the executor
// reads variables for value-taking kernels (and names an uninitialized one),
// containers are shared through the ResourceMgr a step is given, a failed
// restore changes no variable, and random numbers ignore the thread count.
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "core/call_frame.h"
#include "core/checkpoint_format.h"
#include "core/resource_mgr.h"
#include "tests/core/checkpoint_test_util.h"
#include "tests/runtime/executor_test_util.h"

namespace af::test {
namespace {

const std::string kFloat = "attr { key: 'T' value { type: DT_FLOAT } }";

std::string Variable(const std::string& name, const std::string& container = "") {
  return Node(name, "VariableV2", {},
              "attr { key: 'dtype' value { type: DT_FLOAT } }"
              " attr { key: 'shape' value { shape { dim { size: 2 } } } }"
              " attr { key: 'container' value { s: '" + container + "' } }");
}

std::string ConstVector(const std::string& name, float a, float b) {
  return "node { name: '" + name + "' op: 'Const'"
         " attr { key: 'dtype' value { type: DT_FLOAT } }"
         " attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } }"
         " float_val: " + std::to_string(a) + " float_val: " + std::to_string(b) + " } } } }\n";
}

std::string ConstStrings(const std::string& name, const std::vector<std::string>& values,
                         bool scalar = false) {
  std::string vals;
  for (const auto& v : values) vals += " string_val: '" + v + "'";
  const std::string shape =
      scalar ? "tensor_shape {}" : "tensor_shape { dim { size: " + std::to_string(values.size()) + " } }";
  return "node { name: '" + name + "' op: 'Const'"
         " attr { key: 'dtype' value { type: DT_STRING } }"
         " attr { key: 'value' value { tensor { dtype: DT_STRING " + shape + vals + " } } } }\n";
}

std::string Assign(const std::string& name, const std::string& var, const std::string& value) {
  return Node(name, "Assign", {var, value}, kFloat);
}

// Runs an executor with `rm` as its ResourceMgr.
Status RunWith(ExecutorFixture& f, ResourceMgr* rm, int num_retvals, std::vector<Tensor>* out) {
  CallFrame frame({}, num_retvals);
  Executor::Args args;
  args.call_frame = &frame;
  args.resource_manager = rm;
  AF_RETURN_IF_ERROR(f.executor->Run(args));
  return frame.ConsumeRetvals(out);
}

std::vector<float> Floats(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}

BOOST_AUTO_TEST_SUITE(runtime_variables)

BOOST_AUTO_TEST_CASE(reading_an_uninitialized_variable_names_it) {
  ResourceMgr rm;
  ExecutorFixture f;
  Status s = f.Build(ParseGraph(Variable("weights") + Node("read", "Identity", {"weights"}, kFloat) +
                                Retval("ret", "read", 0, "DT_FLOAT")));
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  std::vector<Tensor> out;
  s = RunWith(f, &rm, 1, &out);
  BOOST_TEST(s.code() == Code::FAILED_PRECONDITION);
  BOOST_TEST(s.message().find("Attempting to use uninitialized value weights") !=
                 std::string::npos,
             s.ToString());
  BOOST_TEST(s.message().find("'read'") != std::string::npos, s.ToString());
}

BOOST_AUTO_TEST_CASE(executors_given_one_resource_mgr_share_variables) {
  ResourceMgr rm;
  ExecutorFixture init, read;
  Status s = init.Build(ParseGraph(Variable("v", "shared") + ConstVector("c", 1.5f, -2) +
                                   Assign("assign", "v", "c") +
                                   Retval("ret", "assign", 0, "DT_FLOAT")));
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  s = read.Build(ParseGraph(Variable("v", "shared") + Node("read", "Identity", {"v"}, kFloat) +
                            Retval("ret", "read", 0, "DT_FLOAT")));
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());

  std::vector<Tensor> out;
  s = RunWith(init, &rm, 1, &out);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST(Floats(out[0]) == (std::vector<float>{1.5f, -2}));
  s = RunWith(read, &rm, 1, &out);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST(Floats(out[0]) == (std::vector<float>{1.5f, -2}));

  // Another manager (another device) has its own variables.
  ResourceMgr other;
  BOOST_TEST(RunWith(read, &other, 1, &out).code() == Code::FAILED_PRECONDITION);

  // Resetting the container makes the variable new again.
  BOOST_REQUIRE(rm.Cleanup("shared").ok());
  BOOST_TEST(RunWith(read, &rm, 1, &out).code() == Code::FAILED_PRECONDITION);
  s = RunWith(init, &rm, 1, &out);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  s = RunWith(read, &rm, 1, &out);
  BOOST_TEST(s.ok(), s.ToString());
}

BOOST_AUTO_TEST_CASE(a_failed_restore_changes_no_variable) {
  ScratchDir dir;
  const std::string prefix = dir / "model";
  ResourceMgr rm;
  const std::string vars = Variable("a") + Variable("b");
  ExecutorFixture set_values, save, restore, read;
  Status s = set_values.Build(ParseGraph(
      vars + ConstVector("ca", 1, 2) + ConstVector("cb", 3, 4) + Assign("assign_a", "a", "ca") +
      Assign("assign_b", "b", "cb")));
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  s = save.Build(ParseGraph(
      vars + ConstStrings("prefix", {prefix}, true) + ConstStrings("names", {"a", "b"}) +
      ConstStrings("slices", {"", ""}) +
      Node("save", "SaveV2", {"prefix", "names", "slices", "a", "b"},
           "attr { key: 'dtypes' value { list { type: DT_FLOAT type: DT_FLOAT } } }")));
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  // The Saver's restore: one RestoreV2 for every variable, then the Assigns.
  s = restore.Build(ParseGraph(
      vars + ConstStrings("prefix", {prefix}, true) + ConstStrings("names", {"a", "b"}) +
      ConstStrings("slices", {"", ""}) +
      Node("restore", "RestoreV2", {"prefix", "names", "slices"},
           "attr { key: 'dtypes' value { list { type: DT_FLOAT type: DT_FLOAT } } }") +
      Assign("restore_a", "a", "restore:0") + Assign("restore_b", "b", "restore:1")));
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  s = read.Build(ParseGraph(vars + Retval("ra", "a", 0, "DT_FLOAT") +
                            Retval("rb", "b", 1, "DT_FLOAT")));
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());

  std::vector<Tensor> out;
  BOOST_TEST_REQUIRE(RunWith(set_values, &rm, 0, &out).ok());
  s = RunWith(save, &rm, 0, &out);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());

  // Change the variables, then damage b's bytes in the checkpoint.
  {
    ExecutorFixture change;
    BOOST_TEST_REQUIRE(change.Build(ParseGraph(vars + ConstVector("c", 9, 9) +
                                               Assign("x", "a", "c") + Assign("y", "b", "c")))
                           .ok());
    BOOST_TEST_REQUIRE(RunWith(change, &rm, 0, &out).ok());
  }
  // A tensor bundle (SaveV2's default): a's 8 bytes, then b's.
  const std::string file = prefix + ".data-00000-of-00001";
  const std::string good = ReadBytes(file);
  std::string bad = good;
  bad[8 + 1] ^= 0x20;  // b: the second tensor
  WriteBytes(file, bad);

  s = RunWith(restore, &rm, 0, &out);
  BOOST_TEST(s.code() == Code::DATA_LOSS, s.ToString());
  BOOST_TEST(s.message().find("'restore'") != std::string::npos, s.ToString());
  s = RunWith(read, &rm, 2, &out);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST(Floats(out[0]) == (std::vector<float>{9, 9}));  // a untouched too
  BOOST_TEST(Floats(out[1]) == (std::vector<float>{9, 9}));

  WriteBytes(file, good);
  s = RunWith(restore, &rm, 0, &out);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST_REQUIRE(RunWith(read, &rm, 2, &out).ok());
  BOOST_TEST(Floats(out[0]) == (std::vector<float>{1, 2}));
  BOOST_TEST(Floats(out[1]) == (std::vector<float>{3, 4}));
}

BOOST_AUTO_TEST_CASE(saving_an_uninitialized_variable_fails) {
  ScratchDir dir;
  ResourceMgr rm;
  ExecutorFixture save;
  Status s = save.Build(ParseGraph(
      Variable("lonely") + ConstStrings("prefix", {dir / "m"}, true) +
      ConstStrings("names", {"lonely"}) + ConstStrings("slices", {""}) +
      Node("save", "SaveV2", {"prefix", "names", "slices", "lonely"},
           "attr { key: 'dtypes' value { list { type: DT_FLOAT } } }")));
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  std::vector<Tensor> out;
  s = RunWith(save, &rm, 0, &out);
  BOOST_TEST(s.code() == Code::FAILED_PRECONDITION);
  BOOST_TEST(s.message().find("uninitialized value lonely") != std::string::npos, s.ToString());
  BOOST_TEST(dir.List().empty());
}

std::string RandomGraph(const std::string& op) {
  return "node { name: 'shape' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } }"
         " attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } }"
         " int_val: 100000 } } } }\n" +
         Node("random", op, {"shape"},
              "attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: 'T' value { type: "
              "DT_INT32 } } attr { key: 'seed' value { i: 11 } } attr { key: 'seed2' value { i: "
              "12 } }") +
         Retval("ret", "random", 0, "DT_FLOAT");
}

BOOST_AUTO_TEST_CASE(random_numbers_do_not_depend_on_the_thread_count) {
  for (const char* op : {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"}) {
    ExecutorFixture one(1), many(4);
    BOOST_TEST_REQUIRE(one.Build(ParseGraph(RandomGraph(op))).ok());
    BOOST_TEST_REQUIRE(many.Build(ParseGraph(RandomGraph(op))).ok());
    std::vector<Tensor> a, b;
    for (int step = 0; step < 2; ++step) {
      BOOST_TEST_REQUIRE(one.Run({}, 1, &a).ok());
      BOOST_TEST_REQUIRE(many.Run({}, 1, &b).ok());
      BOOST_CHECK_MESSAGE(Floats(a[0]) == Floats(b[0]), op << " step " << step);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
