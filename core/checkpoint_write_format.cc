#include "core/checkpoint_write_format.h"

#include <cstdlib>
#include <string>

namespace af {

Status ParseCheckpointWriteFormat(std::string_view text, CheckpointWriteFormat* out) {
  if (text == "bundle") {
    *out = CheckpointWriteFormat::kBundle;
  } else if (text == "afckpt") {
    *out = CheckpointWriteFormat::kAfckpt;
  } else {
    return errors::InvalidArgument("checkpoint format '", text,
                                   "' is neither 'bundle' (TensorFlow's) nor 'afckpt'");
  }
  return Status::OK();
}

Status CheckpointWriteFormatFromEnv(CheckpointWriteFormat* out) {
  const char* env = std::getenv(std::string(kCheckpointFormatEnv).c_str());
  if (env == nullptr || *env == '\0') {
    *out = CheckpointWriteFormat::kBundle;
    return Status::OK();
  }
  return ParseCheckpointWriteFormat(env, out).WithContext(std::string(kCheckpointFormatEnv));
}

}  // namespace af
