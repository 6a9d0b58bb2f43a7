// OpDefBuilder: turns REGISTER_OP's text specs into an OpDef. The grammar is
// TensorFlow's (see core/op_registry.h); a bad spec is a bug in the binary, so
// the parser names the op and quotes the spec in every error.
#include <google/protobuf/text_format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <set>

#include "core/attr_value_util.h"
#include "core/op_registry.h"

namespace af {
namespace {

using tensorflow::AttrValue;
using tensorflow::OpDef;

// A cursor over one spec string.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : rest_(text) {}

  void SkipSpace() {
    while (!rest_.empty() && std::isspace(static_cast<unsigned char>(rest_.front())))
      rest_.remove_prefix(1);
  }
  bool empty() {
    SkipSpace();
    return rest_.empty();
  }
  std::string_view rest() {
    SkipSpace();
    return rest_;
  }
  // Consumes `token` (after optional space) if it comes next.
  bool Consume(std::string_view token) {
    SkipSpace();
    if (!rest_.starts_with(token)) return false;
    rest_.remove_prefix(token.size());
    return true;
  }
  // [A-Za-z_][A-Za-z0-9_]*; empty if none.
  std::string_view Word() {
    SkipSpace();
    size_t n = 0;
    while (n < rest_.size() &&
           (std::isalnum(static_cast<unsigned char>(rest_[n])) || rest_[n] == '_'))
      ++n;
    if (n > 0 && std::isdigit(static_cast<unsigned char>(rest_[0]))) return {};
    std::string_view w = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return w;
  }
  // An optionally signed decimal integer.
  bool Int(int64_t* out) {
    SkipSpace();
    const char* begin = rest_.data();
    const char* end = rest_.data() + rest_.size();
    auto [ptr, ec] = std::from_chars(begin, end, *out);
    if (ec != std::errc() || ptr == begin) return false;
    rest_.remove_prefix(static_cast<size_t>(ptr - begin));
    return true;
  }
  // 'text' or "text" with C escapes.
  bool Quoted(std::string* out) {
    SkipSpace();
    if (rest_.empty() || (rest_[0] != '\'' && rest_[0] != '"')) return false;
    const char quote = rest_[0];
    std::string value;
    for (size_t i = 1; i < rest_.size(); ++i) {
      char c = rest_[i];
      if (c == quote) {
        rest_.remove_prefix(i + 1);
        *out = std::move(value);
        return true;
      }
      if (c == '\\') {
        if (++i == rest_.size()) return false;
        switch (rest_[i]) {
          case 'n': c = '\n'; break;
          case 't': c = '\t'; break;
          case 'r': c = '\r'; break;
          case '0': c = '\0'; break;
          default: c = rest_[i]; break;  // \\, \', \"
        }
      }
      value.push_back(c);
    }
    return false;
  }

 private:
  std::string_view rest_;
};

bool IsAttrName(std::string_view n) {
  return !n.empty() && std::isalpha(static_cast<unsigned char>(n[0]));
}

bool IsArgName(std::string_view n) {
  if (n.empty() || !std::islower(static_cast<unsigned char>(n[0]))) return false;
  for (char c : n)
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) ||
          c == '_'))
      return false;
  return true;
}

bool IsScalarAttrType(std::string_view t) {
  return t == "string" || t == "int" || t == "float" || t == "bool" || t == "type" ||
         t == "shape" || t == "tensor" || t == "func";
}

// A fixed (non-ref) data type named by `name` ("float", "DT_INT32").
bool FixedType(std::string_view name, DataType* dt) {
  return DataTypeFromString(name, dt) && !IsRefType(*dt);
}

// Splits "[a, 'b,c', [d]]" contents at top-level commas.
bool SplitList(std::string_view text, std::vector<std::string_view>* items) {
  int depth = 0;
  char quote = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') quote = c;
    else if (c == '[' || c == '{') ++depth;
    else if (c == ']' || c == '}') --depth;
    else if (c == ',' && depth == 0) {
      items->push_back(text.substr(start, i - start));
      start = i + 1;
    }
    if (depth < 0) return false;
  }
  if (quote || depth != 0) return false;
  std::string_view last = text.substr(start);
  Scanner s(last);
  if (!s.empty() || !items->empty()) items->push_back(last);
  return true;
}

std::string_view Trim(std::string_view t) {
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.remove_prefix(1);
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.remove_suffix(1);
  return t;
}

