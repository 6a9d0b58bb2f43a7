// A reader for the block-style YAML the manifests in deploy/ are written in
// (maps, lists, "- key: value" items, quoted and plain scalars, "|" block
// scalars, comments, "---" between documents), so that the tests can check
// their structure without a YAML library. Not a YAML parser: anything else
// (flow collections, anchors, tags) is left as a plain scalar.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace af::testing {

struct Yaml {
  enum Kind { kNull, kScalar, kMap, kList } kind = kNull;
  std::string scalar;
  std::vector<std::pair<std::string, Yaml>> map;
  std::vector<Yaml> list;

  const Yaml& operator[](const std::string& key) const {
    static const Yaml null;
    for (const auto& [k, v] : map) {
      if (k == key) return v;
    }
    return null;
  }
  const Yaml& at(size_t i) const {
    static const Yaml null;
    return i < list.size() ? list[i] : null;
  }
  bool null() const { return kind == kNull; }
};

namespace yaml_internal {

struct Line {
  int indent = 0;
  std::string text;  // without the indentation
};

inline std::string Unquote(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.pop_back();
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front()) {
    return s.substr(1, s.size() - 2);
  }
  return s;
}

// A '#' that starts a comment: at the start or after a space, outside quotes.
inline std::string StripComment(const std::string& s) {
  char quote = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (quote != 0) {
      if (s[i] == quote) quote = 0;
    } else if (s[i] == '"' || s[i] == '\'') {
      quote = s[i];
    } else if (s[i] == '#' && (i == 0 || s[i - 1] == ' ')) {
      return s.substr(0, i);
    }
  }
  return s;
}

inline Yaml Parse(const std::vector<Line>& lines, size_t* i, int indent);

inline Yaml ParseMap(const std::vector<Line>& lines, size_t* i, int indent) {
  Yaml node;
  node.kind = Yaml::kMap;
  while (*i < lines.size() && lines[*i].indent == indent && lines[*i].text.rfind("- ", 0) != 0 &&
         lines[*i].text != "-") {
    const std::string& text = lines[*i].text;
    const size_t colon = text.find(": ") != std::string::npos ? text.find(": ") : text.size() - 1;
    std::string key = Unquote(text.substr(0, colon));
    std::string rest = colon + 1 < text.size() ? text.substr(colon + 1) : "";
    while (!rest.empty() && rest.front() == ' ') rest.erase(0, 1);
    ++*i;
    Yaml value;
    if (rest == "|" || rest == ">") {
      value.kind = Yaml::kScalar;
      int block_indent = -1;
      while (*i < lines.size() && lines[*i].indent > indent) {
        if (block_indent < 0) block_indent = lines[*i].indent;
        value.scalar += std::string(lines[*i].indent - block_indent, ' ') + lines[*i].text + "\n";
        ++*i;
      }
    } else if (!rest.empty()) {
      value.kind = Yaml::kScalar;
      value.scalar = Unquote(rest);
    } else if (*i < lines.size() && lines[*i].indent > indent) {
      value = Parse(lines, i, lines[*i].indent);
    }
    node.map.emplace_back(std::move(key), std::move(value));
  }
  return node;
}

inline Yaml Parse(const std::vector<Line>& lines, size_t* i, int indent) {
  if (*i >= lines.size()) return Yaml{};
  if (lines[*i].text.rfind("- ", 0) != 0) return ParseMap(lines, i, indent);
  Yaml node;
  node.kind = Yaml::kList;
  while (*i < lines.size() && lines[*i].indent == indent &&
         lines[*i].text.rfind("- ", 0) == 0) {
    const std::string item = lines[*i].text.substr(2);
    if (item.find(": ") != std::string::npos || (!item.empty() && item.back() == ':')) {
      // "- key: value": a map whose first line starts after the dash.
      std::vector<Line> copy = lines;
      copy[*i].indent = indent + 2;
      copy[*i].text = item;
      size_t j = *i;
      node.list.push_back(ParseMap(copy, &j, indent + 2));
      *i = j;
    } else if (item == "|" || item == ">") {
      // "- |": a block scalar item, its lines indented past the dash.
      Yaml scalar;
      scalar.kind = Yaml::kScalar;
      ++*i;
      int block_indent = -1;
      while (*i < lines.size() && lines[*i].indent > indent) {
        if (block_indent < 0) block_indent = lines[*i].indent;
        scalar.scalar += std::string(lines[*i].indent - block_indent, ' ') + lines[*i].text + "\n";
        ++*i;
      }
      node.list.push_back(std::move(scalar));
    } else {
      Yaml scalar;
      scalar.kind = Yaml::kScalar;
      scalar.scalar = Unquote(item);
      node.list.push_back(std::move(scalar));
      ++*i;
    }
  }
  return node;
}

}  // namespace yaml_internal

// The documents of `text`.
inline std::vector<Yaml> ParseYamlDocuments(const std::string& text) {
  std::vector<Yaml> docs;
  std::vector<yaml_internal::Line> lines;
  auto flush = [&] {
    size_t i = 0;
    if (!lines.empty()) docs.push_back(yaml_internal::Parse(lines, &i, lines[0].indent));
    lines.clear();
  };
  size_t start = 0;
  bool in_block = false;
  int block_parent = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string raw = text.substr(start, end - start);
    start = end + 1;
    const size_t first = raw.find_first_not_of(' ');
    const int indent = first == std::string::npos ? 0 : static_cast<int>(first);
    if (in_block && first != std::string::npos && indent > block_parent) {
      lines.push_back({indent, raw.substr(first)});  // inside a block scalar: kept as is
      continue;
    }
    in_block = false;
    if (raw == "---") {
      flush();
      continue;
    }
    raw = yaml_internal::StripComment(raw);
    if (raw.find_first_not_of(' ') == std::string::npos) continue;
    std::string body = raw.substr(first);
    while (!body.empty() && body.back() == ' ') body.pop_back();
    const std::string tail = body.size() >= 2 ? body.substr(body.size() - 2) : "";
    if (tail == " |" || tail == " >") {
      in_block = true;
      // "- key: |" belongs to a key past the dash; "- |" to the dash itself.
      const bool keyed_item = body.rfind("- ", 0) == 0 && body.find(": ") != std::string::npos;
      block_parent = indent + (keyed_item ? 2 : 0);
    }
    lines.push_back({indent, body});
    if (start > text.size()) break;
  }
  flush();
  return docs;
}

}  // namespace af::testing
