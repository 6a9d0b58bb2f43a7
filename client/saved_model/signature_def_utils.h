// Building SignatureDefs from a graph's outputs, as TensorFlow's
// signature_def_utils (build_tensor_info, predict/regression/
// classification_signature_def) do, for SavedModelBuilder:
//
//   std::map<std::string, tensorflow::SignatureDef> signatures;
//   signatures[af::kDefaultServingSignatureDefKey] =
//       af::PredictSignatureDef({{"x", x}}, {{"y", y}});
#pragma once

#include <map>
#include <string>

#include "client/ops.h"
#include "proto/meta_graph.pb.h"

namespace af {

// name "node:port", dtype and the shape inferred when the node was built.
tensorflow::TensorInfo BuildTensorInfo(const Output& output);

// method_name "tensorflow/serving/predict", inputs and outputs by key.
tensorflow::SignatureDef PredictSignatureDef(const std::map<std::string, Output>& inputs,
                                             const std::map<std::string, Output>& outputs);

// method_name "tensorflow/serving/regress": input "inputs" (serialized
// tf.Example strings), output "outputs".
tensorflow::SignatureDef RegressionSignatureDef(const Output& examples, const Output& predictions);

// method_name "tensorflow/serving/classify": input "inputs", outputs
// "classes" and/or "scores" (an invalid Output is left out).
tensorflow::SignatureDef ClassificationSignatureDef(const Output& examples, const Output& classes,
                                                    const Output& scores);

}  // namespace af
