#include "actors/transport/wire.h"

namespace af::wire {

WireStatus ToWire(const Status& status) {
  WireStatus out;
  out.code = static_cast<int32_t>(status.code());
  if (!status.ok()) out.message = status.message();
  return out;
}

Status FromWire(const WireStatus& status) {
  if (status.code == 0) return Status::OK();
  Code code = Code::UNKNOWN;
  if (status.code > 0 && status.code <= static_cast<int32_t>(Code::UNAUTHENTICATED)) {
    code = static_cast<Code>(status.code);
  }
  return Status(code, status.message);
}

}  // namespace af::wire
