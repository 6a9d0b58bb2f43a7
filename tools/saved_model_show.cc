// saved_model_cli's `show` output, written from the SavedModel proto.
#include "tools/saved_model_show.h"

#include <algorithm>
#include <set>
#include <vector>

#include "client/saved_model/reader.h"
#include "proto/types.pb.h"

namespace af::tools {
namespace {

std::string Indent(int indent) { return std::string(2 * indent, ' '); }

std::string DtypeName(int dtype) {
  if (tensorflow::DataType_IsValid(dtype))
    return tensorflow::DataType_Name(static_cast<tensorflow::DataType>(dtype));
  return "DT_UNKNOWN_" + std::to_string(dtype);
}

// "(-1, 1)", "()" or "unknown_rank", as saved_model_cli joins the dims.
std::string ShapeString(const tensorflow::TensorShapeProto& shape) {
  if (shape.unknown_rank()) return "unknown_rank";
  std::string s = "(";
  for (int i = 0; i < shape.dim_size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape.dim(i).size());
  return s + ")";
}

void PrintTensorInfo(const tensorflow::TensorInfo& info, int indent, std::ostream& out) {
  const std::string pad = Indent(indent);
  out << pad << "    dtype: " << DtypeName(info.dtype()) << "\n";
  out << pad << "    shape: " << ShapeString(info.tensor_shape()) << "\n";
  switch (info.encoding_case()) {
    case tensorflow::TensorInfo::kCooSparse:
      out << pad << "    values: " << info.coo_sparse().values_tensor_name() << "\n"
          << pad << "    indices: " << info.coo_sparse().indices_tensor_name() << "\n"
          << pad << "    dense_shape: " << info.coo_sparse().dense_shape_tensor_name() << "\n";
      break;
    case tensorflow::TensorInfo::kCompositeTensor:
      out << pad << "    composite tensor of " << info.composite_tensor().components_size()
          << " component(s)\n";
      break;
    default:
      out << pad << "    name: " << info.name() << "\n";
  }
}

template <typename Map>
std::vector<std::string> SortedKeys(const Map& map) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : map) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  return keys;
}

void PrintSignature(const tensorflow::SignatureDef& sig, int indent, std::ostream& out) {
  const std::string pad = Indent(indent);
  out << pad << "The given SavedModel SignatureDef contains the following input(s):\n";
  for (const std::string& key : SortedKeys(sig.inputs())) {
    out << pad << "  inputs['" << key << "'] tensor_info:\n";
    PrintTensorInfo(sig.inputs().at(key), indent + 1, out);
  }
  out << pad << "The given SavedModel SignatureDef contains the following output(s):\n";
  for (const std::string& key : SortedKeys(sig.outputs())) {
    out << pad << "  outputs['" << key << "'] tensor_info:\n";
    PrintTensorInfo(sig.outputs().at(key), indent + 1, out);
  }
  out << pad << "Method name is: " << sig.method_name() << "\n";
}

std::string JoinTags(std::vector<std::string> tags, bool sorted) {
  if (sorted) std::sort(tags.begin(), tags.end());
  std::string s;
  for (size_t i = 0; i < tags.size(); ++i) s += (i ? ", " : "") + tags[i];
  return s;
}

// Python's repr of a str, as saved_model_cli prints a tag set with %r.
std::string PyRepr(const std::string& s) {
  const char quote =
      s.find('\'') != std::string::npos && s.find('"') == std::string::npos ? '"' : '\'';
  std::string r(1, quote);
  for (const char c : s) {
    if (c == quote || c == '\\') {
      r += '\\';
      r += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      static const char* kHex = "0123456789abcdef";
      r += "\\x";
      r += kHex[(c >> 4) & 15];
      r += kHex[c & 15];
    } else {
      r += c;
    }
  }
  return r + quote;
}

std::string PythonDtype(int dtype);

// TensorFlow's Python repr of a TensorSpec: TensorSpec(shape=(None, 1),
// dtype=tf.float32, name='x').
std::string TensorSpecString(const tensorflow::TensorSpecProto& spec) {
  std::string shape;
  if (spec.shape().unknown_rank()) {
    shape = "<unknown>";
  } else {
    shape = "(";
    for (int i = 0; i < spec.shape().dim_size(); ++i) {
      const int64_t d = spec.shape().dim(i).size();
      shape += (i ? ", " : "") + (d < 0 ? std::string("None") : std::to_string(d));
    }
    shape += spec.shape().dim_size() == 1 ? ",)" : ")";
  }
  return "TensorSpec(shape=" + shape + ", dtype=" + PythonDtype(spec.dtype()) +
         ", name=" + (spec.name().empty() ? "None" : PyRepr(spec.name())) + ")";
}

