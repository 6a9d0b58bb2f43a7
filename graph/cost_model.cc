#include "graph/cost_model.h"

#include <set>

#include "core/device_name.h"
#include "core/node_def_util.h"

namespace af {
namespace {

// Ops that move or name data without computing on it.
bool IsBookkeeping(const Node& node) {
  static const std::set<std::string, std::less<>> kOps = {
      "Const",          "HostConst",  "Identity",    "IdentityN",     "NoOp",
      "ControlTrigger", "_Arg",       "_Retval",     "_Send",         "_Recv",
      "_HostSend",      "_HostRecv",  "Placeholder", "PlaceholderV2", "PlaceholderWithDefault",
      "VariableV2",     "Variable",   "VarHandleOp", "Shape",         "ShapeN",
      "Size",           "Rank",       "Reshape",     "ExpandDims",    "Squeeze",
      "StopGradient",   "RefIdentity", "ReadVariableOp"};
  return node.IsControlFlow() || kOps.count(node.type_string()) > 0;
}

bool IsReduction(const Node& node) {
  static const std::set<std::string, std::less<>> kOps = {"Sum", "Mean", "Max",    "Min",   "Prod",
                                                          "All", "Any",  "ArgMax", "ArgMin"};
  return kOps.count(node.type_string()) > 0;
}

// Elements of a partial shape, counting unknown dims (and an unknown rank)
// as 1.
int64_t LowerBoundElements(const PartialTensorShape& shape) {
  if (shape.unknown_rank()) return 1;
  int64_t n = 1;
  for (int d = 0; d < shape.dims(); ++d) {
    int64_t size = shape.dim_size(d);
    if (size >= 0) n *= size;
  }
  return n;
}

// Size of dim `d` (negative d counts from the end), 1 when unknown.
int64_t DimOrOne(const PartialTensorShape& shape, int d) {
  if (shape.unknown_rank()) return 1;
  if (d < 0) d += shape.dims();
  if (d < 0 || d >= shape.dims()) return 1;
  int64_t size = shape.dim_size(d);
  return size >= 0 ? size : 1;
}

PartialTensorShape InputShape(const Node& node, int input) {
  const Edge* e = nullptr;
  if (!node.input_edge(input, &e).ok() || e == nullptr) return PartialTensorShape();
  const auto& shapes = e->src()->output_shapes();
  if (e->src_output() < 0 || e->src_output() >= static_cast<int>(shapes.size())) {
    return PartialTensorShape();
  }
  return shapes[e->src_output()];
}

PartialTensorShape OutputShape(const Node& node, int port) {
  const auto& shapes = node.output_shapes();
  if (port >= static_cast<int>(shapes.size())) return PartialTensorShape();
  return shapes[port];
}

bool BoolAttr(const Node& node, const char* name) {
  bool value = false;
  if (!GetNodeAttr(node.def(), name, &value).ok()) return false;
  return value;
}

}  // namespace

double CostModel::EstimatedFlops(const Node& node) const {
  if (IsBookkeeping(node)) return 0;
  const std::string& op = node.type_string();
  if (op == "MatMul") {
    PartialTensorShape a = InputShape(node, 0), b = InputShape(node, 1);
    bool ta = BoolAttr(node, "transpose_a"), tb = BoolAttr(node, "transpose_b");
    double m = static_cast<double>(DimOrOne(a, ta ? 1 : 0));
    double k = static_cast<double>(DimOrOne(a, ta ? 0 : 1));
    double n = static_cast<double>(DimOrOne(b, tb ? 0 : 1));
    return 2.0 * m * n * k;
  }
  if (op == "BatchMatMul" || op == "BatchMatMulV2") {
    PartialTensorShape a = InputShape(node, 0);
    bool adj_x = BoolAttr(node, "adj_x");
    double k = static_cast<double>(DimOrOne(a, adj_x ? -2 : -1));
    return 2.0 * static_cast<double>(LowerBoundElements(OutputShape(node, 0))) * k;
  }
  if (op == "Conv2D") {
    PartialTensorShape filter = InputShape(node, 1);
    double window =
        static_cast<double>(DimOrOne(filter, 0) * DimOrOne(filter, 1) * DimOrOne(filter, 2));
    return 2.0 * static_cast<double>(LowerBoundElements(OutputShape(node, 0))) * window;
  }
  if (IsReduction(node)) {
    return static_cast<double>(LowerBoundElements(InputShape(node, 0)));
  }
  double elements = 0;
  for (int i = 0; i < node.num_outputs(); ++i) {
    elements += static_cast<double>(LowerBoundElements(OutputShape(node, i)));
  }
  return elements;
}

double CostModel::StaticComputeMicros(const Node& node, const DeviceType& device_type) const {
  double flops = EstimatedFlops(node);
  if (device_type == DEVICE_GPU) return kGpuNodeOverheadMicros + flops / kGpuFlopsPerMicro;
  return kCpuNodeOverheadMicros + flops / kCpuFlopsPerMicro;
}

double CostModel::ComputeMicros(const Node& node, const DeviceType& device_type) const {
  auto it = measured_.find(node.name());
  if (it != measured_.end() && it->second.count > 0) {
    return it->second.total_micros / static_cast<double>(it->second.count);
  }
  return StaticComputeMicros(node, device_type);
}

bool CostModel::RunsInline(const Node& node) const {
  return !HasMeasured(node.name()) && EstimatedFlops(node) == 0;
}

int64_t CostModel::OutputBytes(const Node& node, int port) const {
  if (port < 0 || port >= node.num_outputs()) return 0;
  int64_t element_bytes = DataTypeSize(BaseType(node.output_type(port)));
  if (element_bytes == 0) element_bytes = kVariableElementBytes;
  return LowerBoundElements(OutputShape(node, port)) * element_bytes;
}

double CostModel::TransferMicros(int64_t bytes, std::string_view src_device,
                                 std::string_view dst_device) const {
  if (src_device == dst_device) return 0;
  DeviceName src, dst;
  bool local = ParseDeviceName(src_device, &src).ok() && ParseDeviceName(dst_device, &dst).ok() &&
               IsSameAddressSpace(src, dst);
  return TransferMicros(bytes, local);
}

double CostModel::TransferMicros(int64_t bytes, bool same_address_space) const {
  double b = static_cast<double>(bytes);
  if (same_address_space) return kLocalLatencyMicros + b / kLocalBytesPerMicro;
  return kRemoteLatencyMicros + b / kRemoteBytesPerMicro;
}

void CostModel::RecordMeasured(const std::string& node_name, double micros) {
  Measurement& m = measured_[node_name];
  m.total_micros += micros;
  ++m.count;
}

bool CostModel::HasMeasured(const std::string& node_name) const {
  auto it = measured_.find(node_name);
  return it != measured_.end() && it->second.count > 0;
}

double CostModel::MeasuredMicros(const std::string& node_name) const {
  auto it = measured_.find(node_name);
  if (it == measured_.end() || it->second.count == 0) return 0;
  return it->second.total_micros / static_cast<double>(it->second.count);
}

}  // namespace af
