// <Eigen/LU> for kernels, behind the same GCC 12 false-positive guard as
// kernels/eigen_core.h.
#pragma once

#include "kernels/eigen_core.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <Eigen/LU>
#pragma GCC diagnostic pop
#else
#include <Eigen/LU>
#endif
