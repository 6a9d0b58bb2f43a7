// KernelRegistry matching and kernel creation, OpKernelContext's output
// handling and AsyncOpKernel's blocking Compute.
#include <boost/test/unit_test.hpp>

#include <thread>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "registry_test_util.h"

namespace af {
namespace {

using tensorflow::NodeDef;
using test::Contains;
using test::MakeNode;
using test::RegisteredOp;

REGISTER_OP("TestKernelOp")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float, double, int32}")
    .Attr("fail: bool = false");
REGISTER_OP("TestPriorityOp").Input("x: T").Output("y: T").Attr("T: type");
REGISTER_OP("TestTieOp").Output("y: float");
REGISTER_OP("TestNoKernelOp").Output("y: float");
REGISTER_OP("TestListOp").Input("xs: Tlist").Attr("Tlist: list(type)");

// Doubles its float input into a fresh output; fails construction on request.
class DoubleKernel : public OpKernel {
 public:
  explicit DoubleKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {
    bool fail = false;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("fail", &fail));
    OP_REQUIRES(ctx, !fail, errors::InvalidArgument("asked to fail"));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    for (int64_t i = 0; i < x.NumElements(); ++i) y->data<float>()[i] = 2 * x.data<float>()[i];
  }
};

// Kernels that only identify themselves through their output value.
template <int kTag>
class TagKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, Tensor::Scalar<float>(kTag)); }
};

// Answers from another thread, as a Recv would.
class LaterKernel : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    std::thread([ctx, done = std::move(done)] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      ctx->set_output(0, Tensor::Scalar<float>(42));
      done();
    }).detach();
  }
};

class NullFactoryKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext*) override {}
};

REGISTER_KERNEL_BUILDER(KernelDefBuilder("TestKernelOp").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                        DoubleKernel);
REGISTER_KERNEL_BUILDER(
    KernelDefBuilder("TestKernelOp").Device(DEVICE_GPU).TypeConstraint<double>("T").Expensive(),
    TagKernel<3>);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("TestPriorityOp").Device(DEVICE_CPU), TagKernel<1>);
REGISTER_KERNEL_BUILDER(
    KernelDefBuilder("TestPriorityOp").Device(DEVICE_CPU).TypeConstraint<float>("T").Priority(5),
    TagKernel<2>);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("TestPriorityOp").Device(DEVICE_GPU).Priority(-1),
                        LaterKernel);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("TestTieOp").Device(DEVICE_CPU), TagKernel<1>);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("TestTieOp").Device(DEVICE_CPU), TagKernel<2>);
REGISTER_KERNEL_BUILDER(
    KernelDefBuilder("TestListOp").Device(DEVICE_CPU).TypeConstraint("Tlist", {DT_FLOAT, DT_INT32}),
    NullFactoryKernel);

// Counts allocations, or refuses them all.
class TestAllocator : public CountingAllocatorBase {
 public:
  explicit TestAllocator(bool refuse) : refuse_(refuse) {}
  std::string Name() const override { return refuse_ ? "refusing" : "test"; }
  void* AllocateRaw(size_t alignment, size_t bytes) override {
    if (refuse_) return nullptr;
    RecordAlloc(bytes);
    return GetCpuAllocator()->AllocateRaw(alignment, bytes);
  }
  void DeallocateRaw(void* ptr, size_t bytes) override {
    RecordFree(bytes);
    GetCpuAllocator()->DeallocateRaw(ptr, bytes);
  }

 private:
  bool refuse_;
};

class TestDevice : public DeviceBase {
 public:
  explicit TestDevice(bool refuse = false) : allocator_(refuse) {}
  const std::string& name() const override { return name_; }
  const DeviceType& device_type() const override { return type_; }
  Allocator* GetAllocator() override { return &allocator_; }
  TestAllocator& allocator() { return allocator_; }

 private:
  std::string name_ = "/job:localhost/replica:0/task:0/device:CPU:0";
  DeviceType type_ = DEVICE_CPU;
  TestAllocator allocator_;
};

NodeDef KernelNode(const std::string& op, DataType t) {
  NodeDef n = MakeNode("k", op, {"in"});
  SetAttr(&n, "T", t);
  AddDefaultsToNodeDef(RegisteredOp(op), &n);
  return n;
}

// Runs `kernel` on `inputs` and returns its outputs and status.
struct Run {
  std::vector<TensorValue> inputs, outputs;
  OpKernelContext::Params params;
  std::unique_ptr<OpKernelContext> ctx;
  Run(OpKernel* kernel, DeviceBase* device, std::vector<Tensor> in) {
    for (auto& t : in) {
      TensorValue v;
      v.tensor = std::move(t);
      v.has_value = true;
      inputs.push_back(std::move(v));
    }
    outputs.resize(kernel->num_outputs());
    params.op_kernel = kernel;
    params.device = device;
    params.inputs = inputs.data();
    params.outputs = outputs.data();
    ctx = std::make_unique<OpKernelContext>(&params);
  }
};

