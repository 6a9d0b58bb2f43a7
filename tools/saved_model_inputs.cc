// Parsing --inputs, --input_exprs and --input_examples.
#include "tools/saved_model_inputs.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "core/npy.h"
#include "proto/example.pb.h"

namespace af::tools {
namespace {

// A value of the Python literal subset the flags take.
struct Literal {
  enum class Kind { kNumber, kString, kBool, kList, kDict };
  Kind kind = Kind::kNumber;
  double number = 0;
  bool is_float = false;  // written with '.', an exponent, inf or nan
  int64_t integer = 0;
  std::string text;                                     // kString
  std::vector<Literal> items;                           // kList (lists and tuples)
  std::vector<std::pair<std::string, Literal>> fields;  // kDict
};

class LiteralParser {
 public:
  explicit LiteralParser(std::string_view s) : s_(s) {}

  Status ParseAll(Literal* out) {
    AF_RETURN_IF_ERROR(Parse(out, 0));
    SkipSpace();
    if (pos_ != s_.size()) return Error("unexpected text");
    return Status::OK();
  }

 private:
  Status Error(std::string_view what) const {
    return errors::InvalidArgument(what, " at offset ", pos_, " of '", s_, "'");
  }
  void SkipSpace() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool Consume(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  Status Parse(Literal* out, int depth) {
    // Bounded so hostile text cannot exhaust the stack.
    if (depth > 32) return Error("nesting deeper than 32");
    SkipSpace();
    if (pos_ >= s_.size()) return Error("a value expected");
    const char c = s_[pos_];
    if (c == '[' || c == '(') return ParseSequence(out, c == '[' ? ']' : ')', depth);
    if (c == '{') return ParseDict(out, depth);
    if (c == '\'' || c == '"') {
      out->kind = Literal::Kind::kString;
      return ParseString(&out->text);
    }
    if (Consume("True") || Consume("False")) {
      out->kind = Literal::Kind::kBool;
      out->integer = s_[pos_ - 4] == 'T' ? 1 : 0;  // "True" is 4 long, "False" 5
      out->number = static_cast<double>(out->integer);
      return Status::OK();
    }
    return ParseNumber(out);
  }

  Status ParseSequence(Literal* out, char close, int depth) {
    out->kind = Literal::Kind::kList;
    ++pos_;
    SkipSpace();
    while (pos_ < s_.size() && s_[pos_] != close) {
      Literal item;
      AF_RETURN_IF_ERROR(Parse(&item, depth + 1));
      out->items.push_back(std::move(item));
      SkipSpace();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        ++pos_;
        SkipSpace();
      } else if (pos_ < s_.size() && s_[pos_] != close) {
        return Error("',' or a closing bracket expected");
      }
    }
    if (pos_ >= s_.size()) return Error("unclosed bracket");
    ++pos_;
    return Status::OK();
  }

  Status ParseDict(Literal* out, int depth) {
    out->kind = Literal::Kind::kDict;
    ++pos_;
    SkipSpace();
    while (pos_ < s_.size() && s_[pos_] != '}') {
      std::string key;
      if (s_[pos_] != '\'' && s_[pos_] != '"') return Error("a quoted dict key expected");
      AF_RETURN_IF_ERROR(ParseString(&key));
      SkipSpace();
      if (!Consume(":")) return Error("':' expected");
      Literal value;
      AF_RETURN_IF_ERROR(Parse(&value, depth + 1));
      out->fields.emplace_back(std::move(key), std::move(value));
      SkipSpace();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        ++pos_;
        SkipSpace();
      } else if (pos_ < s_.size() && s_[pos_] != '}') {
        return Error("',' or '}' expected");
      }
    }
    if (pos_ >= s_.size()) return Error("unclosed '{'");
    ++pos_;
    return Status::OK();
  }

  Status ParseString(std::string* out) {
    const char quote = s_[pos_++];
    while (pos_ < s_.size() && s_[pos_] != quote) {
      char c = s_[pos_++];
      if (c == '\\' && pos_ < s_.size()) {
        c = s_[pos_++];
        if (c == 'n')
          c = '\n';
        else if (c == 't')
          c = '\t';
        else if (c == '0')
          c = '\0';
      }
      out->push_back(c);
    }
    if (pos_ >= s_.size()) return Error("unterminated string");
    ++pos_;
    return Status::OK();
  }

