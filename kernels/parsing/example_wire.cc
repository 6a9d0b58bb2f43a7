#include "kernels/parsing/example_wire.h"

#include <cstring>
#include <type_traits>

namespace af::parsing {
namespace {

enum WireType : uint32_t {
  kVarint = 0,
  kFixed64 = 1,
  kLengthDelimited = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5,
};

// Protobuf's own default nesting limit is 100; groups inside unknown fields
// are the only nesting we skip through, so a smaller bound is plenty and
// keeps a crafted record from recursing deeply.
constexpr int kMaxGroupDepth = 64;

// A cursor over wire bytes. Every read checks the bounds first.
class WireReader {
 public:
  explicit WireReader(std::string_view data) : p_(data.data()), end_(data.data() + data.size()) {}

  bool done() const { return p_ == end_; }

  Status ReadVarint(uint64_t* value) {
    uint64_t v = 0;
    // At most 10 bytes encode 64 bits; protobuf rejects longer ones too.
    for (int shift = 0; shift < 70; shift += 7) {
      if (p_ == end_) return errors::InvalidArgument("truncated varint");
      const uint8_t b = static_cast<uint8_t>(*p_++);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        *value = v;
        return Status::OK();
      }
    }
    return errors::InvalidArgument("varint longer than 10 bytes");
  }

  Status ReadTag(uint32_t* field, uint32_t* wire_type) {
    uint64_t tag = 0;
    AF_RETURN_IF_ERROR(ReadVarint(&tag));
    if (tag > 0xffffffffu || (tag >> 3) == 0)
      return errors::InvalidArgument("invalid field tag ", tag);
    *field = static_cast<uint32_t>(tag >> 3);
    *wire_type = static_cast<uint32_t>(tag & 7);
    return Status::OK();
  }

  Status ReadLengthDelimited(std::string_view* out) {
    uint64_t len = 0;
    AF_RETURN_IF_ERROR(ReadVarint(&len));
    if (len > static_cast<uint64_t>(end_ - p_))
      return errors::InvalidArgument("length ", len, " runs past the end of the record (",
                                     end_ - p_, " bytes left)");
    *out = std::string_view(p_, static_cast<size_t>(len));
    p_ += len;
    return Status::OK();
  }

  Status ReadFixed32(uint32_t* out) {
    if (end_ - p_ < 4) return errors::InvalidArgument("truncated fixed32");
    std::memcpy(out, p_, 4);  // protobuf is little-endian, as is every target we build for
    p_ += 4;
    return Status::OK();
  }

  // Skips the value of a field whose tag was just read.
  Status SkipField(uint32_t field, uint32_t wire_type, int depth = 0) {
    switch (wire_type) {
      case kVarint: {
        uint64_t v = 0;
        return ReadVarint(&v);
      }
      case kFixed64:
        if (end_ - p_ < 8) return errors::InvalidArgument("truncated fixed64");
        p_ += 8;
        return Status::OK();
      case kLengthDelimited: {
        std::string_view v;
        return ReadLengthDelimited(&v);
      }
      case kFixed32: {
        uint32_t v = 0;
        return ReadFixed32(&v);
      }
      case kStartGroup: {
        if (depth >= kMaxGroupDepth) return errors::InvalidArgument("groups nested too deeply");
        while (true) {
          if (done()) return errors::InvalidArgument("unterminated group ", field);
          uint32_t f = 0, w = 0;
          AF_RETURN_IF_ERROR(ReadTag(&f, &w));
          if (w == kEndGroup) {
            if (f != field) return errors::InvalidArgument("group ", field, " closed as ", f);
            return Status::OK();
          }
          AF_RETURN_IF_ERROR(SkipField(f, w, depth + 1));
        }
      }
      case kEndGroup:
        return errors::InvalidArgument("end of group ", field, " without its start");
      default:
        return errors::InvalidArgument("invalid wire type ", wire_type, " for field ", field);
    }
  }

