#include "control-flow/partition_loop_control.h"

#include <set>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "control-flow/frame_analysis.h"
#include "core/node_def_util.h"
#include "core/tensor.h"

namespace af {
namespace {

std::string_view InputNodeName(std::string_view input) {
  if (!input.empty() && input[0] == '^') input.remove_prefix(1);
  const size_t colon = input.rfind(':');
  if (colon != std::string_view::npos) input = input.substr(0, colon);
  return input;
}

bool IsRecvOp(const std::string& op) { return op == "_Recv" || op == "_HostRecv"; }

bool IsLoopMerge(const Node& n) {
  if (!n.IsMerge()) return false;
  for (const Edge* e : n.in_edges()) {
    if (!e->IsControlEdge() && e->src()->IsNextIteration()) return true;
  }
  return false;
}

void AddControlInput(tensorflow::NodeDef* def, const std::string& node) {
  const std::string input = "^" + node;
  for (const std::string& existing : def->input()) {
    if (existing == input) return;
  }
  def->add_input(input);
}

class LoopControlPass {
 public:
  LoopControlPass(const Graph& g, const PartitionOptions& options,
                  std::map<std::string, tensorflow::GraphDef>* partitions)
      : g_(g), options_(options), partitions_(partitions) {}

  Status Run() {
    if (partitions_->size() < 2) return Status::OK();
    AF_RETURN_IF_ERROR(AnalyzeFrames(g_, &frames_));
    if (frames_.frames.size() < 2) return Status::OK();
    LocateNodes();
    ComputeFrameDevices();
    bool any = false;
    for (size_t f = 1; f < devices_.size(); ++f) any = any || Spans(static_cast<int>(f));
    if (!any) return Status::OK();

    // Which frame each partitioner-made Recv lives in, read off its
    // consumers before the pass adds consumers of its own.
    std::vector<std::tuple<std::string, int, int>> recvs;  // (device, node index, frame)
    for (auto& [device, def] : *partitions_) FindFrameRecvs(device, def, &recvs);

    triggers_.assign(devices_.size(), {});
    for (size_t f = 1; f < devices_.size(); ++f) {
      if (Spans(static_cast<int>(f))) AF_RETURN_IF_ERROR(AddFrameControl(static_cast<int>(f)));
    }
    for (const auto& [device, index, frame] : recvs) {
      auto it = triggers_[frame].find(device);
      if (it == triggers_[frame].end()) {
        return errors::Internal("no loop control for frame '", frames_.frames[frame].name,
                                "' on ", device);
      }
      AddControlInput((*partitions_)[device].mutable_node(index), it->second);
    }
    return Status::OK();
  }

 private:
  bool Spans(int frame) const { return frame > 0 && devices_[frame].size() > 1; }

  void LocateNodes() {
    device_of_.assign(g_.num_node_ids(), nullptr);
    for (auto& [device, def] : *partitions_) {
      for (const auto& n : def.node()) {
        used_names_.insert(n.name());
        if (const Node* original = g_.FindNode(n.name())) device_of_[original->id()] = &device;
      }
    }
  }

  // A frame's devices: those of its nodes, of the Enters feeding it (their
  // Sends run in it) and of every frame nested in it (whose Enters need a
  // parent-frame trigger on their device).
  void ComputeFrameDevices() {
    devices_.assign(frames_.frames.size(), {});
    for (const Node* n : g_.nodes()) {
      const std::string* device = device_of_[n->id()];
      if (device == nullptr) continue;
      devices_[frames_.frame_of_node[n->id()]].insert(*device);
      const int child = frames_.child_frame_of_enter[n->id()];
      if (child >= 0) devices_[child].insert(*device);
    }
    // A child frame is listed after its parent (frame analysis discovers
    // the parent first), so one backward sweep reaches every ancestor.
    for (size_t f = devices_.size() - 1; f > 0; --f) {
      const int parent = frames_.frames[f].parent;
      if (parent > 0) devices_[parent].insert(devices_[f].begin(), devices_[f].end());
    }
  }

