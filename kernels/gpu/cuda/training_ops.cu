// CUDA fused optimizer updates: ApplyGradientDescent, ApplyMomentum,
// ApplyAdam, ApplyAdagrad and ApplyRMSProp, with the CPU kernels' formulas
// (kernels/state/training_ops.cc), updating the variable and its slots in
// place through their ref inputs and forwarding the variable's ref as
// output 0.
//
// The hyper-parameters (lr, momentum, beta1_power, ...) are scalars in
// device memory: each thread reads them there (one cached load), so nothing
// is copied to the host and nothing waits. Every update is one pass over
// its tensors, 16 bytes per access where the pointers allow it.
//
// The ref-input locks (use_locking) guard only the enqueueing, as the
// updates themselves run in order on the device's compute stream.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "core/op_kernel.h"
#include "kernels/gpu/cuda/cuda_types.cuh"
#include "kernels/gpu/cuda/cuda_util.h"
#include "kernels/gpu/gpu_kernel_registry.h"
#include "kernels/state/apply_op_base.h"
#include "kernels/state/ref_inputs.h"

namespace af::gpu {
namespace {

template <int N, typename Body>
__global__ void __launch_bounds__(kThreads) UpdateKernel(int64_t n, Body body) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const typename Body::Params p = body.LoadParams();
  const int64_t nvec = n / N;
  for (int64_t i = tid; i < nvec; i += stride) body.template Apply<N>(i * N, p);
  if constexpr (N > 1) {
    for (int64_t e = nvec * N + tid; e < n; e += stride) body.template Apply<1>(e, p);
  }
}

// Runs `body` over n elements; `ptrs` are every tensor it touches (the
// vector path needs them all 16-byte aligned).
template <typename T, typename Body>
Status LaunchUpdate(cudaStream_t stream, int64_t n, std::initializer_list<const void*> ptrs,
                    const Body& body, const char* name) {
  if (n <= 0) return Status::OK();
  constexpr int N = kVecWidth<T>;
  bool vec = true;
  for (const void* p : ptrs) vec = vec && Aligned(p, 16);
  if (vec) {
    const int64_t units = n / N > 0 ? n / N : 1;
    UpdateKernel<N, Body><<<GridFor(units, kThreads), kThreads, 0, stream>>>(n, body);
  } else {
    UpdateKernel<1, Body><<<GridFor(n, kThreads), kThreads, 0, stream>>>(n, body);
  }
  return CheckLaunch(name);
}

// ---------------------------------------------------------------------------
// Update bodies. Params are the scalars, read once per thread.

template <typename T>
struct GradientDescentBody {
  T* var;
  const T* alpha;
  const T* delta;
  struct Params {
    T alpha;
  };
  __device__ Params LoadParams() const { return {*alpha}; }
  template <int N>
  __device__ __forceinline__ void Apply(int64_t e, const Params& p) const {
    Vec<T, N> w = LoadVec<N>(var + e);
    const Vec<T, N> d = LoadVec<N>(delta + e);
#pragma unroll
    for (int k = 0; k < N; ++k) w.v[k] -= p.alpha * d.v[k];
    StoreVec<N>(var + e, w);
  }
};

template <typename T>
struct MomentumBody {
  T* var;
  T* accum;
  const T* lr;
  const T* grad;
  const T* momentum;
  bool nesterov;
  struct Params {
    T lr, momentum;
  };
  __device__ Params LoadParams() const { return {*lr, *momentum}; }
  template <int N>
  __device__ __forceinline__ void Apply(int64_t e, const Params& p) const {
    Vec<T, N> w = LoadVec<N>(var + e);
    Vec<T, N> a = LoadVec<N>(accum + e);
    const Vec<T, N> g = LoadVec<N>(grad + e);
#pragma unroll
    for (int k = 0; k < N; ++k) {
      a.v[k] = a.v[k] * p.momentum + g.v[k];
      if (nesterov) {
        w.v[k] -= g.v[k] * p.lr + a.v[k] * p.momentum * p.lr;
      } else {
        w.v[k] -= p.lr * a.v[k];
      }
    }
    StoreVec<N>(accum + e, a);
    StoreVec<N>(var + e, w);
  }
};

template <typename T>
struct AdamBody {
  T* var;
  T* m;
  T* v;
  const T* beta1_power;
  const T* beta2_power;
  const T* lr;
  const T* beta1;
  const T* beta2;
  const T* epsilon;
  const T* grad;
  bool nesterov;
  struct Params {
    T lr_t, beta1, a1, a2, epsilon;
  };
  __device__ Params LoadParams() const {
    const T one(1);
    const T b1 = *beta1;
    return {*lr * DSqrt(one - *beta2_power) / (one - *beta1_power), b1, one - b1, one - *beta2,
            *epsilon};
  }
  template <int N>
  __device__ __forceinline__ void Apply(int64_t e, const Params& p) const {
    Vec<T, N> w = LoadVec<N>(var + e);
    Vec<T, N> mean = LoadVec<N>(m + e);
    Vec<T, N> var2 = LoadVec<N>(v + e);
    const Vec<T, N> g = LoadVec<N>(grad + e);
#pragma unroll
    for (int k = 0; k < N; ++k) {
      mean.v[k] += (g.v[k] - mean.v[k]) * p.a1;
      var2.v[k] += (g.v[k] * g.v[k] - var2.v[k]) * p.a2;
      if (nesterov) {
        w.v[k] -= ((g.v[k] * p.a1 + p.beta1 * mean.v[k]) * p.lr_t) /
                  (DSqrt(var2.v[k]) + p.epsilon);
      } else {
        w.v[k] -= (mean.v[k] * p.lr_t) / (DSqrt(var2.v[k]) + p.epsilon);
      }
    }
    StoreVec<N>(m + e, mean);
    StoreVec<N>(v + e, var2);
    StoreVec<N>(var + e, w);
  }
};

template <typename T>
struct AdagradBody {
  T* var;
  T* accum;
  const T* lr;
  const T* grad;
  bool update_slots;
  struct Params {
    T lr;
  };
  __device__ Params LoadParams() const { return {*lr}; }
  template <int N>
  __device__ __forceinline__ void Apply(int64_t e, const Params& p) const {
    Vec<T, N> w = LoadVec<N>(var + e);
    Vec<T, N> a = LoadVec<N>(accum + e);
    const Vec<T, N> g = LoadVec<N>(grad + e);
#pragma unroll
    for (int k = 0; k < N; ++k) {
      if (update_slots) a.v[k] += g.v[k] * g.v[k];
      w.v[k] -= p.lr * g.v[k] / DSqrt(a.v[k]);
    }
    if (update_slots) StoreVec<N>(accum + e, a);
    StoreVec<N>(var + e, w);
  }
};

template <typename T>
struct RMSPropBody {
  T* var;
  T* ms;
  T* mom;
  const T* lr;
  const T* rho;
  const T* momentum;
  const T* epsilon;
  const T* grad;
  struct Params {
    T lr, one_minus_rho, momentum, epsilon;
  };
  __device__ Params LoadParams() const { return {*lr, T(1) - *rho, *momentum, *epsilon}; }
  template <int N>
  __device__ __forceinline__ void Apply(int64_t e, const Params& p) const {
    Vec<T, N> w = LoadVec<N>(var + e);
    Vec<T, N> s = LoadVec<N>(ms + e);
    Vec<T, N> mo = LoadVec<N>(mom + e);
    const Vec<T, N> g = LoadVec<N>(grad + e);
#pragma unroll
    for (int k = 0; k < N; ++k) {
      s.v[k] += (g.v[k] * g.v[k] - s.v[k]) * p.one_minus_rho;
      mo.v[k] = mo.v[k] * p.momentum + p.lr * g.v[k] / DSqrt(s.v[k] + p.epsilon);
      w.v[k] -= mo.v[k];
    }
    StoreVec<N>(ms + e, s);
    StoreVec<N>(mom + e, mo);
    StoreVec<N>(var + e, w);
  }
};

// ---------------------------------------------------------------------------
// Kernels: the CPU's checks, then one launch.

class CudaApplyOpBase : public state::ApplyOpBase {
 public:
  using state::ApplyOpBase::ApplyOpBase;

