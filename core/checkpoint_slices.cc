#include "core/checkpoint_slices.h"

#include <algorithm>

#include "core/tensor_slice_copy.h"

namespace af {
namespace {

std::string ShapeString(const std::vector<int64_t>& dims) {
  std::string text = "[";
  for (size_t d = 0; d < dims.size(); ++d) text += (d > 0 ? "," : "") + std::to_string(dims[d]);
  return text + "]";
}

TensorSliceSpec WholeOf(const std::vector<int64_t>& dims) {
  return TensorSliceSpec{dims, std::vector<int64_t>(dims.size(), 0), dims};
}

// The saved slices' specs, for messages; a long list is cut short.
std::string SpecList(const std::vector<SavedPiece>& pieces) {
  constexpr size_t kShown = 8;
  std::string text;
  for (size_t i = 0; i < pieces.size() && i < kShown; ++i)
    text += (i > 0 ? ", '" : "'") + TensorSliceSpecString(pieces[i].slice) + "'";
  if (pieces.size() > kShown) text += " and " + std::to_string(pieces.size() - kShown) + " more";
  return text;
}

// The part of `a` inside `region`; false if they do not overlap.
bool Intersect(const TensorSliceSpec& a, const TensorSliceSpec& region, std::vector<int64_t>* lo,
               std::vector<int64_t>* length) {
  lo->clear();
  length->clear();
  for (size_t d = 0; d < region.offset.size(); ++d) {
    const int64_t begin = std::max(a.offset[d], region.offset[d]);
    const int64_t end = std::min(a.offset[d] + a.length[d], region.offset[d] + region.length[d]);
    if (end <= begin) return false;
    lo->push_back(begin);
    length->push_back(end - begin);
  }
  return true;
}

// Cuts `region` along every piece boundary inside it: each cell of that
// grid is then wholly inside or wholly outside each piece, so checking one
// corner per cell finds any part left uncovered, however the pieces overlap.
bool FindGap(const TensorSliceSpec& region, const std::vector<SavedPiece>& pieces,
             std::vector<int64_t>* gap_offset, std::vector<int64_t>* gap_length) {
  if (region.NumElements() == 0) return false;
  const size_t rank = region.offset.size();
  std::vector<std::vector<int64_t>> cuts(rank);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t begin = region.offset[d], end = begin + region.length[d];
    cuts[d] = {begin, end};
    for (const SavedPiece& p : pieces) {
      for (int64_t at : {p.slice.offset[d], p.slice.offset[d] + p.slice.length[d]})
        if (at > begin && at < end) cuts[d].push_back(at);
    }
    std::sort(cuts[d].begin(), cuts[d].end());
    cuts[d].erase(std::unique(cuts[d].begin(), cuts[d].end()), cuts[d].end());
  }
  std::vector<size_t> cell(rank, 0);
  while (true) {
    const bool covered = std::any_of(pieces.begin(), pieces.end(), [&](const SavedPiece& p) {
      for (size_t d = 0; d < rank; ++d) {
        const int64_t at = cuts[d][cell[d]];
        if (at < p.slice.offset[d] || at >= p.slice.offset[d] + p.slice.length[d]) return false;
      }
      return true;
    });
    if (!covered) {
      gap_offset->clear();
      gap_length->clear();
      for (size_t d = 0; d < rank; ++d) {
        gap_offset->push_back(cuts[d][cell[d]]);
        gap_length->push_back(cuts[d][cell[d] + 1] - cuts[d][cell[d]]);
      }
      return true;
    }
    size_t d = rank;
    while (d > 0) {
      --d;
      if (++cell[d] + 1 < cuts[d].size()) break;
      cell[d] = 0;
      if (d == 0) return false;
    }
    if (rank == 0) return false;
  }
}

Status FindSlices(const CheckpointSet& checkpoint, const std::string& name,
                  std::vector<SavedPiece>* out) {
  const std::string prefix = name + kSliceKeyMarker;
  for (const CheckpointSet::Found& found : checkpoint.FindWithPrefix(prefix)) {
    SavedPiece piece{found.reader, found.entry, {}};
    const std::string_view spec = std::string_view(found.entry->name).substr(prefix.size());
    Status s = ParseTensorSliceSpec(spec, &piece.slice);
    if (!s.ok())
      return errors::DataLoss("checkpoint ", found.reader->path(), ": key '", found.entry->name,
                              "' is not a slice of '", name, "': ", s.message());
    if (found.entry->shape.dim_vector() != piece.slice.length)
      return errors::DataLoss("checkpoint ", found.reader->path(), ": slice '", found.entry->name,
                              "' holds a tensor of shape ", found.entry->shape.DebugString());
    out->push_back(std::move(piece));
  }
  return Status::OK();
}

}  // namespace

std::string SliceKey(std::string_view name, const TensorSliceSpec& slice) {
  std::string key(name);
  key += kSliceKeyMarker;
  return key + TensorSliceSpecString(slice);
}