template <typename Proto>
bool ParseBracedText(std::string_view text, Proto* out) {
  text = Trim(text);
  if (text.size() < 2 || text.front() != '{' || text.back() != '}') return false;
  return google::protobuf::TextFormat::ParseFromString(
      std::string(text.substr(1, text.size() - 2)), out);
}

// Parses one default value of scalar attr type `type`, adding it to `list`
// when given, else setting it on `value`.
Status ParseScalarDefault(std::string_view type, std::string_view text, AttrValue* value,
                          AttrValue::ListValue* list) {
  text = Trim(text);
  Scanner s(text);
  auto bad = [&] { return errors::InvalidArgument("cannot parse '", text, "' as ", type); };
  if (type == "string") {
    std::string v;
    if (!s.Quoted(&v) || !s.empty()) return bad();
    list ? list->add_s(v) : value->set_s(v);
  } else if (type == "int") {
    int64_t v;
    if (!s.Int(&v) || !s.empty()) return bad();
    list ? list->add_i(v) : value->set_i(v);
  } else if (type == "float") {
    std::string str(text);
    char* end = nullptr;
    const double v = std::strtod(str.c_str(), &end);
    if (str.empty() || end != str.c_str() + str.size()) return bad();
    list ? list->add_f(static_cast<float>(v)) : value->set_f(static_cast<float>(v));
  } else if (type == "bool") {
    bool v;
    if (text == "true") v = true;
    else if (text == "false") v = false;
    else return bad();
    list ? list->add_b(v) : value->set_b(v);
  } else if (type == "type") {
    DataType dt;
    if (!FixedType(text, &dt)) return bad();
    const auto v = static_cast<tensorflow::DataType>(dt);
    list ? list->add_type(v) : value->set_type(v);
  } else if (type == "shape") {
    tensorflow::TensorShapeProto shape;
    if (text.starts_with("[")) {
      if (!text.ends_with("]")) return bad();
      std::vector<std::string_view> dims;
      if (!SplitList(text.substr(1, text.size() - 2), &dims)) return bad();
      for (std::string_view d : dims) {
        Scanner ds(d);
        int64_t size;
        if (ds.Consume("?")) size = -1;
        else if (!ds.Int(&size)) return bad();
        if (!ds.empty()) return bad();
        shape.add_dim()->set_size(size);
      }
    } else if (!ParseBracedText(text, &shape)) {
      return bad();
    }
    list ? (void)(*list->add_shape() = shape) : (void)(*value->mutable_shape() = shape);
  } else if (type == "tensor") {
    tensorflow::TensorProto tensor;
    if (!ParseBracedText(text, &tensor)) return bad();
    list ? (void)(*list->add_tensor() = tensor) : (void)(*value->mutable_tensor() = tensor);
  } else if (type == "func") {
    tensorflow::NameAttrList func;
    std::string name;
    if (s.Quoted(&name) && s.empty()) func.set_name(name);
    else if (!ParseBracedText(text, &func)) return bad();
    list ? (void)(*list->add_func() = func) : (void)(*value->mutable_func() = func);
  } else {
    return errors::InvalidArgument("no defaults for attrs of type ", type);
  }
  return Status::OK();
}

Status ParseDefault(std::string_view type, std::string_view text, AttrValue* value) {
  if (type.starts_with("list(")) {
    const std::string_view elem = type.substr(5, type.size() - 6);
    text = Trim(text);
    if (text.size() < 2 || text.front() != '[' || text.back() != ']')
      return errors::InvalidArgument("list default '", text, "' must be written [a, b, ...]");
    std::vector<std::string_view> items;
    if (!SplitList(text.substr(1, text.size() - 2), &items))
      return errors::InvalidArgument("cannot parse list default '", text, "'");
    AttrValue::ListValue* list = value->mutable_list();  // sets the oneof even when empty
    for (std::string_view item : items)
      AF_RETURN_IF_ERROR(ParseScalarDefault(elem, item, nullptr, list));
    return Status::OK();
  }
  return ParseScalarDefault(type, text, value, nullptr);
}