 private:
  const char* p_;
  const char* end_;
};

// Calls visit(kind, list_bytes) for every BytesList/FloatList/Int64List in
// the Feature value(s) of a Features map entry, in wire order.
template <typename Visit>
Status ForEachList(std::string_view entry, Visit&& visit) {
  WireReader r(entry);
  while (!r.done()) {
    uint32_t field = 0, wire_type = 0;
    AF_RETURN_IF_ERROR(r.ReadTag(&field, &wire_type));
    if (field != 2 || wire_type != kLengthDelimited) {
      AF_RETURN_IF_ERROR(r.SkipField(field, wire_type));
      continue;
    }
    std::string_view feature;
    AF_RETURN_IF_ERROR(r.ReadLengthDelimited(&feature));
    WireReader f(feature);
    while (!f.done()) {
      uint32_t ff = 0, fw = 0;
      AF_RETURN_IF_ERROR(f.ReadTag(&ff, &fw));
      if (ff < 1 || ff > 3 || fw != kLengthDelimited) {
        AF_RETURN_IF_ERROR(f.SkipField(ff, fw));
        continue;
      }
      std::string_view list;
      AF_RETURN_IF_ERROR(f.ReadLengthDelimited(&list));
      AF_RETURN_IF_ERROR(visit(static_cast<FeatureKind>(ff), list));
    }
  }
  return Status::OK();
}

// Calls on_value(reader_over_value, wire_type) for each `value` field (1)
// of a list message, skipping the others. on_value consumes the value.
template <typename OnValue>
Status ForEachValueField(std::string_view list, OnValue&& on_value) {
  WireReader r(list);
  while (!r.done()) {
    uint32_t field = 0, wire_type = 0;
    AF_RETURN_IF_ERROR(r.ReadTag(&field, &wire_type));
    if (field != 1) {
      AF_RETURN_IF_ERROR(r.SkipField(field, wire_type));
      continue;
    }
    AF_RETURN_IF_ERROR(on_value(&r, wire_type));
  }
  return Status::OK();
}

// Walks one list, checking it, and calls emit(...) with each value:
// std::string_view for bytes, float for floats, int64_t for int64s.
template <typename Emit>
Status WalkList(FeatureKind kind, std::string_view list, Emit&& emit) {
  return ForEachValueField(list, [&](WireReader* r, uint32_t wire_type) -> Status {
    switch (kind) {
      case FeatureKind::kBytes: {
        if (wire_type != kLengthDelimited) return r->SkipField(1, wire_type);
        std::string_view v;
        AF_RETURN_IF_ERROR(r->ReadLengthDelimited(&v));
        return emit(v);
      }
      case FeatureKind::kFloat: {
        if (wire_type == kFixed32) {
          uint32_t bits = 0;
          AF_RETURN_IF_ERROR(r->ReadFixed32(&bits));
          float v;
          std::memcpy(&v, &bits, 4);
          return emit(v);
        }
        if (wire_type != kLengthDelimited) return r->SkipField(1, wire_type);
        std::string_view packed;
        AF_RETURN_IF_ERROR(r->ReadLengthDelimited(&packed));
        if (packed.size() % 4 != 0)
          return errors::InvalidArgument("packed float_list of ", packed.size(),
                                         " bytes, not a multiple of 4");
        for (size_t i = 0; i < packed.size(); i += 4) {
          float v;
          std::memcpy(&v, packed.data() + i, 4);
          AF_RETURN_IF_ERROR(emit(v));
        }
        return Status::OK();
      }
      case FeatureKind::kInt64: {
        if (wire_type == kVarint) {
          uint64_t v = 0;
          AF_RETURN_IF_ERROR(r->ReadVarint(&v));
          return emit(static_cast<int64_t>(v));
        }
        if (wire_type != kLengthDelimited) return r->SkipField(1, wire_type);
        std::string_view packed;
        AF_RETURN_IF_ERROR(r->ReadLengthDelimited(&packed));
        WireReader p(packed);
        while (!p.done()) {
          uint64_t v = 0;
          AF_RETURN_IF_ERROR(p.ReadVarint(&v).WithContext("in packed int64_list"));
          AF_RETURN_IF_ERROR(emit(static_cast<int64_t>(v)));
        }
        return Status::OK();
      }
      default:
        return r->SkipField(1, wire_type);
    }
  });
}

// Copies the values of the final run of `values.kind` into out[0..count).
template <typename T>
Status CopyValues(const FeatureValues& values, FeatureKind kind, T* out) {
  if (values.kind != kind && values.count > 0)
    return errors::Internal("copying a ", FeatureKindName(values.kind), " as ",
                            FeatureKindName(kind));
  int64_t ordinal = 0;
  int64_t written = 0;
  Status s = ForEachList(values.entry, [&](FeatureKind k, std::string_view list) -> Status {
    const int64_t this_ordinal = ordinal++;
    if (this_ordinal < values.run_start || k != kind) return Status::OK();
    return WalkList(k, list, [&](auto v) -> Status {
      if (written >= values.count)
        return errors::Internal("feature holds more values than counted");
      if constexpr (std::is_same_v<T, std::string>) {
        if constexpr (std::is_same_v<decltype(v), std::string_view>) out[written].assign(v);
      } else if constexpr (!std::is_same_v<decltype(v), std::string_view>) {
        out[written] = static_cast<T>(v);
      }
      ++written;
      return Status::OK();
    });
  });
  AF_RETURN_IF_ERROR(s);
  if (written != values.count) return errors::Internal("feature holds fewer values than counted");
  return Status::OK();
}

}  // namespace

