// bench/ops: GFLOP/s of the compute-heavy kernels, called directly (no
// graph, no session), each beside oneDNN itself in the same process:
//   - MatMul (float, square N = 256..2048) vs dnnl_sgemm;
//   - the Deep MNIST convolutions (batch 64: 5x5 1->32 SAME on 28x28 and
//     5x5 32->64 SAME on 14x14), forward, backprop input and backprop
//     filter, vs oneDNN's own convolution on its preferred blocked layouts
//     with no reorders counted (the best oneDNN can do, unreachable for a
//     kernel that must take and return NHWC tensors);
//   - MaxPool 2x2/2 on conv1's output vs oneDNN pooling on NHWC.
// Each pair is timed in short alternating batches and each side's fastest
// batch is kept (see TimePair), so load from other processes hits both
// sides alike. Our kernels run
// on a device with an intra-op pool of OMP_NUM_THREADS (default: all cores)
// threads, the count oneDNN's OpenMP uses; run with OMP_NUM_THREADS=1 for
// single-core figures, which are far less sensitive to other load.
//
//   bench_ops [seconds]   (default 0.3; each pair runs for 6x that)
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <random>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "bench/bench_util.h"
#include "core/device_base.h"
#include "core/kernel_registry.h"
#include "core/node_def_util.h"
#include "core/op_kernel.h"
#include "core/op_registry.h"
#include "runtime/thread_pool.h"

namespace af::bench {
namespace {

double g_min_seconds = 0.3;
constexpr int kRounds = 3;      // budget: 2 * kRounds * min_seconds per pair
constexpr int kMinBatches = 5;  // per side, however long one takes

// Threads for the kernels' own loops: as many as oneDNN's OpenMP uses
// (OMP_NUM_THREADS, else every core), so both sides get the same cores.
int BenchThreads() {
  const char* omp = std::getenv("OMP_NUM_THREADS");
  const int n = omp ? std::atoi(omp) : static_cast<int>(std::thread::hardware_concurrency());
  return std::max(1, n);
}

// A CPU device as a session has it: the CPU allocator and an intra-op pool
// (which the kernels' ShardedFor loops use).
class BenchDevice : public DeviceBase {
 public:
  const std::string& name() const override { return name_; }
  const DeviceType& device_type() const override { return type_; }
  Allocator* GetAllocator() override { return GetCpuAllocator(); }
  ThreadPoolInterface* intra_op_pool() override { return &pool_; }

 private:
  std::string name_ = "/job:localhost/replica:0/task:0/device:CPU:0";
  DeviceType type_ = DEVICE_CPU;
  ThreadPool pool_{"bench", BenchThreads()};
};

// One kernel created through the registries and called in place.
class KernelCall {
 public:
  KernelCall(tensorflow::NodeDef node, std::vector<Tensor> inputs) : inputs_(inputs.size()) {
    const OpRegistrationData* reg = OpRegistry::Global()->LookUp(node.op());
    if (!reg) CheckOk(errors::NotFound("op ", node.op()), "look up op");
    AddDefaultsToNodeDef(reg->op_def, &node);
    CheckOk(KernelRegistry::Global()->CreateKernel(DEVICE_CPU, &device_, node, &kernel_),
            "create " + node.op());
    for (size_t i = 0; i < inputs.size(); ++i) {
      inputs_[i].tensor = std::move(inputs[i]);
      inputs_[i].has_value = true;
    }
    outputs_.resize(kernel_->num_outputs());
  }

  void Run() {
    for (auto& o : outputs_) o.Clear();
    OpKernelContext::Params params;
    params.device = &device_;
    params.op_kernel = kernel_.get();
    params.inputs = inputs_.data();
    params.outputs = outputs_.data();
    OpKernelContext ctx(&params);
    kernel_->Compute(&ctx);
    CheckOk(ctx.status(), "run " + kernel_->type_string());
  }

