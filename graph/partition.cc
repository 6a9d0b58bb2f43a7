#include "graph/partition.h"

#include <set>
#include <tuple>
#include <vector>

#include "core/device_name.h"
#include "core/node_def_util.h"

namespace af {
namespace {

std::string TensorString(const Node& node, int port) {
  return port == 0 ? node.name() : node.name() + ":" + std::to_string(port);
}

class Partitioner {
 public:
  Partitioner(const Graph& g, const PartitionOptions& options,
              std::map<std::string, tensorflow::GraphDef>* partitions)
      : g_(g), options_(options), partitions_(partitions) {}

  Status Run() {
    partitions_->clear();
    AF_RETURN_IF_ERROR(ResolveDevices());
    for (Node* n : g_.nodes()) used_names_.insert(n->name());
    for (Node* n : g_.nodes()) {
      AF_RETURN_IF_ERROR(EmitNode(*n));
    }
    for (auto& [device, def] : *partitions_) {
      *def.mutable_versions() = g_.versions();
      *def.mutable_library() = g_.library();
    }
    return Status::OK();
  }

 private:
  Status ResolveDevices() {
    device_.assign(g_.num_node_ids(), std::string());
    for (Node* n : g_.nodes()) {
      const std::string& name =
          n->assigned_device_name().empty() ? n->requested_device() : n->assigned_device_name();
      Status s = CanonicalizeDeviceName(name, &device_[n->id()]);
      if (!s.ok()) {
        return errors::InvalidArgument("Cannot partition node '", n->name(), "' (op ",
                                       n->type_string(), "): it has no full device name ('", name,
                                       "'); place the graph first");
      }
    }
    return Status::OK();
  }

  const std::string& DeviceOf(const Node& n) const { return device_[n.id()]; }

  // "<base>/_<k>", unique among all nodes of every partition.
  std::string NewName(const std::string& base) {
    std::string name;
    do {
      name = base + "/_" + std::to_string(next_name_++);
    } while (used_names_.count(name));
    used_names_.insert(name);
    return name;
  }

  int64_t Incarnation(const std::string& device) const {
    if (!options_.device_incarnation) return 0;
    return static_cast<int64_t>(options_.device_incarnation(device));
  }

  // Adds the _Send of `input` (on `src_device`) and the _Recv (on
  // `dst_device`); returns the _Recv's name.
  std::string AddSendRecv(const std::string& input, DataType dtype, const std::string& tensor_name,
                          const std::string& base, const std::string& src_device,
                          const std::string& dst_device) {
    const int64_t incarnation = Incarnation(src_device);
    tensorflow::NodeDef* send = (*partitions_)[src_device].add_node();
    send->set_name(NewName(base));
    send->set_op("_Send");
    send->set_device(src_device);
    send->add_input(input);
    SetAttr(send, "T", dtype);
    tensorflow::NodeDef* recv = (*partitions_)[dst_device].add_node();
    recv->set_name(NewName(base));
    recv->set_op("_Recv");
    recv->set_device(dst_device);
    SetAttr(recv, "tensor_type", dtype);
    SetSendRecvPairAttrs(tensor_name, src_device, incarnation, dst_device, send, recv);
    return recv->name();
  }

  // A Cast of `input` to `dst` (Truncate: the paper's lossy conversion
  // drops the low mantissa bits) on `device`; returns its name.
  std::string AddCast(const std::string& input, DataType src, DataType dst,
                      const std::string& base, const std::string& device) {
    tensorflow::NodeDef* cast = (*partitions_)[device].add_node();
    cast->set_name(NewName(base));
    cast->set_op("Cast");
    cast->set_device(device);
    cast->add_input(input);
    SetAttr(cast, "SrcT", src);
    SetAttr(cast, "DstT", dst);
    SetAttr(cast, "Truncate", true);
    return cast->name();
  }

  // The node on `dst_device` giving the tensor of cut data edge `e`: its
  // _Recv, or the Cast back to float32 after a 16-bit transfer.
  std::string RecvForData(const Edge& e, const std::string& dst_device) {
    auto key = std::make_tuple(e.src()->id(), e.src_output(), dst_device);
    auto it = recvs_.find(key);
    if (it != recvs_.end()) return it->second;
    const Node& src = *e.src();
    const std::string tensor = TensorString(src, e.src_output());
    const DataType dtype = BaseType(src.output_type(e.src_output()));
    const std::string tensor_name = "edge_" + std::to_string(e.id()) + "_" + src.name();
    std::string recv;
    if (dtype == DT_FLOAT && options_.bfloat16_transfer &&
        options_.bfloat16_transfer(tensor, DeviceOf(src), dst_device)) {
      const std::string narrow =
          AddCast(tensor, DT_FLOAT, DT_BFLOAT16, src.name() + "/to_bfloat16", DeviceOf(src));
      const std::string arrived = AddSendRecv(narrow, DT_BFLOAT16, tensor_name, src.name(),
                                              DeviceOf(src), dst_device);
      recv = AddCast(arrived, DT_BFLOAT16, DT_FLOAT, src.name() + "/from_bfloat16", dst_device);
    } else {
      recv = AddSendRecv(tensor, dtype, tensor_name, src.name(), DeviceOf(src), dst_device);
    }
    recvs_.emplace(key, recv);
    return recv;
  }

