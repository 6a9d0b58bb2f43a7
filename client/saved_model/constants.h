// The fixed names of a SavedModel directory and of what its MetaGraphDefs
// hold: file and folder names, collection keys, tags and signature keys,
// spelled exactly as TensorFlow's tag_constants.h, signature_constants.h
// and constants.h spell them, since models written by TensorFlow use them
// and TensorFlow reads the ones written here.
#pragma once

namespace af {

// Files and folders of an export directory.
inline constexpr char kSavedModelFilenamePb[] = "saved_model.pb";
inline constexpr char kSavedModelFilenamePbTxt[] = "saved_model.pbtxt";
inline constexpr char kSavedModelAssetsDirectory[] = "assets";
inline constexpr char kSavedModelAssetsExtraDirectory[] = "assets.extra";
inline constexpr char kSavedModelVariablesDirectory[] = "variables";
// The checkpoint prefix inside variables/: variables/variables.index, ...
inline constexpr char kSavedModelVariablesFilename[] = "variables";
inline constexpr int kSavedModelSchemaVersion = 1;

// Collections and reserved signature keys of a MetaGraphDef.
inline constexpr char kSavedModelAssetsKey[] = "saved_model_assets";
inline constexpr char kSavedModelMainOpKey[] = "saved_model_main_op";
inline constexpr char kSavedModelLegacyInitOpKey[] = "legacy_init_op";
inline constexpr char kSavedModelInitOpSignatureKey[] = "__saved_model_init_op";
inline constexpr char kSavedModelTrainOpSignatureKey[] = "__saved_model_train_op";
// The type URL of an AssetFileDef packed in the assets collection's Any.
inline constexpr char kAssetFileDefTypeUrl[] = "type.googleapis.com/tensorflow.AssetFileDef";

// Tags (tag_constants.h).
inline constexpr char kSavedModelTagServe[] = "serve";
inline constexpr char kSavedModelTagTrain[] = "train";
inline constexpr char kSavedModelTagGpu[] = "gpu";
inline constexpr char kSavedModelTagTpu[] = "tpu";

// Signature keys and method names (signature_constants.h).
inline constexpr char kDefaultServingSignatureDefKey[] = "serving_default";
inline constexpr char kPredictMethodName[] = "tensorflow/serving/predict";
inline constexpr char kPredictInputs[] = "inputs";
inline constexpr char kPredictOutputs[] = "outputs";
inline constexpr char kClassifyMethodName[] = "tensorflow/serving/classify";
inline constexpr char kClassifyInputs[] = "inputs";
inline constexpr char kClassifyOutputClasses[] = "classes";
inline constexpr char kClassifyOutputScores[] = "scores";
inline constexpr char kRegressMethodName[] = "tensorflow/serving/regress";
inline constexpr char kRegressInputs[] = "inputs";
inline constexpr char kRegressOutputs[] = "outputs";

}  // namespace af
