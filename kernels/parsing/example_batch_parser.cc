#include "kernels/parsing/example_batch_parser.h"

#include <algorithm>
#include <limits>

#include "core/allocator.h"
#include "kernels/parsing/example_wire.h"

namespace af::parsing {
namespace {

// Output elements one tensor may have. Sparse and ragged outputs are bounded
// by the input's bytes, but a padded variable-length dense output is
// batch x longest record: one long record in a big batch could otherwise ask
// for far more memory than the input holds.
constexpr int64_t kMaxOutputElements = int64_t{1} << 31;

FeatureKind KindOf(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT:
      return FeatureKind::kFloat;
    case DT_INT64:
      return FeatureKind::kInt64;
    default:
      return FeatureKind::kBytes;
  }
}

bool IsFeatureDtype(DataType dtype) {
  return dtype == DT_FLOAT || dtype == DT_INT64 || dtype == DT_STRING;
}

// "example 3 (name 'a')" in errors about one record.
std::string ExampleLabel(const std::string* names, int64_t i) {
  std::string label = "example " + std::to_string(i);
  if (names != nullptr && !names[i].empty()) label += " (name '" + names[i] + "')";
  return label;
}

Status FeatureError(const std::string* names, int64_t i, const std::string& key,
                    const Status& cause) {
  return Status(cause.code(),
                ExampleLabel(names, i) + ", feature '" + key + "': " + cause.message());
}

// How a dense feature's values lay out: `stride` values per row and, for a
// variable-length feature, any number of rows.
struct DenseLayout {
  bool variable = false;
  int64_t stride = 1;
};

Status ComputeLayout(const DenseFeatureSpec& spec, int d, DenseLayout* layout) {
  const PartialTensorShape& s = spec.shape;
  if (s.unknown_rank())
    return errors::InvalidArgument("dense_shapes[", d, "] (key '", spec.key,
                                   "') has an unknown rank");
  layout->variable = s.dims() > 0 && s.dim_size(0) == -1;
  layout->stride = 1;
  for (int k = layout->variable ? 1 : 0; k < s.dims(); ++k) {
    const int64_t dim = s.dim_size(k);
    if (dim < 0)
      return errors::InvalidArgument("dense_shapes[", d, "] (key '", spec.key, "') is ",
                                     s.DebugString(), ": only the first dimension may be unknown");
    if (dim > 0 && layout->stride > kMaxOutputElements / dim)
      return errors::InvalidArgument("dense_shapes[", d, "] (key '", spec.key, "') ",
                                     s.DebugString(), " has too many elements");
    layout->stride *= dim;
  }
  return Status::OK();
}

Status AllocateOutput(DataType dtype, const TensorShape& shape, Tensor* out) {
  return Tensor::Allocate(GetCpuAllocator(), dtype, shape, out);
}

// dst[dst_off, dst_off + n) = src[src_off, src_off + n).
void CopyElements(const Tensor& src, int64_t src_off, Tensor* dst, int64_t dst_off, int64_t n) {
  switch (dst->dtype()) {
    case DT_FLOAT:
      std::copy_n(src.data<float>() + src_off, n, dst->data<float>() + dst_off);
      break;
    case DT_INT64:
      std::copy_n(src.data<int64_t>() + src_off, n, dst->data<int64_t>() + dst_off);
      break;
    default:
      std::copy_n(src.data<std::string>() + src_off, n, dst->data<std::string>() + dst_off);
      break;
  }
}

// dst[off, off + n) = the single element of `value`.
void FillElements(const Tensor& value, Tensor* dst, int64_t off, int64_t n) {
  switch (dst->dtype()) {
    case DT_FLOAT:
      std::fill_n(dst->data<float>() + off, n, value.data<float>()[0]);
      break;
    case DT_INT64:
      std::fill_n(dst->data<int64_t>() + off, n, value.data<int64_t>()[0]);
      break;
    default:
      std::fill_n(dst->data<std::string>() + off, n, value.data<std::string>()[0]);
      break;
  }
}

// Writes a feature's values (checked to be of the right kind) at dst[off...].
Status CopyFeature(const FeatureValues& values, Tensor* dst, int64_t off) {
  if (values.count == 0) return Status::OK();
  switch (dst->dtype()) {
    case DT_FLOAT:
      return CopyFloats(values, dst->data<float>() + off);
    case DT_INT64:
      return CopyInt64s(values, dst->data<int64_t>() + off);
    default:
      return CopyBytes(values, dst->data<std::string>() + off);
  }
}

// The features of every record, read before any output is allocated so that
// outputs can be sized exactly.
struct ParsedBatch {
  int64_t n = 0;
  std::vector<FeatureValues> dense, sparse, ragged;  // [record * count + feature]
  std::vector<char> dense_present;
};

// Reads one record's features, checking kinds.
Status ReadRecord(const ExampleParserConfig& config, const FeatureKeyIndex& index,
                  const std::vector<int>& dense_slot, const std::vector<int>& sparse_slot,
                  const std::vector<int>& ragged_slot, const std::string& serialized,
                  const std::string* names, int64_t i, std::vector<FeatureEntry>* slots,
                  ParsedBatch* batch) {
  Status s = FindFeatures(serialized, index, slots);
  if (!s.ok())
    return errors::InvalidArgument(ExampleLabel(names, i),
                                   ": could not parse the serialized Example: ", s.message());
  auto read = [&](const std::string& key, DataType dtype, int slot, FeatureValues* values,
                  bool* present) -> Status {
    const FeatureEntry& e = (*slots)[static_cast<size_t>(slot)];
    *present = e.present;
    if (!e.present) return Status::OK();
    Status rs = ReadFeature(e.entry, values);
    if (!rs.ok()) return FeatureError(names, i, key, rs);
    if (values->kind != FeatureKind::kNone && values->kind != KindOf(dtype))
      return FeatureError(names, i, key,
                          errors::InvalidArgument(
                              "data type mismatch: expected ", FeatureKindName(KindOf(dtype)), " (",
                              DataTypeString(dtype), "), got ", FeatureKindName(values->kind)));
    return Status::OK();
  };
  bool present = false;
  for (size_t d = 0; d < config.dense.size(); ++d) {
    const size_t at = static_cast<size_t>(i) * config.dense.size() + d;
    AF_RETURN_IF_ERROR(read(config.dense[d].key, config.dense[d].dtype, dense_slot[d],
                            &batch->dense[at], &present));
    batch->dense_present[at] = present ? 1 : 0;
  }
  for (size_t k = 0; k < config.sparse.size(); ++k) {
    AF_RETURN_IF_ERROR(read(config.sparse[k].key, config.sparse[k].dtype, sparse_slot[k],
                            &batch->sparse[static_cast<size_t>(i) * config.sparse.size() + k],
                            &present));
  }
  for (size_t k = 0; k < config.ragged.size(); ++k) {
    AF_RETURN_IF_ERROR(read(config.ragged[k].key, config.ragged[k].dtype, ragged_slot[k],
                            &batch->ragged[static_cast<size_t>(i) * config.ragged.size() + k],
                            &present));
  }
  return Status::OK();
}

Status BuildDense(const ExampleParserConfig& config, const ParsedBatch& batch,
                  const std::string* names, bool single, const std::vector<Tensor>& dense_defaults,
                  ExampleParserOutputs* out) {
  const size_t nd = config.dense.size();
  for (size_t d = 0; d < nd; ++d) {
    const DenseFeatureSpec& spec = config.dense[d];
    const Tensor& def = dense_defaults[d];
    DenseLayout layout;
    AF_RETURN_IF_ERROR(ComputeLayout(spec, static_cast<int>(d), &layout));
    int64_t rows = 0;  // variable length: the longest record's rows
    for (int64_t i = 0; i < batch.n; ++i) {
      const size_t at = static_cast<size_t>(i) * nd + d;
      const FeatureValues& v = batch.dense[at];
      if (!batch.dense_present[at]) {
        if (!layout.variable && def.NumElements() == 0)
          return FeatureError(names, i, spec.key,
                              errors::InvalidArgument("required (", DataTypeString(spec.dtype),
                                                      ", no default) but missing"));
        continue;
      }
      if (!layout.variable && v.count != layout.stride)
        return FeatureError(
            names, i, spec.key,
            errors::InvalidArgument("holds ", v.count, " ", DataTypeString(spec.dtype),
                                    " values, but shape ", spec.shape.DebugString(), " needs ",
                                    layout.stride));
      if (layout.variable) {
        if (layout.stride == 0 ? v.count != 0 : v.count % layout.stride != 0)
          return FeatureError(
              names, i, spec.key,
              errors::InvalidArgument("holds ", v.count, " ", DataTypeString(spec.dtype),
                                      " values, not a multiple of ", layout.stride, " (shape ",
                                      spec.shape.DebugString(), ")"));
        if (layout.stride > 0) rows = std::max(rows, v.count / layout.stride);
      }
    }
    TensorShape shape;
    if (!single) shape.AddDim(batch.n);
    if (layout.variable) shape.AddDim(rows);
    for (int k = layout.variable ? 1 : 0; k < spec.shape.dims(); ++k)
      shape.AddDim(spec.shape.dim_size(k));
    const int64_t per_record = layout.variable ? rows * layout.stride : layout.stride;
    if (per_record > 0 && batch.n > kMaxOutputElements / per_record)
      return errors::ResourceExhausted("dense output for key '", spec.key, "' would have ", batch.n,
                                       " x ", per_record, " elements");
    Tensor t;
    AF_RETURN_IF_ERROR(AllocateOutput(spec.dtype, shape, &t));
    for (int64_t i = 0; i < batch.n; ++i) {
      const size_t at = static_cast<size_t>(i) * nd + d;
      const int64_t off = i * per_record;
      if (!batch.dense_present[at]) {
        if (layout.variable)
          FillElements(def, &t, off, per_record);
        else
          CopyElements(def, 0, &t, off, per_record);
        continue;
      }
      Status s = CopyFeature(batch.dense[at], &t, off);
      if (!s.ok()) return FeatureError(names, i, spec.key, s);
      if (layout.variable)
        FillElements(def, &t, off + batch.dense[at].count, per_record - batch.dense[at].count);
    }
    out->dense_values.push_back(std::move(t));
  }
  return Status::OK();
}

Status BuildSparse(const ExampleParserConfig& config, const ParsedBatch& batch,
                   const std::string* names, bool single, ExampleParserOutputs* out) {
  const size_t ns = config.sparse.size();
  for (size_t k = 0; k < ns; ++k) {
    const ListFeatureSpec& spec = config.sparse[k];
    int64_t total = 0, longest = 0;
    for (int64_t i = 0; i < batch.n; ++i) {
      const int64_t c = batch.sparse[static_cast<size_t>(i) * ns + k].count;
      total += c;
      longest = std::max(longest, c);
    }
    const int64_t rank = single ? 1 : 2;
    Tensor indices, values, dense_shape;
    AF_RETURN_IF_ERROR(AllocateOutput(DT_INT64, TensorShape{total, rank}, &indices));
    AF_RETURN_IF_ERROR(AllocateOutput(spec.dtype, TensorShape{total}, &values));
    AF_RETURN_IF_ERROR(AllocateOutput(DT_INT64, TensorShape{rank}, &dense_shape));
    int64_t* ix = indices.data<int64_t>();
    int64_t off = 0;
    for (int64_t i = 0; i < batch.n; ++i) {
      const FeatureValues& v = batch.sparse[static_cast<size_t>(i) * ns + k];
      Status s = CopyFeature(v, &values, off);
      if (!s.ok()) return FeatureError(names, i, spec.key, s);
      for (int64_t j = 0; j < v.count; ++j) {
        if (!single) *ix++ = i;
        *ix++ = j;
      }
      off += v.count;
    }
    int64_t* shape = dense_shape.data<int64_t>();
    if (!single) *shape++ = batch.n;
    *shape = longest;
    out->sparse_indices.push_back(std::move(indices));
    out->sparse_values.push_back(std::move(values));
    out->sparse_shapes.push_back(std::move(dense_shape));
  }
  return Status::OK();
}

Status BuildRagged(const ExampleParserConfig& config, const ParsedBatch& batch,
                   const std::string* names, ExampleParserOutputs* out) {
  const size_t nr = config.ragged.size();
  for (size_t k = 0; k < nr; ++k) {
    const ListFeatureSpec& spec = config.ragged[k];
    int64_t total = 0;
    for (int64_t i = 0; i < batch.n; ++i)
      total += batch.ragged[static_cast<size_t>(i) * nr + k].count;
    if (spec.split_dtype == DT_INT32 && total > std::numeric_limits<int32_t>::max())
      return errors::InvalidArgument("ragged feature '", spec.key, "' has ", total,
                                     " values, too many for int32 row_splits");
    Tensor values, splits;
    AF_RETURN_IF_ERROR(AllocateOutput(spec.dtype, TensorShape{total}, &values));
    AF_RETURN_IF_ERROR(AllocateOutput(spec.split_dtype, TensorShape{batch.n + 1}, &splits));
    int64_t off = 0;
    auto set_split = [&](int64_t at, int64_t value) {
      if (spec.split_dtype == DT_INT32)
        splits.data<int32_t>()[at] = static_cast<int32_t>(value);
      else
        splits.data<int64_t>()[at] = value;
    };
    set_split(0, 0);
    for (int64_t i = 0; i < batch.n; ++i) {
      const FeatureValues& v = batch.ragged[static_cast<size_t>(i) * nr + k];
      Status s = CopyFeature(v, &values, off);
      if (!s.ok()) return FeatureError(names, i, spec.key, s);
      off += v.count;
      set_split(i + 1, off);
    }
    out->ragged_values.push_back(std::move(values));
    out->ragged_row_splits.push_back(std::move(splits));
  }
  return Status::OK();
}

}  // namespace

