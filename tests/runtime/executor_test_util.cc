#include "tests/runtime/executor_test_util.h"

#include <google/protobuf/text_format.h>

#include <stdexcept>

#include "graph/graph_def_import.h"

namespace af::test {

tensorflow::GraphDef ParseGraph(const std::string& text) {
  tensorflow::GraphDef def;
  if (!google::protobuf::TextFormat::ParseFromString(text, &def))
    throw std::runtime_error("bad test graph text:\n" + text);
  return def;
}

ExecutorFixture::ExecutorFixture(int threads)
    : device(std::make_unique<LocalDevice>(LocalCpuDeviceName(0), DEVICE_CPU,
                                           GetCpuAllocator(), threads, 1)) {}

Status ExecutorFixture::Build(const tensorflow::GraphDef& def) {
  auto graph = std::make_unique<Graph>();
  AF_RETURN_IF_ERROR(ImportGraphDef(def, graph.get()));
  return NewLocalExecutor(device.get(), std::move(graph), &executor);
}

Status ExecutorFixture::Run(std::vector<Tensor> args, int num_retvals,
                            std::vector<Tensor>* retvals, Rendezvous* rendezvous) {
  CallFrame frame(std::move(args), num_retvals);
  Executor::Args run_args;
  run_args.call_frame = &frame;
  run_args.rendezvous = rendezvous;
  AF_RETURN_IF_ERROR(executor->Run(run_args));
  return frame.ConsumeRetvals(retvals);
}

namespace {
std::string Inputs(const std::vector<std::string>& inputs) {
  std::string s;
  for (const auto& in : inputs) s += " input: '" + in + "'";
  return s;
}
}  // namespace

std::string ConstInt(const std::string& name, int value, const std::string& ctrl) {
  return "node { name: '" + name + "' op: 'Const'" + (ctrl.empty() ? "" : " input: '^" + ctrl + "'") +
         " attr { key: 'dtype' value { type: DT_INT32 } }"
         " attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape {} int_val: " +
         std::to_string(value) + " } } } }\n";
}

std::string ConstFloat(const std::string& name, float value, const std::string& ctrl) {
  return "node { name: '" + name + "' op: 'Const'" + (ctrl.empty() ? "" : " input: '^" + ctrl + "'") +
         " attr { key: 'dtype' value { type: DT_FLOAT } }"
         " attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: " +
         std::to_string(value) + " } } } }\n";
}

std::string ConstBool(const std::string& name, bool value) {
  return "node { name: '" + name + "' op: 'Const'"
         " attr { key: 'dtype' value { type: DT_BOOL } }"
         " attr { key: 'value' value { tensor { dtype: DT_BOOL tensor_shape {} bool_val: " +
         std::string(value ? "true" : "false") + " } } } }\n";
}

std::string Node(const std::string& name, const std::string& op,
                 const std::vector<std::string>& inputs, const std::string& attrs) {
  return "node { name: '" + name + "' op: '" + op + "'" + Inputs(inputs) + " " + attrs + " }\n";
}

std::string Enter(const std::string& name, const std::string& input, const std::string& frame,
                  bool is_constant, int parallel_iterations, const std::string& type) {
  return Node(name, "Enter", {input},
              "attr { key: 'T' value { type: " + type + " } }"
              " attr { key: 'frame_name' value { s: '" + frame + "' } }"
              " attr { key: 'is_constant' value { b: " + (is_constant ? "true" : "false") +
                  " } }"
              " attr { key: 'parallel_iterations' value { i: " +
                  std::to_string(parallel_iterations) + " } }");
}

std::string Retval(const std::string& name, const std::string& input, int index,
                   const std::string& type) {
  return Node(name, "_Retval", {input},
              "attr { key: 'T' value { type: " + type + " } } attr { key: 'index' value { i: " +
                  std::to_string(index) + " } }");
}

std::string Arg(const std::string& name, int index, const std::string& type) {
  return Node(name, "_Arg", {},
              "attr { key: 'T' value { type: " + type + " } } attr { key: 'index' value { i: " +
                  std::to_string(index) + " } }");
}

}  // namespace af::test
