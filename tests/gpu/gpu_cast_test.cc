// Cast from host-memory integer and bool tensors to floating tensors in
// device memory (kernels/gpu/gpu_cast_ops.cc), against the CPU's Cast.
#include <boost/test/unit_test.hpp>

#include "tests/gpu/gpu_kernel_runner.h"

namespace af::test {
namespace {

BOOST_AUTO_TEST_SUITE(gpu_cast)

BOOST_AUTO_TEST_CASE(integers_and_bools_cast_into_device_floats) {
  AF_REQUIRE_GPU();
  const TensorShape shape({3, 7, 5});
  for (DataType to : {DT_FLOAT, DT_DOUBLE}) {
    GpuKernelRunner from_int32("Cast");
    from_int32.Attr("DstT", to).Input(RandomTensor<int32_t>(shape, 1, -100000, 100000));
    from_int32.ExpectSameAsCpu(0, 0);
    GpuKernelRunner from_int64("Cast");
    from_int64.Attr("DstT", to).Input(RandomTensor<int64_t>(shape, 2, -(int64_t{1} << 40),
                                                            int64_t{1} << 40));
    from_int64.ExpectSameAsCpu(0, 0);
    GpuKernelRunner from_bool("Cast");
    from_bool.Attr("DstT", to).Input(RandomTensor<bool>(shape, 3));
    from_bool.ExpectSameAsCpu(0, 0);
  }
}

BOOST_AUTO_TEST_CASE(an_empty_tensor_casts_to_an_empty_tensor) {
  AF_REQUIRE_GPU();
  GpuKernelRunner r("Cast");
  r.Attr("DstT", DT_FLOAT).Input(Tensor(DT_INT32, TensorShape({0, 4})));
  r.ExpectSameAsCpu(0, 0);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