// Python's name of a dtype: tf.float32 for DT_FLOAT, tf.string for DT_STRING.
std::string PythonDtype(int dtype) {
  switch (dtype) {
    case tensorflow::DT_FLOAT:
      return "tf.float32";
    case tensorflow::DT_DOUBLE:
      return "tf.float64";
    case tensorflow::DT_HALF:
      return "tf.float16";
    default:
      break;
  }
  std::string name = DtypeName(dtype);
  std::transform(name.begin(), name.end(), name.begin(), ::tolower);
  return name.rfind("dt_", 0) == 0 ? "tf." + name.substr(3) : name;
}

std::string ValueString(const tensorflow::StructuredValue& v, int depth = 0) {
  if (depth > 32) return "...";
  switch (v.kind_case()) {
    case tensorflow::StructuredValue::kNoneValue:
      return "None";
    case tensorflow::StructuredValue::kBoolValue:
      return v.bool_value() ? "True" : "False";
    case tensorflow::StructuredValue::kInt64Value:
      return std::to_string(v.int64_value());
    case tensorflow::StructuredValue::kFloat64Value:
      return std::to_string(v.float64_value());
    case tensorflow::StructuredValue::kStringValue:
      return PyRepr(v.string_value());
    case tensorflow::StructuredValue::kTensorSpecValue:
      return TensorSpecString(v.tensor_spec_value());
    case tensorflow::StructuredValue::kListValue:
    case tensorflow::StructuredValue::kTupleValue: {
      const bool list = v.kind_case() == tensorflow::StructuredValue::kListValue;
      const auto& values = list ? v.list_value().values() : v.tuple_value().values();
      std::string s = list ? "[" : "(";
      for (int i = 0; i < values.size(); ++i)
        s += (i ? ", " : "") + ValueString(values[i], depth + 1);
      if (!list && values.size() == 1) s += ",";
      return s + (list ? "]" : ")");
    }
    case tensorflow::StructuredValue::kDictValue: {
      std::string s = "{";
      bool first = true;
      for (const std::string& key : SortedKeys(v.dict_value().fields())) {
        s += (first ? "" : ", ") + PyRepr(key) + ": " +
             ValueString(v.dict_value().fields().at(key), depth + 1);
        first = false;
      }
      return s + "}";
    }
    default:
      return "<value>";
  }
}

// "Argument #i" lines of one concrete function's args (a tuple) or kwargs
// (a dict, listed by key), laid out as saved_model_cli's _print_args.
void PrintArgs(const tensorflow::StructuredValue& values, const std::string& word,
               std::ostream& out) {
  const std::string pad = Indent(4);
  if (values.kind_case() == tensorflow::StructuredValue::kDictValue) {
    int index = 0;
    for (const std::string& key : SortedKeys(values.dict_value().fields()))
      out << pad << word << " #" << ++index << "\n" << pad << "  " << key << "\n";
    return;
  }
  const bool tuple = values.kind_case() == tensorflow::StructuredValue::kTupleValue;
  if (!tuple && values.kind_case() != tensorflow::StructuredValue::kListValue) return;
  const auto& items = tuple ? values.tuple_value().values() : values.list_value().values();
  for (int i = 0; i < items.size(); ++i) {
    out << pad << word << " #" << i + 1 << "\n";
    const auto& item = items[i];
    if (item.kind_case() == tensorflow::StructuredValue::kTensorSpecValue) {
      const auto& spec = item.tensor_spec_value();
      out << pad << "  " << (spec.name().empty() ? std::string("None") : spec.name()) << ": "
          << TensorSpecString(spec) << "\n";
    } else {
      out << pad << "  Value: " << ValueString(item) << "\n";
    }
  }
}

// saved_model_cli lists the tf.functions attached to the root object (the
// Python object the model was saved from), sorted by name, each with its
// concrete functions' input signatures.
void ShowConcreteFunctions(const tensorflow::MetaGraphDef& mg, std::ostream& out) {
  const tensorflow::SavedObjectGraph& graph = mg.object_graph_def();
  if (graph.nodes_size() == 0) return;
  std::vector<std::pair<std::string, int>> functions;
  for (const auto& child : graph.nodes(0).children()) {
    if (child.node_id() < 0 || child.node_id() >= graph.nodes_size()) continue;
    const auto& node = graph.nodes(child.node_id());
    if (node.kind_case() == tensorflow::SavedObject::kFunction ||
        node.kind_case() == tensorflow::SavedObject::kBareConcreteFunction)
      functions.emplace_back(child.local_name(), child.node_id());
  }
  std::sort(functions.begin(), functions.end());
  out << "\nConcrete Functions:";
  for (const auto& [name, id] : functions) {
    out << "\n  Function Name: " << PyRepr(name) << "\n";
    const auto& node = graph.nodes(id);
    std::vector<std::string> concrete;
    if (node.kind_case() == tensorflow::SavedObject::kFunction) {
      concrete.assign(node.function().concrete_functions().begin(),
                      node.function().concrete_functions().end());
    } else {
      concrete.push_back(node.bare_concrete_function().concrete_function_name());
    }
    std::sort(concrete.begin(), concrete.end());
    int option = 0;
    for (const std::string& fn : concrete) {
      ++option;
      auto it = graph.concrete_functions().find(fn);
      if (it == graph.concrete_functions().end()) continue;
      const auto& sig = it->second.canonicalized_input_signature();
      if (sig.kind_case() != tensorflow::StructuredValue::kTupleValue ||
          sig.tuple_value().values_size() != 2)
        continue;
      const auto& args = sig.tuple_value().values(0);
      const auto& kwargs = sig.tuple_value().values(1);
      const bool has_args = (args.kind_case() == tensorflow::StructuredValue::kTupleValue &&
                             args.tuple_value().values_size() > 0) ||
                            (args.kind_case() == tensorflow::StructuredValue::kListValue &&
                             args.list_value().values_size() > 0);
      if (has_args) {
        out << Indent(2) << "Option #" << option << "\n" << Indent(3) << "Callable with:\n";
        PrintArgs(args, "Argument", out);
      }
      if (kwargs.kind_case() == tensorflow::StructuredValue::kDictValue &&
          kwargs.dict_value().fields_size() > 0)
        PrintArgs(kwargs, "Named Argument", out);
    }
  }
}

}  // namespace

