// Layout changes the cuDNN kernels need around a library call: moving the
// axes of a 4-D tensor (TensorFlow's HWIO filters to cuDNN's KRSC or KCRS
// and back) and padding or cropping one into a differently sized buffer
// (asymmetric SAME padding, which cuDNN cannot express). Plain CUDA
// launches on the given stream, for elements of 1, 2, 4 or 8 bytes; the
// header is safe for host-only translation units.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace af::gpu {

// out = in with its axes reordered: out's axis d is in's axis perm[d], so
// out has dims {in_dims[perm[0]], ..., in_dims[perm[3]]}. Both row-major.
cudaError_t LaunchPermute4D(cudaStream_t stream, int elem_bytes, const void* in,
                            const int64_t in_dims[4], const int perm[4], void* out);

// Every element of out (dims out_dims) at coordinates p takes in's element
// at p - offset when that lies inside in (dims in_dims), and zero otherwise:
// a positive offset pads, a negative one crops.
cudaError_t LaunchShift4D(cudaStream_t stream, int elem_bytes, const void* in,
                          const int64_t in_dims[4], void* out, const int64_t out_dims[4],
                          const int64_t offset[4]);

}  // namespace af::gpu
