// Ops that route elements by value rather than by position: DynamicPartition
// (scatter rows into num_partitions outputs), DynamicStitch and
// ParallelDynamicStitch (its inverse), Unique and UniqueWithCounts. They are
// what embedding lookups over sharded tables are built from (issue 24).
#include <algorithm>
#include <vector>

#include "core/op_registry.h"
#include "core/ops/array_shape_util.h"
#include "core/shape_inference.h"

namespace af {
namespace {

using array_shape::Dims;

// Checks that `data` starts with the dims of `prefix` where both are known;
// the error names both inputs as the kernels' errors do, so a graph that
// fails here fails the same way it would at run time.
Status CheckPrefix(InferenceContext* c, const PartialTensorShape& data, const char* data_name,
                   const PartialTensorShape& prefix, const char* prefix_name) {
  if (data.unknown_rank() || prefix.unknown_rank()) return Status::OK();
  bool ok = prefix.dims() <= data.dims();
  for (int d = 0; ok && d < prefix.dims(); ++d) {
    const int64_t a = data.dim_size(d), b = prefix.dim_size(d);
    ok = a < 0 || b < 0 || a == b;
  }
  if (ok) return Status::OK();
  return c->InvalidArgument(data_name, ".shape = ", data.DebugString(), " does not start with ",
                            prefix_name, ".shape = ", prefix.DebugString());
}

// [-1] + data.shape[rank:], or unknown when data's rank is.
PartialTensorShape RowsOf(const PartialTensorShape& data, int rank) {
  if (data.unknown_rank()) return PartialTensorShape::Unknown();
  std::vector<int64_t> out = {-1};
  for (int d = rank; d < data.dims(); ++d) out.push_back(data.dim_size(d));
  return PartialTensorShape(out);
}

Status DynamicPartitionShape(InferenceContext* c) {
  const PartialTensorShape& data = c->input(0);
  const PartialTensorShape& partitions = c->input(1);
  PartialTensorShape out = PartialTensorShape::Unknown();
  if (!partitions.unknown_rank()) {
    AF_RETURN_IF_ERROR(CheckPrefix(c, data, "data", partitions, "partitions"));
    out = RowsOf(data, partitions.dims());
  }
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, out);
  return Status::OK();
}

// merged: [max index + 1 when every indices input is a constant, else ?]
// followed by the data dims after each indices prefix, which must agree.
Status DynamicStitchShape(InferenceContext* c) {
  int64_t n = 0;
  AF_RETURN_IF_ERROR(c->Error(c->GetAttr("N", &n)));
  const int num = static_cast<int>(n);
  bool all_constant = true;
  int64_t max_index = -1;
  PartialTensorShape rows = PartialTensorShape::Unknown();
  for (int i = 0; i < num; ++i) {
    const PartialTensorShape& indices = c->input(i);
    const PartialTensorShape& data = c->input(num + i);
    const Tensor* value = c->input_tensor(i);
    if (value == nullptr) all_constant = false;
    if (indices.unknown_rank()) continue;
    AF_RETURN_IF_ERROR(CheckPrefix(c, data, "data", indices, "indices"));
    if (!data.unknown_rank()) {
      std::vector<int64_t> rest;
      for (int d = indices.dims(); d < data.dims(); ++d) rest.push_back(data.dim_size(d));
      PartialTensorShape merged;
      Status s = rows.MergeWith(PartialTensorShape(rest), &merged);
      if (!s.ok())
        return c->InvalidArgument("data[", i, "].shape = ", data.DebugString(),
                                  " does not match the other data inputs after the indices "
                                  "dims: ",
                                  s.message());
      rows = merged;
    }
    if (value != nullptr && value->dtype() == DT_INT32) {
      const int32_t* v = value->data<int32_t>();
      for (int64_t j = 0; j < value->NumElements(); ++j)
        max_index = std::max<int64_t>(max_index, v[j]);
    }
  }
  if (rows.unknown_rank()) {
    c->set_output(0, PartialTensorShape::Unknown());
    return Status::OK();
  }
  std::vector<int64_t> out = {all_constant ? max_index + 1 : -1};
  for (int64_t d : Dims(rows)) out.push_back(d);
  c->set_output(0, PartialTensorShape(out));
  return Status::OK();
}

Status UniqueShape(InferenceContext* c) {
  PartialTensorShape x;
  AF_RETURN_IF_ERROR(c->WithRank(0, 1, &x));
  c->set_output(0, PartialTensorShape({-1}));
  c->set_output(1, x);
  return Status::OK();
}

// TensorFlow leaves the rank check of UniqueWithCounts to the kernel.
Status UniqueWithCountsShape(InferenceContext* c) {
  c->set_output(0, PartialTensorShape({-1}));
  c->set_output(1, c->input(0));
  c->set_output(2, PartialTensorShape({-1}));
  return Status::OK();
}

}  // namespace

REGISTER_OP("DynamicPartition")
    .Input("data: T")
    .Input("partitions: int32")
    .Output("outputs: num_partitions * T")
    .Attr("num_partitions: int >= 1")
    .Attr("T: type")
    .SetShapeFn(DynamicPartitionShape)
    .Doc("outputs[p] = the rows of data (in order) whose partitions entry is p.");

REGISTER_OP("DynamicStitch")
    .Input("indices: N * int32")
    .Input("data: N * T")
    .Output("merged: T")
    .Attr("N: int >= 1")
    .Attr("T: type")
    .SetShapeFn(DynamicStitchShape)
    .Doc("merged[indices[m][i, ...], ...] = data[m][i, ...]; a later (m, i) wins a duplicate.");

REGISTER_OP("ParallelDynamicStitch")
    .Input("indices: N * int32")
    .Input("data: N * T")
    .Output("merged: T")
    .Attr("N: int >= 1")
    .Attr("T: type")
    .SetShapeFn(DynamicStitchShape)
    .Doc("DynamicStitch where the winner of a duplicate index is unspecified.");

REGISTER_OP("Unique")
    .Input("x: T")
    .Output("y: T")
    .Output("idx: out_idx")
    .Attr("T: type")
    .Attr("out_idx: {int32, int64} = DT_INT32")
    .SetShapeFn(UniqueShape)
    .Doc("y = the distinct values of x in first-occurrence order; x = y[idx].");

REGISTER_OP("UniqueWithCounts")
    .Input("x: T")
    .Output("y: T")
    .Output("idx: out_idx")
    .Output("count: out_idx")
    .Attr("T: type")
    .Attr("out_idx: {int32, int64} = DT_INT32")
    .SetShapeFn(UniqueWithCountsShape)
    .Doc("Unique, plus count[k] = how many elements of x equal y[k].");

}  // namespace af
