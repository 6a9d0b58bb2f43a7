// Helpers shared by the array kernels.
//
// Most array kernels only move elements. They are written once over an
// element "storage" type of the element's size (bits copied as they are)
// instead of once per DataType, which covers every fixed-size type with
// five instantiations; strings get their own (they own heap memory).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "core/op_kernel.h"
#include "core/status.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "core/types.h"

namespace af {

// Same-size stand-ins for element types. may_alias: they read and write
// memory that holds floats, halves, complex numbers ... without breaking
// strict aliasing.
struct __attribute__((__may_alias__)) Bytes1 {
  uint8_t v;
};
struct __attribute__((__may_alias__)) Bytes2 {
  uint16_t v;
};
struct __attribute__((__may_alias__)) Bytes4 {
  uint32_t v;
};
struct __attribute__((__may_alias__)) Bytes8 {
  uint64_t v;
};
struct __attribute__((__may_alias__)) Bytes16 {
  uint64_t v[2];
};

template <typename T>
struct ElementTag {
  using type = T;
};

// Calls fn(ElementTag<S>{}) with S the storage type for `dtype`'s elements
// (std::string for strings). false (fn not called) for resource, variant
// and invalid types.
template <typename Fn>
bool VisitElementStorage(DataType dtype, Fn&& fn) {
  if (BaseType(dtype) == DT_STRING) {
    fn(ElementTag<std::string>{});
    return true;
  }
  switch (DataTypeSize(BaseType(dtype))) {
    case 1:
      fn(ElementTag<Bytes1>{});
      return true;
    case 2:
      fn(ElementTag<Bytes2>{});
      return true;
    case 4:
      fn(ElementTag<Bytes4>{});
      return true;
    case 8:
      fn(ElementTag<Bytes8>{});
      return true;
    case 16:
      fn(ElementTag<Bytes16>{});
      return true;
    default:
      return false;
  }
}

// The element pointer of `t` as storage type S (no dtype check: S stands
// for whatever type t holds).
template <typename S>
S* StorageData(Tensor& t) {
  return static_cast<S*>(t.raw_data());
}
template <typename S>
const S* StorageData(const Tensor& t) {
  return static_cast<const S*>(t.raw_data());
}

// Every type the data-moving kernels take: fixed-size types and strings.
inline DataTypeVector MovableTypes() {
  DataTypeVector out;
  for (int i = 1; i < kDataTypeRefOffset; ++i) {
    const auto dt = static_cast<DataType>(i);
    if (IsValidDataType(i) && (dt == DT_STRING || DataTypeSize(dt) > 0)) out.push_back(dt);
  }
  return out;
}

template <typename S>
inline void CopyElements(S* __restrict dst, const S* __restrict src, int64_t n) {
  if constexpr (std::is_trivially_copyable_v<S>) {
    if (n > 0) std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(S));
  } else {
    std::copy_n(src, n, dst);
  }
}

template <typename S>
inline void FillElements(S* dst, const S& value, int64_t n) {
  std::fill_n(dst, n, value);
}

// Element i of an integer tensor (int8/16/32/64, uint8) as int64.
inline int64_t IntElement(const Tensor& t, int64_t i) {
  switch (BaseType(t.dtype())) {
    case DT_INT32:
      return t.data<int32_t>()[i];
    case DT_INT64:
      return t.data<int64_t>()[i];
    case DT_INT16:
      return t.data<int16_t>()[i];
    case DT_INT8:
      return t.data<int8_t>()[i];
    case DT_UINT8:
      return t.data<uint8_t>()[i];
    default:
      return 0;  // excluded by the ops' type constraints
  }
}

