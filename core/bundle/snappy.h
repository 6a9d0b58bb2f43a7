// A Snappy decompressor (the raw block format, not the framing format), for
// the blocks of tensor-bundle .index files written by TensorFlow versions
// whose table writer compressed them (block type 1). Actorflow writes
// uncompressed blocks, which every TensorFlow reads, so there is no
// compressor.
//
// Input is untrusted: the declared length is checked against what the
// compressed bytes could possibly expand to before anything is allocated,
// every copy's offset against what has been produced, and every length
// against the input left. Any violation is DATA_LOSS.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"

namespace af::bundle {

// Upper bound on what `compressed` may declare: the best ratio Snappy's
// tags allow (a 3-byte copy-2 tag yields 64 bytes) plus slack.
inline constexpr uint64_t kSnappyMaxRatio = 22;

// Decompresses a whole raw Snappy stream. DATA_LOSS (message without
// context; callers name the file) for anything malformed.
Status SnappyUncompress(std::string_view compressed, std::string* out);

}  // namespace af::bundle
