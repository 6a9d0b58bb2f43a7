#include "kernels/nn/onednn_conv.h"

#include <string>
#include <unordered_map>

#include "kernels/nn/onednn_util.h"

namespace af {

namespace {

using dnnl::memory;
using Tag = memory::format_tag;

// Beyond this many shapes a kernel starts over: shapes that keep changing
// would otherwise grow the cache without bound.
constexpr size_t kMaxPlans = 32;

// Fewer input channels than one SIMD block: oneDNN's JIT backward-data
// kernel underuses its vectors and the GEMM kernel on plain weights wins.
constexpr int64_t kMinBlockedBackwardDataChannels = 16;

}  // namespace

// The buffers of one call: the caller's tensors, plus the reordered
// weights and scratchpads from the thread's scratch arena.
struct ConvBuffers {
  void* a;
  void* b;
  void* user_weights;
  void* prim_weights;
  void* scratch;
  void* reorder_scratch;
};

struct OneDnnConv2D::Plan {
  dnnl::primitive conv;
  std::string impl;
  memory::desc a_md, b_md, user_w_md, prim_w_md, scratch_md, reorder_scratch_md;
  int a_arg = 0, b_arg = 0, w_arg = 0;
  // Weights go through `weights_reorder` before the primitive (forward,
  // backward data) or after it (backward weights, which produces them).
  bool reorder_weights = false;
  dnnl::primitive weights_reorder;

  // Memory objects wrapping one call's buffers, and the argument maps that
  // refer to them.
  struct Binding {
    memory a, b, user_w, prim_w, scratch, reorder_scratch;
    std::unordered_map<int, memory> conv_args, reorder_args;
  };
  // Reused by whichever call holds `mu` (steady state creates nothing); a
  // call that finds it busy builds its own.
  std::mutex mu;
  Binding cached;

  bool WeightsBefore() const { return w_arg != DNNL_ARG_DIFF_WEIGHTS; }

  void Create(const ConvBuffers& buf, Binding* bind) const {
    dnnl::engine& eng = onednn::CpuEngine();
    bind->a = memory(a_md, eng, buf.a);
    bind->b = memory(b_md, eng, buf.b);
    bind->user_w = memory(user_w_md, eng, buf.user_weights);
    bind->prim_w = reorder_weights ? memory(prim_w_md, eng, buf.prim_weights) : bind->user_w;
    bind->scratch = memory(scratch_md, eng, buf.scratch);
    bind->reorder_scratch = memory(reorder_scratch_md, eng, buf.reorder_scratch);
    bind->conv_args = {{a_arg, bind->a},
                       {b_arg, bind->b},
                       {w_arg, bind->prim_w},
                       {DNNL_ARG_SCRATCHPAD, bind->scratch}};
    if (reorder_weights)
      bind->reorder_args = {{DNNL_ARG_FROM, WeightsBefore() ? bind->user_w : bind->prim_w},
                            {DNNL_ARG_TO, WeightsBefore() ? bind->prim_w : bind->user_w},
                            {DNNL_ARG_SCRATCHPAD, bind->reorder_scratch}};
  }

  // Points an existing binding at new buffers; the maps hold the same
  // memory objects, so they follow.
  static void Rebind(const ConvBuffers& buf, bool reorder_weights, Binding* bind) {
    bind->a.set_data_handle(buf.a);
    bind->b.set_data_handle(buf.b);
    bind->user_w.set_data_handle(buf.user_weights);
    if (reorder_weights) bind->prim_w.set_data_handle(buf.prim_weights);
    bind->scratch.set_data_handle(buf.scratch);
    bind->reorder_scratch.set_data_handle(buf.reorder_scratch);
  }

  void Execute(const Binding& bind) const {
    dnnl::stream& s = onednn::ThreadStream();
    if (reorder_weights && WeightsBefore()) weights_reorder.execute(s, bind.reorder_args);
    conv.execute(s, bind.conv_args);
    if (reorder_weights && !WeightsBefore()) weights_reorder.execute(s, bind.reorder_args);
    s.wait();
  }
};

OneDnnConv2D::OneDnnConv2D(ConvPass pass) : pass_(pass) {}
OneDnnConv2D::~OneDnnConv2D() = default;

StatusOr<std::shared_ptr<OneDnnConv2D::Plan>> OneDnnConv2D::GetPlan(const Conv2DDims& dims) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = plans_.find(dims.CacheKey());
    if (it != plans_.end()) return it->second;
  }
  // Built outside the lock: primitive creation JIT-compiles (milliseconds)
  // and must not stall other shapes. Two threads racing on one new shape
  // both build; the first to insert wins.
  StatusOr<std::shared_ptr<Plan>> plan = CreatePlan(dims);
  if (!plan.ok()) return plan;
  std::lock_guard<std::mutex> lock(mu_);
  if (plans_.size() >= kMaxPlans) plans_.clear();
  return plans_.emplace(dims.CacheKey(), *plan).first->second;
}