 private:
  BenchDevice device_;
  std::unique_ptr<OpKernel> kernel_;
  std::vector<TensorValue> inputs_, outputs_;
};

Tensor Random(const TensorShape& shape, uint32_t seed) {
  Tensor t(DT_FLOAT, shape);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.NumElements(); ++i) p[i] = d(rng);
  return t;
}

tensorflow::NodeDef Node(const std::string& op) {
  tensorflow::NodeDef n;
  n.set_name(op);
  n.set_op(op);
  return n;
}

// Seconds per call of `ours` and `peer`: short batches of each, alternated
// for the whole budget, keeping each side's fastest batch. Interference
// from other processes only ever slows a batch down, so the minimum over
// many short interleaved batches is the steadiest estimate on a shared
// machine, and both sides see the same conditions.
std::pair<double, double> TimePair(const std::function<void()>& ours,
                                   const std::function<void()>& peer) {
  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
  };
  // Warm up (primitive creation, page faults) and size the batches to ~10 ms.
  auto t0 = Clock::now();
  ours();
  ours();
  const double t_ours = seconds(t0) / 2;
  t0 = Clock::now();
  peer();
  peer();
  const double t_peer = seconds(t0) / 2;
  const int64_t n_ours = std::max<int64_t>(1, static_cast<int64_t>(0.01 / t_ours));
  const int64_t n_peer = std::max<int64_t>(1, static_cast<int64_t>(0.01 / t_peer));
  double best_ours = 1e30, best_peer = 1e30;
  const auto start = Clock::now();
  int batches = 0;
  while (batches < 2 * kMinBatches || seconds(start) < 2 * kRounds * g_min_seconds) {
    t0 = Clock::now();
    for (int64_t i = 0; i < n_ours; ++i) ours();
    best_ours = std::min(best_ours, seconds(t0) / n_ours);
    t0 = Clock::now();
    for (int64_t i = 0; i < n_peer; ++i) peer();
    best_peer = std::min(best_peer, seconds(t0) / n_peer);
    batches += 2;
  }
  return {best_ours, best_peer};
}

void Report(const std::string& case_name, const std::string& extra, double flops, double ours,
            const std::string& peer_name, double peer) {
  const double gf = flops / ours * 1e-9, peer_gf = flops / peer * 1e-9;
  char fields[512];
  std::snprintf(fields, sizeof fields,
                "%s%s\"ms\":%.4g,\"peer\":\"%s\",\"peer_value\":%.6g,\"ratio\":%.3f", extra.c_str(),
                extra.empty() ? "" : ",", ours * 1e3, peer_name.c_str(), peer_gf, gf / peer_gf);
  PrintResult("ops", case_name, fields, "gflops", gf, "GFLOP/s");
}

void BenchMatMul(int64_t n) {
  tensorflow::NodeDef node = Node("MatMul");
  SetAttr(&node, "T", DT_FLOAT);
  Tensor a = Random({n, n}, 1), b = Random({n, n}, 2);
  KernelCall ours(node, {a, b});
  std::vector<float> c(n * n);
  const float* pa = a.data<float>();
  const float* pb = b.data<float>();
  auto peer = [&] {
    if (dnnl_sgemm('N', 'N', n, n, n, 1.f, pa, n, pb, n, 0.f, c.data(), n) != dnnl_success)
      CheckOk(errors::Internal("dnnl_sgemm failed"), "peer sgemm");
  };
  auto [t, tp] = TimePair([&] { ours.Run(); }, peer);
  Report("matmul_" + std::to_string(n), "\"n\":" + std::to_string(n), 2.0 * n * n * n, t,
         "dnnl_sgemm", tp);
}

struct ConvLayer {
  std::string name;
  int64_t batch, h, w, in_c, out_c, k;
};

