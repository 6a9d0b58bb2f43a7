#include "kernels/accumulator/accumulator_kernel_util.h"

#include <string>

#include "kernels/resource_handles.h"

namespace af::accumulator_kernels {

const DataTypeVector& KernelTypes() {
  static const DataTypeVector types{DT_HALF, DT_FLOAT, DT_DOUBLE};
  return types;
}

Status LookupAccumulator(OpKernelContext* ctx, int input,
                         ResourceRef<AccumulatorInterface>* out) {
  std::string container, name;
  AF_RETURN_IF_ERROR(
      ResolveHandleInput(ctx, input, "the accumulator handle", &container, &name));
  return ctx->NodeError(
      DeviceResourceMgr(ctx)->Lookup<AccumulatorInterface>(container, name, out));
}

Status CheckAccumulator(OpKernelContext* ctx, const AccumulatorInterface& accumulator,
                        AccumulatorSpec::Kind kind, DataType dtype) {
  const AccumulatorSpec& spec = accumulator.spec();
  if (spec.kind != kind) {
    return ctx->NodeError(errors::InvalidArgument(
        AccumulatorLabel(spec), " takes ",
        spec.kind == AccumulatorSpec::Kind::kSparse ? "sparse" : "dense", " gradients; use ",
        spec.kind == AccumulatorSpec::Kind::kSparse ? "SparseAccumulatorApplyGradient and "
                                                      "SparseAccumulatorTakeGradient"
                                                    : "AccumulatorApplyGradient and "
                                                      "AccumulatorTakeGradient"));
  }
  if (spec.dtype != dtype) {
    return ctx->NodeError(errors::InvalidArgument(AccumulatorLabel(spec), " accumulates ",
                                                  DataTypeString(spec.dtype),
                                                  " but the op has dtype ",
                                                  DataTypeString(dtype)));
  }
  return Status::OK();
}

Status CheckScalarInput(OpKernelContext* ctx, int input, const char* what) {
  const Tensor& t = ctx->input(input);
  if (t.dims() == 0 && t.IsInitialized()) return Status::OK();
  return ctx->NodeError(errors::InvalidArgument("Argument ", what,
                                                " must be scalar, but had bad shape ",
                                                t.shape().DebugString()));
}

}  // namespace af::accumulator_kernels