Status FindByTagSetFlag(const tensorflow::SavedModel& saved_model, const std::string& tag_set,
                        const tensorflow::MetaGraphDef** out) {
  std::unordered_set<std::string> tags;
  size_t start = 0;
  while (start <= tag_set.size()) {
    const size_t comma = tag_set.find(',', start);
    const std::string tag =
        tag_set.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!tag.empty()) tags.insert(tag);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return FindMetaGraphDef(saved_model, tags, out);
}

void ShowTagSets(const tensorflow::SavedModel& saved_model, std::ostream& out) {
  std::vector<std::string> lines;
  for (const auto& set : GetTagSets(saved_model)) lines.push_back(PyRepr(JoinTags(set, true)));
  std::sort(lines.begin(), lines.end());
  out << "The given SavedModel contains the following tag-sets:\n";
  for (const auto& line : lines) out << line << "\n";
}

Status ShowSignatureKeys(const tensorflow::SavedModel& saved_model, const std::string& tag_set,
                         std::ostream& out) {
  const tensorflow::MetaGraphDef* mg = nullptr;
  AF_RETURN_IF_ERROR(FindByTagSetFlag(saved_model, tag_set, &mg));
  out << "The given SavedModel MetaGraphDef contains SignatureDefs with the following keys:\n";
  for (const std::string& key : SortedKeys(mg->signature_def()))
    out << "SignatureDef key: \"" << key << "\"\n";
  return Status::OK();
}

Status ShowSignature(const tensorflow::SavedModel& saved_model, const std::string& tag_set,
                     const std::string& signature_key, std::ostream& out) {
  const tensorflow::MetaGraphDef* mg = nullptr;
  AF_RETURN_IF_ERROR(FindByTagSetFlag(saved_model, tag_set, &mg));
  auto it = mg->signature_def().find(signature_key);
  if (it == mg->signature_def().end()) {
    std::string keys;
    for (const std::string& key : SortedKeys(mg->signature_def()))
      keys += (keys.empty() ? "" : ", ") + key;
    return errors::NotFound("no SignatureDef '", signature_key, "' in the MetaGraphDef tagged '",
                            tag_set, "'; its keys: ", keys.empty() ? "none" : keys);
  }
  PrintSignature(it->second, 0, out);
  return Status::OK();
}

void ShowAll(const tensorflow::SavedModel& saved_model, std::ostream& out) {
  std::vector<const tensorflow::MetaGraphDef*> graphs;
  for (const auto& mg : saved_model.meta_graphs()) graphs.push_back(&mg);
  std::stable_sort(graphs.begin(), graphs.end(), [](const auto* a, const auto* b) {
    return std::vector<std::string>(a->meta_info_def().tags().begin(),
                                    a->meta_info_def().tags().end()) <
           std::vector<std::string>(b->meta_info_def().tags().begin(),
                                    b->meta_info_def().tags().end());
  });
  for (const tensorflow::MetaGraphDef* mg : graphs) {
    const std::vector<std::string> tags(mg->meta_info_def().tags().begin(),
                                        mg->meta_info_def().tags().end());
    out << "\nMetaGraphDef with tag-set: '" << JoinTags(tags, false)
        << "' contains the following SignatureDefs:\n";
    for (const std::string& key : SortedKeys(mg->signature_def())) {
      out << "\nsignature_def['" << key << "']:\n";
      PrintSignature(mg->signature_def().at(key), 1, out);
    }
  }
  // saved_model_cli shows the functions of the model it loads; the object
  // graph is in every MetaGraphDef TF 2 writes (there is one).
  if (!graphs.empty()) ShowConcreteFunctions(*graphs.front(), out);
  if (!graphs.empty() && graphs.front()->object_graph_def().nodes_size() > 0) out << "\n";
}

}  // namespace af::tools