 protected:
  Status Unsupported() const {
    return UnsupportedType(*this, BaseType(input_type(0)));
  }
};

template <typename T>
T* Data(Tensor* t) {
  return static_cast<T*>(t->raw_data());
}
template <typename T>
const T* Data(const Tensor& t) {
  return static_cast<const T*>(t.raw_data());
}

class CudaApplyGradientDescentOp : public CudaApplyOpBase {
 public:
  using CudaApplyOpBase::CudaApplyOpBase;
  void Compute(OpKernelContext* ctx) override {
    {
      state::RefInputLocks lock(ctx, {0}, use_locking_);
      Tensor* refs[1];
      OP_REQUIRES_OK(ctx, CheckInputs(ctx, {0}, {1}, 2, refs));
      cudaStream_t stream = nullptr;
      OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
      Status s;
      const bool known = VisitFloatOrDouble(input_type(1), [&](auto tag) {
        using T = typename decltype(tag)::type;
        GradientDescentBody<T> body{Data<T>(refs[0]), Data<T>(ctx->input(1)),
                                    Data<T>(ctx->input(2))};
        s = LaunchUpdate<T>(stream, refs[0]->NumElements(), {body.var, body.delta}, body,
                            "ApplyGradientDescentKernel");
      });
      OP_REQUIRES(ctx, known, ctx->NodeError(Unsupported()));
      OP_REQUIRES_OK(ctx, s.ok() ? s : ctx->NodeError(s));
    }
    state::ForwardRefInputToRefOutput(ctx, 0, 0);
  }
};

class CudaApplyMomentumOp : public CudaApplyOpBase {
 public:
  explicit CudaApplyMomentumOp(OpKernelConstruction* ctx) : CudaApplyOpBase(ctx) {
    ctx->SetStatus(ctx->GetAttr("use_nesterov", &use_nesterov_));
  }
  void Compute(OpKernelContext* ctx) override {
    {
      state::RefInputLocks lock(ctx, {0, 1}, use_locking_);
      Tensor* refs[2];
      OP_REQUIRES_OK(ctx, CheckInputs(ctx, {0, 1}, {2, 4}, 3, refs));
      cudaStream_t stream = nullptr;
      OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
      Status s;
      const bool known = VisitFloatOrDouble(input_type(2), [&](auto tag) {
        using T = typename decltype(tag)::type;
        MomentumBody<T> body{Data<T>(refs[0]),       Data<T>(refs[1]),       Data<T>(ctx->input(2)),
                             Data<T>(ctx->input(3)), Data<T>(ctx->input(4)), use_nesterov_};
        s = LaunchUpdate<T>(stream, refs[0]->NumElements(), {body.var, body.accum, body.grad},
                            body, "ApplyMomentumKernel");
      });
      OP_REQUIRES(ctx, known, ctx->NodeError(Unsupported()));
      OP_REQUIRES_OK(ctx, s.ok() ? s : ctx->NodeError(s));
    }
    state::ForwardRefInputToRefOutput(ctx, 0, 0);
  }

