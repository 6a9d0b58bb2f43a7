// Copies a hyper-rectangle of one tensor into another: how a restore
// assembles a requested slice from the saved slices that overlap it
// (core/checkpoint_slices.h), whatever their boundaries.
#pragma once

#include <cstdint>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"

namespace af {

// Copies the box of extent `length` that starts at `src_offset` in `src` to
// the box at `dst_offset` in `*dst` (same dtype and rank; every vector has
// one entry per dim). Any dtype with fixed-size elements, and strings.
// INVALID_ARGUMENT, with nothing copied, when a box is not inside its
// tensor.
Status CopyTensorRegion(const Tensor& src, const std::vector<int64_t>& src_offset, Tensor* dst,
                        const std::vector<int64_t>& dst_offset, const std::vector<int64_t>& length);

}  // namespace af
