// Buffer forwarding in element-wise kernels (core/input_forwarding.h): an
// input only its slot holds becomes the output in place, with the right
// values; an input someone else holds, a broadcast input, a string, or a
// functor that re-reads its input after writing is never overwritten.
#include <cmath>
#include <string>

#include <boost/test/unit_test.hpp>

#include "tests/kernels/op_test_util.h"

namespace af::test {
namespace {

Tensor Floats(std::initializer_list<float> values, TensorShape shape) {
  return Tensor::FromVector(std::vector<float>(values), shape);
}

BOOST_AUTO_TEST_SUITE(input_forwarding)

BOOST_AUTO_TEST_CASE(a_binary_op_writes_into_an_input_only_its_slot_holds) {
  Tensor x = Floats({1, 2, 3, 4, 5, 6}, TensorShape{2, 3});
  const void* x_memory = x.raw_data();
  KernelRunner r("Mul");
  r.Input(std::move(x)).Input(Tensor::Scalar<float>(2.0f));
  auto out = r.Run();
  BOOST_TEST_REQUIRE(out.ok(), out.status());
  const Tensor& z = (*out)[0];
  BOOST_TEST(z.raw_data() == x_memory);
  for (int i = 0; i < 6; ++i) BOOST_TEST(z.data<float>()[i] == 2.0f * (i + 1));
}

BOOST_AUTO_TEST_CASE(the_full_shaped_input_is_forwarded_when_the_other_broadcasts) {
  // y [3] broadcasts over x [2,3]: only x can hold the result, on either side.
  Tensor x = Floats({1, 2, 3, 4, 5, 6}, TensorShape{2, 3});
  const void* x_memory = x.raw_data();
  Tensor y = Floats({10, 20, 30}, TensorShape{3});
  KernelRunner r("Sub");
  r.Input(std::move(y)).Input(std::move(x));
  auto out = r.Run();
  BOOST_TEST_REQUIRE(out.ok(), out.status());
  const Tensor& z = (*out)[0];
  BOOST_TEST(z.raw_data() == x_memory);
  const float want[] = {9, 18, 27, 6, 15, 24};
  for (int i = 0; i < 6; ++i) BOOST_TEST(z.data<float>()[i] == want[i]);
}

BOOST_AUTO_TEST_CASE(an_input_someone_else_holds_is_left_alone) {
  const Tensor x = Floats({1, 2, 3}, TensorShape{3});
  KernelRunner r("Add");
  r.Input(x).Input(Floats({1, 1, 1}, TensorShape{3}));  // the test keeps x
  auto out = r.Run();
  BOOST_TEST_REQUIRE(out.ok(), out.status());
  const Tensor& z = (*out)[0];
  // Input 1 was free and takes the result; x keeps its values.
  BOOST_TEST(z.raw_data() != x.raw_data());
  for (int i = 0; i < 3; ++i) {
    BOOST_TEST(x.data<float>()[i] == i + 1.0f);
    BOOST_TEST(z.data<float>()[i] == i + 2.0f);
  }
}

BOOST_AUTO_TEST_CASE(the_same_tensor_in_both_slots_is_held_twice_and_not_forwarded) {
  Tensor x = Floats({1, 2, 3}, TensorShape{3});
  const void* x_memory = x.raw_data();
  KernelRunner r("Mul");
  r.Input(x).Input(std::move(x));
  auto out = r.Run();
  BOOST_TEST_REQUIRE(out.ok(), out.status());
  BOOST_TEST((*out)[0].raw_data() != x_memory);
  for (int i = 0; i < 3; ++i) BOOST_TEST((*out)[0].data<float>()[i] == (i + 1.0f) * (i + 1.0f));
}

BOOST_AUTO_TEST_CASE(unary_ops_forward_except_where_the_vector_form_is_patched_from_the_input) {
  Tensor x = Floats({-1, 2, -3}, TensorShape{3});
  const void* x_memory = x.raw_data();
  KernelRunner neg("Neg");
  neg.Input(std::move(x));
  auto negated = neg.Run();
  BOOST_TEST_REQUIRE(negated.ok(), negated.status());
  BOOST_TEST((*negated)[0].raw_data() == x_memory);
  BOOST_TEST((*negated)[0].data<float>()[2] == 3.0f);

  // Exp's vector form is corrected afterwards for inputs beyond its exact
  // range, reading x again: it allocates, and the large input is right.
  Tensor e = Floats({0, 1, 100, -100}, TensorShape{4});
  const void* e_memory = e.raw_data();
  KernelRunner exp("Exp");
  exp.Input(std::move(e));
  auto exped = exp.Run();
  BOOST_TEST_REQUIRE(exped.ok(), exped.status());
  BOOST_TEST((*exped)[0].raw_data() != e_memory);
  const float* z = (*exped)[0].data<float>();
  BOOST_TEST(z[1] == std::exp(1.0f));
  BOOST_TEST(std::isinf(z[2]));
  BOOST_TEST(z[3] == std::exp(-100.0f));
}

BOOST_AUTO_TEST_CASE(a_comparison_never_forwards_across_dtypes) {
  Tensor x = Floats({1, 5}, TensorShape{2});
  KernelRunner r("Less");
  r.Input(std::move(x)).Input(Floats({2, 2}, TensorShape{2}));
  auto out = r.Run();
  BOOST_TEST_REQUIRE(out.ok(), out.status());
  BOOST_TEST((*out)[0].dtype() == DT_BOOL);
  BOOST_TEST((*out)[0].data<bool>()[0] == true);
  BOOST_TEST((*out)[0].data<bool>()[1] == false);
}

BOOST_AUTO_TEST_CASE(bias_add_and_activation_gradients_forward_too) {
  Tensor x = Floats({1, 2, 3, 4, 5, 6}, TensorShape{2, 3});
  const void* x_memory = x.raw_data();
  KernelRunner bias("BiasAdd");
  bias.Input(std::move(x)).Input(Floats({10, 20, 30}, TensorShape{3}));
  auto biased = bias.Run();
  BOOST_TEST_REQUIRE(biased.ok(), biased.status());
  BOOST_TEST((*biased)[0].raw_data() == x_memory);
  const float want[] = {11, 22, 33, 14, 25, 36};
  for (int i = 0; i < 6; ++i) BOOST_TEST((*biased)[0].data<float>()[i] == want[i]);

  // Relu6Grad(gradients, features): the features are free here, the
  // gradients held by the test, so the features' buffer takes the result.
  const Tensor g = Floats({1, 1, 1}, TensorShape{3});
  Tensor features = Floats({-1, 3, 7}, TensorShape{3});
  const void* f_memory = features.raw_data();
  KernelRunner grad("Relu6Grad");
  grad.Input(g).Input(std::move(features));
  auto dx = grad.Run();
  BOOST_TEST_REQUIRE(dx.ok(), dx.status());
  BOOST_TEST((*dx)[0].raw_data() == f_memory);
  const float want_dx[] = {0, 1, 0};
  for (int i = 0; i < 3; ++i) BOOST_TEST((*dx)[0].data<float>()[i] == want_dx[i]);
  BOOST_TEST(g.data<float>()[0] == 1.0f);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
