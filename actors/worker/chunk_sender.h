// Sends a large tensor to a worker in another process in chunks with a
// credit window (actors/transport/wire.h kChunkWindow): a short-lived actor per
// transfer keeps at most that many chunks unacknowledged and stops when the
// receiver says the step is gone or stops answering.
#pragma once

#include <cstdint>
#include <string>

#include "actors/interfaces.h"
#include "core/tensor.h"

namespace af::actors {

// Fixed-size dtypes only (a string tensor has no byte layout to slice).
void SendInChunks(const worker_actor& dest, int64_t step_id, std::string key, Tensor value);

}  // namespace af::actors