  Status ParseNumber(Literal* out) {
    out->kind = Literal::Kind::kNumber;
    const size_t start = pos_;
    bool negative = false;
    if (s_[pos_] == '-' || s_[pos_] == '+') negative = s_[pos_++] == '-';
    if (Consume("inf") || Consume("np.inf")) {
      out->is_float = true;
      out->number = negative ? -INFINITY : INFINITY;
      return Status::OK();
    }
    if (Consume("nan") || Consume("np.nan")) {
      out->is_float = true;
      out->number = NAN;
      return Status::OK();
    }
    while (pos_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[pos_])) ||
                                s_[pos_] == '.' || s_[pos_] == 'e' || s_[pos_] == 'E' ||
                                ((s_[pos_] == '-' || s_[pos_] == '+') &&
                                 (s_[pos_ - 1] == 'e' || s_[pos_ - 1] == 'E')))) {
      if (!std::isdigit(static_cast<unsigned char>(s_[pos_]))) out->is_float = true;
      ++pos_;
    }
    const std::string text(s_.substr(start, pos_ - start));
    if (text.empty() || text == "-" || text == "+")
      return Error("a number, string, list or dict expected (only literals are evaluated)");
    char* end = nullptr;
    out->number = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size()) return Error("malformed number '" + text + "'");
    if (!out->is_float) {
      const char* b = text.c_str() + (text[0] == '+' ? 1 : 0);
      auto [p, ec] = std::from_chars(b, text.c_str() + text.size(), out->integer);
      if (ec != std::errc()) out->is_float = true;  // beyond int64: a float, as numpy would
    }
    return Status::OK();
  }

  std::string_view s_;
  size_t pos_ = 0;
};

// Splits "k1=v1;k2=v2" at ';' outside brackets and quotes, so that values
// may hold ';' inside strings.
Status SplitAssignments(const std::string& flag, const std::string& text,
                        std::vector<std::pair<std::string, std::string>>* out) {
  int depth = 0;
  char quote = 0;
  std::string current;
  auto finish = [&]() -> Status {
    size_t b = current.find_first_not_of(" \t");
    if (b == std::string::npos) return Status::OK();
    const std::string item = current.substr(b);
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      return errors::InvalidArgument(flag, " wants KEY=VALUE, got '", item, "'");
    std::string key = item.substr(0, eq);
    while (!key.empty() && key.back() == ' ') key.pop_back();
    out->emplace_back(key, item.substr(eq + 1));
    return Status::OK();
  };
  for (const char c : text) {
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '[' || c == '(' || c == '{') {
      ++depth;
    } else if (c == ']' || c == ')' || c == '}') {
      --depth;
    } else if (c == ';' && depth == 0) {
      AF_RETURN_IF_ERROR(finish());
      current.clear();
      continue;
    }
    current.push_back(c);
  }
  return finish();
}

// The shape of a rectangular nest of lists; INVALID_ARGUMENT if ragged
// (sublists of different lengths, or values beside lists).
Status ShapeOf(const Literal& v, std::vector<int64_t>* dims, int* leaf_depth, int depth = 0) {
  const auto ragged = [] {
    return errors::InvalidArgument("the lists are ragged (not one shape)");
  };
  if (v.kind != Literal::Kind::kList) {
    if (*leaf_depth == -1) *leaf_depth = depth;
    return *leaf_depth == depth ? Status::OK() : ragged();
  }
  if (*leaf_depth != -1 && depth >= *leaf_depth) return ragged();
  if (static_cast<int>(dims->size()) == depth)
    dims->push_back(static_cast<int64_t>(v.items.size()));
  else if ((*dims)[depth] != static_cast<int64_t>(v.items.size()))
    return ragged();
  for (const Literal& item : v.items)
    AF_RETURN_IF_ERROR(ShapeOf(item, dims, leaf_depth, depth + 1));
  return Status::OK();
}

void Flatten(const Literal& v, std::vector<const Literal*>* out) {
  if (v.kind == Literal::Kind::kList) {
    for (const Literal& item : v.items) Flatten(item, out);
  } else {
    out->push_back(&v);
  }
}

