// Serialization of every message type, and their registration. Tensors go
// on the wire as dtype, dims and raw bytes (string tensors element by
// element); on arrival the bytes land straight in a freshly allocated,
// never zero-filled tensor buffer.
#include <caf/actor_system_config.hpp>
#include <caf/binary_deserializer.hpp>
#include <caf/deserializer.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/sec.hpp>
#include <caf/serializer.hpp>

#include "actors/transport/incoming_tensors.h"
#include "actors/interfaces.h"
#include "core/resource_handle.h"

namespace af {
namespace {

caf::error WireError(const std::string& what) {
  return caf::make_error(caf::sec::invalid_argument, "af.Tensor: " + what);
}

bool IsWireDataType(int32_t dtype) {
  if (!IsValidDataType(dtype)) return false;
  const DataType dt = static_cast<DataType>(dtype);
  return !IsRefType(dt) && (dt == DT_STRING || dt == DT_RESOURCE || DataTypeSize(dt) > 0);
}

}  // namespace

caf::error inspect(caf::serializer& f, Tensor& x) {
  int32_t dtype = static_cast<int32_t>(x.dtype());
  bool initialized = x.IsInitialized();
  std::vector<int64_t> dims = x.shape().dim_vector();
  if (auto err = f(dtype, initialized, dims)) return err;
  if (!initialized) return caf::none;
  if (x.dtype() == DT_RESOURCE) {
    ResourceHandle* handles = x.data<ResourceHandle>();
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      ResourceHandle& h = handles[i];
      if (auto err = f(h.device, h.container, h.name, h.hash_code, h.maybe_type_name)) return err;
    }
    return caf::none;
  }
  if (x.dtype() == DT_STRING) {
    std::string* strings = x.data<std::string>();
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      if (auto err = f(strings[i])) return err;
    }
    return caf::none;
  }
  size_t n = static_cast<size_t>(x.NumElements()) * DataTypeSize(x.dtype());
  if (auto err = f.begin_sequence(n)) return err;
  if (n > 0) {
    if (auto err = f.apply_raw(n, x.raw_data())) return err;
  }
  return f.end_sequence();
}

caf::error inspect(caf::deserializer& f, Tensor& x) {
  int32_t dtype = 0;
  bool initialized = false;
  std::vector<int64_t> dims;
  if (auto err = f(dtype, initialized, dims)) return err;
  if (!IsWireDataType(dtype)) return WireError("unsupported dtype " + std::to_string(dtype));
  const DataType dt = static_cast<DataType>(dtype);
  TensorShape shape;
  Status s = TensorShape::Build(dims, &shape);
  if (!s.ok()) return WireError(s.message());
  if (!initialized) {
    x = Tensor();
    return caf::none;
  }
  // What is left of the message bounds what a sane sender can describe, so
  // a corrupt element count cannot make us allocate without limit.
  const auto* binary = dynamic_cast<caf::binary_deserializer*>(&f);
  const uint64_t elements = static_cast<uint64_t>(shape.num_elements());
  if (dt == DT_RESOURCE) {
    if (binary != nullptr && elements > binary->remaining()) {
      return WireError("resource tensor of " + std::to_string(elements) +
                       " elements exceeds the message");
    }
    Tensor t;
    s = Tensor::Allocate(GetCpuAllocator(), dt, shape, &t);
    if (!s.ok()) return WireError(s.message());
    ResourceHandle* handles = t.data<ResourceHandle>();
    for (uint64_t i = 0; i < elements; ++i) {
      ResourceHandle& h = handles[i];
      if (auto err = f(h.device, h.container, h.name, h.hash_code, h.maybe_type_name)) return err;
    }
    x = std::move(t);
    return caf::none;
  }
  if (dt == DT_STRING) {
    if (binary != nullptr && elements > binary->remaining()) {
      return WireError("string tensor of " + std::to_string(elements) +
                       " elements exceeds the message");
    }
    Tensor t;
    s = Tensor::Allocate(GetCpuAllocator(), dt, shape, &t);
    if (!s.ok()) return WireError(s.message());
    std::string* strings = t.data<std::string>();
    for (uint64_t i = 0; i < elements; ++i) {
      if (auto err = f(strings[i])) return err;
    }
    x = std::move(t);
    return caf::none;
  }
  size_t n = 0;
  if (auto err = f.begin_sequence(n)) return err;
  if (n != elements * static_cast<uint64_t>(DataTypeSize(dt))) {
    return WireError("payload of " + std::to_string(n) + " bytes does not match shape " +
                     shape.DebugString() + " of " + DataTypeString(dt));
  }
  if (binary != nullptr && n > binary->remaining()) {
    return WireError("payload of " + std::to_string(n) + " bytes exceeds the message");
  }
  Tensor t;
  s = Tensor::Allocate(GetCpuAllocator(), dt, shape, &t);
  if (!s.ok()) return WireError(s.message());
  if (n > 0) {
    if (auto err = f.apply_raw(n, t.raw_data())) return err;
  }
  x = std::move(t);
  return f.end_sequence();
}

