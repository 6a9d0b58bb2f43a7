// Kernel plumbing shared by the reader ops: the kernel of every op that
// makes a reader (TFRecordReaderV2, TextLineReader, ...) and the lookups
// that turn a reader or queue handle back into the resource.
//
// Handles come in TensorFlow's two shapes: a DT_RESOURCE scalar (the *V2
// ops) or a Ref(string) vector [container, name] (the TF1 ops).
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "core/op_kernel.h"
#include "core/queue_interface.h"
#include "core/resource_mgr.h"
#include "core/tensor.h"
#include "kernels/io/reader_base.h"

namespace af {

// The reader named by input `input` (handle resolution: kernels/resource_handles.h).
Status LookupReader(OpKernelContext* ctx, int input, ResourceRef<ReaderBase>* out);

class ReaderOpKernel : public OpKernel {
 public:
  using Factory = std::function<ReaderBase*()>;
  // `format` is the reader type (the op name without "V2"); the derived
  // kernel checks its attrs and calls SetFactory.
  ReaderOpKernel(OpKernelConstruction* ctx, std::string format);
  ~ReaderOpKernel() override;
  void Compute(OpKernelContext* ctx) override;

 protected:
  void SetFactory(Factory factory) { factory_ = std::move(factory); }
  const std::string& format() const { return format_; }

 private:
  const std::string format_;
  std::string container_, name_;
  bool private_ = false;  // no shared_name: the reader is this kernel's alone
  Factory factory_;

  std::mutex mu_;  // serializes Compute: guards rm_, generation_, made_, handle_
  ResourceMgr* rm_ = nullptr;
  uint64_t generation_ = 0;
  bool made_ = false;
  Tensor handle_;         // DT_RESOURCE scalar, or [container, name] strings
  std::mutex handle_mu_;  // guards handle_ for ref consumers
};

// Registers the TF1 and V2 names of a reader-making op.
#define AF_REGISTER_READER_KERNEL(NAME, KERNEL)                                          \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder(NAME).Device(DEVICE_CPU), KERNEL);          \
  REGISTER_KERNEL_BUILDER(KernelDefBuilder(NAME "V2").Device(DEVICE_CPU), KERNEL)

}  // namespace af
