// Variables for kernel tests: a VariableV2 kernel creates the variable in
// the test device's ResourceMgr (the harness passes none, so the kernel
// uses the device's), and the test then reaches its storage and mutex to
// wire them into other kernels as reference inputs.
#pragma once

#include <mutex>
#include <string>

#include "core/resource_mgr.h"
#include "core/variable.h"
#include "tests/kernels/op_test_util.h"

namespace af::test {

inline ResourceMgr* TestDeviceResourceMgr() {
  return ResourceMgrForDevice(TestCpuDevice().name());
}

class TestVariable {
 public:
  // The variable's container is removed when the fixture goes.
  TestVariable(DataType dtype, const std::string& name, const std::string& container = "state_test")
      : container_(container), name_(name) {
    KernelRunner runner("VariableV2", name);
    runner.Attr("dtype", dtype).Attr("shape", PartialTensorShape()).Attr("container", container);
    status_ = runner.Run().status();
    if (status_.ok()) status_ = TestDeviceResourceMgr()->Lookup<Var>(container, name, &var_);
  }
  ~TestVariable() { TestDeviceResourceMgr()->Cleanup(container_).ok(); }

  const Status& status() const { return status_; }
  Tensor* storage() const { return var_->tensor(); }
  std::mutex* mu() const { return var_->mu(); }
  const std::string& name() const { return name_; }
  Var* var() const { return var_.get(); }

  // Runs Assign(var, value).
  Status Assign(Tensor value, bool validate_shape = true) const {
    KernelRunner runner("Assign", "assign_" + name_);
    runner.Attr("validate_shape", validate_shape).RefInput(storage(), mu()).Input(std::move(value));
    return runner.Run().status();
  }

  // The current value, copied.
  Tensor Value() const {
    std::lock_guard<std::mutex> lock(*mu());
    return storage()->DeepCopy();
  }

 private:
  std::string container_, name_;
  ResourceRef<Var> var_;
  Status status_;
};

}  // namespace af::test