// A chunk carries its tensor's dtype and shape, so whichever chunk arrives
// first can allocate the destination; the slice's bytes go straight there.
caf::error wire::inspect(caf::serializer& f, wire::TensorChunk& x) {
  int32_t dtype = static_cast<int32_t>(x.tensor.dtype());
  std::vector<int64_t> dims = x.tensor.shape().dim_vector();
  if (auto err = f(x.step_id, x.key, dtype, dims, x.offset, x.length)) return err;
  if (x.offset + x.length > x.tensor.TotalBytes()) return WireError("chunk beyond its tensor");
  if (auto err = f.begin_sequence(x.length)) return err;
  if (x.length > 0) {
    if (auto err = f.apply_raw(x.length, static_cast<char*>(x.tensor.raw_data()) + x.offset))
      return err;
  }
  return f.end_sequence();
}

caf::error wire::inspect(caf::deserializer& f, wire::TensorChunk& x) {
  int32_t dtype = 0;
  std::vector<int64_t> dims;
  if (auto err = f(x.step_id, x.key, dtype, dims, x.offset, x.length)) return err;
  if (!IsWireDataType(dtype) || dtype == DT_STRING || dtype == DT_RESOURCE) {
    return WireError("chunk of unsupported dtype " + std::to_string(dtype));
  }
  TensorShape shape;
  Status s = TensorShape::Build(dims, &shape);
  if (!s.ok()) return WireError(s.message());
  const uint64_t total =
      static_cast<uint64_t>(shape.num_elements()) * DataTypeSize(static_cast<DataType>(dtype));
  size_t n = 0;
  if (auto err = f.begin_sequence(n)) return err;
  if (n != x.length || x.offset > total || x.length > total - x.offset) {
    return WireError("chunk [" + std::to_string(x.offset) + ", +" + std::to_string(n) +
                     ") does not fit a tensor of " + std::to_string(total) + " bytes");
  }
  const auto* binary = dynamic_cast<caf::binary_deserializer*>(&f);
  if ((binary != nullptr && n > binary->remaining()) || n > wire::kChunkBytes) {
    return WireError("chunk of " + std::to_string(n) + " bytes exceeds the message");
  }
  x.from_wire = true;
  x.dtype = static_cast<DataType>(dtype);
  x.shape = std::move(shape);
  s = Tensor::Allocate(GetCpuAllocator(), DT_UINT8, TensorShape({static_cast<int64_t>(n)}),
                       &x.tensor);
  if (!s.ok()) return WireError(s.message());
  if (n > 0) {
    if (auto err = f.apply_raw(n, x.tensor.raw_data())) return err;
  }
  return f.end_sequence();
}

namespace {
template <class F> caf::error ListingFields(F& f, ContainerListing& x) {
  return f(caf::meta::type_name("af.ContainerListing"), x.device, x.container, x.resources);
}
}  // namespace
caf::error inspect(caf::serializer& f, ContainerListing& x) { return ListingFields(f, x); }
caf::error inspect(caf::deserializer& f, ContainerListing& x) { return ListingFields(f, x); }
namespace {
template <class F> caf::error TrafficFields(F& f, TaskTraffic& x) {
  return f(caf::meta::type_name("af.TaskTraffic"), x.src, x.dst, x.bytes, x.tensors);
}
}  // namespace
caf::error inspect(caf::serializer& f, TaskTraffic& x) { return TrafficFields(f, x); }
caf::error inspect(caf::deserializer& f, TaskTraffic& x) { return TrafficFields(f, x); }

