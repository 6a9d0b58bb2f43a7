// bench_function: what calling a function costs (graph/function_inlining.h).
//  - call_in_loop: a StatelessWhile of N iterations whose body computes
//    x = x * 0.5 + 1 either through a PartitionedCall of a scalar function
//    or with the same ops written in the body; per iteration, both, in one
//    run, and the difference (the cost of one call).
//  - call_per_run: one Run fetching a scalar function's result against one
//    fetching the same ops written in the graph.
//  - first_run: the first Run of a graph of 200 chained calls, which
//    plans and inlines them, against 200 chained copies of the ops.
//
//   bench_function [--iterations 20000]
#include <google/protobuf/text_format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "client/session.h"

namespace af {
namespace {

const std::string kF = "attr { key: 'T' value { type: DT_FLOAT } } ";
const std::string kI = "attr { key: 'T' value { type: DT_INT32 } } ";

std::string ConstDef(const std::string& name, const std::string& dtype, const std::string& v) {
  return "node_def { name: '" + name + "' op: 'Const' attr { key: 'dtype' value { type: " + dtype +
         " } } attr { key: 'value' value { tensor { dtype: " + dtype + " tensor_shape {} " + v +
         " } } } } ";
}

// affine(x) = x * 0.5 + 1
const std::string kAffine =
    "function { signature { name: 'affine' input_arg { name: 'x' type: DT_FLOAT } "
    "output_arg { name: 'y' type: DT_FLOAT } } " +
    ConstDef("half", "DT_FLOAT", "float_val: 0.5") + ConstDef("one", "DT_FLOAT", "float_val: 1") +
    "node_def { name: 'mul' op: 'Mul' input: 'x' input: 'half:output:0' " + kF +
    "} "
    "node_def { name: 'add' op: 'AddV2' input: 'mul:z:0' input: 'one:output:0' " +
    kF +
    "} "
    "ret { key: 'y' value: 'add:z:0' } } ";

const std::string kLoopSignature =
    "input_arg { name: 'i' type: DT_INT32 } input_arg { name: 'x' type: DT_FLOAT } "
    "input_arg { name: 'n' type: DT_INT32 } ";

const std::string kCond = "function { signature { name: 'cond' " + kLoopSignature +
                          "output_arg { name: 'b' type: DT_BOOL } } "
                          "node_def { name: 'less' op: 'Less' input: 'i' input: 'n' " +
                          kI +
                          "} "
                          "ret { key: 'b' value: 'less:z:0' } } ";

std::string Body(const std::string& name, bool call) {
  std::string text = "function { signature { name: '" + name + "' " + kLoopSignature +
                     "output_arg { name: 'i2' type: DT_INT32 } "
                     "output_arg { name: 'x2' type: DT_FLOAT } "
                     "output_arg { name: 'n2' type: DT_INT32 } } " +
                     ConstDef("step", "DT_INT32", "int_val: 1") +
                     "node_def { name: 'inc' op: 'AddV2' input: 'i' input: 'step:output:0' " + kI +
                     "} ";
  if (call) {
    text += "node_def { name: 'f' op: 'PartitionedCall' input: 'x' "
            "attr { key: 'Tin' value { list { type: DT_FLOAT } } } "
            "attr { key: 'Tout' value { list { type: DT_FLOAT } } } "
            "attr { key: 'f' value { func { name: 'affine' } } } } "
            "ret { key: 'x2' value: 'f:output:0' } ";
  } else {
    text += ConstDef("half", "DT_FLOAT", "float_val: 0.5") +
            ConstDef("one", "DT_FLOAT", "float_val: 1") +
            "node_def { name: 'mul' op: 'Mul' input: 'x' input: 'half:output:0' " + kF +
            "} "
            "node_def { name: 'add' op: 'AddV2' input: 'mul:z:0' input: 'one:output:0' " +
            kF + "} ret { key: 'x2' value: 'add:z:0' } ";
  }
  return text + "ret { key: 'i2' value: 'inc:z:0' } ret { key: 'n2' value: 'n' } } ";
}

std::string Placeholder(const std::string& name, const std::string& dtype) {
  return "node { name: '" + name +
         "' op: 'Placeholder' attr { key: 'dtype' value { type: " + dtype + " } } } ";
}

std::string Loop(const std::string& name, const std::string& body) {
  return "node { name: '" + name +
         "' op: 'StatelessWhile' input: 'i0' input: 'x' input: 'n' "
         "attr { key: 'T' value { list { type: DT_INT32 type: DT_FLOAT type: DT_INT32 } } } "
         "attr { key: 'cond' value { func { name: 'cond' } } } "
         "attr { key: 'body' value { func { name: '" +
         body + "' } } } } ";
}

// `count` chained applications of affine to x, as calls or as ops.
std::string Chain(int count, bool call) {
  std::string text;
  std::string previous = "x";
  for (int k = 0; k < count; ++k) {
    const std::string name = "c" + std::to_string(k);
    if (call) {
      text += "node { name: '" + name + "' op: 'PartitionedCall' input: '" + previous +
              "' attr { key: 'Tin' value { list { type: DT_FLOAT } } } "
              "attr { key: 'Tout' value { list { type: DT_FLOAT } } } "
              "attr { key: 'f' value { func { name: 'affine' } } } } ";
    } else {
      text += "node { name: '" + name +
              "_half' op: 'Const' attr { key: 'dtype' value { type: "
              "DT_FLOAT } } attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape {} "
              "float_val: 0.5 } } } } "
              "node { name: '" +
              name +
              "_one' op: 'Const' attr { key: 'dtype' value { type: "
              "DT_FLOAT } } attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape {} "
              "float_val: 1 } } } } "
              "node { name: '" +
              name + "_mul' op: 'Mul' input: '" + previous + "' input: '" + name + "_half' " + kF +
              "} "
              "node { name: '" +
              name + "' op: 'AddV2' input: '" + name + "_mul' input: '" + name + "_one' " + kF +
              "} ";
    }
    previous = name;
  }
  return text;
}

std::string Fields(const std::vector<std::pair<std::string, double>>& fields) {
  std::string out;
  char value[64];
  for (const auto& [name, v] : fields) {
    std::snprintf(value, sizeof(value), "%.6g", v);
    out += (out.empty() ? "\"" : ",\"") + name + "\":" + value;
  }
  return out;
}

std::unique_ptr<Session> Open(const std::string& nodes) {
  tensorflow::GraphDef def;
  const std::string library =
      "library { " + kAffine + kCond + Body("body_call", true) + Body("body_inline", false) + "} ";
  if (!google::protobuf::TextFormat::ParseFromString(nodes + library, &def)) {
    bench::CheckOk(errors::Internal("graph text does not parse"), "parse");
  }
  std::unique_ptr<Session> session;
  bench::CheckOk(Session::Create(SessionOptions{}, &session), "session");
  bench::CheckOk(session->Extend(def), "extend");
  return session;
}

Tensor Scalar(DataType dtype, double v) {
  Tensor t(dtype, TensorShape{});
  if (dtype == DT_FLOAT) t.scalar<float>() = static_cast<float>(v);
  if (dtype == DT_INT32) t.scalar<int32_t>() = static_cast<int32_t>(v);
  return t;
}

void CallInLoop(int iterations) {
  auto session = Open(Placeholder("i0", "DT_INT32") + Placeholder("x", "DT_FLOAT") +
                      Placeholder("n", "DT_INT32") + Loop("with_call", "body_call") +
                      Loop("inline", "body_inline"));
  const std::vector<std::pair<std::string, Tensor>> feeds = {
      {"i0", Scalar(DT_INT32, 0)}, {"x", Scalar(DT_FLOAT, 0)}, {"n", Scalar(DT_INT32, iterations)}};
  double per_iteration[2];
  const char* fetches[2] = {"with_call:1", "inline:1"};
  for (int k = 0; k < 2; ++k) {
    std::vector<Tensor> out;
    bench::CheckOk(session->Run(feeds, {fetches[k]}, {}, &out), "loop run");
    const double seconds = bench::TimePerCall(
        [&] { bench::CheckOk(session->Run(feeds, {fetches[k]}, {}, &out), "loop run"); }, 1.0);
    per_iteration[k] = seconds / iterations * 1e6;
  }
  bench::PrintResult("function", "call_in_loop",
                     Fields({{"iterations", static_cast<double>(iterations)},
                             {"us_per_iteration_call", per_iteration[0]},
                             {"us_per_iteration_inline", per_iteration[1]},
                             {"ratio_call_over_inline", per_iteration[0] / per_iteration[1]}}),
                     "us_per_call", per_iteration[0] - per_iteration[1], "us");
}

void CallPerRun() {
  auto session = Open(Placeholder("x", "DT_FLOAT") + Chain(1, true));
  auto plain = Open(Placeholder("x", "DT_FLOAT") + Chain(1, false));
  const std::vector<std::pair<std::string, Tensor>> feeds = {{"x", Scalar(DT_FLOAT, 2)}};
  std::vector<Tensor> out;
  double us[2];
  Session* sessions[2] = {session.get(), plain.get()};
  for (int k = 0; k < 2; ++k) {
    bench::CheckOk(sessions[k]->Run(feeds, {"c0"}, {}, &out), "run");
    us[k] =
        1e6 * bench::TimePerCall(
                  [&] { bench::CheckOk(sessions[k]->Run(feeds, {"c0"}, {}, &out), "run"); }, 1.0);
  }
  bench::PrintResult("function", "call_per_run",
                     Fields({{"us_per_run_call", us[0]}, {"us_per_run_inline", us[1]}}),
                     "ratio_call_over_inline", us[0] / us[1], "x");
}

void FirstRun(int count) {
  double ms[2];
  for (int k = 0; k < 2; ++k) {
    auto session = Open(Placeholder("x", "DT_FLOAT") + Chain(count, k == 0));
    std::vector<Tensor> out;
    const auto start = std::chrono::steady_clock::now();
    bench::CheckOk(
        session->Run({{"x", Scalar(DT_FLOAT, 2)}}, {"c" + std::to_string(count - 1)}, {}, &out),
        "first run");
    ms[k] =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  bench::PrintResult(
      "function", "first_run",
      Fields({{"calls", static_cast<double>(count)}, {"ms_first_run_inline", ms[1]}}),
      "ms_first_run_calls", ms[0], "ms");
}

}  // namespace
}  // namespace af

int main(int argc, char** argv) {
  int iterations = 20000;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--iterations") == 0) iterations = std::atoi(argv[i + 1]);
  }
  af::CallInLoop(iterations);
  af::CallPerRun();
  af::FirstRun(200);
  return 0;
}
