// Which format SaveV2 (and the Saver, `checkpoint convert` by default)
// writes: TensorFlow's tensor bundle (PREFIX.index + PREFIX.data-*), the
// default so that TensorFlow reads what Actorflow saves, or Actorflow's own
// single-file PREFIX.afckpt. Chosen per process by the environment variable
// ACTORFLOW_CHECKPOINT_FORMAT=bundle|afckpt: SaveV2 has no attr for it in
// TensorFlow, and a GraphDef with an extra attr would not load there.
// Readers take either format whatever this says.
#pragma once

#include <string_view>

#include "core/status.h"

namespace af {

enum class CheckpointWriteFormat { kBundle, kAfckpt };

inline constexpr std::string_view kCheckpointFormatEnv = "ACTORFLOW_CHECKPOINT_FORMAT";

// "bundle" or "afckpt"; INVALID_ARGUMENT quoting anything else.
Status ParseCheckpointWriteFormat(std::string_view text, CheckpointWriteFormat* out);
// From ACTORFLOW_CHECKPOINT_FORMAT; kBundle when it is unset or empty.
Status CheckpointWriteFormatFromEnv(CheckpointWriteFormat* out);

}  // namespace af