Status ValidateExampleParserConfig(const ExampleParserConfig& config,
                                   const std::vector<Tensor>& dense_defaults) {
  if (dense_defaults.size() != config.dense.size())
    return errors::InvalidArgument("got ", dense_defaults.size(), " dense_defaults for ",
                                   config.dense.size(), " dense keys");
  for (size_t d = 0; d < config.dense.size(); ++d) {
    const DenseFeatureSpec& spec = config.dense[d];
    if (!IsFeatureDtype(spec.dtype))
      return errors::InvalidArgument("dense key '", spec.key, "' has dtype ",
                                     DataTypeString(spec.dtype),
                                     "; only float, int64 and string can be parsed");
    DenseLayout layout;
    AF_RETURN_IF_ERROR(ComputeLayout(spec, static_cast<int>(d), &layout));
    const Tensor& def = dense_defaults[d];
    if (def.dtype() != spec.dtype)
      return errors::InvalidArgument("dense_defaults[", d, "] has dtype ",
                                     DataTypeString(def.dtype()), ", expected ",
                                     DataTypeString(spec.dtype));
    if (layout.variable) {
      if (def.NumElements() != 1)
        return errors::InvalidArgument(
            "dense_shapes[", d, "] (key '", spec.key, "') ", spec.shape.DebugString(),
            " has variable length, so dense_defaults[", d,
            "] must hold exactly one element (the padding), but its shape is ", def.shape());
    } else if (def.NumElements() > 0 && !spec.shape.IsCompatibleWith(def.shape())) {
      return errors::InvalidArgument("dense_defaults[", d, "] has shape ", def.shape(),
                                     ", which is not compatible with dense_shapes[", d,
                                     "] = ", spec.shape.DebugString(), " (key '", spec.key, "')");
    }
  }
  for (const auto* lists : {&config.sparse, &config.ragged}) {
    for (const ListFeatureSpec& spec : *lists) {
      if (!IsFeatureDtype(spec.dtype))
        return errors::InvalidArgument("key '", spec.key, "' has dtype ",
                                       DataTypeString(spec.dtype),
                                       "; only float, int64 and string can be parsed");
    }
  }
  for (const ListFeatureSpec& spec : config.ragged) {
    if (spec.split_dtype != DT_INT32 && spec.split_dtype != DT_INT64)
      return errors::InvalidArgument("ragged key '", spec.key, "' has row_splits dtype ",
                                     DataTypeString(spec.split_dtype), "; expected int32 or int64");
  }
  return Status::OK();
}