 private:
  bool use_nesterov_ = false;
};

class CudaApplyAdamOp : public CudaApplyOpBase {
 public:
  explicit CudaApplyAdamOp(OpKernelConstruction* ctx) : CudaApplyOpBase(ctx) {
    ctx->SetStatus(ctx->GetAttr("use_nesterov", &use_nesterov_));
  }
  void Compute(OpKernelContext* ctx) override {
    {
      state::RefInputLocks lock(ctx, {0, 1, 2}, use_locking_);
      Tensor* refs[3];
      OP_REQUIRES_OK(ctx, CheckInputs(ctx, {0, 1, 2}, {3, 4, 5, 6, 7, 8}, 9, refs));
      cudaStream_t stream = nullptr;
      OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
      Status s;
      const bool known = VisitFloatOrDouble(input_type(3), [&](auto tag) {
        using T = typename decltype(tag)::type;
        AdamBody<T> body{Data<T>(refs[0]),       Data<T>(refs[1]),       Data<T>(refs[2]),
                         Data<T>(ctx->input(3)), Data<T>(ctx->input(4)), Data<T>(ctx->input(5)),
                         Data<T>(ctx->input(6)), Data<T>(ctx->input(7)), Data<T>(ctx->input(8)),
                         Data<T>(ctx->input(9)), use_nesterov_};
        s = LaunchUpdate<T>(stream, refs[0]->NumElements(), {body.var, body.m, body.v, body.grad},
                            body, "ApplyAdamKernel");
      });
      OP_REQUIRES(ctx, known, ctx->NodeError(Unsupported()));
      OP_REQUIRES_OK(ctx, s.ok() ? s : ctx->NodeError(s));
    }
    state::ForwardRefInputToRefOutput(ctx, 0, 0);
  }

