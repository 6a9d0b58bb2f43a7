// DecodeCSV: one output per column, each shaped as `records`. A field that
// is empty or equals na_value takes its column's default; a column whose
// default is empty is required. Splitting rules: kernels/parsing/csv_record.h.
#include <string>
#include <vector>

#include "core/kernel_registry.h"
#include "core/op_kernel.h"
#include "kernels/parsing/csv_record.h"

namespace af {
namespace {

using parsing::CsvOptions;

// A field as errors quote it: records can be long, messages should not be.
std::string Quoted(const std::string& field) {
  constexpr size_t kMax = 64;
  if (field.size() <= kMax) return "'" + field + "'";
  return "'" + field.substr(0, kMax) + "...' (" + std::to_string(field.size()) + " bytes)";
}

class DecodeCSVOp : public OpKernel {
 public:
  explicit DecodeCSVOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string delim;
    ctx->SetStatus(ctx->GetAttr("OUT_TYPE", &out_types_));
    ctx->SetStatus(ctx->GetAttr("field_delim", &delim));
    ctx->SetStatus(ctx->GetAttr("use_quote_delim", &options_.use_quote_delim));
    ctx->SetStatus(ctx->GetAttr("na_value", &na_value_));
    ctx->SetStatus(ctx->GetAttr("select_cols", &options_.select_cols));
    if (!ctx->status().ok()) return;
    if (delim.size() != 1) {
      ctx->SetStatus(errors::InvalidArgument("field_delim should be exactly one character, got '",
                                             delim, "'"));
      return;
    }
    options_.delim = delim[0];
    const std::vector<int64_t>& cols = options_.select_cols;
    if (!cols.empty() && cols.size() != out_types_.size()) {
      ctx->SetStatus(errors::InvalidArgument("select_cols has ", cols.size(),
                                             " entries but there are ", out_types_.size(),
                                             " outputs"));
      return;
    }
    for (size_t i = 0; i < cols.size(); ++i) {
      if (cols[i] < 0) {
        ctx->SetStatus(errors::InvalidArgument("select_cols should be non-negative indices"));
        return;
      }
      if (i > 0 && cols[i - 1] >= cols[i]) {
        ctx->SetStatus(
            errors::InvalidArgument("select_cols should be strictly increasing indices"));
        return;
      }
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& records = ctx->input(0);
    const int num_fields = static_cast<int>(out_types_.size());
    for (int f = 0; f < num_fields; ++f) {
      const Tensor& def = ctx->input(1 + f);
      OP_REQUIRES(ctx, def.shape().dims() <= 1 && def.NumElements() <= 1,
                  ctx->NodeError(errors::InvalidArgument(
                      "record_defaults[", f, "] has shape ", def.shape(),
                      "; a default must be a scalar or hold at most one element")));
    }
    std::vector<Tensor*> outputs(static_cast<size_t>(num_fields));
    for (int f = 0; f < num_fields; ++f)
      OP_REQUIRES_OK(ctx, ctx->allocate_output(f, records.shape(), &outputs[f]));

    const std::string* text = records.data<std::string>();
    std::vector<std::string> fields;
    for (int64_t r = 0; r < records.NumElements(); ++r) {
      Status s = parsing::SplitCsvRecord(text[r], options_, &fields);
      OP_REQUIRES(ctx, s.ok(),
                  ctx->NodeError(errors::InvalidArgument("record ", r, ": ", s.message())));
      OP_REQUIRES(ctx, static_cast<int>(fields.size()) == num_fields,
                  ctx->NodeError(errors::InvalidArgument(
                      "expected ", num_fields, " fields but record ", r, " has ", fields.size())));
      for (int f = 0; f < num_fields; ++f)
        OP_REQUIRES_OK(ctx,
                       ctx->NodeError(Convert(ctx->input(1 + f), fields[f], f, r, outputs[f])));
    }
  }

 private:
  // Writes field `f` of record `r` into its output.
  Status Convert(const Tensor& def, const std::string& field, int f, int64_t r, Tensor* out) const {
    if (field.empty() || field == na_value_) {
      if (def.NumElements() == 0)
        return errors::InvalidArgument("field ", f, " is required but missing in record ", r);
      switch (out->dtype()) {
        case DT_INT32:
          out->data<int32_t>()[r] = def.data<int32_t>()[0];
          break;
        case DT_INT64:
          out->data<int64_t>()[r] = def.data<int64_t>()[0];
          break;
        case DT_FLOAT:
          out->data<float>()[r] = def.data<float>()[0];
          break;
        case DT_DOUBLE:
          out->data<double>()[r] = def.data<double>()[0];
          break;
        default:
          out->data<std::string>()[r] = def.data<std::string>()[0];
          break;
      }
      return Status::OK();
    }
    bool ok = true;
    switch (out->dtype()) {
      case DT_INT32:
        ok = parsing::ParseCsvInt32(field, &out->data<int32_t>()[r]);
        break;
      case DT_INT64:
        ok = parsing::ParseCsvInt64(field, &out->data<int64_t>()[r]);
        break;
      case DT_FLOAT:
        ok = parsing::ParseCsvFloat(field, &out->data<float>()[r]);
        break;
      case DT_DOUBLE:
        ok = parsing::ParseCsvDouble(field, &out->data<double>()[r]);
        break;
      default:
        out->data<std::string>()[r] = field;
        break;
    }
    if (!ok)
      return errors::InvalidArgument("field ", f, " in record ", r, " is not a valid ",
                                     DataTypeString(out->dtype()), ": ", Quoted(field));
    return Status::OK();
  }

  DataTypeVector out_types_;
  CsvOptions options_;
  std::string na_value_;
};

}  // namespace

REGISTER_KERNEL_BUILDER(KernelDefBuilder("DecodeCSV").Device(DEVICE_CPU), DecodeCSVOp);

}  // namespace af