Status ParseExamples(const ExampleParserConfig& config, const std::string* serialized,
                     int64_t num_records, const std::string* names, bool single,
                     const std::vector<Tensor>& dense_defaults, ExampleParserOutputs* out) {
  AF_RETURN_IF_ERROR(ValidateExampleParserConfig(config, dense_defaults));
  if (single && num_records != 1)
    return errors::Internal("parsing one example, but given ", num_records);
  *out = ExampleParserOutputs{};

  FeatureKeyIndex index;
  std::vector<int> dense_slot, sparse_slot, ragged_slot;
  for (const DenseFeatureSpec& s : config.dense) dense_slot.push_back(index.Add(s.key));
  for (const ListFeatureSpec& s : config.sparse) sparse_slot.push_back(index.Add(s.key));
  for (const ListFeatureSpec& s : config.ragged) ragged_slot.push_back(index.Add(s.key));

  ParsedBatch batch;
  batch.n = num_records;
  const size_t n = static_cast<size_t>(num_records);
  batch.dense.resize(n * config.dense.size());
  batch.dense_present.resize(n * config.dense.size());
  batch.sparse.resize(n * config.sparse.size());
  batch.ragged.resize(n * config.ragged.size());
  std::vector<FeatureEntry> slots;
  for (int64_t i = 0; i < num_records; ++i) {
    AF_RETURN_IF_ERROR(ReadRecord(config, index, dense_slot, sparse_slot, ragged_slot,
                                  serialized[i], names, i, &slots, &batch));
  }
  AF_RETURN_IF_ERROR(BuildSparse(config, batch, names, single, out));
  AF_RETURN_IF_ERROR(BuildDense(config, batch, names, single, dense_defaults, out));
  AF_RETURN_IF_ERROR(BuildRagged(config, batch, names, out));
  return Status::OK();
}

}  // namespace af::parsing
