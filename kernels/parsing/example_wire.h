// ExampleWire: reads serialized tf.Example records (proto/example.proto)
// straight from their protobuf wire bytes, without building messages.
//
// Why a direct decoder: ParseExample runs over every record of an input
// pipeline, and a generated Example allocates a map node, a key string and a
// list per feature, most of which the kernel then ignores. Here a record is
// walked once, only the features the kernel asked for are kept (as views
// into the serialized string), and values are copied straight into the
// output tensors. Nothing is allocated per feature.
//
// It follows protobuf's parsing rules, so it accepts every encoding that
// protobuf accepts for these messages:
//  - a repeated Example.features field merges (later map entries win);
//  - a later map entry with the same key replaces the earlier one;
//  - a map entry's value field given twice merges its Features;
//  - Feature's oneof: a later list of another kind clears the earlier one, a
//    later list of the same kind appends to it;
//  - floats and int64s packed or not (both may appear in one list);
//  - unknown fields (and known fields with an unexpected wire type) are
//    skipped, groups included.
// Anything that is not well-formed wire data (a truncated varint or length,
// a length past the end, a packed float run not a multiple of 4 bytes, an
// end-group without its start) is an INVALID_ARGUMENT whose message says
// what; callers add which record and feature.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/status.h"

namespace af::parsing {

// The kind of a Feature; the numbers are Feature's oneof field numbers.
enum class FeatureKind : uint8_t { kNone = 0, kBytes = 1, kFloat = 2, kInt64 = 3 };

// "bytes_list", "float_list", "int64_list" or "no list".
std::string_view FeatureKindName(FeatureKind kind);

// The keys a kernel asked for, each mapped to a slot number. Keys are
// looked up as string_views into the record, so a lookup allocates nothing.
class FeatureKeyIndex {
 public:
  // Returns the key's slot, adding it if new.
  int Add(const std::string& key);
  // The slot of `key`, or -1.
  int Find(std::string_view key) const;
  int size() const { return static_cast<int>(keys_.size()); }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, int, Hash, std::equal_to<>> keys_;
};

// One feature of one record: the bytes of the last map entry with its key.
struct FeatureEntry {
  std::string_view entry;  // the map entry message (key and value fields)
  bool present = false;
};

// Walks one serialized Example and sets (*slots)[k] for every map entry
// whose key has slot k (the last such entry wins). `slots` must have
// index.size() elements; they are reset first.
Status FindFeatures(std::string_view example, const FeatureKeyIndex& index,
                    std::vector<FeatureEntry>* slots);

// A present feature's kind and value count, after protobuf's oneof rules.
struct FeatureValues {
  FeatureKind kind = FeatureKind::kNone;
  int64_t count = 0;
  // The ordinal (among the lists of the entry) where the final run of
  // `kind` starts; lists before it were cleared by another kind.
  int64_t run_start = 0;
  std::string_view entry;
};

// Reads a map entry found by FindFeatures: its kind and value count, after
// checking that every list in it is well-formed.
Status ReadFeature(std::string_view entry, FeatureValues* out);

// Copy exactly `values.count` values of the feature to `out` (the caller has
// checked the kind: kFloat, kInt64, kBytes respectively).
Status CopyFloats(const FeatureValues& values, float* out);
Status CopyInt64s(const FeatureValues& values, int64_t* out);
Status CopyBytes(const FeatureValues& values, std::string* out);

}  // namespace af::parsing