template <typename T>
void Fill(const std::vector<const Literal*>& leaves, Tensor* t) {
  T* data = t->data<T>();
  for (size_t i = 0; i < leaves.size(); ++i) {
    const Literal& l = *leaves[i];
    data[i] = l.is_float ? static_cast<T>(l.number)
                         : static_cast<T>(l.kind == Literal::Kind::kNumber ? l.integer : l.number);
  }
}

Status LiteralToTensor(const Literal& v, DataType dtype, Tensor* out) {
  std::vector<int64_t> dims;
  int leaf_depth = -1;
  AF_RETURN_IF_ERROR(ShapeOf(v, &dims, &leaf_depth));
  if (leaf_depth != -1 && leaf_depth != static_cast<int>(dims.size()))
    return errors::InvalidArgument("the lists are ragged (not one shape)");
  std::vector<const Literal*> leaves;
  Flatten(v, &leaves);
  bool any_string = false, any_float = false, any_other = false;
  for (const Literal* l : leaves) {
    if (l->kind == Literal::Kind::kString)
      any_string = true;
    else if (l->kind == Literal::Kind::kNumber || l->kind == Literal::Kind::kBool)
      any_float |= l->is_float;
    else
      any_other = true;
  }
  if (any_other) return errors::InvalidArgument("a dict is not a tensor value");
  if (dtype == DT_INVALID) dtype = any_string ? DT_STRING : any_float ? DT_DOUBLE : DT_INT64;
  TensorShape shape;
  for (int64_t d : dims) shape.AddDim(d);
  if (any_string != (dtype == DT_STRING))
    return errors::InvalidArgument(any_string ? "strings given for a " : "numbers given for a ",
                                   DataTypeString(dtype), " input");
  Tensor t(dtype, shape);
  switch (dtype) {
    case DT_STRING:
      for (size_t i = 0; i < leaves.size(); ++i) t.data<std::string>()[i] = leaves[i]->text;
      break;
    case DT_FLOAT:
      Fill<float>(leaves, &t);
      break;
    case DT_DOUBLE:
      Fill<double>(leaves, &t);
      break;
    case DT_INT32:
      Fill<int32_t>(leaves, &t);
      break;
    case DT_INT64:
      Fill<int64_t>(leaves, &t);
      break;
    case DT_INT16:
      Fill<int16_t>(leaves, &t);
      break;
    case DT_INT8:
      Fill<int8_t>(leaves, &t);
      break;
    case DT_UINT8:
      Fill<uint8_t>(leaves, &t);
      break;
    case DT_UINT16:
      Fill<uint16_t>(leaves, &t);
      break;
    case DT_UINT32:
      Fill<uint32_t>(leaves, &t);
      break;
    case DT_UINT64:
      Fill<uint64_t>(leaves, &t);
      break;
    case DT_BOOL:
      for (size_t i = 0; i < leaves.size(); ++i)
        t.data<bool>()[i] = leaves[i]->is_float ? leaves[i]->number != 0 : leaves[i]->integer != 0;
      break;
    default:
      return errors::InvalidArgument("expressions cannot give a ", DataTypeString(dtype),
                                     " input; use --inputs with a .npy file");
  }
  *out = std::move(t);
  return Status::OK();
}

