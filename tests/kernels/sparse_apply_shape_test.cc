// The shape functions of the sparse optimizer ops and FTRL: the variable,
// its slots and the gradient's rows merge into the output; the
// hyper-parameters must be scalars and the indices a vector with one entry
// per gradient row.
#include <string>
#include <utility>
#include <vector>

#include "core/node_def_util.h"
#include "core/op_registry.h"
#include "core/shape_inference.h"
#include "tests/kernels/op_test_util.h"
#include "tests/test_util.h"

namespace af::test {
namespace {

using af::testing::Contains;

// The output shape of `op` (T float, Tindices int32) on `inputs`.
Status InferOutput(const std::string& op, std::vector<PartialTensorShape> inputs,
                   PartialTensorShape* out) {
  const OpRegistrationData* reg = OpRegistry::Global()->LookUp(op);
  BOOST_TEST_REQUIRE(reg != nullptr);
  tensorflow::NodeDef node;
  node.set_name("s");
  node.set_op(op);
  SetAttr(&node, "T", DT_FLOAT);
  if (op.starts_with("Sparse")) SetAttr(&node, "Tindices", DT_INT32);
  AddDefaultsToNodeDef(reg->op_def, &node);
  std::vector<PartialTensorShape> outputs;
  AF_RETURN_IF_ERROR(InferShapes(node, reg->op_def, reg->shape_fn, inputs, {}, &outputs));
  *out = outputs.at(0);
  return Status::OK();
}

// The same suite as sparse_apply_test.cc, so one --run_test runs both.
BOOST_AUTO_TEST_SUITE(sparse_apply)

BOOST_AUTO_TEST_CASE(shape_functions) {
  const PartialTensorShape scalar(TensorShape{}), unknown;
  PartialTensorShape out;
  // var [?, 5], accum [7, ?], lr, grad [3, 5], indices [3], momentum.
  AF_EXPECT_OK(InferOutput("SparseApplyMomentum",
                           {PartialTensorShape({-1, 5}), PartialTensorShape({7, -1}), scalar,
                            PartialTensorShape({3, 5}), PartialTensorShape({3}), scalar},
                           &out));
  BOOST_TEST(out == PartialTensorShape({7, 5}));
  // Nothing known of the variable: the gradient gives its row shape.
  AF_EXPECT_OK(InferOutput("SparseApplyAdagrad",
                           {unknown, unknown, scalar, PartialTensorShape({3, 4, 2}), unknown},
                           &out));
  BOOST_TEST(out == PartialTensorShape({-1, 4, 2}));
  const auto momentum = [&](PartialTensorShape grad, PartialTensorShape indices,
                            PartialTensorShape lr) {
    return InferOutput("SparseApplyMomentum",
                       {PartialTensorShape({7, 5}), PartialTensorShape({7, 5}), std::move(lr),
                        std::move(grad), std::move(indices), scalar},
                       &out);
  };
  Status s = momentum(PartialTensorShape({2, 5}), PartialTensorShape({3}), scalar);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Contains(s, "one row per index"), s);
  BOOST_TEST(momentum(PartialTensorShape({3, 4}), PartialTensorShape({3}), scalar).code() ==
             Code::INVALID_ARGUMENT);
  BOOST_TEST(momentum(PartialTensorShape({3, 5}), PartialTensorShape({3, 1}), scalar).code() ==
             Code::INVALID_ARGUMENT);
  BOOST_TEST(momentum(PartialTensorShape({3, 5}), PartialTensorShape({3}), PartialTensorShape({1}))
                 .code() == Code::INVALID_ARGUMENT);
  // SparseApplyAdam: var, m and v merge; its six hyper-parameters are inputs 3..8.
  const auto adam = [&](PartialTensorShape beta1) {
    return InferOutput(
        "SparseApplyAdam",
        {PartialTensorShape({-1, 5}), PartialTensorShape({7, -1}), unknown, scalar, scalar, scalar,
         std::move(beta1), scalar, scalar, PartialTensorShape({3, 5}), PartialTensorShape({3})},
        &out);
  };
  AF_EXPECT_OK(adam(scalar));
  BOOST_TEST(out == PartialTensorShape({7, 5}));
  BOOST_TEST(adam(PartialTensorShape({1})).code() == Code::INVALID_ARGUMENT);
  // Dense FTRL: var, accum, linear and grad merge.
  AF_EXPECT_OK(InferOutput("ApplyFtrlV2",
                           {PartialTensorShape({-1, 5}), unknown, PartialTensorShape({7, -1}),
                            unknown, scalar, scalar, scalar, scalar, scalar},
                           &out));
  BOOST_TEST(out == PartialTensorShape({7, 5}));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
