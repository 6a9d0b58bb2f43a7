// The bytes a message between processes carries for a value (CAF's binary
// format, as the network layer writes it), for tests and tools that check
// the wire format without an actor system.
#pragma once

#include <string>
#include <string_view>

#include "actors/transport/wire.h"
#include "core/status.h"
#include "core/tensor.h"

namespace af::wire {

std::string EncodeTensor(const Tensor& tensor);
// DATA_LOSS naming the problem for bytes no sender would write.
Status DecodeTensor(std::string_view bytes, Tensor* out);

std::string EncodeTensorPush(const TensorPush& push);
Status DecodeTensorPush(std::string_view bytes, TensorPush* out);

std::string EncodeRunGraphRequest(const RunGraphRequest& request);
Status DecodeRunGraphRequest(std::string_view bytes, RunGraphRequest* out);

std::string EncodeRunGraphResponse(const RunGraphResponse& response);
Status DecodeRunGraphResponse(std::string_view bytes, RunGraphResponse* out);

}  // namespace af::wire
