// Cast: converts x of type SrcT into y of type DstT element by element (see
// cast_functors.h for what each conversion does at the edges). The
// conversion routine is chosen once, when the kernel is built.
#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/math/cast_functors.h"
#include "kernels/math/intra_op_parallel.h"

namespace af {

namespace {

// Converts elements [begin, end) of `in` into `out`.
using CastFn = void (*)(const void* in, void* out, int64_t begin, int64_t end);

template <typename Src, typename Dst, bool kTruncate>
void CastRange(const void* in, void* out, int64_t begin, int64_t end) {
  const Src* __restrict src = static_cast<const Src*>(in);
  Dst* __restrict dst = static_cast<Dst*>(out);
  for (int64_t i = begin; i < end; ++i) {
    if constexpr (kTruncate) {
      dst[i] = cast::ConvertTruncating<Dst>(src[i]);
    } else {
      dst[i] = cast::Convert<Dst>(src[i]);
    }
  }
}

template <typename... Ts>
struct TypeList {};
using CastTypes = TypeList<float, double, int32_t, int64_t, int16_t, int8_t, uint8_t, uint16_t,
                           uint32_t, uint64_t, bool, half, bfloat16>;

template <typename... Ts>
DataTypeVector Enums(TypeList<Ts...>) {
  return {DataTypeToEnum<Ts>::value...};
}

template <typename Src, bool kTruncate, typename... Dsts>
CastFn FindForSource(DataType dst, TypeList<Dsts...>) {
  CastFn fn = nullptr;
  ((DataTypeToEnum<Dsts>::value == dst ? (fn = &CastRange<Src, Dsts, kTruncate>, true) : false) ||
   ...);
  return fn;
}

template <bool kTruncate, typename... Srcs>
CastFn FindCast(DataType src, DataType dst, TypeList<Srcs...>) {
  CastFn fn = nullptr;
  ((DataTypeToEnum<Srcs>::value == src
        ? (fn = FindForSource<Srcs, kTruncate>(dst, CastTypes{}), true)
        : false) ||
   ...);
  return fn;
}

// Rough cycles per element: 16-bit floats convert in software.
int64_t CastCost(DataType src, DataType dst) {
  auto soft = [](DataType t) { return t == DT_HALF || t == DT_BFLOAT16; };
  return soft(src) || soft(dst) ? 8 : 1;
}

class CastOp : public OpKernel {
 public:
  explicit CastOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("SrcT", &src_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("DstT", &dst_));
    bool truncate = false;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("Truncate", &truncate));
    fn_ = truncate ? FindCast<true>(src_, dst_, CastTypes{})
                   : FindCast<false>(src_, dst_, CastTypes{});
    OP_REQUIRES(ctx, fn_ != nullptr || src_ == dst_,
                errors::Unimplemented("Cast ", DataTypeString(src_), " to ",
                                      DataTypeString(dst_), " is not supported"));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    if (src_ == dst_) {
      ctx->set_output(0, x);  // nothing to convert: share the buffer
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    const void* in = x.raw_data();
    void* dst = out->raw_data();
    const CastFn fn = fn_;
    ShardedFor(ctx, x.NumElements(), CastCost(src_, dst_),
               [fn, in, dst](int64_t begin, int64_t end) { fn(in, dst, begin, end); });
  }

 private:
  DataType src_ = DT_INVALID, dst_ = DT_INVALID;
  CastFn fn_ = nullptr;
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("Cast")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("SrcT", Enums(CastTypes{}))
                            .TypeConstraint("DstT", Enums(CastTypes{})),
                        CastOp);

}  // namespace af
