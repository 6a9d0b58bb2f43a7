// TensorInfo and SignatureDef construction.
#include "client/saved_model/signature_def_utils.h"

#include "client/saved_model/constants.h"
#include "core/tensor_shape_proto.h"

namespace af {

tensorflow::TensorInfo BuildTensorInfo(const Output& output) {
  tensorflow::TensorInfo info;
  info.set_name(output.name());
  info.set_dtype(static_cast<tensorflow::DataType>(output.type()));
  ShapeToProto(output.shape(), info.mutable_tensor_shape());
  return info;
}

tensorflow::SignatureDef PredictSignatureDef(const std::map<std::string, Output>& inputs,
                                             const std::map<std::string, Output>& outputs) {
  tensorflow::SignatureDef sig;
  for (const auto& [key, out] : inputs) (*sig.mutable_inputs())[key] = BuildTensorInfo(out);
  for (const auto& [key, out] : outputs) (*sig.mutable_outputs())[key] = BuildTensorInfo(out);
  sig.set_method_name(kPredictMethodName);
  return sig;
}

tensorflow::SignatureDef RegressionSignatureDef(const Output& examples, const Output& predictions) {
  tensorflow::SignatureDef sig;
  (*sig.mutable_inputs())[kRegressInputs] = BuildTensorInfo(examples);
  (*sig.mutable_outputs())[kRegressOutputs] = BuildTensorInfo(predictions);
  sig.set_method_name(kRegressMethodName);
  return sig;
}

tensorflow::SignatureDef ClassificationSignatureDef(const Output& examples, const Output& classes,
                                                    const Output& scores) {
  tensorflow::SignatureDef sig;
  (*sig.mutable_inputs())[kClassifyInputs] = BuildTensorInfo(examples);
  if (classes.valid()) (*sig.mutable_outputs())[kClassifyOutputClasses] = BuildTensorInfo(classes);
  if (scores.valid()) (*sig.mutable_outputs())[kClassifyOutputScores] = BuildTensorInfo(scores);
  sig.set_method_name(kClassifyMethodName);
  return sig;
}

}  // namespace af
