// Ops whose CPU kernels run on a GPU device as they are: they move tensors
// without reading their elements (Identity, Reshape, Shape, control flow,
// variables' references), or compute only on integers, which live in host
// memory on a GPU (shape arithmetic of gradients). Keeping them on the GPU
// saves a Send/Recv pair around every reshape and shape computation.
#include "kernels/gpu/gpu_kernel_registry.h"

namespace af::gpu {
namespace {

const DataTypeVector kHostIntegers = {DT_INT32, DT_INT64};
const DataTypeVector kHostScalars = {DT_INT32, DT_INT64, DT_BOOL};

const bool registered = [] {
  // Any element type: only shapes and references are touched.
  for (const char* op :
       {"Identity", "StopGradient", "PreventGradient", "IdentityN", "Reshape", "ExpandDims",
        "Squeeze", "Shape", "ShapeN", "Size", "Rank", "NoOp", "VariableV2", "Variable",
        "IsVariableInitialized", "Switch", "RefSwitch", "_SwitchN", "Merge", "Enter", "RefEnter", "Exit",
        "NextIteration", "LoopCond", "ControlTrigger"}) {
    RegisterGpuHostKernel(KernelDefBuilder(op).Device(DEVICE_GPU));
  }
  // Integer arithmetic on shapes, indices and counters.
  for (const char* op : {"Add", "AddV2", "Sub", "Mul", "Maximum", "Minimum", "FloorDiv", "Pack",
                         "StridedSlice", "ConcatV2", "Tile", "Fill", "ZerosLike"}) {
    RegisterGpuHostKernel(KernelDefBuilder(op).Device(DEVICE_GPU).TypeConstraint("T", kHostIntegers));
  }
  for (const char* op : {"Sum", "Prod"}) {
    RegisterGpuHostKernel(KernelDefBuilder(op).Device(DEVICE_GPU).TypeConstraint("T", kHostIntegers));
  }
  // Integer variables (global_step, counters) update in host memory.
  for (const char* op : {"Assign", "AssignAdd", "AssignSub"}) {
    RegisterGpuHostKernel(KernelDefBuilder(op).Device(DEVICE_GPU).TypeConstraint("T", kHostScalars));
  }
  RegisterGpuHostKernel(
      KernelDefBuilder("BroadcastGradientArgs").Device(DEVICE_GPU).TypeConstraint("T", kHostIntegers));
  RegisterGpuHostKernel(
      KernelDefBuilder("Range").Device(DEVICE_GPU).TypeConstraint("Tidx", kHostIntegers));
  RegisterGpuHostKernel(KernelDefBuilder("Cast")
                            .Device(DEVICE_GPU)
                            .TypeConstraint("SrcT", kHostScalars)
                            .TypeConstraint("DstT", kHostScalars));
  return true;
}();

}  // namespace
}  // namespace af::gpu
