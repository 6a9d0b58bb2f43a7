// TensorFlow Serving's test SavedModels (tests/data/saved_models, copied
// from ../shared/interop/saved_models) and the tf.Example strings their
// regress and classify signatures take.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "proto/example.pb.h"

namespace af::testing {

// ACTORFLOW_SAVED_MODELS_DIR when set, else the copy in tests/data.
inline std::string SavedModelsDir() {
  if (const char* env = std::getenv("ACTORFLOW_SAVED_MODELS_DIR"); env != nullptr && *env)
    return env;
  return std::string(AF_TEST_DATA_DIR) + "/saved_models";
}

// "saved_model_half_plus_two_cpu" -> its export directory (version 123).
inline std::string SavedModelPath(const std::string& name) {
  return SavedModelsDir() + "/" + name + "/00000123";
}

// A serialized tf.Example with float features.
inline std::string FloatExample(const std::map<std::string, std::vector<float>>& features) {
  tensorflow::Example example;
  for (const auto& [name, values] : features) {
    auto* list = (*example.mutable_features()->mutable_feature())[name].mutable_float_list();
    for (float v : values) list->add_value(v);
  }
  return example.SerializeAsString();
}

}  // namespace af::testing
