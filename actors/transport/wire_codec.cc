#include "actors/transport/wire_codec.h"

#include <vector>

#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>
#include <caf/error.hpp>
#include <caf/sec.hpp>

#include "actors/interfaces.h"

namespace af::wire {
namespace {

template <class T>
std::string Encode(const T& value) {
  std::vector<char> buffer;
  caf::binary_serializer sink(nullptr, buffer);
  T copy = value;  // inspect() takes a mutable reference; copies share buffers
  if (auto err = sink(copy)) return std::string();
  return std::string(buffer.begin(), buffer.end());
}

template <class T>
Status Decode(std::string_view bytes, const char* what, T* out) {
  caf::binary_deserializer source(nullptr, bytes.data(), bytes.size());
  T value;
  if (auto err = source(value)) {
    return errors::DataLoss("cannot decode ", what, ": ", caf::to_string(err));
  }
  if (source.remaining() != 0) {
    return errors::DataLoss("cannot decode ", what, ": ", source.remaining(),
                            " trailing bytes");
  }
  *out = std::move(value);
  return Status::OK();
}

}  // namespace

std::string EncodeTensor(const Tensor& tensor) { return Encode(tensor); }
Status DecodeTensor(std::string_view bytes, Tensor* out) {
  return Decode(bytes, "tensor", out);
}

std::string EncodeTensorPush(const TensorPush& push) { return Encode(push); }
Status DecodeTensorPush(std::string_view bytes, TensorPush* out) {
  return Decode(bytes, "tensor push", out);
}

std::string EncodeRunGraphRequest(const RunGraphRequest& request) { return Encode(request); }
Status DecodeRunGraphRequest(std::string_view bytes, RunGraphRequest* out) {
  return Decode(bytes, "RunGraph request", out);
}

std::string EncodeRunGraphResponse(const RunGraphResponse& response) { return Encode(response); }
Status DecodeRunGraphResponse(std::string_view bytes, RunGraphResponse* out) {
  return Decode(bytes, "RunGraph response", out);
}

}  // namespace af::wire
