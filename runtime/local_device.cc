#include "runtime/local_device.h"

namespace af {

LocalDevice::LocalDevice(std::string name, DeviceType type, Allocator* allocator,
                         int num_threads, uint64_t incarnation)
    : name_(std::move(name)),
      type_(std::move(type)),
      allocator_(allocator),
      pool_(std::make_unique<ThreadPool>(name_, num_threads)),
      incarnation_(incarnation) {}

std::string LocalCpuDeviceName(int index, const std::string& job, int task) {
  return "/job:" + job + "/replica:0/task:" + std::to_string(task) + "/device:CPU:" +
         std::to_string(index);
}

}  // namespace af
