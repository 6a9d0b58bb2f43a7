// Signature keys -> tensor names -> Session::Run.
#include "client/saved_model/signature_runner.h"

#include <algorithm>

#include "core/tensor_proto.h"
#include "core/tensor_shape_proto.h"
#include "core/types.h"

namespace af {
namespace {

std::string KeyList(const google::protobuf::Map<std::string, tensorflow::TensorInfo>& map) {
  std::vector<std::string> keys;
  for (const auto& [key, info] : map) keys.push_back("'" + key + "'");
  std::sort(keys.begin(), keys.end());
  std::string s;
  for (const auto& k : keys) s += (s.empty() ? "" : ", ") + k;
  return s.empty() ? "none" : s;
}

// A dense TensorInfo's tensor name; sparse and composite ones have none.
Status DenseName(const std::string& what, const tensorflow::TensorInfo& info, std::string* name) {
  if (info.encoding_case() != tensorflow::TensorInfo::kName)
    return errors::Unimplemented(what, " is a sparse or composite tensor; only dense tensors are "
                                       "fed and fetched by key");
  if (info.name().empty()) return errors::InvalidArgument(what, " names no tensor");
  *name = info.name();
  return Status::OK();
}

Status CheckInput(const std::string& what, const tensorflow::TensorInfo& info, const Tensor& t) {
  const DataType want = BaseType(static_cast<DataType>(info.dtype()));
  if (want != DT_INVALID && t.dtype() != want)
    return errors::InvalidArgument(what, " is ", DataTypeString(want), " but the value given is ",
                                   DataTypeString(t.dtype()));
  if (info.has_tensor_shape()) {
    PartialTensorShape shape;
    // A TensorInfo shape that does not parse constrains nothing.
    if (ShapeFromProto(info.tensor_shape(), &shape).ok() &&
        !shape.IsCompatibleWith(PartialTensorShape(t.shape())))
      return errors::InvalidArgument(what, " has shape ", shape.DebugString(),
                                     " but the value given has shape ", t.shape().DebugString());
  }
  return Status::OK();
}

}  // namespace

Status FindSignatureDef(const tensorflow::MetaGraphDef& meta_graph, const std::string& key,
                        const tensorflow::SignatureDef** out) {
  auto it = meta_graph.signature_def().find(key);
  if (it != meta_graph.signature_def().end()) {
    *out = &it->second;
    return Status::OK();
  }
  std::vector<std::string> keys;
  for (const auto& [k, sig] : meta_graph.signature_def()) keys.push_back("'" + k + "'");
  std::sort(keys.begin(), keys.end());
  std::string list;
  for (const auto& k : keys) list += (list.empty() ? "" : ", ") + k;
  return errors::NotFound("no signature '", key,
                          "' in the MetaGraphDef; its signatures: ", list.empty() ? "none" : list);
}

Status PrepareSignatureCall(const std::string& signature_key,
                            const tensorflow::SignatureDef& signature,
                            const std::map<std::string, Tensor>& inputs,
                            const std::vector<std::string>& output_keys, SignatureCall* call) {
  *call = SignatureCall();
  const std::string sig = "signature '" + signature_key + "'";
  for (const auto& [key, value] : inputs) {
    auto it = signature.inputs().find(key);
    if (it == signature.inputs().end())
      return errors::InvalidArgument(sig, " has no input '", key,
                                     "'; its inputs: ", KeyList(signature.inputs()));
    const std::string what = sig + " input '" + key + "'";
    std::string name;
    AF_RETURN_IF_ERROR(DenseName(what, it->second, &name));
    AF_RETURN_IF_ERROR(CheckInput(what, it->second, value));
    call->feeds.emplace_back(name, value);
  }
  for (const auto& [key, info] : signature.inputs()) {
    if (inputs.count(key)) continue;
    const std::string what = sig + " input '" + key + "'";
    auto def = signature.defaults().find(key);
    if (def == signature.defaults().end())
      return errors::InvalidArgument(
          sig, " needs input '", key, "' (", DataTypeString(static_cast<DataType>(info.dtype())),
          ") and it has no default; given: ", inputs.empty() ? "none" : "other keys");
    std::string name;
    AF_RETURN_IF_ERROR(DenseName(what, info, &name));
    Tensor value;
    AF_RETURN_IF_ERROR(TensorFromProto(def->second, &value).WithContext(what + " default"));
    call->feeds.emplace_back(name, std::move(value));
  }
  std::vector<std::string> keys = output_keys;
  if (keys.empty()) {
    for (const auto& [key, info] : signature.outputs()) keys.push_back(key);
    std::sort(keys.begin(), keys.end());
  }
  if (keys.empty()) return errors::InvalidArgument(sig, " has no outputs");
  for (const std::string& key : keys) {
    auto it = signature.outputs().find(key);
    if (it == signature.outputs().end())
      return errors::InvalidArgument(sig, " has no output '", key,
                                     "'; its outputs: ", KeyList(signature.outputs()));
    std::string name;
    AF_RETURN_IF_ERROR(DenseName(sig + " output '" + key + "'", it->second, &name));
    call->fetches.push_back(name);
    call->output_keys.push_back(key);
  }
  return Status::OK();
}

Status RunSignature(const SavedModelBundle& bundle, const std::string& signature_key,
                    const std::map<std::string, Tensor>& inputs,
                    const std::vector<std::string>& output_keys,
                    std::map<std::string, Tensor>* outputs, const RunOptions& run_options) {
  outputs->clear();
  if (bundle.session == nullptr)
    return errors::FailedPrecondition("the SavedModel bundle holds no session (not loaded)");
  const tensorflow::SignatureDef* signature = nullptr;
  AF_RETURN_IF_ERROR(FindSignatureDef(bundle.meta_graph_def, signature_key, &signature)
                         .WithContext("SavedModel " + bundle.export_dir));
  SignatureCall call;
  AF_RETURN_IF_ERROR(PrepareSignatureCall(signature_key, *signature, inputs, output_keys, &call));
  std::vector<Tensor> fetched;
  AF_RETURN_IF_ERROR(bundle.session->Run(run_options, call.feeds, call.fetches, {}, &fetched)
                         .WithContext("running signature '" + signature_key + "'"));
  for (size_t i = 0; i < fetched.size() && i < call.output_keys.size(); ++i)
    (*outputs)[call.output_keys[i]] = std::move(fetched[i]);
  return Status::OK();
}

}  // namespace af