 private:
  bool use_nesterov_ = false;
};

class CudaApplyAdagradOp : public CudaApplyOpBase {
 public:
  explicit CudaApplyAdagradOp(OpKernelConstruction* ctx) : CudaApplyOpBase(ctx) {
    ctx->SetStatus(ctx->GetAttr("update_slots", &update_slots_));
  }
  void Compute(OpKernelContext* ctx) override {
    {
      state::RefInputLocks lock(ctx, {0, 1}, use_locking_);
      Tensor* refs[2];
      OP_REQUIRES_OK(ctx, CheckInputs(ctx, {0, 1}, {2}, 3, refs));
      cudaStream_t stream = nullptr;
      OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
      Status s;
      const bool known = VisitFloatOrDouble(input_type(2), [&](auto tag) {
        using T = typename decltype(tag)::type;
        AdagradBody<T> body{Data<T>(refs[0]), Data<T>(refs[1]), Data<T>(ctx->input(2)),
                            Data<T>(ctx->input(3)), update_slots_};
        s = LaunchUpdate<T>(stream, refs[0]->NumElements(), {body.var, body.accum, body.grad},
                            body, "ApplyAdagradKernel");
      });
      OP_REQUIRES(ctx, known, ctx->NodeError(Unsupported()));
      OP_REQUIRES_OK(ctx, s.ok() ? s : ctx->NodeError(s));
    }
    state::ForwardRefInputToRefOutput(ctx, 0, 0);
  }

 private:
  bool update_slots_ = true;
};

class CudaApplyRMSPropOp : public CudaApplyOpBase {
 public:
  using CudaApplyOpBase::CudaApplyOpBase;
  void Compute(OpKernelContext* ctx) override {
    {
      state::RefInputLocks lock(ctx, {0, 1, 2}, use_locking_);
      Tensor* refs[3];
      OP_REQUIRES_OK(ctx, CheckInputs(ctx, {0, 1, 2}, {3, 4, 5, 6}, 7, refs));
      cudaStream_t stream = nullptr;
      OP_REQUIRES_OK(ctx, KernelStream(ctx, &stream));
      Status s;
      const bool known = VisitFloatOrDouble(input_type(3), [&](auto tag) {
        using T = typename decltype(tag)::type;
        RMSPropBody<T> body{Data<T>(refs[0]),       Data<T>(refs[1]),       Data<T>(refs[2]),
                            Data<T>(ctx->input(3)), Data<T>(ctx->input(4)), Data<T>(ctx->input(5)),
                            Data<T>(ctx->input(6)), Data<T>(ctx->input(7))};
        s = LaunchUpdate<T>(stream, refs[0]->NumElements(), {body.var, body.ms, body.mom, body.grad},
                            body, "ApplyRMSPropKernel");
      });
      OP_REQUIRES(ctx, known, ctx->NodeError(Unsupported()));
      OP_REQUIRES_OK(ctx, s.ok() ? s : ctx->NodeError(s));
    }
    state::ForwardRefInputToRefOutput(ctx, 0, 0);
  }
};

}  // namespace

REGISTER_CUDA_KERNEL("ApplyGradientDescent", CudaApplyGradientDescentOp);
REGISTER_CUDA_KERNEL("ApplyMomentum", CudaApplyMomentumOp);
REGISTER_CUDA_KERNEL("ApplyAdam", CudaApplyAdamOp);
REGISTER_CUDA_KERNEL("ApplyAdagrad", CudaApplyAdagradOp);
REGISTER_CUDA_KERNEL("ApplyRMSProp", CudaApplyRMSPropOp);

}  // namespace af::gpu