Status PlanSliceRestore(const CheckpointSet& checkpoint, const std::string& name,
                        const std::string& spec, DataType dtype, SliceRestorePlan* plan) {
  const std::string& file = checkpoint.path();
  SliceRestorePlan p;
  p.name = name;
  p.spec = spec;
  p.dtype = dtype;
  const bool whole_request = spec.empty();
  if (!whole_request) {
    Status s = ParseTensorSliceSpec(spec, &p.region);
    if (!s.ok()) return errors::InvalidArgument("tensor '", name, "': ", s.message());
  }
  auto check_dtype = [&](const checkpoint::TensorEntry& e) {
    if (e.dtype == dtype) return Status::OK();
    return errors::InvalidArgument("tensor '", name, "' is ", DataTypeString(e.dtype),
                                   " in checkpoint ", file, ", but the op restores it as ",
                                   DataTypeString(dtype));
  };

  const CheckpointReader* reader = nullptr;
  if (const checkpoint::TensorEntry* e = checkpoint.Find(name, &reader)) {
    AF_RETURN_IF_ERROR(check_dtype(*e));
    SavedPiece whole{reader, e, WholeOf(e->shape.dim_vector())};
    if (whole_request) {
      p.region = whole.slice;
    } else if (p.region.full_shape != whole.slice.full_shape) {
      return errors::InvalidArgument(
          "tensor '", name, "' has shape ", e->shape.DebugString(), " in checkpoint ", file,
          ", but slice '", spec, "' is of a tensor of shape ", ShapeString(p.region.full_shape));
    }
    p.pieces.push_back(std::move(whole));
    *plan = std::move(p);
    return Status::OK();
  }

  std::vector<SavedPiece> slices;
  AF_RETURN_IF_ERROR(FindSlices(checkpoint, name, &slices));
  if (slices.empty()) return errors::NotFound("Key ", name, " not found in checkpoint ", file);
  for (const SavedPiece& s : slices) AF_RETURN_IF_ERROR(check_dtype(*s.entry));
  const std::vector<int64_t>& saved_full = slices[0].slice.full_shape;
  for (const SavedPiece& s : slices) {
    if (s.slice.full_shape != saved_full)
      return errors::InvalidArgument("tensor '", name, "': checkpoint ", file,
                                     " holds slices of different full shapes: ", SpecList(slices));
  }
  if (whole_request) {
    p.region = WholeOf(saved_full);
  } else if (p.region.full_shape != saved_full) {
    return errors::InvalidArgument("tensor '", name, "': slice '", spec,
                                   "' is of a tensor of shape ", ShapeString(p.region.full_shape),
                                   ", but checkpoint ", file, " holds slices of shape ",
                                   ShapeString(saved_full), ": ", SpecList(slices));
  }
  std::vector<int64_t> lo, length;
  for (const SavedPiece& s : slices)
    if (Intersect(s.slice, p.region, &lo, &length)) p.pieces.push_back(s);
  if (FindGap(p.region, p.pieces, &lo, &length))
    return errors::NotFound(
        "tensor '", name, "': the slices in checkpoint ", file, " (", SpecList(slices),
        ") do not cover ", whole_request ? std::string("the whole tensor") : "slice '" + spec + "'",
        ": nothing holds ", TensorSliceRegionString(lo, length));
  *plan = std::move(p);
  return Status::OK();
}

Status ExecuteSliceRestore(const SliceRestorePlan& plan, Allocator* allocator, Tensor* out) {
  if (allocator == nullptr) allocator = GetCpuAllocator();
  const TensorSliceSpec& region = plan.region;
  // A piece that is exactly the request is handed out as read, uncopied.
  if (plan.pieces.size() == 1 && plan.pieces[0].slice.offset == region.offset &&
      plan.pieces[0].slice.length == region.length)
    return plan.pieces[0].reader->Read(*plan.pieces[0].entry, allocator, out);
  Tensor result;
  AF_RETURN_IF_ERROR(Tensor::Allocate(allocator, plan.dtype, TensorShape(region.length), &result));
  std::vector<int64_t> lo, length, src_offset, dst_offset;
  for (const SavedPiece& piece : plan.pieces) {
    if (!Intersect(piece.slice, region, &lo, &length)) continue;
    Tensor saved;
    AF_RETURN_IF_ERROR(piece.reader->Read(*piece.entry, nullptr, &saved));
    src_offset.clear();
    dst_offset.clear();
    for (size_t d = 0; d < lo.size(); ++d) {
      src_offset.push_back(lo[d] - piece.slice.offset[d]);
      dst_offset.push_back(lo[d] - region.offset[d]);
    }
    AF_RETURN_IF_ERROR(CopyTensorRegion(saved, src_offset, &result, dst_offset, length)
                           .WithContext("restoring tensor '" + plan.name + "'"));
  }
  *out = std::move(result);
  return Status::OK();
}

}  // namespace af
