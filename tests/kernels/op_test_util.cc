#include "tests/kernels/op_test_util.h"

#include <cmath>
#include <utility>

#include "core/kernel_registry.h"
#include "core/op_registry.h"

namespace af::test {

KernelRunner::KernelRunner(std::string op, std::string node_name) {
  node_.set_op(std::move(op));
  node_.set_name(std::move(node_name));
}

KernelRunner::~KernelRunner() = default;

KernelRunner& KernelRunner::Input(Tensor value) {
  node_.add_input("input_" + std::to_string(inputs_.size()));
  inputs_.push_back({std::move(value), nullptr, nullptr});
  return *this;
}

KernelRunner& KernelRunner::RefInput(Tensor* storage, std::mutex* mu) {
  node_.add_input("input_" + std::to_string(inputs_.size()));
  inputs_.push_back({Tensor(), storage, mu});
  return *this;
}

KernelRunner& KernelRunner::OnDevice(DeviceBase* device) {
  active_device_ = device;
  return *this;
}

namespace {
DataType DtypeOf(const Tensor& value, const Tensor* ref) {
  return BaseType(ref ? ref->dtype() : value.dtype());
}
}  // namespace

// Walks the op's input args over the given inputs. At most one list arg
// (N * T or a list(type)) may have an inferred length: whatever the single
// args leave over.
Status KernelRunner::InferTypeAttrs(const tensorflow::OpDef& op_def) {
  int num_lists = 0;
  for (const auto& arg : op_def.input_arg())
    if (!arg.number_attr().empty() || !arg.type_list_attr().empty()) ++num_lists;
  const int num_singles = op_def.input_arg_size() - num_lists;
  const int total = static_cast<int>(inputs_.size());
  if (num_lists > 1 || total < num_singles) return Status::OK();  // leave it to validation
  const int list_len = total - num_singles;

  auto has = [&](const std::string& attr) { return node_.attr().count(attr) > 0; };
  int pos = 0;
  for (const auto& arg : op_def.input_arg()) {
    const bool is_list = !arg.number_attr().empty() || !arg.type_list_attr().empty();
    const int len = is_list ? list_len : 1;
    if (!arg.number_attr().empty() && !has(arg.number_attr()))
      SetAttr(&node_, arg.number_attr(), static_cast<int64_t>(len));
    if (!arg.type_attr().empty() && !has(arg.type_attr()) && len > 0)
      SetAttr(&node_, arg.type_attr(), DtypeOf(inputs_[pos].value, inputs_[pos].ref));
    if (!arg.type_list_attr().empty() && !has(arg.type_list_attr())) {
      std::vector<DataType> types;
      for (int i = 0; i < len; ++i)
        types.push_back(DtypeOf(inputs_[pos + i].value, inputs_[pos + i].ref));
      SetAttr(&node_, arg.type_list_attr(), types);
    }
    pos += len;
  }
  return Status::OK();
}

Status KernelRunner::Build() {
  if (kernel_) return Status::OK();
  const tensorflow::OpDef* op_def = nullptr;
  AF_RETURN_IF_ERROR(OpRegistry::Global()->LookUpOpDef(node_.op(), &op_def));
  AF_RETURN_IF_ERROR(InferTypeAttrs(*op_def));
  AddDefaultsToNodeDef(*op_def, &node_);
  AF_RETURN_IF_ERROR(ValidateNodeDef(node_, *op_def));
  return KernelRegistry::Global()->CreateKernel(DEVICE_CPU, active_device_, node_, &kernel_);
}

StatusOr<std::vector<Tensor>> KernelRunner::Run() {
  AF_RETURN_IF_ERROR(Build());
  if (static_cast<int>(inputs_.size()) != kernel_->num_inputs())
    return errors::InvalidArgument("kernel for ", node_.op(), " takes ", kernel_->num_inputs(),
                                   " inputs, the test gave ", inputs_.size());
  std::vector<TensorValue> in(inputs_.size());
  for (size_t i = 0; i < inputs_.size(); ++i) {
    in[i].tensor = std::move(inputs_[i].value);
    in[i].ref = inputs_[i].ref;
    in[i].ref_mu = inputs_[i].ref_mu;
    in[i].has_value = true;
  }
  std::vector<TensorValue> out(kernel_->num_outputs());

  OpKernelContext::Params params;
  params.device = active_device_;
  params.op_kernel = kernel_.get();
  params.inputs = in.data();
  params.outputs = out.data();
  OpKernelContext ctx(&params);
  kernel_->Compute(&ctx);
  in.clear();  // drop the inputs before the outputs are handed back
  if (!ctx.status().ok()) return ctx.status();

  std::vector<Tensor> results;
  for (int i = 0; i < kernel_->num_outputs(); ++i) {
    if (!out[i].has_value)
      return errors::Internal("kernel for ", node_.op(), " did not set output ", i);
    Tensor t = out[i].get();
    if (BaseType(t.dtype()) != BaseType(kernel_->output_type(i)))
      return errors::Internal("output ", i, " of ", node_.op(), " has dtype ",
                              DataTypeString(t.dtype()), ", the op declares ",
                              DataTypeString(kernel_->output_type(i)));
    results.push_back(std::move(t));
  }
  return results;
}

StatusOr<std::vector<Tensor>> KernelRunner::Run(std::vector<Tensor> inputs) {
  size_t next = 0;
  for (auto& pending : inputs_) {
    if (pending.ref != nullptr) continue;
    if (next == inputs.size()) return errors::InvalidArgument("too few inputs for Run");
    pending.value = std::move(inputs[next++]);
  }
  return Run();
}

StatusOr<std::vector<Tensor>> RunKernel(const std::string& op, std::vector<Tensor> inputs) {
  KernelRunner runner(op);
  for (auto& t : inputs) runner.Input(std::move(t));
  return runner.Run();
}

double ValueAsDouble(const Tensor& t, int64_t i) {
  switch (BaseType(t.dtype())) {
    case DT_FLOAT:
      return t.data<float>()[i];
    case DT_DOUBLE:
      return t.data<double>()[i];
    case DT_INT32:
      return t.data<int32_t>()[i];
    case DT_INT64:
      return static_cast<double>(t.data<int64_t>()[i]);
    case DT_BOOL:
      return t.data<bool>()[i] ? 1.0 : 0.0;
    default:
      return std::nan("");
  }
}

Status CheckTensor(const Tensor& got, DataType dtype, const TensorShape& shape,
                   const std::vector<double>& expected, double rtol, double atol) {
  if (BaseType(got.dtype()) != dtype)
    return errors::Internal("dtype ", DataTypeString(got.dtype()), ", expected ",
                            DataTypeString(dtype));
  if (got.shape() != shape)
    return errors::Internal("shape ", got.shape().DebugString(), ", expected ",
                            shape.DebugString());
  if (static_cast<int64_t>(expected.size()) != got.NumElements())
    return errors::Internal("test bug: ", expected.size(), " expected values for ",
                            got.NumElements(), " elements");
  for (int64_t i = 0; i < got.NumElements(); ++i) {
    const double g = ValueAsDouble(got, i), w = expected[static_cast<size_t>(i)];
    if (std::isnan(w) && std::isnan(g)) continue;
    if (g == w) continue;  // also equal infinities
    if (!(std::fabs(g - w) <= atol + rtol * std::fabs(w)))
      return errors::Internal("element ", i, " is ", g, ", expected ", w);
  }
  return Status::OK();
}

}  // namespace af::test
