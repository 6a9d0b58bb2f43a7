// TensorArray kernels: every op against plain values, the write-once /
// read-once / range / shape / dtype errors naming node and op, gradient
// arrays (shared per source, summed writes, zeros for unwritten slots),
// one fresh array per step freed at its end, and concurrent writes.
#include <atomic>
#include <thread>
#include <vector>

#include "kernels/tensor_array/tensor_array.h"
#include "tests/kernels/step_resource_test_util.h"

namespace af::test {
namespace {

struct ArrayOptions {
  DataType dtype = DT_FLOAT;
  PartialTensorShape element_shape;
  bool dynamic_size = false;
  bool clear_after_read = true;
  bool identical_element_shapes = false;
};

// (handle, flow)
std::pair<Tensor, Tensor> MakeArray(TestStep* step, int32_t size, const ArrayOptions& o = {},
                                    const std::string& name = "ta") {
  auto out =
      step->Run("TensorArrayV3", name, {Tensor::Scalar<int32_t>(size)}, [&o](KernelRunner& r) {
        r.Attr("dtype", o.dtype)
            .Attr("element_shape", o.element_shape)
            .Attr("dynamic_size", o.dynamic_size)
            .Attr("clear_after_read", o.clear_after_read)
            .Attr("identical_element_shapes", o.identical_element_shapes);
      });
  BOOST_TEST_REQUIRE(out.ok(), out.status().ToString());
  BOOST_TEST((*out)[0].dtype() == DT_RESOURCE);
  BOOST_TEST((*out)[1].dtype() == DT_FLOAT);
  return {(*out)[0], (*out)[1]};
}

Tensor Flow() { return Tensor::Scalar<float>(0.0f); }

Status Write(TestStep* step, const Tensor& h, int32_t index, const Tensor& value,
             const std::string& name = "write") {
  const Tensor flow = Tensor::Scalar<float>(1.5f);
  auto out =
      step->Run("TensorArrayWriteV3", name, {h, Tensor::Scalar<int32_t>(index), value, flow});
  if (!out.ok()) return out.status();
  if ((*out)[0].scalar<float>() != 1.5f) return errors::Internal("flow not passed through");
  return Status::OK();
}

StatusOr<Tensor> Read(TestStep* step, const Tensor& h, int32_t index, DataType dtype = DT_FLOAT,
                      const std::string& name = "read") {
  auto out = step->Run("TensorArrayReadV3", name, {h, Tensor::Scalar<int32_t>(index), Flow()},
                       [dtype](KernelRunner& r) { r.Attr("dtype", dtype); });
  if (!out.ok()) return out.status();
  return (*out)[0];
}

StatusOr<int32_t> Size(TestStep* step, const Tensor& h) {
  auto out = step->Run("TensorArraySizeV3", "size", {h, Flow()});
  if (!out.ok()) return out.status();
  return (*out)[0].scalar<int32_t>();
}

StatusOr<Tensor> Gather(TestStep* step, const Tensor& h, const std::vector<int32_t>& indices,
                        const PartialTensorShape& element_shape = PartialTensorShape(),
                        const std::string& name = "gather") {
  auto out = step->Run(
      "TensorArrayGatherV3", name, {h, Tensor::FromVector<int32_t>(indices), Flow()},
      [&](KernelRunner& r) { r.Attr("dtype", DT_FLOAT).Attr("element_shape", element_shape); });
  if (!out.ok()) return out.status();
  return (*out)[0];
}

Status Scatter(TestStep* step, const Tensor& h, const std::vector<int32_t>& indices,
               const Tensor& value, const std::string& name = "scatter") {
  return step
      ->Run("TensorArrayScatterV3", name, {h, Tensor::FromVector<int32_t>(indices), value, Flow()})
      .status();
}

StatusOr<std::vector<Tensor>> Concat(TestStep* step, const Tensor& h,
                                     const PartialTensorShape& except0 = PartialTensorShape(),
                                     const std::string& name = "concat") {
  return step->Run("TensorArrayConcatV3", name, {h, Flow()}, [&](KernelRunner& r) {
    r.Attr("dtype", DT_FLOAT).Attr("element_shape_except0", except0);
  });
}

Status Split(TestStep* step, const Tensor& h, const Tensor& value,
             const std::vector<int64_t>& lengths, const std::string& name = "split") {
  return step
      ->Run("TensorArraySplitV3", name, {h, value, Tensor::FromVector<int64_t>(lengths), Flow()})
      .status();
}

StatusOr<Tensor> Grad(TestStep* step, const Tensor& h, const std::string& source = "gradients",
                      const std::string& name = "grad") {
  auto out = step->Run("TensorArrayGradV3", name, {h, Tensor::Scalar<float>(2.5f)},
                       [&](KernelRunner& r) { r.Attr("source", source); });
  if (!out.ok()) return out.status();
  if ((*out)[1].scalar<float>() != 2.5f) return errors::Internal("flow not passed through");
  return (*out)[0];
}

void ExpectError(const Status& s, Code code, const std::vector<std::string>& parts) {
  BOOST_TEST(!s.ok());
  BOOST_TEST(static_cast<int>(s.code()) == static_cast<int>(code), s.ToString());
  for (const auto& p : parts) BOOST_TEST(Contains(s.message(), p), s.ToString() << " lacks " << p);
}

BOOST_AUTO_TEST_SUITE(tensor_array_ops)

BOOST_AUTO_TEST_CASE(write_then_read_shares_the_buffer_and_reports_size) {
  TestStep step;
  auto [h, flow] = MakeArray(&step, 3);
  BOOST_TEST(flow.scalar<float>() == 0.0f);
  const Tensor a = Tensor::FromVector<float>({1, 2}), b = Tensor::FromVector<float>({3, 4});
  AF_REQUIRE_OK(Write(&step, h, 0, a));
  AF_REQUIRE_OK(Write(&step, h, 2, b));
  auto size = Size(&step, h);
  AF_REQUIRE_OK(size.status());
  BOOST_TEST(*size == 3);
  auto r2 = Read(&step, h, 2);
  AF_REQUIRE_OK(r2.status());
  AF_EXPECT_OK(CheckTensor(*r2, DT_FLOAT, {2}, {3, 4}));
  BOOST_TEST(r2->SharesBufferWith(b));
  auto r0 = Read(&step, h, 0);
  AF_REQUIRE_OK(r0.status());
  AF_EXPECT_OK(CheckTensor(*r0, DT_FLOAT, {2}, {1, 2}));
}

BOOST_AUTO_TEST_CASE(holds_other_dtypes) {
  TestStep step;
  for (DataType dt : {DT_DOUBLE, DT_INT32, DT_INT64, DT_BOOL, DT_STRING}) {
    ArrayOptions o;
    o.dtype = dt;
    auto [h, flow] = MakeArray(&step, 2, o, "ta_" + DataTypeString(dt));
    Tensor v(dt, TensorShape({2}));
    if (dt == DT_DOUBLE) v = Tensor::FromVector<double>({0.5, -1});
    if (dt == DT_INT32) v = Tensor::FromVector<int32_t>({5, -6});
    if (dt == DT_INT64) v = Tensor::FromVector<int64_t>({5, -6});
    if (dt == DT_BOOL) v = Tensor::FromVector<bool>({true, false});
    if (dt == DT_STRING) v = Tensor::FromVector<std::string>({"x", "yz"});
    AF_REQUIRE_OK(Scatter(&step, h, {1, 0}, v));
    auto g = step.Run("TensorArrayGatherV3", "g", {h, Tensor::FromVector<int32_t>({0, 1}), Flow()},
                      [dt](KernelRunner& r) { r.Attr("dtype", dt); });
    AF_REQUIRE_OK(g.status());
    const Tensor& got = (*g)[0];
    BOOST_TEST(got.dtype() == dt);
    if (dt == DT_STRING) {
      BOOST_TEST(got.data<std::string>()[0] == "yz");
      BOOST_TEST(got.data<std::string>()[1] == "x");
    } else {
      BOOST_TEST(ValueAsDouble(got, 0) == ValueAsDouble(v, 1));
      BOOST_TEST(ValueAsDouble(got, 1) == ValueAsDouble(v, 0));
    }
  }
}

BOOST_AUTO_TEST_CASE(write_once_read_once_errors_name_node_op_and_index) {
  TestStep step;
  auto [h, flow] = MakeArray(&step, 2, {}, "arr");
  AF_REQUIRE_OK(Write(&step, h, 0, Tensor::Scalar<float>(1)));
  ExpectError(Write(&step, h, 0, Tensor::Scalar<float>(2), "w2"), Code::INVALID_ARGUMENT,
              {"node 'w2' (op 'TensorArrayWriteV3')", "arr", "index 0", "twice"});
  ExpectError(Read(&step, h, 1, DT_FLOAT, "r_unwritten").status(), Code::INVALID_ARGUMENT,
              {"node 'r_unwritten' (op 'TensorArrayReadV3')", "index 1", "not been written"});
  AF_REQUIRE_OK(Read(&step, h, 0).status());
  ExpectError(Read(&step, h, 0, DT_FLOAT, "r_again").status(), Code::INVALID_ARGUMENT,
              {"node 'r_again' (op 'TensorArrayReadV3')", "index 0", "clear_after_read"});
  ExpectError(Write(&step, h, 0, Tensor::Scalar<float>(3), "w_after_read"), Code::INVALID_ARGUMENT,
              {"node 'w_after_read'", "already been read"});
}

BOOST_AUTO_TEST_CASE(clear_after_read_false_allows_many_reads) {
  TestStep step;
  ArrayOptions o;
  o.clear_after_read = false;
  auto [h, flow] = MakeArray(&step, 1, o);
  AF_REQUIRE_OK(Write(&step, h, 0, Tensor::Scalar<float>(4)));
  for (int i = 0; i < 3; ++i) {
    auto r = Read(&step, h, 0);
    AF_REQUIRE_OK(r.status());
    BOOST_TEST(r->scalar<float>() == 4.0f);
  }
}

BOOST_AUTO_TEST_CASE(indices_out_of_range_and_negative) {
  TestStep step;
  auto [h, flow] = MakeArray(&step, 2);
  ExpectError(Write(&step, h, 2, Tensor::Scalar<float>(1), "w_far"), Code::OUT_OF_RANGE,
              {"node 'w_far' (op 'TensorArrayWriteV3')", "index 2", "size 2"});
  ExpectError(Write(&step, h, -1, Tensor::Scalar<float>(1), "w_neg"), Code::INVALID_ARGUMENT,
              {"node 'w_neg'", "negative index -1"});
  ExpectError(Read(&step, h, 5, DT_FLOAT, "r_far").status(), Code::OUT_OF_RANGE,
              {"node 'r_far' (op 'TensorArrayReadV3')", "index 5", "size 2"});
  AF_REQUIRE_OK(Write(&step, h, 0, Tensor::Scalar<float>(1)));
  ExpectError(Gather(&step, h, {0, 7}, PartialTensorShape(), "g_far").status(), Code::OUT_OF_RANGE,
              {"node 'g_far' (op 'TensorArrayGatherV3')", "index 7"});
}

BOOST_AUTO_TEST_CASE(dynamic_size_grows_on_write) {
  TestStep step;
  ArrayOptions o;
  o.dynamic_size = true;
  auto [h, flow] = MakeArray(&step, 0, o);
  AF_REQUIRE_OK(Write(&step, h, 4, Tensor::Scalar<float>(9)));
  auto size = Size(&step, h);
  AF_REQUIRE_OK(size.status());
  BOOST_TEST(*size == 5);
  auto r = Read(&step, h, 4);
  AF_REQUIRE_OK(r.status());
  BOOST_TEST(r->scalar<float>() == 9.0f);
}

BOOST_AUTO_TEST_CASE(element_shapes_are_checked) {
  TestStep step;
  ArrayOptions o;
  o.element_shape = PartialTensorShape({-1, 2});
  auto [h, flow] = MakeArray(&step, 3, o, "shaped");
  AF_REQUIRE_OK(Write(&step, h, 0, Tensor(DT_FLOAT, TensorShape({1, 2}))));
  AF_REQUIRE_OK(Write(&step, h, 1, Tensor(DT_FLOAT, TensorShape({3, 2}))));
  ExpectError(Write(&step, h, 2, Tensor(DT_FLOAT, TensorShape({3, 3})), "w_bad_shape"),
              Code::INVALID_ARGUMENT,
              {"node 'w_bad_shape' (op 'TensorArrayWriteV3')", "[3,3]", "index 2"});

  ArrayOptions same;
  same.identical_element_shapes = true;
  auto [h2, flow2] = MakeArray(&step, 2, same, "same");
  AF_REQUIRE_OK(Write(&step, h2, 0, Tensor(DT_FLOAT, TensorShape({2}))));
  ExpectError(Write(&step, h2, 1, Tensor(DT_FLOAT, TensorShape({3})), "w_differs"),
              Code::INVALID_ARGUMENT, {"node 'w_differs'", "[3]", "[2]"});

  ExpectError(Write(&step, h2, 1, Tensor::FromVector<int32_t>({1, 2}), "w_dtype"),
              Code::INVALID_ARGUMENT, {"node 'w_dtype'", "float", "int32"});
  ExpectError(Read(&step, h2, 0, DT_INT32, "r_dtype").status(), Code::INVALID_ARGUMENT,
              {"node 'r_dtype'", "float", "int32"});
}

BOOST_AUTO_TEST_CASE(gather_stacks_and_scatter_unstacks) {
  TestStep step;
  auto [h, flow] = MakeArray(&step, 3);
  // rows [0 1], [2 3], [4 5] to elements 2, 0, 1
  AF_REQUIRE_OK(
      Scatter(&step, h, {2, 0, 1}, Tensor::FromVector<float>({0, 1, 2, 3, 4, 5}, {3, 2})));
  auto g = Gather(&step, h, {0, 1, 2}, PartialTensorShape({2}));
  AF_REQUIRE_OK(g.status());
  AF_EXPECT_OK(CheckTensor(*g, DT_FLOAT, {3, 2}, {2, 3, 4, 5, 0, 1}));

  auto [h2, flow2] = MakeArray(&step, 2, {}, "mixed");
  AF_REQUIRE_OK(Write(&step, h2, 0, Tensor::FromVector<float>({1, 2})));
  AF_REQUIRE_OK(Write(&step, h2, 1, Tensor::FromVector<float>({1, 2, 3})));
  ExpectError(Gather(&step, h2, {0, 1}, PartialTensorShape(), "g_mixed").status(),
              Code::INVALID_ARGUMENT,
              {"node 'g_mixed' (op 'TensorArrayGatherV3')", "[2]", "[3]", "index 1"});

  ExpectError(Scatter(&step, h, {0, 1}, Tensor::FromVector<float>({1, 2, 3}, {3, 1}), "s_rows"),
              Code::INVALID_ARGUMENT,
              {"node 's_rows' (op 'TensorArrayScatterV3')", "3 rows", "2 indices"});
}

BOOST_AUTO_TEST_CASE(gather_of_no_indices_needs_a_known_element_shape) {
  TestStep step;
  auto [h, flow] = MakeArray(&step, 2);
  auto g = Gather(&step, h, {}, PartialTensorShape({2, 3}));
  AF_REQUIRE_OK(g.status());
  BOOST_TEST(g->shape() == TensorShape({0, 2, 3}));
  ExpectError(Gather(&step, h, {}, PartialTensorShape({-1}), "g_empty").status(),
              Code::INVALID_ARGUMENT, {"node 'g_empty'", "fully defined"});
}

BOOST_AUTO_TEST_CASE(concat_joins_along_axis_0_and_split_cuts_by_lengths) {
  TestStep step;
  auto [h, flow] = MakeArray(&step, 3);
  // 6 rows of 2: lengths 1, 0, ... the middle piece is empty.
  const Tensor value = Tensor::FromVector<float>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {5, 2});
  AF_REQUIRE_OK(Split(&step, h, value, {2, 0, 3}));
  auto r0 = Read(&step, h, 0);
  AF_REQUIRE_OK(r0.status());
  AF_EXPECT_OK(CheckTensor(*r0, DT_FLOAT, {2, 2}, {0, 1, 2, 3}));
  auto [h2, flow2] = MakeArray(&step, 3, {}, "again");
  AF_REQUIRE_OK(Split(&step, h2, value, {2, 0, 3}));
  auto c = Concat(&step, h2, PartialTensorShape({2}));
  AF_REQUIRE_OK(c.status());
  AF_EXPECT_OK(CheckTensor((*c)[0], DT_FLOAT, {5, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  AF_EXPECT_OK(CheckTensor((*c)[1], DT_INT64, {3}, {2, 0, 3}));

  auto [h3, flow3] = MakeArray(&step, 2, {}, "bad");
  ExpectError(Split(&step, h3, value, {2, 2}, "sp_sum"), Code::INVALID_ARGUMENT,
              {"node 'sp_sum' (op 'TensorArraySplitV3')", "sum to 4", "5 rows"});
  ExpectError(Split(&step, h3, value, {2, 2, 1}, "sp_count"), Code::INVALID_ARGUMENT,
              {"node 'sp_count'", "size 2", "3 entries"});
  ExpectError(Split(&step, h3, Tensor::Scalar<float>(1), {1, 0}, "sp_scalar"),
              Code::INVALID_ARGUMENT, {"node 'sp_scalar'", "rank >= 1"});

  ArrayOptions dyn;
  dyn.dynamic_size = true;
  auto [h4, flow4] = MakeArray(&step, 0, dyn, "dyn");
  AF_REQUIRE_OK(Split(&step, h4, value, {1, 4}));
  auto size = Size(&step, h4);
  AF_REQUIRE_OK(size.status());
  BOOST_TEST(*size == 2);
}

BOOST_AUTO_TEST_CASE(concat_errors_and_empty_arrays) {
  TestStep step;
  auto [h, flow] = MakeArray(&step, 2, {}, "cat");
  AF_REQUIRE_OK(Write(&step, h, 0, Tensor::FromVector<float>({1, 2}, {1, 2})));
  AF_REQUIRE_OK(Write(&step, h, 1, Tensor::FromVector<float>({1, 2, 3}, {1, 3})));
  ExpectError(Concat(&step, h, PartialTensorShape(), "c_mismatch").status(), Code::INVALID_ARGUMENT,
              {"node 'c_mismatch' (op 'TensorArrayConcatV3')", "element 1", "[1,3]"});

  auto [hs, flows] = MakeArray(&step, 1, {}, "scalars");
  AF_REQUIRE_OK(Write(&step, hs, 0, Tensor::Scalar<float>(1)));
  ExpectError(Concat(&step, hs, PartialTensorShape(), "c_scalar").status(), Code::INVALID_ARGUMENT,
              {"node 'c_scalar'", "scalar"});

  auto [he, flowe] = MakeArray(&step, 0, {}, "empty");
  auto c = Concat(&step, he, PartialTensorShape({4}));
  AF_REQUIRE_OK(c.status());
  BOOST_TEST((*c)[0].shape() == TensorShape({0, 4}));
  BOOST_TEST((*c)[1].shape() == TensorShape({0}));
  ExpectError(Concat(&step, he, PartialTensorShape(), "c_empty").status(), Code::INVALID_ARGUMENT,
              {"node 'c_empty'", "element_shape_except0"});
}

BOOST_AUTO_TEST_CASE(closed_arrays_refuse_every_op) {
  TestStep step;
  auto [h, flow] = MakeArray(&step, 2, {}, "shut");
  AF_REQUIRE_OK(Write(&step, h, 0, Tensor::Scalar<float>(1)));
  AF_REQUIRE_OK(step.Run("TensorArrayCloseV3", "close", {h}).status());
  ExpectError(Read(&step, h, 0, DT_FLOAT, "r_closed").status(), Code::INVALID_ARGUMENT,
              {"node 'r_closed'", "shut", "closed"});
  ExpectError(Write(&step, h, 1, Tensor::Scalar<float>(1), "w_closed"), Code::INVALID_ARGUMENT,
              {"node 'w_closed'", "closed"});
  ExpectError(Size(&step, h).status(), Code::INVALID_ARGUMENT, {"closed"});
}

BOOST_AUTO_TEST_CASE(gradient_arrays_are_shared_per_source_and_sum_writes) {
  TestStep step;
  ArrayOptions o;
  o.element_shape = PartialTensorShape({2});
  auto [h, flow] = MakeArray(&step, 3, o, "fwd");
  auto g1 = Grad(&step, h);
  AF_REQUIRE_OK(g1.status());
  auto g2 = Grad(&step, h);
  AF_REQUIRE_OK(g2.status());
  BOOST_TEST(HandleName(*g1) == HandleName(*g2));
  auto other = Grad(&step, h, "other_source");
  AF_REQUIRE_OK(other.status());
  BOOST_TEST(HandleName(*other) != HandleName(*g1));

  auto size = Size(&step, *g1);
  AF_REQUIRE_OK(size.status());
  BOOST_TEST(*size == 3);

  const Tensor a = Tensor::FromVector<float>({1, 2}), b = Tensor::FromVector<float>({10, 20});
  AF_REQUIRE_OK(Write(&step, *g1, 1, a));
  AF_REQUIRE_OK(Write(&step, *g2, 1, b));
  auto r1 = Read(&step, *g1, 1);
  AF_REQUIRE_OK(r1.status());
  AF_EXPECT_OK(CheckTensor(*r1, DT_FLOAT, {2}, {11, 22}));
  // The summed writes left both inputs alone.
  AF_EXPECT_OK(CheckTensor(a, DT_FLOAT, {2}, {1, 2}));
  AF_EXPECT_OK(CheckTensor(b, DT_FLOAT, {2}, {10, 20}));
  // Unwritten: zeros of the element shape.
  auto r0 = Read(&step, *g1, 0);
  AF_REQUIRE_OK(r0.status());
  AF_EXPECT_OK(CheckTensor(*r0, DT_FLOAT, {2}, {0, 0}));
  // The other source's array saw none of it.
  auto o1 = Read(&step, *other, 1);
  AF_REQUIRE_OK(o1.status());
  AF_EXPECT_OK(CheckTensor(*o1, DT_FLOAT, {2}, {0, 0}));

  ExpectError(Write(&step, *g1, 2, Tensor::FromVector<float>({1, 2, 3}), "w_grad_shape"),
              Code::INVALID_ARGUMENT, {"node 'w_grad_shape'", "[3]"});
}

BOOST_AUTO_TEST_CASE(gradient_reads_of_unwritten_elements_need_a_known_shape) {
  TestStep step;
  auto [h, flow] = MakeArray(&step, 2, {}, "unknown_shape");
  auto g = Grad(&step, h);
  AF_REQUIRE_OK(g.status());
  ExpectError(Read(&step, *g, 0, DT_FLOAT, "r_grad").status(), Code::INVALID_ARGUMENT,
              {"node 'r_grad' (op 'TensorArrayReadV3')", "index 0", "not fully defined"});
  // Otherwise the zeros take the shape the forward element was written
  // with, even after the forward read cleared it.
  auto [hv, flowv] = MakeArray(&step, 2, {}, "varying");
  AF_REQUIRE_OK(Write(&step, hv, 0, Tensor(DT_FLOAT, TensorShape({1, 3}))));
  AF_REQUIRE_OK(Write(&step, hv, 1, Tensor(DT_FLOAT, TensorShape({2, 3}))));
  AF_REQUIRE_OK(Read(&step, hv, 1).status());
  auto gv = Grad(&step, hv);
  AF_REQUIRE_OK(gv.status());
  auto zv = Read(&step, *gv, 1);
  AF_REQUIRE_OK(zv.status());
  AF_EXPECT_OK(CheckTensor(*zv, DT_FLOAT, {2, 3}, {0, 0, 0, 0, 0, 0}));
  // A forward array with identical_element_shapes learns its shape from
  // the first write, and its gradient array inherits it.
  ArrayOptions same;
  same.identical_element_shapes = true;
  auto [h2, flow2] = MakeArray(&step, 2, same, "learns_shape");
  AF_REQUIRE_OK(Write(&step, h2, 0, Tensor::FromVector<float>({1, 2, 3})));
  auto g2 = Grad(&step, h2);
  AF_REQUIRE_OK(g2.status());
  auto z = Read(&step, *g2, 1);
  AF_REQUIRE_OK(z.status());
  AF_EXPECT_OK(CheckTensor(*z, DT_FLOAT, {3}, {0, 0, 0}));
  // The gradient of a closed array cannot be made.
  AF_REQUIRE_OK(step.Run("TensorArrayCloseV3", "close", {h}).status());
  ExpectError(Grad(&step, h, "late", "grad_closed").status(), Code::INVALID_ARGUMENT,
              {"node 'grad_closed' (op 'TensorArrayGradV3')", "closed"});
}

BOOST_AUTO_TEST_CASE(each_step_makes_fresh_arrays_freed_when_the_step_ends) {
  const int64_t before = TensorArray::NumLive();
  Tensor old_handle;
  {
    TestStep step;
    auto [h, flow] = MakeArray(&step, 2);
    old_handle = h;
    AF_REQUIRE_OK(Write(&step, h, 0, Tensor::Scalar<float>(1)));
    AF_REQUIRE_OK(Grad(&step, h).status());
    BOOST_TEST(TensorArray::NumLive() == before + 2);
    step.End();
    BOOST_TEST(TensorArray::NumLive() == before);
  }
  TestStep next;
  auto [h, flow] = MakeArray(&next, 2);
  BOOST_TEST(HandleName(h) != HandleName(old_handle));
  // Index 0 of the new array is unwritten: nothing carried over.
  ExpectError(Read(&next, h, 0).status(), Code::INVALID_ARGUMENT, {"not been written"});
  ExpectError(Read(&next, old_handle, 0, DT_FLOAT, "stale").status(), Code::NOT_FOUND,
              {"node 'stale'", "does not exist in this step"});
}

BOOST_AUTO_TEST_CASE(outside_a_step_the_kernels_refuse_to_run) {
  KernelRunner runner("TensorArrayV3", "lonely_ta");
  runner.Attr("dtype", DT_FLOAT).Input(Tensor::Scalar<int32_t>(1));
  auto out = runner.Run();
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST(out.status().code() == Code::FAILED_PRECONDITION);
}

BOOST_AUTO_TEST_CASE(concurrent_writes_from_many_threads) {
  TestStep step;
  constexpr int kThreads = 8, kPerThread = 100;
  auto [h, flow] = MakeArray(&step, kThreads * kPerThread);
  ArrayOptions o;
  o.element_shape = PartialTensorShape({});
  auto [fwd, fflow] = MakeArray(&step, 4, o, "fwd_for_grad");
  auto g = Grad(&step, fwd);
  AF_REQUIRE_OK(g.status());
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const int index = t * kPerThread + i;
        if (!Write(&step, h, index, Tensor::Scalar<float>(static_cast<float>(index))).ok())
          ++failures;
        // Every thread also sends 1 to gradient element (i % 4).
        if (!Write(&step, *g, i % 4, Tensor::Scalar<float>(1.0f)).ok()) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  BOOST_TEST(failures.load() == 0);
  std::vector<int32_t> all(kThreads * kPerThread);
  std::vector<double> expected(all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    all[i] = static_cast<int32_t>(i);
    expected[i] = static_cast<double>(i);
  }
  auto gathered = Gather(&step, h, all);
  AF_REQUIRE_OK(gathered.status());
  AF_EXPECT_OK(CheckTensor(*gathered, DT_FLOAT, {static_cast<int64_t>(all.size())}, expected));
  auto sums = Gather(&step, *g, {0, 1, 2, 3});
  AF_REQUIRE_OK(sums.status());
  const double each = kThreads * kPerThread / 4.0;
  AF_EXPECT_OK(CheckTensor(*sums, DT_FLOAT, {4}, {each, each, each, each}));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
