// ParseExample, ParseExampleV2 and ParseSingleExample: the three ways
// TensorFlow graphs parse tf.Example records. They differ only in where the
// keys come from (one scalar input per key, one vector input per group, or
// attrs) and in whether a scalar `serialized` is allowed; the parsing itself
// is ExampleBatchParser's.
#include <string>
#include <vector>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/parsing/example_batch_parser.h"

namespace af {
namespace {

using parsing::DenseFeatureSpec;
using parsing::ExampleParserConfig;
using parsing::ExampleParserOutputs;
using parsing::ListFeatureSpec;

// The dense and sparse parts of the config common to the three ops; keys
// are filled in at Compute time for the ops that take them as inputs.
Status ReadCommonAttrs(OpKernelConstruction* ctx, ExampleParserConfig* config) {
  DataTypeVector sparse_types, tdense;
  std::vector<PartialTensorShape> dense_shapes;
  AF_RETURN_IF_ERROR(ctx->GetAttr("sparse_types", &sparse_types));
  AF_RETURN_IF_ERROR(ctx->GetAttr("Tdense", &tdense));
  AF_RETURN_IF_ERROR(ctx->GetAttr("dense_shapes", &dense_shapes));
  if (dense_shapes.size() != tdense.size())
    return errors::InvalidArgument("len(dense_shapes) = ", dense_shapes.size(),
                                   " differs from len(Tdense) = ", tdense.size());
  for (DataType t : sparse_types) config->sparse.push_back(ListFeatureSpec{"", t, DT_INT64});
  for (size_t d = 0; d < tdense.size(); ++d)
    config->dense.push_back(DenseFeatureSpec{"", tdense[d], dense_shapes[d]});
  return Status::OK();
}

// Hands the parsed tensors to the op's outputs, in TensorFlow's order.
void SetOutputs(OpKernelContext* ctx, ExampleParserOutputs* out) {
  int next = 0;
  for (auto* group : {&out->sparse_indices, &out->sparse_values, &out->sparse_shapes,
                      &out->dense_values, &out->ragged_values, &out->ragged_row_splits}) {
    for (Tensor& t : *group) ctx->set_output(next++, std::move(t));
  }
}

// `names`, if it holds anything, names each record: it must then have the
// shape of `serialized`.
Status CheckNames(const Tensor& serialized, const Tensor& names, const std::string** out) {
  *out = nullptr;
  if (names.NumElements() == 0) return Status::OK();
  if (names.shape() != serialized.shape())
    return errors::InvalidArgument("names has shape ", names.shape(),
                                   "; expected it empty or shaped as serialized, ",
                                   serialized.shape());
  *out = names.data<std::string>();
  return Status::OK();
}

std::vector<Tensor> Inputs(OpKernelContext* ctx, int first, int count) {
  std::vector<Tensor> out;
  for (int i = 0; i < count; ++i) out.push_back(ctx->input(first + i));
  return out;
}

class ParseExampleOp : public OpKernel {
 public:
  explicit ParseExampleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t num_sparse = 0, num_dense = 0;
    ctx->SetStatus(ctx->GetAttr("Nsparse", &num_sparse));
    ctx->SetStatus(ctx->GetAttr("Ndense", &num_dense));
    ctx->SetStatus(ReadCommonAttrs(ctx, &config_));
    if (ctx->status().ok() && (static_cast<int64_t>(config_.sparse.size()) != num_sparse ||
                               static_cast<int64_t>(config_.dense.size()) != num_dense)) {
      ctx->SetStatus(errors::InvalidArgument("Nsparse = ", num_sparse, " and Ndense = ", num_dense,
                                             " but len(sparse_types) = ", config_.sparse.size(),
                                             " and len(Tdense) = ", config_.dense.size()));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& serialized = ctx->input(0);
    OP_REQUIRES(ctx, serialized.shape().dims() == 1,
                ctx->NodeError(errors::InvalidArgument(
                    "expected serialized to be a vector, got shape ", serialized.shape())));
    const std::string* names = nullptr;
    OP_REQUIRES_OK(ctx, ctx->NodeError(CheckNames(serialized, ctx->input(1), &names)));
    ExampleParserConfig config = config_;
    const int ns = static_cast<int>(config.sparse.size());
    const int nd = static_cast<int>(config.dense.size());
    for (int k = 0; k < ns + nd; ++k) {
      const Tensor& key = ctx->input(2 + k);
      const bool sparse = k < ns;
      OP_REQUIRES(ctx, key.shape().dims() == 0,
                  ctx->NodeError(errors::InvalidArgument(
                      "expected ", sparse ? "sparse_keys[" : "dense_keys[", sparse ? k : k - ns,
                      "] to be a scalar, got shape ", key.shape())));
      (sparse ? config.sparse[k].key : config.dense[k - ns].key) = key.scalar<std::string>();
    }
    ExampleParserOutputs out;
    OP_REQUIRES_OK(ctx, ctx->NodeError(parsing::ParseExamples(
                            config, serialized.data<std::string>(), serialized.NumElements(), names,
                            /*single=*/false, Inputs(ctx, 2 + ns + nd, nd), &out)));
    SetOutputs(ctx, &out);
  }