BOOST_AUTO_TEST_SUITE(kernel_registry)

BOOST_AUTO_TEST_CASE(matches_by_device_and_type_constraint) {
  auto* reg = KernelRegistry::Global();
  const KernelDef* def = nullptr;
  BOOST_TEST(reg->FindKernelDef(DEVICE_CPU, KernelNode("TestKernelOp", DT_FLOAT), &def).ok());
  BOOST_REQUIRE(def);
  BOOST_TEST(def->device_type == DEVICE_CPU);
  BOOST_TEST(reg->FindKernelDef(DEVICE_GPU, KernelNode("TestKernelOp", DT_DOUBLE), &def).ok());
  BOOST_TEST(def->expensive);
  BOOST_TEST(reg->HasKernel(DEVICE_CPU, KernelNode("TestKernelOp", DT_FLOAT)));
  BOOST_TEST(!reg->HasKernel(DEVICE_GPU, KernelNode("TestKernelOp", DT_FLOAT)));
  BOOST_TEST((reg->SupportedDeviceTypes(KernelNode("TestKernelOp", DT_DOUBLE)) ==
              std::vector<DeviceType>{DEVICE_GPU}));
  BOOST_TEST((reg->SupportedDeviceTypes(KernelNode("TestPriorityOp", DT_FLOAT)) ==
              std::vector<DeviceType>{DEVICE_CPU, DEVICE_GPU}));
  BOOST_TEST(reg->SupportedDeviceTypes(KernelNode("TestKernelOp", DT_INT32)).empty());

  NodeDef list = MakeNode("l", "TestListOp", {"a", "b"});
  SetAttr(&list, "Tlist", std::vector<DataType>{DT_FLOAT, DT_INT32});
  BOOST_TEST(reg->HasKernel(DEVICE_CPU, list));
  SetAttr(&list, "Tlist", std::vector<DataType>{DT_FLOAT, DT_DOUBLE});
  BOOST_TEST(!reg->HasKernel(DEVICE_CPU, list));
  list.mutable_attr()->erase("Tlist");
  BOOST_TEST(!reg->HasKernel(DEVICE_CPU, list));  // a missing attr matches nothing
}

BOOST_AUTO_TEST_CASE(no_match_lists_what_is_registered) {
  const KernelDef* def = nullptr;
  Status s = KernelRegistry::Global()->FindKernelDef(
      DEVICE_GPU, KernelNode("TestKernelOp", DT_INT32), &def);
  BOOST_TEST(s.code() == Code::NOT_FOUND);
  BOOST_TEST(def == nullptr);
  BOOST_TEST(Contains(s.message(),
                      "No registered 'TestKernelOp' OpKernel for 'GPU' devices compatible with "
                      "node {{node k}} = TestKernelOp[T=int32, fail=false](in)"),
             s.message());
  BOOST_TEST(Contains(s.message(), "Registered: device='CPU'; T in [DT_FLOAT]"), s.message());
  BOOST_TEST(Contains(s.message(), "device='GPU'; T in [DT_DOUBLE]"), s.message());

  NodeDef none = MakeNode("n", "TestNoKernelOp");
  s = KernelRegistry::Global()->FindKernelDef(DEVICE_CPU, none, &def);
  BOOST_TEST(s.code() == Code::NOT_FOUND);
  BOOST_TEST(Contains(s.message(), "<no registered kernels>"), s.message());
}

BOOST_AUTO_TEST_CASE(highest_priority_wins_and_ties_are_errors) {
  TestDevice device;
  std::unique_ptr<OpKernel> kernel;
  auto tag_of = [&](DataType t) {
    BOOST_REQUIRE(KernelRegistry::Global()
                      ->CreateKernel(DEVICE_CPU, &device, KernelNode("TestPriorityOp", t), &kernel)
                      .ok());
    Run run(kernel.get(), &device, {Tensor::Scalar<float>(0)});
    kernel->Compute(run.ctx.get());
    return run.outputs[0].tensor.scalar<float>();
  };
  BOOST_TEST(tag_of(DT_FLOAT) == 2);   // specific kernel at priority 5
  BOOST_TEST(tag_of(DT_DOUBLE) == 1);  // only the generic one matches

  const KernelDef* def = nullptr;
  Status tie = KernelRegistry::Global()->FindKernelDef(DEVICE_CPU, MakeNode("t", "TestTieOp"), &def);
  BOOST_TEST(tie.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(tie.message(), "Multiple OpKernel registrations"), tie.message());
}

