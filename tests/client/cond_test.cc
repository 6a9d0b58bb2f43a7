// Cond: TensorFlow's structure, both branches, captured tensors, several
// outputs, nesting and errors.
#include <boost/test/unit_test.hpp>

#include "client/client_session.h"
#include "client/control_flow/cond.h"
#include "client/standard_ops.h"

namespace af {
namespace {

BOOST_AUTO_TEST_SUITE(cond)

BOOST_AUTO_TEST_CASE(takes_one_branch_and_merges_several_outputs) {
  Scope root = Scope::NewRootScope();
  auto p = ops::Placeholder(root.WithOpName("p"), DT_BOOL);
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  std::vector<Output> out;
  Status s = Cond(
      root, p,
      [&](const Scope& b, std::vector<Output>* r) {
        *r = {ops::Mul(b, x, 2.0f), ops::Const(b, 1)};
        return b.status();
      },
      [&](const Scope& b, std::vector<Output>* r) {
        *r = {ops::Add(b, x, 1.0f), ops::Const(b, 0)};
        return b.status();
      },
      &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  const Graph& g = *root.graph();
  for (const char* name : {"cond/Switch", "cond/switch_t", "cond/switch_f", "cond/pred_id",
                           "cond/Merge", "cond/Merge_1"})
    BOOST_TEST(g.FindNode(name) != nullptr, name);
  BOOST_TEST(out[0].node()->name() == "cond/Merge");
  ClientSession session(root);
  std::vector<Tensor> r;
  BOOST_TEST_REQUIRE(session.Run({{p, true}, {x, 5.0f}}, {out[0], out[1]}, &r).ok());
  BOOST_TEST(r[0].scalar<float>() == 10.0f);
  BOOST_TEST(r[1].scalar<int32_t>() == 1);
  BOOST_TEST_REQUIRE(session.Run({{p, false}, {x, 5.0f}}, {out[0], out[1]}, &r).ok());
  BOOST_TEST(r[0].scalar<float>() == 6.0f);
  BOOST_TEST(r[1].scalar<int32_t>() == 0);
}

BOOST_AUTO_TEST_CASE(only_the_taken_branch_runs) {
  // The untaken branch would fail (a Reshape to a wrong size).
  Scope root = Scope::NewRootScope();
  auto p = ops::Placeholder(root, DT_BOOL);
  auto x = ops::Placeholder(root, DT_FLOAT, PartialTensorShape({-1}));
  Output out;
  BOOST_TEST_REQUIRE(Cond(root, p,
                          [&](const Scope& b) { return Output(ops::Reshape(b, x, {3})); },
                          [&](const Scope& b) { return Output(ops::Reshape(b, x, {2, 2})); }, &out)
                         .ok());
  ClientSession session(root);
  std::vector<Tensor> r;
  Tensor three = Tensor::FromVector<float>({1, 2, 3}, TensorShape({3}));
  Status s = session.Run({{p, true}, {x, three}}, {out}, &r);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST(r[0].NumElements() == 3);
  BOOST_TEST(!session.Run({{p, false}, {x, three}}, {out}, &r).ok());
}

BOOST_AUTO_TEST_CASE(a_branch_may_return_an_outside_tensor_and_nest_conds) {
  Scope root = Scope::NewRootScope();
  auto p = ops::Placeholder(root, DT_BOOL);
  auto q = ops::Placeholder(root, DT_BOOL);
  auto x = ops::Placeholder(root, DT_DOUBLE);
  std::vector<Output> out;
  Status s = Cond(
      root, p,
      [&](const Scope& b, std::vector<Output>* r) {
        return Cond(
            b, q,
            [&](const Scope& bb, std::vector<Output>* rr) {
              *rr = {ops::Mul(bb, x, 10.0)};
              return bb.status();
            },
            [&](const Scope&, std::vector<Output>* rr) {
              *rr = {x};
              return Status::OK();
            },
            r);
      },
      [&](const Scope& b, std::vector<Output>* r) {
        *r = {ops::Neg(b, x)};
        return b.status();
      },
      &out);
  BOOST_TEST_REQUIRE(s.ok(), s);
  ClientSession session(root);
  std::vector<Tensor> r;
  for (auto [pv, qv, expected] : {std::tuple{true, true, 30.0}, {true, false, 3.0},
                                  {false, true, -3.0}, {false, false, -3.0}}) {
    BOOST_TEST_REQUIRE(session.Run({{p, pv}, {q, qv}, {x, 3.0}}, {out[0]}, &r).ok());
    BOOST_TEST(r[0].scalar<double>() == expected);
  }
}

BOOST_AUTO_TEST_CASE(refuses_branches_that_disagree) {
  Scope root = Scope::NewRootScope();
  auto p = ops::Placeholder(root, DT_BOOL);
  std::vector<Output> out;
  Status s = Cond(root, p,
                  [&](const Scope& b, std::vector<Output>* r) {
                    *r = {ops::Const(b, 1)};
                    return b.status();
                  },
                  [&](const Scope& b, std::vector<Output>* r) {
                    *r = {ops::Const(b, 1.0f)};
                    return b.status();
                  },
                  &out);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(s.message().find("int32 in the true branch") != std::string::npos, s);
  Scope root2 = Scope::NewRootScope();
  s = Cond(root2, ops::Const(root2, 1), nullptr, nullptr, &out);
  BOOST_TEST(s.message().find("bool scalar") != std::string::npos, s);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
