#include "core/status.h"

namespace af {

std::string_view CodeName(Code code) {
  switch (code) {
    case Code::OK: return "OK";
    case Code::CANCELLED: return "CANCELLED";
    case Code::UNKNOWN: return "UNKNOWN";
    case Code::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case Code::DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case Code::NOT_FOUND: return "NOT_FOUND";
    case Code::ALREADY_EXISTS: return "ALREADY_EXISTS";
    case Code::PERMISSION_DENIED: return "PERMISSION_DENIED";
    case Code::RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case Code::FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case Code::ABORTED: return "ABORTED";
    case Code::OUT_OF_RANGE: return "OUT_OF_RANGE";
    case Code::UNIMPLEMENTED: return "UNIMPLEMENTED";
    case Code::INTERNAL: return "INTERNAL";
    case Code::UNAVAILABLE: return "UNAVAILABLE";
    case Code::DATA_LOSS: return "DATA_LOSS";
    case Code::UNAUTHENTICATED: return "UNAUTHENTICATED";
  }
  return "UNKNOWN_CODE";
}

std::ostream& operator<<(std::ostream& os, Code code) { return os << CodeName(code); }

Status::Status(Code code, std::string message) {
  // An "error" with code OK would be indistinguishable from success.
  if (code == Code::OK) return;
  state_ = std::make_unique<State>(State{code, std::move(message)});
}

Status::Status(const Status& other)
    : state_(other.state_ ? std::make_unique<State>(*other.state_) : nullptr) {}

Status& Status::operator=(const Status& other) {
  if (this != &other)
    state_ = other.state_ ? std::make_unique<State>(*other.state_) : nullptr;
  return *this;
}

const std::string& Status::message() const {
  static const std::string* const kEmpty = new std::string();
  return ok() ? *kEmpty : state_->message;
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return std::string(CodeName(state_->code)) + ": " + state_->message;
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  return Status(state_->code, std::string(context) + ": " + state_->message);
}

std::ostream& operator<<(std::ostream& os, const Status& s) {
  return os << s.ToString();
}

}  // namespace af