  // The _Recv on `dst_device` that fires after the source of cut control
  // edge `e` ran: a dummy Const, control-dependent on the source, is sent.
  std::string RecvForControl(const Edge& e, const std::string& dst_device) {
    auto key = std::make_tuple(e.src()->id(), kControlSlot, dst_device);
    auto it = recvs_.find(key);
    if (it != recvs_.end()) return it->second;
    const Node& src = *e.src();
    tensorflow::NodeDef* dummy = (*partitions_)[DeviceOf(src)].add_node();
    dummy->set_name(NewName(src.name()));
    dummy->set_op("Const");
    dummy->set_device(DeviceOf(src));
    dummy->add_input("^" + src.name());
    SetAttr(dummy, "dtype", DT_FLOAT);
    tensorflow::TensorProto* value = (*dummy->mutable_attr())["value"].mutable_tensor();
    value->set_dtype(tensorflow::DT_FLOAT);
    value->mutable_tensor_shape();  // a scalar
    value->add_float_val(0.0f);
    std::string recv =
        AddSendRecv(dummy->name(), DT_FLOAT, "edge_" + std::to_string(e.id()) + "_" + src.name(),
                    src.name(), DeviceOf(src), dst_device);
    recvs_.emplace(key, recv);
    return recv;
  }

  Status EmitNode(const Node& n) {
    const std::string& device = DeviceOf(n);
    std::vector<const Edge*> data(n.num_inputs(), nullptr);
    std::vector<const Edge*> control;
    for (const Edge* e : n.in_edges()) {
      if (e->IsControlEdge()) {
        control.push_back(e);
      } else if (e->dst_input() >= 0 && e->dst_input() < n.num_inputs()) {
        data[e->dst_input()] = e;
      }
    }
    std::vector<std::string> inputs;
    for (int i = 0; i < n.num_inputs(); ++i) {
      const Edge* e = data[i];
      if (e == nullptr) {
        return errors::InvalidArgument("Cannot partition node '", n.name(), "' (op ",
                                       n.type_string(), "): input ", i, " is not connected");
      }
      if (DeviceOf(*e->src()) == device) {
        inputs.push_back(TensorString(*e->src(), e->src_output()));
        continue;
      }
      if (IsRefType(n.input_type(i))) {
        return errors::InvalidArgument(
            "Cannot partition node '", n.name(), "' (op ", n.type_string(), ") on ", device,
            ": its reference input ", i, " comes from '", e->src()->name(), "' on ",
            DeviceOf(*e->src()), ", and references cannot cross devices");
      }
      inputs.push_back(RecvForData(*e, device));
    }
    std::set<std::string> control_inputs;
    for (const Edge* e : control) {
      const std::string& src_device = DeviceOf(*e->src());
      std::string input =
          "^" + (src_device == device ? e->src()->name() : RecvForControl(*e, device));
      if (control_inputs.insert(input).second) inputs.push_back(input);
    }
    // Added after the Send/Recv nodes it needs; GraphDefs need no order.
    tensorflow::NodeDef* def = (*partitions_)[device].add_node();
    *def = n.def();
    def->clear_input();
    for (std::string& input : inputs) def->add_input(std::move(input));
    def->set_device(device);
    return Status::OK();
  }

  const Graph& g_;
  const PartitionOptions& options_;
  std::map<std::string, tensorflow::GraphDef>* partitions_;
  std::vector<std::string> device_;  // node id -> full device name
  std::set<std::string> used_names_;
  int next_name_ = 0;
  // (source node id, port or kControlSlot, destination device) -> _Recv.
  std::map<std::tuple<int, int, std::string>, std::string> recvs_;
};

}  // namespace

Status PartitionGraph(const Graph& g, const PartitionOptions& options,
                      std::map<std::string, tensorflow::GraphDef>* partitions) {
  Partitioner partitioner(g, options, partitions);
  Status s = partitioner.Run();
  if (!s.ok()) partitions->clear();
  return s;
}

void SetSendRecvPairAttrs(const std::string& tensor_name, const std::string& send_device,
                          int64_t send_device_incarnation, const std::string& recv_device,
                          tensorflow::NodeDef* send, tensorflow::NodeDef* recv) {
  for (tensorflow::NodeDef* def : {send, recv}) {
    SetAttr(def, "tensor_name", tensor_name);
    SetAttr(def, "send_device", send_device);
    SetAttr(def, "send_device_incarnation", send_device_incarnation);
    SetAttr(def, "recv_device", recv_device);
    SetAttr(def, "client_terminated", false);
  }
}

}  // namespace af