namespace {
template <class F> caf::error StatsFields(F& f, SessionStats& x) {
  return f(caf::meta::type_name("af.SessionStats"), x.graph_nodes, x.cached_steps, x.local_plans,
           x.steps_in_flight);
}
}  // namespace
caf::error inspect(caf::serializer& f, SessionStats& x) { return StatsFields(f, x); }
caf::error inspect(caf::deserializer& f, SessionStats& x) { return StatsFields(f, x); }

namespace wire {
namespace {

template <class F> caf::error Fields(F& f, WireStatus& x) {
  return f(caf::meta::type_name("af.WireStatus"), x.code, x.message);
}
template <class F> caf::error Fields(F& f, DeviceInfo& x) {
  return f(caf::meta::type_name("af.DeviceInfo"), x.name, x.type, x.incarnation,
           x.data_address);
}
template <class F> caf::error Fields(F& f, RegisterGraphRequest& x) {
  return f(caf::meta::type_name("af.RegisterGraphRequest"), x.session_id, x.incarnation,
           x.device, x.graph_def);
}
template <class F> caf::error Fields(F& f, RegisterGraphResponse& x) {
  return f(caf::meta::type_name("af.RegisterGraphResponse"), x.status, x.handle, x.num_args,
           x.num_retvals);
}
template <class F> caf::error Fields(F& f, PartitionCall& x) {
  return f(caf::meta::type_name("af.PartitionCall"), x.handle, x.args);
}
template <class F> caf::error Fields(F& f, RunGraphRequest& x) {
  return f(caf::meta::type_name("af.RunGraphRequest"), x.session_id, x.incarnation, x.step_id,
           x.partitions, x.trace);
}
template <class F> caf::error Fields(F& f, PartitionResult& x) {
  return f(caf::meta::type_name("af.PartitionResult"), x.retvals, x.cost_nodes, x.cost_micros,
           x.step_stats);
}
template <class F> caf::error Fields(F& f, RunGraphResponse& x) {
  return f(caf::meta::type_name("af.RunGraphResponse"), x.status, x.partitions, x.sent);
}
template <class F> caf::error Fields(F& f, TensorPush& x) {
  return f(caf::meta::type_name("af.TensorPush"), x.step_id, x.key, x.value, x.is_dead);
}
template <class F> caf::error Fields(F& f, AuthHello& x) {
  return f(caf::meta::type_name("af.AuthHello"), x.client_nonce);
}
template <class F> caf::error Fields(F& f, AuthChallenge& x) {
  return f(caf::meta::type_name("af.AuthChallenge"), x.required, x.server_nonce, x.server_proof);
}
template <class F> caf::error Fields(F& f, AuthProof& x) {
  return f(caf::meta::type_name("af.AuthProof"), x.client_nonce, x.server_nonce, x.client_proof,
           x.declined);
}
template <class F> caf::error Fields(F& f, TensorPushBatch& x) {
  return f(caf::meta::type_name("af.TensorPushBatch"), x.pushes);
}
template <class F> caf::error Fields(F& f, MasterSessionRequest& x) {
  return f(caf::meta::type_name("af.MasterSessionRequest"), x.task_addresses, x.task_names,
           x.setup_timeout_ms, x.heartbeat_interval_ms, x.worker_lost_after_ms, x.optimizer,
           x.max_folded_constant_bytes, x.bfloat16_transfer, x.bfloat16_transfer_pattern);
}
template <class F> caf::error Fields(F& f, RunStepRequest& x) {
  return f(caf::meta::type_name("af.RunStepRequest"), x.feed_names, x.feed_values, x.fetches,
           x.targets, x.timeout_ms, x.trace);
}
template <class F> caf::error Fields(F& f, RunStepResponse& x) {
  return f(caf::meta::type_name("af.RunStepResponse"), x.status, x.outputs, x.step_stats,
           x.traffic);
}

}  // namespace

#define AF_DEFINE_INSPECT(TYPE)                                                 \
  caf::error inspect(caf::serializer& f, TYPE& x) { return Fields(f, x); }     \
  caf::error inspect(caf::deserializer& f, TYPE& x) { return Fields(f, x); }
AF_DEFINE_INSPECT(WireStatus)
AF_DEFINE_INSPECT(DeviceInfo)
AF_DEFINE_INSPECT(RegisterGraphRequest)
AF_DEFINE_INSPECT(RegisterGraphResponse)
AF_DEFINE_INSPECT(PartitionCall)
AF_DEFINE_INSPECT(RunGraphRequest)
AF_DEFINE_INSPECT(PartitionResult)
AF_DEFINE_INSPECT(RunGraphResponse)
AF_DEFINE_INSPECT(TensorPush)
AF_DEFINE_INSPECT(AuthHello)
AF_DEFINE_INSPECT(AuthChallenge)
AF_DEFINE_INSPECT(AuthProof)
AF_DEFINE_INSPECT(TensorPushBatch)
AF_DEFINE_INSPECT(MasterSessionRequest)
AF_DEFINE_INSPECT(RunStepRequest)
AF_DEFINE_INSPECT(RunStepResponse)
#undef AF_DEFINE_INSPECT

}  // namespace wire