  void FindFrameRecvs(const std::string& device, const tensorflow::GraphDef& def,
                      std::vector<std::tuple<std::string, int, int>>* recvs) const {
    std::map<std::string_view, int> recv_index;
    for (int i = 0; i < def.node_size(); ++i) {
      if (IsRecvOp(def.node(i).op())) recv_index.emplace(def.node(i).name(), i);
    }
    std::set<int> done;
    for (const auto& n : def.node()) {
      const Node* consumer = g_.FindNode(n.name());
      if (consumer == nullptr) continue;
      const int frame = frames_.frame_of_node[consumer->id()];
      if (frame <= 0) continue;
      for (const std::string& input : n.input()) {
        auto it = recv_index.find(InputNodeName(input));
        if (it == recv_index.end() || !done.insert(it->second).second) continue;
        recvs->emplace_back(device, it->second, frame);
      }
    }
  }

  std::string NewName(const std::string& base) {
    std::string name;
    do {
      name = base + "/_" + std::to_string(next_name_++);
    } while (used_names_.count(name));
    used_names_.insert(name);
    return name;
  }

  tensorflow::NodeDef* AddNode(const std::string& device, const std::string& base,
                               const std::string& op, std::vector<std::string> inputs) {
    return AddNamedNode(device, NewName(base), op, std::move(inputs));
  }

  tensorflow::NodeDef* AddNamedNode(const std::string& device, const std::string& name,
                                    const std::string& op, std::vector<std::string> inputs) {
    tensorflow::NodeDef* def = (*partitions_)[device].add_node();
    def->set_name(name);
    def->set_op(op);
    def->set_device(device);
    for (std::string& input : inputs) def->add_input(std::move(input));
    return def;
  }

  Status AddFrameControl(int f) {
    const FrameDesc& frame = frames_.frames[f];
    const Node* loop_cond = nullptr;
    const Node* leader_merge = nullptr;
    for (int id : frame.nodes) {
      const Node* n = g_.FindNodeId(id);
      if (loop_cond == nullptr && n->IsLoopCond()) loop_cond = n;
    }
    if (loop_cond == nullptr) {
      std::string devices;
      for (const std::string& d : devices_[f]) devices += (devices.empty() ? "" : ", ") + d;
      return errors::InvalidArgument("while-loop frame '", frame.name, "' spans devices ",
                                     devices, " but has no LoopCond node to drive its ",
                                     "iterations on every device");
    }
    const std::string& leader = *device_of_[loop_cond->id()];
    for (int id : frame.nodes) {
      const Node* n = g_.FindNodeId(id);
      if (*device_of_[id] == leader && IsLoopMerge(*n)) {
        leader_merge = n;
        break;
      }
    }
    for (const std::string& device : devices_[f]) {
      if (device == leader && leader_merge != nullptr) {
        triggers_[f][device] = leader_merge->name();
        continue;
      }
      AF_RETURN_IF_ERROR(AddControlLoop(f, *loop_cond, leader, device));
    }
    return Status::OK();
  }