// One dict {"feature": [values]} as a serialized tf.Example.
Status ExampleFromDict(const Literal& dict, std::string* out) {
  if (dict.kind != Literal::Kind::kDict)
    return errors::InvalidArgument("each example must be a dict of feature name to list");
  tensorflow::Example example;
  auto& features = *example.mutable_features()->mutable_feature();
  for (const auto& [name, values] : dict.fields) {
    if (values.kind != Literal::Kind::kList || values.items.empty())
      return errors::InvalidArgument("feature '", name, "' must be a non-empty list");
    tensorflow::Feature& feature = features[name];
    const Literal& first = values.items[0];
    for (const Literal& v : values.items) {
      if (v.kind == Literal::Kind::kList || v.kind == Literal::Kind::kDict)
        return errors::InvalidArgument("feature '", name, "' must be a flat list");
      if (first.kind == Literal::Kind::kString) {
        if (v.kind != Literal::Kind::kString)
          return errors::InvalidArgument("feature '", name, "' mixes strings and numbers");
        feature.mutable_bytes_list()->add_value(v.text);
      } else if (first.kind == Literal::Kind::kNumber && first.is_float) {
        if (v.kind == Literal::Kind::kString)
          return errors::InvalidArgument("feature '", name, "' mixes numbers and strings");
        feature.mutable_float_list()->add_value(
            static_cast<float>(v.is_float ? v.number : static_cast<double>(v.integer)));
      } else if (first.kind == Literal::Kind::kNumber) {
        if (v.kind != Literal::Kind::kNumber || v.is_float)
          return errors::InvalidArgument("feature '", name,
                                         "' starts with an integer, so every value must be one");
        feature.mutable_int64_list()->add_value(v.integer);
      } else {
        return errors::InvalidArgument("feature '", name, "': a ",
                                       "boolean is not a tf.train.Feature type");
      }
    }
  }
  if (!example.SerializeToString(out)) return errors::Internal("tf.Example did not serialize");
  return Status::OK();
}

DataType InputDtype(const tensorflow::SignatureDef& signature, const std::string& key) {
  auto it = signature.inputs().find(key);
  return it == signature.inputs().end() ? DT_INVALID
                                        : BaseType(static_cast<DataType>(it->second.dtype()));
}

Status AddInput(const std::string& flag, const std::string& key, Tensor t,
                std::map<std::string, Tensor>* inputs) {
  if (!inputs->emplace(key, std::move(t)).second)
    return errors::InvalidArgument(flag, ": input key '", key, "' is given more than once");
  return Status::OK();
}

}  // namespace

Status ParseSignatureInputs(const tensorflow::SignatureDef& signature,
                            const std::string& inputs_flag, const std::string& exprs_flag,
                            const std::string& examples_flag,
                            std::map<std::string, Tensor>* inputs) {
  std::vector<std::pair<std::string, std::string>> items;
  AF_RETURN_IF_ERROR(SplitAssignments("--inputs", inputs_flag, &items));
  for (const auto& [key, file] : items) {
    // saved_model_cli also reads .npz[variable] and pickles; only .npy here.
    if (file.find('[') != std::string::npos)
      return errors::Unimplemented("--inputs '", key, "=", file,
                                   "': only .npy files are read (no .npz[variable])");
    Tensor t;
    AF_RETURN_IF_ERROR(ReadNpy(file, &t).WithContext("--inputs '" + key + "'"));
    AF_RETURN_IF_ERROR(AddInput("--inputs", key, std::move(t), inputs));
  }
  items.clear();
  AF_RETURN_IF_ERROR(SplitAssignments("--input_exprs", exprs_flag, &items));
  for (const auto& [key, expr] : items) {
    const std::string context = "--input_exprs '" + key + "'";
    Literal value;
    AF_RETURN_IF_ERROR(LiteralParser(expr).ParseAll(&value).WithContext(context));
    Tensor t;
    AF_RETURN_IF_ERROR(LiteralToTensor(value, InputDtype(signature, key), &t).WithContext(context));
    AF_RETURN_IF_ERROR(AddInput("--input_exprs", key, std::move(t), inputs));
  }
  items.clear();
  AF_RETURN_IF_ERROR(SplitAssignments("--input_examples", examples_flag, &items));
  for (const auto& [key, text] : items) {
    const std::string context = "--input_examples '" + key + "'";
    Literal value;
    AF_RETURN_IF_ERROR(LiteralParser(text).ParseAll(&value).WithContext(context));
    if (value.kind != Literal::Kind::kList)
      return errors::InvalidArgument(context, ": a list of dicts expected");
    Tensor t(DT_STRING, TensorShape{static_cast<int64_t>(value.items.size())});
    for (size_t i = 0; i < value.items.size(); ++i)
      AF_RETURN_IF_ERROR(
          ExampleFromDict(value.items[i], &t.data<std::string>()[i]).WithContext(context));
    AF_RETURN_IF_ERROR(AddInput("--input_examples", key, std::move(t), inputs));
  }
  return Status::OK();
}

}  // namespace af::tools