// "{float, int32}" (a type set, shorthands allowed) or "{'SAME', 'VALID'}".
// Sets `elem` to "type" or "string".
Status ParseAllowedSet(Scanner* s, std::string* elem, AttrValue* allowed) {
  auto* list = allowed->mutable_list();
  std::string str;
  if (s->Quoted(&str)) {
    *elem = "string";
    list->add_s(str);
    while (s->Consume(",")) {
      if (!s->Quoted(&str)) return errors::InvalidArgument("expected a quoted string in set");
      list->add_s(str);
    }
  } else {
    *elem = "type";
    std::set<int> seen;
    do {
      std::string_view word = s->Word();
      if (word.empty()) return errors::InvalidArgument("expected a type name in set");
      DataTypeVector types;
      DataType dt;
      if (const DataTypeVector* set = TypeSetByName(word)) types = *set;
      else if (FixedType(word, &dt)) types = {dt};
      else return errors::InvalidArgument("unknown type '", word, "' in set");
      for (DataType t : types)
        if (seen.insert(t).second) list->add_type(static_cast<tensorflow::DataType>(t));
    } while (s->Consume(","));
  }
  if (!s->Consume("}")) return errors::InvalidArgument("expected '}' closing the set");
  return Status::OK();
}

Status ParseAttr(std::string_view spec, OpDef::AttrDef* attr) {
  Scanner s(spec);
  const std::string_view name = s.Word();
  if (!IsAttrName(name)) return errors::InvalidArgument("expected '<name>:'");
  if (!s.Consume(":")) return errors::InvalidArgument("expected ':' after the attr name");
  attr->set_name(std::string(name));

  const bool is_list = s.Consume("list(");
  std::string elem;
  if (s.Consume("{")) {
    AF_RETURN_IF_ERROR(ParseAllowedSet(&s, &elem, attr->mutable_allowed_values()));
  } else {
    const std::string_view word = s.Word();
    if (IsScalarAttrType(word)) {
      elem = std::string(word);
    } else if (const DataTypeVector* set = TypeSetByName(word)) {
      elem = "type";
      for (DataType t : *set)
        attr->mutable_allowed_values()->mutable_list()->add_type(
            static_cast<tensorflow::DataType>(t));
    } else {
      return errors::InvalidArgument("unknown attr type '", word, "'");
    }
  }
  if (is_list && !s.Consume(")")) return errors::InvalidArgument("expected ')' closing list(");
  const std::string type = is_list ? "list(" + elem + ")" : elem;
  attr->set_type(type);

  if (s.Consume(">=")) {
    if (type != "int" && !is_list)
      return errors::InvalidArgument("a minimum is only allowed on int and list attrs");
    int64_t min;
    if (!s.Int(&min)) return errors::InvalidArgument("expected an integer after '>='");
    if (is_list && min < 0) return errors::InvalidArgument("a list minimum must be >= 0");
    attr->set_has_minimum(true);
    attr->set_minimum(min);
  }
  if (s.Consume("=")) {
    AF_RETURN_IF_ERROR(ParseDefault(type, s.rest(), attr->mutable_default_value()));
    AF_RETURN_IF_ERROR(ValidateAttrValue(attr->default_value(), *attr)
                           .WithContext("default value does not satisfy the attr"));
  } else if (!s.empty()) {
    return errors::InvalidArgument("unexpected '", s.rest(), "'");
  }
  return Status::OK();
}

const OpDef::AttrDef* FindAttr(const OpDef& op, std::string_view name) {
  for (const auto& a : op.attr())
    if (a.name() == name) return &a;
  return nullptr;
}

Status ParseArg(std::string_view spec, const OpDef& op, OpDef::ArgDef* arg) {
  Scanner s(spec);
  const std::string_view name = s.Word();
  if (!IsArgName(name))
    return errors::InvalidArgument("expected '<name>:' with a name matching [a-z][a-z0-9_]*");
  if (!s.Consume(":")) return errors::InvalidArgument("expected ':' after the arg name");
  arg->set_name(std::string(name));

  const bool is_ref = s.Consume("Ref(");
  arg->set_is_ref(is_ref);
  std::string_view type_word = s.Word();
  if (s.Consume("*")) {
    const OpDef::AttrDef* n = FindAttr(op, type_word);
    if (!n) return errors::InvalidArgument("reference to unknown attr '", type_word, "'");
    if (n->type() != "int")
      return errors::InvalidArgument("length attr '", type_word, "' has type ", n->type(),
                                     ", expected int");
    arg->set_number_attr(std::string(type_word));
    type_word = s.Word();
  }
  if (type_word.empty()) return errors::InvalidArgument("expected a type or type attr");
  DataType dt;
  if (FixedType(type_word, &dt)) {
    arg->set_type(static_cast<tensorflow::DataType>(dt));
  } else {
    const OpDef::AttrDef* t = FindAttr(op, type_word);
    if (!t) return errors::InvalidArgument("reference to unknown attr '", type_word, "'");
    if (t->type() == "type") {
      arg->set_type_attr(std::string(type_word));
    } else if (t->type() == "list(type)") {
      if (!arg->number_attr().empty())
        return errors::InvalidArgument("'", arg->number_attr(), " * ", type_word,
                                       "' repeats a list(type) attr");
      arg->set_type_list_attr(std::string(type_word));
    } else {
      return errors::InvalidArgument("attr '", type_word, "' has type ", t->type(),
                                     ", expected type or list(type)");
    }
  }
  if (is_ref && !s.Consume(")")) return errors::InvalidArgument("expected ')' closing Ref(");
  if (!s.empty()) return errors::InvalidArgument("unexpected '", s.rest(), "'");
  return Status::OK();
}

}  // namespace