  Status AddControlLoop(int f, const Node& loop_cond, const std::string& leader,
                        const std::string& device) {
    const FrameDesc& frame = frames_.frames[f];
    const std::string base = loop_cond.name() + "/control";
    std::vector<std::string> dummy_inputs;
    if (frame.parent > 0) {
      auto it = triggers_[frame.parent].find(device);
      if (it == triggers_[frame.parent].end())
        return errors::Internal("no loop control for frame '",
                                frames_.frames[frame.parent].name, "' on ", device);
      dummy_inputs.push_back("^" + it->second);
    }
    tensorflow::NodeDef* dummy = AddNode(device, base, "Const", std::move(dummy_inputs));
    SetAttr(dummy, "dtype", DT_FLOAT);
    SetAttr(dummy, "value", Tensor::Scalar<float>(0.0f));
    tensorflow::NodeDef* enter = AddNode(device, base, "Enter", {dummy->name()});
    SetAttr(enter, "T", DT_FLOAT);
    SetAttr(enter, "frame_name", frame.name);
    SetAttr(enter, "is_constant", false);
    SetAttr(enter, "parallel_iterations", static_cast<int64_t>(frame.parallel_iterations));
    const std::string merge_name = NewName(base);
    const std::string next_name = NewName(base);
    tensorflow::NodeDef* merge =
        AddNamedNode(device, merge_name, "Merge", {enter->name(), next_name});
    SetAttr(merge, "T", DT_FLOAT);
    SetAttr(merge, "N", 2);
    triggers_[f][device] = merge_name;

    std::string pred = loop_cond.name();
    if (device != leader) pred = PredRecv(loop_cond, leader, device, merge_name);
    tensorflow::NodeDef* sw = AddNode(device, base, "Switch", {merge_name, pred});
    SetAttr(sw, "T", DT_FLOAT);
    tensorflow::NodeDef* pivot = AddNode(device, base, "Identity", {sw->name() + ":1"});
    SetAttr(pivot, "T", DT_FLOAT);
    tensorflow::NodeDef* next =
        AddNamedNode(device, next_name, "NextIteration", {pivot->name()});
    SetAttr(next, "T", DT_FLOAT);
    tensorflow::NodeDef* exit = AddNode(device, base, "Exit", {sw->name()});
    SetAttr(exit, "T", DT_FLOAT);
    return Status::OK();
  }

  // The LoopCond's value on `device`, received once per iteration: the
  // partitioner's Recv of it when the loop's own Switches already need it
  // there, else a new pair. Gated by `trigger` so it runs in the frame.
  std::string PredRecv(const Node& loop_cond, const std::string& leader,
                       const std::string& device, const std::string& trigger) {
    tensorflow::GraphDef& leader_def = (*partitions_)[leader];
    tensorflow::GraphDef& def = (*partitions_)[device];
    for (const auto& send : leader_def.node()) {
      if (send.op() != "_Send" || send.input_size() < 1 || send.input(0) != loop_cond.name())
        continue;
      std::string recv_device, tensor_name;
      if (!GetNodeAttr(send, "recv_device", &recv_device).ok() || recv_device != device ||
          !GetNodeAttr(send, "tensor_name", &tensor_name).ok())
        continue;
      for (auto& recv : *def.mutable_node()) {
        std::string name;
        if (IsRecvOp(recv.op()) && GetNodeAttr(recv, "tensor_name", &name).ok() &&
            name == tensor_name) {
          AddControlInput(&recv, trigger);
          return recv.name();
        }
      }
    }
    const int64_t incarnation =
        options_.device_incarnation ? static_cast<int64_t>(options_.device_incarnation(leader))
                                    : 0;
    tensorflow::NodeDef* send = AddNode(leader, loop_cond.name(), "_Send", {loop_cond.name()});
    SetAttr(send, "T", DT_BOOL);
    tensorflow::NodeDef* recv = AddNode(device, loop_cond.name(), "_Recv", {"^" + trigger});
    SetAttr(recv, "tensor_type", DT_BOOL);
    // The Send's name is unique among all partitions, hence as a tensor name.
    const std::string tensor_name = "loop_cond_" + send->name();
    SetSendRecvPairAttrs(tensor_name, leader, incarnation, device, send, recv);
    return recv->name();
  }

  const Graph& g_;
  const PartitionOptions& options_;
  std::map<std::string, tensorflow::GraphDef>* partitions_;
  FrameAnalysis frames_;
  std::vector<const std::string*> device_of_;   // node id -> partition key
  std::vector<std::set<std::string>> devices_;  // frame -> devices
  // frame -> device -> node that fires once per iteration, live.
  std::vector<std::map<std::string, std::string>> triggers_;
  std::set<std::string> used_names_;
  int next_name_ = 0;
};

}  // namespace

Status AddLoopControl(const Graph& graph, const PartitionOptions& options,
                      std::map<std::string, tensorflow::GraphDef>* partitions) {
  LoopControlPass pass(graph, options, partitions);
  return pass.Run();
}

}  // namespace af