// A 1-D integer input (shape, perm, begin ...) into `out`. Errors read
// "<what> must be a vector, got shape [2,2]" and name the node.
inline Status IntVectorInput(OpKernelContext* ctx, int input, std::string_view what,
                             DimVector* out) {
  const Tensor& t = ctx->input(input);
  if (t.dims() != 1)
    return ctx->NodeError(
        errors::InvalidArgument(what, " must be a vector, got shape ", t.shape().DebugString()));
  out->resize(static_cast<int>(t.NumElements()));
  for (int64_t i = 0; i < t.NumElements(); ++i) (*out)[static_cast<int>(i)] = IntElement(t, i);
  return Status::OK();
}

// A scalar integer input (an axis, a count). With allow_one_element, a
// vector of one element also does (ExpandDims' dim, as TensorFlow).
inline Status IntScalarInput(OpKernelContext* ctx, int input, std::string_view what, int64_t* out,
                             bool allow_one_element = false) {
  const Tensor& t = ctx->input(input);
  const bool ok = t.dims() == 0 || (allow_one_element && t.NumElements() == 1);
  if (!ok)
    return ctx->NodeError(
        errors::InvalidArgument(what, " must be a scalar, got shape ", t.shape().DebugString()));
  *out = IntElement(t, 0);
  return Status::OK();
}

// axis in [-rank, rank) mapped to [0, rank).
inline Status CanonicalAxis(OpKernelContext* ctx, int64_t axis, int rank, std::string_view what,
                            int* out) {
  if (axis < -rank || axis >= rank)
    return ctx->NodeError(errors::InvalidArgument(what, " ", axis,
                                                  " is out of range for a tensor of rank ", rank,
                                                  " ([", -rank, ", ", rank, "))"));
  *out = static_cast<int>(axis < 0 ? axis + rank : axis);
  return Status::OK();
}

// Product of dims [begin, end) of `shape`.
inline int64_t DimProduct(const TensorShape& shape, int begin, int end) {
  int64_t n = 1;
  for (int d = begin; d < end; ++d) n *= shape.dim_size(d);
  return n;
}

// "[2,-1,3]": dims as a kernel was given them (possibly invalid).
inline std::string DimsString(const DimVector& dims) {
  std::string out = "[";
  for (int i = 0; i < dims.size(); ++i) out += (i ? "," : "") + std::to_string(dims[i]);
  return out + "]";
}

// "[1,2]": the index of flat position i in a tensor of `shape`, as errors
// about bad elements print it; "" for a scalar.
inline std::string FlatIndexString(const TensorShape& shape, int64_t i) {
  if (shape.dims() == 0) return "";
  DimVector index;
  index.resize(shape.dims(), 0);
  for (int d = shape.dims() - 1; d >= 0; --d) {
    index[d] = i % shape.dim_size(d);
    i /= shape.dim_size(d);
  }
  return DimsString(index);
}

// Fill's output shape on any device: dims (a host vector, input 0) and the
// value (input 1) checked to be a scalar.
inline Status ComputeFillShape(OpKernelContext* ctx, TensorShape* shape) {
  DimVector dims;
  AF_RETURN_IF_ERROR(IntVectorInput(ctx, 0, "dims", &dims));
  const Tensor& value = ctx->input(1);
  if (value.dims() != 0)
    return ctx->NodeError(errors::InvalidArgument("value must be a scalar, got shape ",
                                                  value.shape().DebugString()));
  return ctx->NodeError(TensorShape::Build(dims.data(), dims.size(), shape));
}

// `in` under `shape` (same element count), sharing its buffer.
inline Status ShareAs(OpKernelContext* ctx, const Tensor& in, const TensorShape& shape,
                      Tensor* out) {
  Status s = in.Reshaped(shape, out);
  return s.ok() ? s : ctx->NodeError(s);
}

// Output 0 = `in` under `shape` (same element count), sharing its buffer.
inline Status ShareAsOutput(OpKernelContext* ctx, const Tensor& in, const TensorShape& shape) {
  Tensor out;
  AF_RETURN_IF_ERROR(ShareAs(ctx, in, shape, &out));
  ctx->set_output(0, std::move(out));
  return Status::OK();
}

}  // namespace af
