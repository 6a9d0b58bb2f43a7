// <Eigen/Core> for kernels. GCC 12 reports -Wmaybe-uninitialized inside its
// own AVX-512 intrinsics when Eigen's packet code is inlined (a known false
// positive); the pragma covers those header lines so -Werror builds stay
// clean without turning the warning off for kernel code itself.
#pragma once

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#include <Eigen/Core>
#pragma GCC diagnostic pop
#else
#include <Eigen/Core>
#endif
