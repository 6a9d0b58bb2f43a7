#include "graph/subgraph.h"

#include <deque>
#include <set>
#include <string>
#include <unordered_map>

#include "core/node_def_util.h"
#include "graph/graph_copy.h"

namespace af {
namespace {

std::string TensorKey(const std::string& node, int port) {
  return node + ":" + std::to_string(port);
}

// A feed or fetch resolved against the graph before anything is changed, so
// that a bad signature leaves the graph as it was.
struct ResolvedTensor {
  Node* node = nullptr;
  int port = 0;
};

Status ResolveTensor(const Graph& g, const std::string& name, const char* role,
                     ResolvedTensor* out) {
  TensorId id;
  Status s = ParseTensorName(name, &id);
  if (!s.ok()) {
    return errors::InvalidArgument(role, " '", name, "' is not a tensor name: ", s.message());
  }
  if (id.is_control()) {
    return errors::InvalidArgument(role, " '", name, "' names a control input; want 'name:port'");
  }
  Node* n = g.FindNode(id.node);
  if (n == nullptr) {
    return errors::InvalidArgument(role, " '", name, "': node '", id.node, "' is not in the graph");
  }
  if (id.index >= n->num_outputs()) {
    return errors::InvalidArgument(role, " '", name, "': node '", id.node, "' (op ",
                                   n->type_string(), ") has ", n->num_outputs(),
                                   " output(s), so port ", id.index, " does not exist");
  }
  out->node = n;
  out->port = id.index;
  return Status::OK();
}

Status AddArg(Graph* g, const ResolvedTensor& t, int index, Node** out) {
  tensorflow::NodeDef def;
  def.set_name(g->NewName("_arg_" + t.node->name() + "_" + std::to_string(t.port) + "_" +
                          std::to_string(index)));
  def.set_op("_Arg");
  SetAttr(&def, "T", BaseType(t.node->output_type(t.port)));
  SetAttr(&def, "index", static_cast<int64_t>(index));
  AF_RETURN_IF_ERROR(g->AddNode(std::move(def), out));
  if (t.port < static_cast<int>(t.node->output_shapes().size())) {
    (*out)->set_output_shapes({t.node->output_shapes()[t.port]});
  }
  return Status::OK();
}

Status AddRetval(Graph* g, Node* src, int port, const std::string& fetched_node, int fetched_port,
                 int index, Node** out) {
  tensorflow::NodeDef def;
  def.set_name(g->NewName("_retval_" + fetched_node + "_" + std::to_string(fetched_port) + "_" +
                          std::to_string(index)));
  def.set_op("_Retval");
  // AddNode checks the input count against the signature; the edge below
  // is what counts.
  def.add_input(port == 0 ? src->name() : src->name() + ":" + std::to_string(port));
  SetAttr(&def, "T", BaseType(src->output_type(port)));
  SetAttr(&def, "index", static_cast<int64_t>(index));
  AF_RETURN_IF_ERROR(g->AddNode(std::move(def), out));
  g->AddEdge(src, port, *out, 0);
  return Status::OK();
}

// Moves the consumers of t.node:t.port (and, for placeholders, its control
// successors) onto `arg`.
void RewireFeed(Graph* g, const ResolvedTensor& t, Node* arg) {
  std::vector<const Edge*> out_edges = t.node->out_edges();  // copy: edited below
  for (const Edge* e : out_edges) {
    Node* dst = e->dst();
    if (e->IsControlEdge()) {
      if (!t.node->IsPlaceholder()) continue;
      g->RemoveEdge(e);
      g->AddControlEdge(arg, dst);
    } else if (e->src_output() == t.port) {
      int dst_input = e->dst_input();
      g->RemoveEdge(e);
      g->AddEdge(arg, 0, dst, dst_input);
    }
  }
}

}  // namespace

Status RewriteGraphForExecution(Graph* g, const StepSignature& signature) {
  // Validate the whole signature first.
  std::vector<ResolvedTensor> feeds(signature.feeds.size());
  std::set<std::string> fed_keys;
  for (size_t i = 0; i < signature.feeds.size(); ++i) {
    const std::string& name = signature.feeds[i];
    AF_RETURN_IF_ERROR(ResolveTensor(*g, name, "Feed", &feeds[i]));
    const ResolvedTensor& t = feeds[i];
    if (!fed_keys.insert(TensorKey(t.node->name(), t.port)).second) {
      return errors::InvalidArgument("Feed '", name, "': tensor ",
                                     TensorKey(t.node->name(), t.port), " is fed twice");
    }
    for (const Edge* e : t.node->out_edges()) {
      if (e->IsControlEdge() || e->src_output() != t.port) continue;
      if (IsRefType(e->dst()->input_type(e->dst_input()))) {
        return errors::InvalidArgument(
            "Feed '", name, "': node '", e->dst()->name(), "' (op ", e->dst()->type_string(),
            ") consumes it as a reference, and a fed value is not a reference");
      }
    }
  }
  std::vector<ResolvedTensor> fetches(signature.fetches.size());
  for (size_t j = 0; j < signature.fetches.size(); ++j) {
    AF_RETURN_IF_ERROR(ResolveTensor(*g, signature.fetches[j], "Fetch", &fetches[j]));
  }
  std::vector<Node*> roots;
  for (const std::string& target : signature.targets) {
    Node* n = g->FindNode(target);
    if (n == nullptr) {
      return errors::InvalidArgument("Target '", target, "' is not a node in the graph");
    }
    roots.push_back(n);
  }

  // Feeds: new _Arg nodes take over the fed tensors' consumers.
  std::unordered_map<std::string, Node*> arg_for_tensor;
  for (size_t i = 0; i < feeds.size(); ++i) {
    Node* arg = nullptr;
    AF_RETURN_IF_ERROR(AddArg(g, feeds[i], static_cast<int>(i), &arg));
    RewireFeed(g, feeds[i], arg);
    arg_for_tensor[TensorKey(feeds[i].node->name(), feeds[i].port)] = arg;
  }
  // Fetches: a fetched tensor that is also fed is read from its _Arg.
  for (size_t j = 0; j < fetches.size(); ++j) {
    const ResolvedTensor& t = fetches[j];
    Node* src = t.node;
    int port = t.port;
    auto fed = arg_for_tensor.find(TensorKey(t.node->name(), t.port));
    if (fed != arg_for_tensor.end()) {
      src = fed->second;
      port = 0;
    }
    Node* retval = nullptr;
    AF_RETURN_IF_ERROR(
        AddRetval(g, src, port, t.node->name(), t.port, static_cast<int>(j), &retval));
    roots.push_back(retval);
  }
  PruneForReverseReachability(g, roots);
  return Status::OK();
}

Status PruneForExecution(const Graph& in, const StepSignature& signature,
                         std::unique_ptr<Graph>* out) {
  auto g = std::make_unique<Graph>(in.op_registry());
  AF_RETURN_IF_ERROR(CopyGraph(in, g.get()));
  AF_RETURN_IF_ERROR(RewriteGraphForExecution(g.get(), signature));
  *out = std::move(g);
  return Status::OK();
}

int PruneForReverseReachability(Graph* g, const std::vector<Node*>& roots) {
  std::vector<bool> needed(g->num_node_ids(), false);
  std::deque<Node*> queue;
  auto need = [&](Node* n) {
    if (needed[n->id()]) return;
    needed[n->id()] = true;
    queue.push_back(n);
  };
  for (Node* n : roots) need(n);
  while (!queue.empty()) {
    // Reverse reachability; the NextIteration -> Merge back edge keeps a
    // loop's body and condition once any part of the loop is needed.
    while (!queue.empty()) {
      Node* n = queue.front();
      queue.pop_front();
      for (const Edge* e : n->in_edges()) need(e->src());
    }
    // A kept loop switch keeps its Exit, so the loop's frame stays whole
    // for the executor even when the exit value is not fetched.
    for (Node* n : g->nodes()) {
      if (!needed[n->id()] || !n->IsSwitch()) continue;
      for (const Edge* e : n->out_edges()) {
        if (e->dst()->IsExit()) need(e->dst());
      }
    }
  }
  int removed = 0;
  for (Node* n : g->nodes()) {
    if (!needed[n->id()]) {
      g->RemoveNode(n);
      ++removed;
    }
  }
  return removed;
}

}  // namespace af