std::string_view FeatureKindName(FeatureKind kind) {
  switch (kind) {
    case FeatureKind::kBytes:
      return "bytes_list";
    case FeatureKind::kFloat:
      return "float_list";
    case FeatureKind::kInt64:
      return "int64_list";
    default:
      return "no list";
  }
}

int FeatureKeyIndex::Add(const std::string& key) {
  auto [it, inserted] = keys_.try_emplace(key, static_cast<int>(keys_.size()));
  return it->second;
}

int FeatureKeyIndex::Find(std::string_view key) const {
  auto it = keys_.find(key);
  return it == keys_.end() ? -1 : it->second;
}

Status FindFeatures(std::string_view example, const FeatureKeyIndex& index,
                    std::vector<FeatureEntry>* slots) {
  slots->assign(static_cast<size_t>(index.size()), FeatureEntry{});
  WireReader r(example);
  while (!r.done()) {
    uint32_t field = 0, wire_type = 0;
    AF_RETURN_IF_ERROR(r.ReadTag(&field, &wire_type));
    if (field != 1 || wire_type != kLengthDelimited) {  // Example.features
      AF_RETURN_IF_ERROR(r.SkipField(field, wire_type));
      continue;
    }
    std::string_view features;
    AF_RETURN_IF_ERROR(r.ReadLengthDelimited(&features));
    WireReader fr(features);
    while (!fr.done()) {
      uint32_t ff = 0, fw = 0;
      AF_RETURN_IF_ERROR(fr.ReadTag(&ff, &fw));
      if (ff != 1 || fw != kLengthDelimited) {  // Features.feature (map entries)
        AF_RETURN_IF_ERROR(fr.SkipField(ff, fw));
        continue;
      }
      std::string_view entry;
      AF_RETURN_IF_ERROR(fr.ReadLengthDelimited(&entry));
      // The entry's key; a map entry without one has the key "".
      std::string_view key;
      WireReader er(entry);
      while (!er.done()) {
        uint32_t ef = 0, ew = 0;
        AF_RETURN_IF_ERROR(er.ReadTag(&ef, &ew));
        if (ef == 1 && ew == kLengthDelimited) {
          AF_RETURN_IF_ERROR(er.ReadLengthDelimited(&key));
        } else {
          AF_RETURN_IF_ERROR(er.SkipField(ef, ew));
        }
      }
      const int slot = index.Find(key);
      if (slot >= 0) (*slots)[static_cast<size_t>(slot)] = FeatureEntry{entry, true};
    }
  }
  return Status::OK();
}

Status ReadFeature(std::string_view entry, FeatureValues* out) {
  *out = FeatureValues{};
  out->entry = entry;
  int64_t ordinal = 0;
  return ForEachList(entry, [&](FeatureKind kind, std::string_view list) -> Status {
    // A list of another kind clears what came before (protobuf's oneof).
    if (kind != out->kind) {
      out->kind = kind;
      out->count = 0;
      out->run_start = ordinal;
    }
    ++ordinal;
    return WalkList(kind, list, [&](auto) -> Status {
      ++out->count;
      return Status::OK();
    });
  });
}

Status CopyFloats(const FeatureValues& values, float* out) {
  return CopyValues(values, FeatureKind::kFloat, out);
}
Status CopyInt64s(const FeatureValues& values, int64_t* out) {
  return CopyValues(values, FeatureKind::kInt64, out);
}
Status CopyBytes(const FeatureValues& values, std::string* out) {
  return CopyValues(values, FeatureKind::kBytes, out);
}

}  // namespace af::parsing
