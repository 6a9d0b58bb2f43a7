// The rendezvous key of a _Send/_Recv pair, read from the node's attrs.
// The key is fixed per node except for the frame and iteration, which come
// from the step. Shared by the CPU and GPU Send/Recv kernels.
#pragma once

#include <string>

#include "core/op_kernel.h"
#include "core/rendezvous_key.h"

namespace af {

struct SendRecvKey {
  std::string send_device, recv_device, tensor_name;
  uint64_t send_device_incarnation = 0;

  Status Read(OpKernelConstruction* ctx) {
    AF_RETURN_IF_ERROR(ctx->GetAttr("send_device", &send_device));
    AF_RETURN_IF_ERROR(ctx->GetAttr("recv_device", &recv_device));
    AF_RETURN_IF_ERROR(ctx->GetAttr("tensor_name", &tensor_name));
    int64_t incarnation = 0;
    AF_RETURN_IF_ERROR(ctx->GetAttr("send_device_incarnation", &incarnation));
    send_device_incarnation = static_cast<uint64_t>(incarnation);
    return Status::OK();
  }
  std::string Key(FrameAndIter frame_iter) const {
    return RendezvousKey(send_device, send_device_incarnation, recv_device, tensor_name,
                         frame_iter.frame_id, frame_iter.iter_id);
  }
};

}  // namespace af