StatusOr<std::shared_ptr<OneDnnConv2D::Plan>> OneDnnConv2D::CreatePlan(const Conv2DDims& d) const {
  auto plan = std::make_shared<Plan>();
  const Status s = onednn::Guard("convolution setup", [&] {
    dnnl::engine& eng = onednn::CpuEngine();
    const Tag act = d.format == TensorFormat::kNHWC ? Tag::nhwc : Tag::nchw;
    const memory::desc src(memory::dims{d.batch, d.in_depth, d.in_h, d.in_w},
                           memory::data_type::f32, act);
    const memory::desc dst(memory::dims{d.batch, d.out_depth, d.out_h, d.out_w},
                           memory::data_type::f32, act);
    const memory::dims wdims{d.out_depth, d.in_depth, d.filter_h, d.filter_w};
    plan->user_w_md = memory::desc(wdims, memory::data_type::f32, Tag::hwio);
    const bool plain_weights =
        pass_ == ConvPass::kBackwardData && d.in_depth < kMinBlockedBackwardDataChannels;
    const memory::desc weights =
        plain_weights ? plan->user_w_md : memory::desc(wdims, memory::data_type::f32, Tag::any);
    const memory::dims strides{d.stride_h, d.stride_w};
    const memory::dims dilates{d.dilation_h - 1, d.dilation_w - 1};
    const memory::dims pad_l{d.pad_top, d.pad_left}, pad_r{d.pad_bottom, d.pad_right};
    const dnnl::primitive_attr attr = onednn::UserScratchpadAttr();
    const auto alg = dnnl::algorithm::convolution_direct;

    dnnl::convolution_forward::primitive_desc fwd(
        dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, alg, src, weights, dst,
                                        strides, dilates, pad_l, pad_r),
        attr, eng);
    switch (pass_) {
      case ConvPass::kForward:
        plan->conv = dnnl::convolution_forward(fwd);
        plan->impl = fwd.impl_info_str();
        plan->prim_w_md = fwd.weights_desc();
        plan->scratch_md = fwd.scratchpad_desc();
        plan->a_arg = DNNL_ARG_SRC;
        plan->b_arg = DNNL_ARG_DST;
        plan->w_arg = DNNL_ARG_WEIGHTS;
        break;
      case ConvPass::kBackwardData: {
        dnnl::convolution_backward_data::primitive_desc pd(
            dnnl::convolution_backward_data::desc(alg, src, weights, dst, strides, dilates, pad_l,
                                                  pad_r),
            attr, eng, fwd);
        plan->conv = dnnl::convolution_backward_data(pd);
        plan->impl = pd.impl_info_str();
        plan->prim_w_md = pd.weights_desc();
        plan->scratch_md = pd.scratchpad_desc();
        plan->a_arg = DNNL_ARG_DIFF_SRC;
        plan->b_arg = DNNL_ARG_DIFF_DST;
        plan->w_arg = DNNL_ARG_WEIGHTS;
        break;
      }
      case ConvPass::kBackwardWeights: {
        dnnl::convolution_backward_weights::primitive_desc pd(
            dnnl::convolution_backward_weights::desc(alg, src, weights, dst, strides, dilates,
                                                     pad_l, pad_r),
            attr, eng, fwd);
        plan->conv = dnnl::convolution_backward_weights(pd);
        plan->impl = pd.impl_info_str();
        plan->prim_w_md = pd.diff_weights_desc();
        plan->scratch_md = pd.scratchpad_desc();
        plan->a_arg = DNNL_ARG_SRC;
        plan->b_arg = DNNL_ARG_DIFF_DST;
        plan->w_arg = DNNL_ARG_DIFF_WEIGHTS;
        break;
      }
    }
    plan->a_md = src;
    plan->b_md = dst;
    plan->reorder_weights = plan->prim_w_md != plan->user_w_md;
    if (plan->reorder_weights) {
      const bool before = pass_ != ConvPass::kBackwardWeights;
      dnnl::reorder::primitive_desc rpd(eng, before ? plan->user_w_md : plan->prim_w_md, eng,
                                        before ? plan->prim_w_md : plan->user_w_md, attr);
      plan->weights_reorder = dnnl::reorder(rpd);
      plan->reorder_scratch_md = rpd.scratchpad_desc();
    }
    plan->Create(ConvBuffers{}, &plan->cached);
  });
  if (!s.ok()) return s;
  return plan;
}

Status OneDnnConv2D::Run(const Conv2DDims& dims, float* a, float* b, float* filter) {
  StatusOr<std::shared_ptr<Plan>> got = GetPlan(dims);
  if (!got.ok()) return got.status();
  Plan& plan = **got;
  onednn::ThreadScratch& scratch = onednn::ThreadScratch::Get();
  if (!scratch.Reserve({plan.scratch_md.get_size(),
                        plan.reorder_weights ? plan.prim_w_md.get_size() : 0,
                        plan.reorder_scratch_md.get_size()}))
    return errors::ResourceExhausted("out of memory for the convolution's scratch space");
  const ConvBuffers buf{a, b, filter, scratch.Region(1), scratch.Region(0), scratch.Region(2)};
  return onednn::Guard("convolution", [&] {
    std::unique_lock<std::mutex> lock(plan.mu, std::try_to_lock);
    if (lock.owns_lock()) {
      Plan::Rebind(buf, plan.reorder_weights, &plan.cached);
      plan.Execute(plan.cached);
      return;
    }
    Plan::Binding own;
    plan.Create(buf, &own);
    plan.Execute(own);
  });
}

std::string OneDnnConv2D::ImplementationName(const Conv2DDims& dims) {
  StatusOr<std::shared_ptr<Plan>> got = GetPlan(dims);
  return got.ok() ? (*got)->impl : got.status().ToString();
}

}  // namespace af