 private:
  ExampleParserConfig config_;
};

class ParseExampleV2Op : public OpKernel {
 public:
  explicit ParseExampleV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t num_sparse = 0;
    DataTypeVector value_types, split_types;
    ctx->SetStatus(ctx->GetAttr("num_sparse", &num_sparse));
    ctx->SetStatus(ctx->GetAttr("ragged_value_types", &value_types));
    ctx->SetStatus(ctx->GetAttr("ragged_split_types", &split_types));
    ctx->SetStatus(ReadCommonAttrs(ctx, &config_));
    if (!ctx->status().ok()) return;
    if (static_cast<int64_t>(config_.sparse.size()) != num_sparse)
      ctx->SetStatus(errors::InvalidArgument("num_sparse = ", num_sparse,
                                             " but len(sparse_types) = ", config_.sparse.size()));
    if (value_types.size() != split_types.size())
      ctx->SetStatus(
          errors::InvalidArgument("len(ragged_value_types) = ", value_types.size(),
                                  " differs from len(ragged_split_types) = ", split_types.size()));
    for (size_t i = 0; i < value_types.size() && i < split_types.size(); ++i)
      config_.ragged.push_back(ListFeatureSpec{"", value_types[i], split_types[i]});
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& serialized = ctx->input(0);
    OP_REQUIRES(
        ctx, serialized.shape().dims() <= 1,
        ctx->NodeError(errors::InvalidArgument(
            "expected serialized to be a scalar or vector, got shape ", serialized.shape())));
    const std::string* names = nullptr;
    OP_REQUIRES_OK(ctx, ctx->NodeError(CheckNames(serialized, ctx->input(1), &names)));
    ExampleParserConfig config = config_;
    OP_REQUIRES_OK(ctx, ctx->NodeError(SetKeys(ctx->input(2), "sparse_keys", &config.sparse)));
    OP_REQUIRES_OK(ctx, ctx->NodeError(SetKeys(ctx->input(3), "dense_keys", &config.dense)));
    OP_REQUIRES_OK(ctx, ctx->NodeError(SetKeys(ctx->input(4), "ragged_keys", &config.ragged)));
    const int nd = static_cast<int>(config.dense.size());
    ExampleParserOutputs out;
    OP_REQUIRES_OK(ctx, ctx->NodeError(parsing::ParseExamples(
                            config, serialized.data<std::string>(), serialized.NumElements(), names,
                            /*single=*/serialized.shape().dims() == 0, Inputs(ctx, 5, nd), &out)));
    SetOutputs(ctx, &out);
  }

 private:
  // Copies a key vector's entries into the specs; its length must match.
  template <typename Spec>
  static Status SetKeys(const Tensor& keys, const char* what, std::vector<Spec>* specs) {
    if (keys.shape().dims() > 1 || keys.NumElements() != static_cast<int64_t>(specs->size()))
      return errors::InvalidArgument("expected ", what, " to be a vector of ", specs->size(),
                                     " keys, got shape ", keys.shape());
    for (size_t i = 0; i < specs->size(); ++i) (*specs)[i].key = keys.data<std::string>()[i];
    return Status::OK();
  }

  ExampleParserConfig config_;
};

class ParseSingleExampleOp : public OpKernel {
 public:
  explicit ParseSingleExampleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t num_sparse = 0;
    std::vector<std::string> sparse_keys, dense_keys;
    ctx->SetStatus(ctx->GetAttr("num_sparse", &num_sparse));
    ctx->SetStatus(ctx->GetAttr("sparse_keys", &sparse_keys));
    ctx->SetStatus(ctx->GetAttr("dense_keys", &dense_keys));
    ctx->SetStatus(ReadCommonAttrs(ctx, &config_));
    if (!ctx->status().ok()) return;
    if (static_cast<int64_t>(sparse_keys.size()) != num_sparse ||
        sparse_keys.size() != config_.sparse.size()) {
      ctx->SetStatus(errors::InvalidArgument(
          "num_sparse = ", num_sparse, ", len(sparse_keys) = ", sparse_keys.size(),
          " and len(sparse_types) = ", config_.sparse.size(), " must be equal"));
      return;
    }
    if (dense_keys.size() != config_.dense.size()) {
      ctx->SetStatus(errors::InvalidArgument("len(dense_keys) = ", dense_keys.size(),
                                             " differs from len(Tdense) = ", config_.dense.size()));
      return;
    }
    for (size_t i = 0; i < sparse_keys.size(); ++i) config_.sparse[i].key = sparse_keys[i];
    for (size_t i = 0; i < dense_keys.size(); ++i) config_.dense[i].key = dense_keys[i];
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& serialized = ctx->input(0);
    OP_REQUIRES(ctx, serialized.shape().dims() == 0,
                ctx->NodeError(errors::InvalidArgument(
                    "expected serialized to be a scalar, got shape ", serialized.shape())));
    const int nd = static_cast<int>(config_.dense.size());
    ExampleParserOutputs out;
    OP_REQUIRES_OK(ctx, ctx->NodeError(parsing::ParseExamples(
                            config_, serialized.data<std::string>(), 1, nullptr,
                            /*single=*/true, Inputs(ctx, 1, nd), &out)));
    SetOutputs(ctx, &out);
  }

 private:
  ExampleParserConfig config_;
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("ParseExample").Device(DEVICE_CPU).Expensive(),
                        ParseExampleOp);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("ParseExampleV2").Device(DEVICE_CPU).Expensive(),
                        ParseExampleV2Op);
REGISTER_KERNEL_BUILDER(KernelDefBuilder("ParseSingleExample").Device(DEVICE_CPU).Expensive(),
                        ParseSingleExampleOp);

}  // namespace af
