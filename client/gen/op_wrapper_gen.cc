// Writes the C++ op wrappers (af::ops::MatMul, ...) from the op registry,
// so the OpDefs in core/ops stay the one source of truth. Run at build
// time: op_wrapper_gen OUT.h OUT.cc. Files are rewritten only when their
// text changes, so adding an op recompiles only what includes the wrappers.
//
// Each op becomes a class: constructor (scope, inputs..., required attrs...
// [, Attrs]), optional attrs as chained setters on Attrs (also reachable as
// static helpers: ops::MatMul::TransposeB(true)), and one member per output
// arg named as in the OpDef. Type and length attrs implied by the inputs
// are inferred by OpBuilder, not asked for.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/op_registry.h"

namespace af {
namespace {

// Wrapped by hand in client/const_op.h.
const std::set<std::string> kHandWritten = {"Const", "Placeholder"};

const std::set<std::string> kCppKeywords = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
    "case", "catch", "char", "class", "compl", "concept", "const", "consteval", "constexpr",
    "constinit", "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype",
    "default", "delete", "do", "double", "dynamic_cast", "else", "enum", "explicit", "export",
    "extern", "false", "float", "for", "friend", "goto", "if", "inline", "int", "long",
    "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or",
    "or_eq", "private", "protected", "public", "register", "reinterpret_cast", "requires",
    "return", "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct",
    "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid",
    "typename", "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t",
    "while", "xor", "xor_eq"};

// Names the generated classes use for themselves.
const std::set<std::string> kReserved = {"scope", "attrs", "af_builder", "operation", "node",
                                         "Attrs"};

std::string Identifier(const std::string& name, const std::set<std::string>& taken) {
  std::string id = name;
  while (kCppKeywords.count(id) || kReserved.count(id) || taken.count(id)) id += "_";
  return id;
}

std::string CamelCase(const std::string& attr) {
  std::string out;
  bool upper = true;
  for (char c : attr) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

struct AttrKind {
  std::string param;   // C++ parameter type
  std::string setter;  // AttrList method
};

bool KindOf(const std::string& type, AttrKind* out) {
  static const std::vector<std::pair<std::string, AttrKind>> kKinds = {
      {"int", {"int64_t", "SetInt"}},
      {"float", {"float", "SetFloat"}},
      {"bool", {"bool", "SetBool"}},
      {"string", {"std::string_view", "SetString"}},
      {"type", {"::af::DataType", "SetType"}},
      {"shape", {"const ::af::PartialTensorShape&", "SetShape"}},
      {"tensor", {"const ::af::Tensor&", "SetTensor"}},
      {"func", {"std::string_view", "SetFunc"}},
      {"list(int)", {"const std::vector<int64_t>&", "SetIntList"}},
      {"list(float)", {"const std::vector<float>&", "SetFloatList"}},
      {"list(bool)", {"const std::vector<bool>&", "SetBoolList"}},
      {"list(string)", {"const std::vector<std::string>&", "SetStringList"}},
      {"list(type)", {"const ::af::DataTypeVector&", "SetTypeList"}},
      {"list(shape)", {"const std::vector<::af::PartialTensorShape>&", "SetShapeList"}},
      {"list(tensor)", {"const std::vector<::af::Tensor>&", "SetTensorList"}},
      {"list(func)", {"const std::vector<std::string>&", "SetFuncList"}},
  };
  for (const auto& [name, kind] : kKinds) {
    if (name == type) {
      *out = kind;
      return true;
    }
  }
  return false;
}

struct Param {
  std::string id;        // C++ name
  std::string arg;       // OpDef name
  std::string type;      // C++ type
  std::string setter;    // for attrs
  bool is_list = false;  // for inputs and outputs
};

struct OpWrapper {
  std::string name;
  std::string summary;
  std::vector<Param> inputs, required, optional, outputs;
};

bool BuildWrapper(const tensorflow::OpDef& op, OpWrapper* w) {
  w->name = op.name();
  w->summary = op.summary();
  std::set<std::string> inferred, taken = {op.name()};
  for (const auto& arg : op.input_arg()) {
    if (!arg.number_attr().empty()) inferred.insert(arg.number_attr());
    if (!arg.type_attr().empty()) inferred.insert(arg.type_attr());
    if (!arg.type_list_attr().empty()) inferred.insert(arg.type_list_attr());
  }
  for (const auto& arg : op.input_arg()) {
    Param p;
    p.arg = arg.name();
    p.id = Identifier(arg.name(), taken);
    p.is_list = !arg.number_attr().empty() || !arg.type_list_attr().empty();
    p.type = p.is_list ? "const ::af::InputList&" : "const ::af::Input&";
    taken.insert(p.id);
    w->inputs.push_back(p);
  }
  for (const auto& attr : op.attr()) {
    if (attr.name().empty() || attr.name()[0] == '_' || inferred.count(attr.name())) continue;
    AttrKind kind;
    if (!KindOf(attr.type(), &kind)) {
      std::cerr << "op_wrapper_gen: op " << op.name() << " attr " << attr.name()
                << " has unsupported type " << attr.type() << "; op skipped\n";
      return false;
    }
    Param p;
    p.arg = attr.name();
    p.type = kind.param;
    p.setter = kind.setter;
    if (attr.has_default_value()) {
      p.id = Identifier(CamelCase(attr.name()), taken);
      w->optional.push_back(p);
    } else {
      p.id = Identifier(attr.name(), taken);
      w->required.push_back(p);
    }
    taken.insert(p.id);
  }
  for (const auto& arg : op.output_arg()) {
    Param p;
    p.arg = arg.name();
    p.id = Identifier(arg.name(), taken);
    p.is_list = !arg.number_attr().empty() || !arg.type_list_attr().empty();
    p.type = p.is_list ? "::af::OutputList" : "::af::Output";
    taken.insert(p.id);
    w->outputs.push_back(p);
  }
  return true;
}

std::string OneLine(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

std::string Signature(const OpWrapper& w, bool with_attrs) {
  std::string s = "const ::af::Scope& scope";
  for (const Param& p : w.inputs) s += ", " + p.type + " " + p.id;
  for (const Param& p : w.required) s += ", " + p.type + " " + p.id;
  if (with_attrs) s += ", const Attrs& attrs";
  return s;
}

void WriteDeclaration(const OpWrapper& w, std::ostream& h) {
  h << "\n// " << w.name;
  if (!w.summary.empty()) h << ": " << OneLine(w.summary);
  h << "\nclass " << w.name << " {\n public:\n";
  const bool has_attrs = !w.optional.empty();
  if (has_attrs) {
    h << "  struct Attrs {\n";
    for (const Param& p : w.optional) {
      h << "    Attrs " << p.id << "(" << p.type << " x) const {\n"
        << "      Attrs r = *this;\n      r.list." << p.setter << "(\"" << p.arg
        << "\", x);\n      return r;\n    }\n";
    }
    h << "    ::af::AttrList list;\n  };\n";
  }
  h << "  " << w.name << "(" << Signature(w, false) << ");\n";
  if (has_attrs) {
    h << "  " << w.name << "(" << Signature(w, true) << ");\n";
    for (const Param& p : w.optional)
      h << "  static Attrs " << p.id << "(" << p.type << " x) { return Attrs()." << p.id
        << "(x); }\n";
  }
  if (w.outputs.size() == 1 && !w.outputs[0].is_list) {
    const std::string& o = w.outputs[0].id;
    h << "  operator ::af::Output() const { return " << o << "; }\n"
      << "  operator ::af::Input() const { return " << o << "; }\n";
  } else if (w.outputs.size() == 1) {
    h << "  ::af::Output operator[](size_t i) const { return " << w.outputs[0].id
      << "[i]; }\n";
  } else if (w.outputs.empty()) {
    h << "  operator ::af::Operation() const { return operation; }\n";
  }
  h << "  ::af::Node* node() const { return operation.node(); }\n\n"
    << "  ::af::Operation operation;\n";
  for (const Param& p : w.outputs) h << "  " << p.type << " " << p.id << ";\n";
  h << "};\n";
}

void WriteDefinition(const OpWrapper& w, std::ostream& c) {
  const bool has_attrs = !w.optional.empty();
  c << "\n" << w.name << "::" << w.name << "(" << Signature(w, has_attrs) << ") {\n"
    << "  ::af::OpBuilder af_builder(scope, \"" << w.name << "\");\n";
  for (const Param& p : w.inputs)
    c << "  af_builder." << (p.is_list ? "AddInputList(" : "AddInput(") << p.id << ");\n";
  if (has_attrs) c << "  af_builder.SetAttrs(attrs.list);\n";
  for (const Param& p : w.required)
    c << "  af_builder.attrs()." << p.setter << "(\"" << p.arg << "\", " << p.id << ");\n";
  c << "  operation = af_builder.Finish();\n";
  for (const Param& p : w.outputs)
    c << "  " << p.id << " = af_builder." << (p.is_list ? "OutputsForArg" : "OutputForArg")
      << "(\"" << p.arg << "\");\n";
  c << "}\n";
  if (has_attrs) {
    c << "\n" << w.name << "::" << w.name << "(" << Signature(w, false) << ")\n    : "
      << w.name << "(scope";
    for (const Param& p : w.inputs) c << ", " << p.id;
    for (const Param& p : w.required) c << ", " << p.id;
    c << ", Attrs()) {}\n";
  }
}

bool WriteIfChanged(const std::string& path, const std::string& text) {
  {
    std::ifstream in(path, std::ios::binary);
    if (in) {
      std::stringstream old;
      old << in.rdbuf();
      if (old.str() == text) return true;
    }
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return static_cast<bool>(out);
}

int Main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: op_wrapper_gen OUT.h OUT.cc\n";
    return 2;
  }
  std::ostringstream h, c;
  const char* kBanner =
      "// Generated by client/gen/op_wrapper_gen.cc from the op registry; do not edit.\n";
  h << kBanner << "#pragma once\n\n#include <cstdint>\n#include <string>\n"
    << "#include <string_view>\n#include <vector>\n\n#include \"client/attr_list.h\"\n"
    << "#include \"client/ops.h\"\n#include \"client/scope.h\"\n\nnamespace af::ops {\n";
  c << kBanner << "#include \"client/ops/generated_ops.h\"\n\n#include \"client/op_builder.h\"\n"
    << "\nnamespace af::ops {\n";
  for (const std::string& name : OpRegistry::Global()->ListOps()) {
    if (name.empty() || name[0] == '_' || kHandWritten.count(name)) continue;
    const OpRegistrationData* reg = OpRegistry::Global()->LookUp(name);
    OpWrapper w;
    if (reg == nullptr || !BuildWrapper(reg->op_def, &w)) continue;
    WriteDeclaration(w, h);
    WriteDefinition(w, c);
  }
  h << "\n}  // namespace af::ops\n";
  c << "\n}  // namespace af::ops\n";
  if (!WriteIfChanged(argv[1], h.str()) || !WriteIfChanged(argv[2], c.str())) {
    std::cerr << "op_wrapper_gen: cannot write " << argv[1] << " or " << argv[2] << "\n";
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace af

int main(int argc, char** argv) { return af::Main(argc, argv); }