// oneDNN's convolution on the layouts it picks for itself (format any),
// timing the primitive alone.
class NativeConv {
 public:
  NativeConv(const ConvLayer& l, int pass) : eng_(dnnl::engine::kind::cpu, 0), stream_(eng_) {
    using dnnl::memory;
    const memory::dims src{l.batch, l.in_c, l.h, l.w}, dst{l.batch, l.out_c, l.h, l.w};
    const memory::dims wei{l.out_c, l.in_c, l.k, l.k}, strides{1, 1};
    const memory::dims pad{l.k / 2, l.k / 2}, dil{0, 0};
    auto any = [](const memory::dims& d) {
      return memory::desc(d, memory::data_type::f32, memory::format_tag::any);
    };
    const auto alg = dnnl::algorithm::convolution_direct;
    dnnl::convolution_forward::primitive_desc fwd(
        dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, alg, any(src), any(wei),
                                        any(dst), strides, dil, pad, pad),
        eng_);
    if (pass == 0) {
      Bind(fwd.src_desc(), DNNL_ARG_SRC, fwd.weights_desc(), DNNL_ARG_WEIGHTS, fwd.dst_desc(),
           DNNL_ARG_DST, fwd.scratchpad_desc());
      prim_ = dnnl::convolution_forward(fwd);
    } else if (pass == 1) {
      dnnl::convolution_backward_data::primitive_desc pd(
          dnnl::convolution_backward_data::desc(alg, any(src), any(wei), any(dst), strides, dil,
                                                pad, pad),
          eng_, fwd);
      Bind(pd.diff_src_desc(), DNNL_ARG_DIFF_SRC, pd.weights_desc(), DNNL_ARG_WEIGHTS,
           pd.diff_dst_desc(), DNNL_ARG_DIFF_DST, pd.scratchpad_desc());
      prim_ = dnnl::convolution_backward_data(pd);
    } else {
      dnnl::convolution_backward_weights::primitive_desc pd(
          dnnl::convolution_backward_weights::desc(alg, any(src), any(wei), any(dst), strides, dil,
                                                   pad, pad),
          eng_, fwd);
      Bind(pd.src_desc(), DNNL_ARG_SRC, pd.diff_weights_desc(), DNNL_ARG_DIFF_WEIGHTS,
           pd.diff_dst_desc(), DNNL_ARG_DIFF_DST, pd.scratchpad_desc());
      prim_ = dnnl::convolution_backward_weights(pd);
    }
  }
  void Run() {
    prim_.execute(stream_, args_);
    stream_.wait();
  }

 private:
  void Bind(const dnnl::memory::desc& a, int a_arg, const dnnl::memory::desc& b, int b_arg,
            const dnnl::memory::desc& c, int c_arg, const dnnl::memory::desc& scratch) {
    const std::vector<std::pair<dnnl::memory::desc, int>> bindings = {
        {a, a_arg}, {b, b_arg}, {c, c_arg}, {scratch, DNNL_ARG_SCRATCHPAD}};
    for (const auto& [md, arg] : bindings) {
      dnnl::memory m(md, eng_);
      if (md.get_size() > 0) std::fill_n(static_cast<char*>(m.get_data_handle()), md.get_size(), 0);
      args_[arg] = m;
    }
  }
  dnnl::engine eng_;
  dnnl::stream stream_;
  dnnl::primitive prim_;
  std::unordered_map<int, dnnl::memory> args_;
};

