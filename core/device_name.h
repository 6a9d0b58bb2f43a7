// Device names: "/job:J/replica:R/task:T/device:TYPE:N" and the partial
// specifications users write as placement constraints.
//
// Accepted forms (components in any order, each at most once):
//   /job:NAME        NAME = [A-Za-z][A-Za-z0-9_]* or "*"
//   /replica:N       N = decimal int or "*"
//   /task:N
//   /device:TYPE:N   TYPE = [A-Za-z][A-Za-z0-9_]* or "*"; N int or "*"
//   /device:TYPE     (any id)
//   /cpu:N, /gpu:N   legacy spellings of /device:CPU:N, /device:GPU:N
//   ""               anything
// Device types compare case-insensitively, as TensorFlow's "cpu"/"gpu"
// spellings do: they are stored upper-cased ("/device:cpu:0" is CPU:0).
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "core/status.h"

namespace af {

struct DeviceName {
  bool has_job = false;
  std::string job;
  bool has_replica = false;
  int replica = 0;
  bool has_task = false;
  int task = 0;
  bool has_type = false;
  std::string type;  // upper-cased
  bool has_id = false;
  int id = 0;

  bool IsFullySpecified() const { return has_job && has_replica && has_task && has_type && has_id; }
  // The fields that are set, in canonical order: "/job:ps/device:GPU:*",
  // "/job:localhost/replica:0/task:0/device:CPU:0"; "" when nothing is set.
  std::string ToString() const;
  bool operator==(const DeviceName& other) const;
  bool operator!=(const DeviceName& other) const { return !(*this == other); }
};

std::ostream& operator<<(std::ostream& os, const DeviceName& name);  // ToString()

// INVALID_ARGUMENT naming `name` when it is malformed.
Status ParseDeviceName(std::string_view name, DeviceName* out);

// Whether every field `spec` sets is set to the same value in `name`
// (so a fully specified `name` is one of the devices `spec` allows).
bool IsSpecification(const DeviceName& spec, const DeviceName& name);
// String form; false when either string is malformed.
bool IsSpecification(std::string_view spec, std::string_view name);

// Fields set in `other` are copied into `target`; a field both set to
// different values is INVALID_ARGUMENT naming both specifications.
Status MergeDevNames(DeviceName* target, const DeviceName& other);
// String form: parses both, merges, writes the merged spec to `target`.
Status MergeDevNames(std::string* target, std::string_view other);

// "/job:J/replica:R/task:T/device:TYPE:N".
std::string CanonicalDeviceName(std::string_view job, int replica, int task, std::string_view type,
                                int id);
// The canonical full name of a possibly legacy or reordered device name;
// INVALID_ARGUMENT if it is malformed or not fully specified.
Status CanonicalizeDeviceName(std::string_view name, std::string* out);

// Same job, replica and task (the devices share one worker process).
bool IsSameAddressSpace(const DeviceName& a, const DeviceName& b);

}  // namespace af