BOOST_AUTO_TEST_CASE(kernel_def_debug_string) {
  KernelDef def = KernelDefBuilder("Op")
                      .Device(DEVICE_GPU)
                      .TypeConstraint("T", {DT_FLOAT, DT_HALF})
                      .HostMemory("shape")
                      .Expensive()
                      .Priority(2)
                      .def();
  BOOST_TEST(def.DebugString() ==
             "op='Op' device='GPU'; T in [DT_FLOAT, DT_HALF]; host_memory=[shape]; expensive; "
             "priority=2");
  BOOST_TEST((def.host_memory_args == std::vector<std::string>{"shape"}));
}

BOOST_AUTO_TEST_CASE(create_kernel_builds_and_reports_construction_errors) {
  TestDevice device;
  std::unique_ptr<OpKernel> kernel;
  auto* reg = KernelRegistry::Global();
  BOOST_TEST(reg->CreateKernel(DEVICE_CPU, &device, KernelNode("TestKernelOp", DT_FLOAT), &kernel)
                 .ok());
  BOOST_REQUIRE(kernel);
  BOOST_TEST(kernel->name() == "k");
  BOOST_TEST(kernel->type_string() == "TestKernelOp");
  BOOST_TEST((kernel->input_types() == DataTypeVector{DT_FLOAT}));
  BOOST_TEST(kernel->output_type(0) == DT_FLOAT);
  BOOST_TEST(!kernel->IsExpensive());
  BOOST_TEST(kernel->AsAsync() == nullptr);

  BOOST_TEST(
      reg->CreateKernel(DEVICE_GPU, &device, KernelNode("TestKernelOp", DT_DOUBLE), &kernel).ok());
  BOOST_TEST(kernel->IsExpensive());  // from the KernelDef

  NodeDef failing = KernelNode("TestKernelOp", DT_FLOAT);
  SetAttr(&failing, "fail", true);
  Status s = reg->CreateKernel(DEVICE_CPU, &device, failing, &kernel);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(s.message() == "node 'k' (op 'TestKernelOp'): asked to fail");
  BOOST_TEST(!kernel);

  NodeDef unregistered = MakeNode("u", "TestUnregisteredOp");
  BOOST_TEST(reg->CreateKernel(DEVICE_CPU, &device, unregistered, &kernel).code() ==
             Code::NOT_FOUND);

  // A kernel registered for an op nobody defined.
  KernelRegistry local;
  local.Register(KernelDefBuilder("TestUndefinedOp").Device(DEVICE_CPU),
                 [](OpKernelConstruction* ctx) -> OpKernel* { return new TagKernel<0>(ctx); });
  Status undefined =
      local.CreateKernel(DEVICE_CPU, &device, MakeNode("u", "TestUndefinedOp"), &kernel);
  BOOST_TEST(undefined.code() == Code::NOT_FOUND);
  BOOST_TEST(Contains(undefined.message(), "node 'u'"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(op_kernel_context)

BOOST_AUTO_TEST_CASE(allocate_output_uses_the_device_allocator) {
  TestDevice device;
  std::unique_ptr<OpKernel> kernel;
  BOOST_REQUIRE(KernelRegistry::Global()
                    ->CreateKernel(DEVICE_CPU, &device, KernelNode("TestKernelOp", DT_FLOAT), &kernel)
                    .ok());
  Run run(kernel.get(), &device, {Tensor::FromVector<float>({1, -2, 3})});
  BOOST_TEST(run.ctx->mutable_output(0) == nullptr);
  const int64_t before = device.allocator().GetStats().num_allocs;
  kernel->Compute(run.ctx.get());
  BOOST_TEST(run.ctx->status().ok());
  BOOST_TEST(device.allocator().GetStats().num_allocs == before + 1);
  BOOST_TEST(run.outputs[0].has_value);
  const Tensor& y = run.outputs[0].tensor;
  BOOST_TEST((std::vector<float>(y.data<float>(), y.data<float>() + 3) ==
              std::vector<float>{2, -4, 6}));
  BOOST_TEST(run.ctx->mutable_output(0) == &run.outputs[0].tensor);
}

BOOST_AUTO_TEST_CASE(allocation_failure_is_resource_exhausted_naming_the_node) {
  TestDevice device(/*refuse=*/true);
  std::unique_ptr<OpKernel> kernel;
  BOOST_REQUIRE(KernelRegistry::Global()
                    ->CreateKernel(DEVICE_CPU, &device, KernelNode("TestKernelOp", DT_FLOAT), &kernel)
                    .ok());
  Run run(kernel.get(), &device, {Tensor::FromVector<float>({1, 2})});
  kernel->Compute(run.ctx.get());
  const Status& s = run.ctx->status();
  BOOST_TEST(s.code() == Code::RESOURCE_EXHAUSTED);
  BOOST_TEST(Contains(s.message(), "node 'k' (op 'TestKernelOp')"), s.message());
  BOOST_TEST(!run.outputs[0].has_value);
  Tensor temp;
  BOOST_TEST(run.ctx->allocate_temp(DT_FLOAT, TensorShape{4}, &temp).code() ==
             Code::RESOURCE_EXHAUSTED);
  Tensor* out = nullptr;
  BOOST_TEST(run.ctx->allocate_output(7, TensorShape{1}, &out).code() == Code::INTERNAL);
}

BOOST_AUTO_TEST_CASE(outputs_refs_forwarding_and_node_errors) {
  TestDevice device;
  std::unique_ptr<OpKernel> kernel;
  BOOST_REQUIRE(KernelRegistry::Global()
                    ->CreateKernel(DEVICE_CPU, &device, KernelNode("TestKernelOp", DT_FLOAT), &kernel)
                    .ok());
  Tensor input = Tensor::FromVector<float>({5, 6});
  Run run(kernel.get(), &device, {input});
  OpKernelContext& ctx = *run.ctx;
  BOOST_TEST(ctx.num_inputs() == 1);
  BOOST_TEST(ctx.has_input(0));
  BOOST_TEST(!ctx.input_is_ref(0));
  BOOST_TEST(ctx.input_dtype(0) == DT_FLOAT);

  ctx.forward_input_as_output(0, 0);
  BOOST_TEST(ctx.status().ok());
  BOOST_TEST(run.outputs[0].has_value);
  BOOST_TEST(run.outputs[0].tensor.SharesBufferWith(input));  // no copy

  Tensor variable = Tensor::FromVector<float>({1});
  std::mutex mu;
  ctx.set_output_ref(0, &mu, &variable);
  BOOST_TEST(run.outputs[0].is_ref());
  BOOST_TEST(run.outputs[0].ref_mu == &mu);
  BOOST_TEST(ctx.mutable_output(0) == &variable);
  ctx.set_output(0, Tensor::Scalar<float>(1));
  BOOST_TEST(!run.outputs[0].is_ref());

  Allocator* a = ctx.allocator();
  BOOST_TEST(a == &device.allocator());
  Status e = ctx.NodeError(errors::OutOfRange("index 9"));
  BOOST_TEST(e.code() == Code::OUT_OF_RANGE);
  BOOST_TEST(e.message() == "node 'k' (op 'TestKernelOp'): index 9");
  BOOST_TEST(ctx.NodeError(Status::OK()).ok());
}

BOOST_AUTO_TEST_CASE(forwarding_across_types_is_an_error) {
  // A TestPriorityOp kernel built for int32 but handed a float input tensor:
  // the types the kernel was built with decide.
  NodeDef n = KernelNode("TestPriorityOp", DT_INT32);
  DataTypeVector in{DT_INT32}, out{DT_FLOAT};
  OpKernelConstruction construction(DEVICE_CPU, nullptr, &n, &RegisteredOp("TestPriorityOp"), in,
                                    out);
  TagKernel<0> kernel(&construction);
  Run run(&kernel, nullptr, {Tensor::Scalar<int32_t>(1)});
  run.ctx->forward_input_as_output(0, 0);
  BOOST_TEST(run.ctx->status().code() == Code::INTERNAL);
  BOOST_TEST(!run.outputs[0].has_value);
  BOOST_TEST(run.ctx->allocator() == GetCpuAllocator());  // no device: the CPU allocator
}

BOOST_AUTO_TEST_CASE(async_kernel_compute_waits_for_done) {
  TestDevice device;
  std::unique_ptr<OpKernel> kernel;
  BOOST_REQUIRE(KernelRegistry::Global()
                    ->CreateKernel(DEVICE_GPU, &device, KernelNode("TestPriorityOp", DT_FLOAT),
                                   &kernel)
                    .ok());
  BOOST_REQUIRE(kernel->AsAsync() != nullptr);
  Run run(kernel.get(), &device, {Tensor::Scalar<float>(0)});
  kernel->Compute(run.ctx.get());  // returns only once the other thread called done
  BOOST_TEST(run.outputs[0].has_value);
  BOOST_TEST(run.outputs[0].tensor.scalar<float>() == 42);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
