// Builds graphs from compact node lists and runs them on one CPU device.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/call_frame.h"
#include "core/status.h"
#include "core/tensor.h"
#include "runtime/executor.h"
#include "runtime/local_device.h"

namespace af::test {

// Parses a GraphDef in protobuf text format.
tensorflow::GraphDef ParseGraph(const std::string& text);

// One CPU device plus an executor for a graph.
struct ExecutorFixture {
  explicit ExecutorFixture(int threads = 2);
  Status Build(const tensorflow::GraphDef& def);
  // Runs with feeds for _Arg nodes; fills the _Retval values.
  Status Run(std::vector<Tensor> args, int num_retvals, std::vector<Tensor>* retvals,
             Rendezvous* rendezvous = nullptr);

  std::unique_ptr<LocalDevice> device;
  std::unique_ptr<Executor> executor;
};

// NodeDef text helpers for readable graphs.
std::string ConstInt(const std::string& name, int value, const std::string& ctrl = "");
std::string ConstFloat(const std::string& name, float value, const std::string& ctrl = "");
std::string ConstBool(const std::string& name, bool value);
std::string Node(const std::string& name, const std::string& op,
                 const std::vector<std::string>& inputs, const std::string& attrs = "");
std::string Enter(const std::string& name, const std::string& input, const std::string& frame,
                  bool is_constant = false, int parallel_iterations = 10,
                  const std::string& type = "DT_INT32");
std::string Retval(const std::string& name, const std::string& input, int index,
                   const std::string& type = "DT_INT32");
std::string Arg(const std::string& name, int index, const std::string& type = "DT_FLOAT");

}  // namespace af::test
