#include "core/tensor_slice_spec.h"

#include <charconv>

#include "core/tensor_shape.h"

namespace af {
namespace {

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t at = s.find(sep, start);
    if (at == std::string_view::npos) {
      parts.push_back(s.substr(start));
      return parts;
    }
    parts.push_back(s.substr(start, at - start));
    start = at + 1;
  }
}

// Digits only: a sign, spaces or trailing junk make the spec invalid rather
// than silently naming another slice.
bool ParseNonNegative(std::string_view text, int64_t* out) {
  if (text.empty() || text[0] < '0' || text[0] > '9') return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

int64_t TensorSliceSpec::NumElements() const {
  int64_t n = 1;
  for (int64_t d : length) n *= d;
  return n;
}

Status ParseTensorSliceSpec(std::string_view spec, TensorSliceSpec* out) {
  auto bad = [&](const auto&... why) {
    return errors::InvalidArgument("bad slice spec '", spec, "': ", why...);
  };
  const std::vector<std::string_view> words = Split(spec, ' ');
  if (words.size() < 2)
    return bad("expected the full shape's dims, a space, then offset,length per dim");
  TensorSliceSpec slice;
  for (size_t i = 0; i + 1 < words.size(); ++i) {
    int64_t dim = 0;
    if (!ParseNonNegative(words[i], &dim)) return bad("dim '", words[i], "' is not a number");
    slice.full_shape.push_back(dim);
  }
  TensorShape full;
  Status s = TensorShape::Build(slice.full_shape, &full);
  if (!s.ok()) return bad(s.message());
  const std::vector<std::string_view> dims = Split(words.back(), ':');
  if (dims.size() != slice.full_shape.size())
    return bad(slice.full_shape.size(), " dims but ", dims.size(), " slices");
  for (size_t d = 0; d < dims.size(); ++d) {
    const int64_t size = slice.full_shape[d];
    int64_t offset = 0, length = size;
    if (dims[d] != "-") {
      const std::vector<std::string_view> pair = Split(dims[d], ',');
      if (pair.size() != 2 || !ParseNonNegative(pair[0], &offset) ||
          !ParseNonNegative(pair[1], &length))
        return bad("slice '", dims[d], "' of dim ", d, " is neither '-' nor offset,length");
      if (offset > size || length > size - offset)
        return bad("slice '", dims[d], "' of dim ", d, " goes beyond its size ", size);
    }
    slice.offset.push_back(offset);
    slice.length.push_back(length);
  }
  *out = std::move(slice);
  return Status::OK();
}

std::string TensorSliceSpecString(const TensorSliceSpec& slice) {
  std::string text;
  for (int64_t d : slice.full_shape) text += std::to_string(d) + " ";
  for (size_t d = 0; d < slice.offset.size(); ++d) {
    if (d > 0) text += ":";
    text += std::to_string(slice.offset[d]) + "," + std::to_string(slice.length[d]);
  }
  return text;
}

std::string TensorSliceRegionString(const std::vector<int64_t>& offset,
                                    const std::vector<int64_t>& length) {
  if (offset.empty()) return "[]";
  std::string text;
  for (size_t d = 0; d < offset.size(); ++d) {
    if (d > 0) text += "x";
    text += "[" + std::to_string(offset[d]) + "," + std::to_string(offset[d] + length[d]) + ")";
  }
  return text;
}

}  // namespace af