namespace actors {
namespace {

template <class F> caf::error Fields(F& f, PeerWorker& x) {
  return f(caf::meta::type_name("af.PeerWorker"), x.worker, x.devices, x.data_address,
           x.address);
}
template <class F> caf::error Fields(F& f, OpenSession& x) {
  return f(caf::meta::type_name("af.OpenSession"), x.session_id, x.incarnation, x.master,
           x.peers, x.master_lost_after_ms);
}

}  // namespace

caf::error inspect(caf::serializer& f, PeerWorker& x) { return Fields(f, x); }
caf::error inspect(caf::deserializer& f, PeerWorker& x) { return Fields(f, x); }
caf::error inspect(caf::serializer& f, OpenSession& x) { return Fields(f, x); }
caf::error inspect(caf::deserializer& f, OpenSession& x) { return Fields(f, x); }

void RegisterMessageTypes(caf::actor_system_config& config) {
  config.add_message_type<Tensor>("af.Tensor");
  config.add_message_type<wire::WireStatus>("af.WireStatus");
  config.add_message_type<wire::DeviceInfo>("af.DeviceInfo");
  config.add_message_type<wire::RegisterGraphRequest>("af.RegisterGraphRequest");
  config.add_message_type<wire::RegisterGraphResponse>("af.RegisterGraphResponse");
  config.add_message_type<wire::PartitionCall>("af.PartitionCall");
  config.add_message_type<wire::RunGraphRequest>("af.RunGraphRequest");
  config.add_message_type<wire::PartitionResult>("af.PartitionResult");
  config.add_message_type<wire::RunGraphResponse>("af.RunGraphResponse");
  config.add_message_type<wire::TensorPush>("af.TensorPush");
  config.add_message_type<wire::TensorChunk>("af.TensorChunk");
  config.add_message_type<wire::TensorPushBatch>("af.TensorPushBatch");
  config.add_message_type<wire::AuthHello>("af.AuthHello");
  config.add_message_type<wire::AuthChallenge>("af.AuthChallenge");
  config.add_message_type<wire::AuthProof>("af.AuthProof");
  config.add_message_type<ContainerListing>("af.ContainerListing");
  config.add_message_type<PeerWorker>("af.PeerWorker");
  config.add_message_type<OpenSession>("af.OpenSession");
  config.add_message_type<wire::MasterSessionRequest>("af.MasterSessionRequest");
  config.add_message_type<wire::RunStepRequest>("af.RunStepRequest");
  config.add_message_type<wire::RunStepResponse>("af.RunStepResponse");
  config.add_message_type<SessionStats>("af.SessionStats");
}

}  // namespace actors
}  // namespace af