void BenchConv(const ConvLayer& l) {
  const TensorShape in{l.batch, l.h, l.w, l.in_c}, filter{l.k, l.k, l.in_c, l.out_c};
  const TensorShape out{l.batch, l.h, l.w, l.out_c};
  const double flops = 2.0 * l.batch * l.h * l.w * l.out_c * l.k * l.k * l.in_c;
  auto conv_node = [](const std::string& op) {
    tensorflow::NodeDef n = Node(op);
    SetAttr(&n, "T", DT_FLOAT);
    SetAttr(&n, "strides", std::vector<int64_t>{1, 1, 1, 1});
    SetAttr(&n, "padding", "SAME");
    return n;
  };
  auto sizes = [](const TensorShape& s) {
    std::vector<int32_t> v;
    for (int d = 0; d < s.dims(); ++d) v.push_back(static_cast<int32_t>(s.dim_size(d)));
    return Tensor::FromVector<int32_t>(v);
  };
  const char* passes[] = {"forward", "backprop_input", "backprop_filter"};
  for (int pass = 0; pass < 3; ++pass) {
    std::unique_ptr<KernelCall> ours;
    if (pass == 0)
      ours = std::make_unique<KernelCall>(conv_node("Conv2D"),
                                          std::vector<Tensor>{Random(in, 1), Random(filter, 2)});
    else if (pass == 1)
      ours = std::make_unique<KernelCall>(
          conv_node("Conv2DBackpropInput"),
          std::vector<Tensor>{sizes(in), Random(filter, 2), Random(out, 3)});
    else
      ours = std::make_unique<KernelCall>(
          conv_node("Conv2DBackpropFilter"),
          std::vector<Tensor>{Random(in, 1), sizes(filter), Random(out, 3)});
    NativeConv peer(l, pass);
    auto [t, tp] = TimePair([&] { ours->Run(); }, [&] { peer.Run(); });
    Report(l.name + "_" + passes[pass], "\"batch\":" + std::to_string(l.batch), flops, t,
           "onednn_blocked_no_reorders", tp);
  }
}

// MaxPool 2x2 stride 2 SAME on conv1's output: our loops vs oneDNN pooling
// on the same NHWC tensors (bytes moved dominate, so GB/s of input read).
void BenchMaxPool(int64_t batch, int64_t hw, int64_t c) {
  tensorflow::NodeDef node = Node("MaxPool");
  SetAttr(&node, "T", DT_FLOAT);
  SetAttr(&node, "ksize", std::vector<int64_t>{1, 2, 2, 1});
  SetAttr(&node, "strides", std::vector<int64_t>{1, 2, 2, 1});
  SetAttr(&node, "padding", "SAME");
  Tensor x = Random({batch, hw, hw, c}, 4);
  KernelCall ours(node, {x});
  using dnnl::memory;
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream s(eng);
  const memory::desc src({batch, c, hw, hw}, memory::data_type::f32, memory::format_tag::nhwc);
  const memory::desc dst({batch, c, hw / 2, hw / 2}, memory::data_type::f32,
                         memory::format_tag::nhwc);
  dnnl::pooling_forward::primitive_desc pd(
      dnnl::pooling_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::pooling_max,
                                  src, dst, {2, 2}, {2, 2}, {0, 0}, {0, 0}),
      eng);
  dnnl::pooling_forward pool(pd);
  memory msrc(src, eng, x.data<float>()), mdst(dst, eng);
  auto peer = [&] {
    pool.execute(s, {{DNNL_ARG_SRC, msrc}, {DNNL_ARG_DST, mdst}});
    s.wait();
  };
  auto [t, tp] = TimePair([&] { ours.Run(); }, peer);
  const double bytes = static_cast<double>(x.TotalBytes());
  char fields[256];
  std::snprintf(fields, sizeof fields,
                "\"shape\":\"%lldx%lldx%lldx%lld\",\"ms\":%.4g,\"peer\":\"onednn_pooling_nhwc\","
                "\"peer_value\":%.6g,\"ratio\":%.3f",
                static_cast<long long>(batch), static_cast<long long>(hw),
                static_cast<long long>(hw), static_cast<long long>(c), t * 1e3, bytes / tp * 1e-9,
                tp / t);
  PrintResult("ops", "maxpool_2x2", fields, "input_gbytes_per_s", bytes / t * 1e-9, "GB/s");
}

}  // namespace
}  // namespace af::bench

int main(int argc, char** argv) {
  using namespace af::bench;
  if (argc > 1) g_min_seconds = std::max(0.05, std::atof(argv[1]));
  for (int64_t n : {256, 512, 1024, 2048}) BenchMatMul(n);
  BenchConv({"conv1_5x5_1to32_28x28", 64, 28, 28, 1, 32, 5});
  BenchConv({"conv2_5x5_32to64_14x14", 64, 14, 14, 32, 64, 5});
  BenchMaxPool(64, 28, 32);
  return 0;
}