OpDefBuilder::OpDefBuilder(std::string op_name) : name_(std::move(op_name)) {}

OpDefBuilder& OpDefBuilder::Input(std::string spec) {
  inputs_.push_back(std::move(spec));
  return *this;
}
OpDefBuilder& OpDefBuilder::Output(std::string spec) {
  outputs_.push_back(std::move(spec));
  return *this;
}
OpDefBuilder& OpDefBuilder::Attr(std::string spec) {
  attrs_.push_back(std::move(spec));
  return *this;
}
OpDefBuilder& OpDefBuilder::SetIsStateful() {
  stateful_ = true;
  return *this;
}
OpDefBuilder& OpDefBuilder::SetIsCommutative() {
  commutative_ = true;
  return *this;
}
OpDefBuilder& OpDefBuilder::SetIsAggregate() {
  aggregate_ = true;
  return *this;
}
OpDefBuilder& OpDefBuilder::SetAllowsUninitializedInput() {
  allows_uninitialized_ = true;
  return *this;
}
OpDefBuilder& OpDefBuilder::SetShapeFn(ShapeFn fn) {
  shape_fn_ = std::move(fn);
  return *this;
}
OpDefBuilder& OpDefBuilder::Doc(std::string summary) {
  summary_ = std::move(summary);
  return *this;
}

Status OpDefBuilder::Finalize(OpRegistrationData* out) const {
  OpDef op;
  auto fail = [&](std::string_view what, std::string_view spec, const Status& why) {
    return errors::InvalidArgument("Op '", name_, "': invalid ", what, " spec '", spec,
                                   "': ", why.message());
  };
  if (name_.empty() ||
      (!std::isupper(static_cast<unsigned char>(name_[0])) && name_[0] != '_'))
    return errors::InvalidArgument("Op '", name_,
                                   "': op names must start with a capital letter or '_'");
  op.set_name(name_);
  std::set<std::string, std::less<>> names;
  auto unique = [&](const std::string& n) { return names.insert(n).second; };

  // Attrs first: input and output specs refer to them.
  for (const std::string& spec : attrs_) {
    OpDef::AttrDef* attr = op.add_attr();
    Status s = ParseAttr(spec, attr);
    if (!s.ok()) return fail("attr", spec, s);
    if (!unique(attr->name()))
      return fail("attr", spec, errors::InvalidArgument("duplicate name '", attr->name(), "'"));
  }
  for (const auto& [specs, what, is_input] :
       {std::tuple{&inputs_, "input", true}, std::tuple{&outputs_, "output", false}}) {
    for (const std::string& spec : *specs) {
      OpDef::ArgDef* arg = is_input ? op.add_input_arg() : op.add_output_arg();
      Status s = ParseArg(spec, op, arg);
      if (!s.ok()) return fail(what, spec, s);
      if (!unique(arg->name()))
        return fail(what, spec, errors::InvalidArgument("duplicate name '", arg->name(), "'"));
    }
  }
  op.set_is_stateful(stateful_);
  op.set_is_commutative(commutative_);
  op.set_is_aggregate(aggregate_);
  op.set_allows_uninitialized_input(allows_uninitialized_);
  op.set_summary(summary_);
  out->op_def = std::move(op);
  out->shape_fn = shape_fn_;
  return Status::OK();
}

}  // namespace af
