// OpBuilder: adds one node to a Scope's graph, as every op wrapper does.
// It turns value inputs into Const nodes, infers the type and length attrs
// its inputs imply (T, N, Tlist), applies the scope's name, device,
// control dependencies and colocation, validates the node against its
// OpDef, checks input types and runs the op's shape function. Any failure
// becomes the scope's status (naming the node and the op) and leaves the
// graph as it was.
//
//   OpBuilder b(scope, "MatMul");
//   b.AddInput(a).AddInput(x).attrs().SetBool("transpose_b", true);
//   Operation op = b.Finish();  // invalid if the scope has an error
//   Output product = b.OutputForArg("product");
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "client/attr_list.h"
#include "client/ops.h"
#include "client/scope.h"

namespace af {

class OpBuilder {
 public:
  // `op_type` is also the default node name.
  OpBuilder(const Scope& scope, std::string_view op_type);
  OpBuilder(const Scope& scope, std::string_view op_type, std::string_view default_name);

  OpBuilder& AddInput(const Input& input);
  OpBuilder& AddInputList(const InputList& inputs);
  AttrList& attrs() { return attrs_; }
  OpBuilder& SetAttrs(const AttrList& attrs);

  Operation Finish();

  // Outputs of the built node by OpDef output arg name (invalid Outputs when
  // the build failed).
  Output OutputForArg(std::string_view arg) const;
  OutputList OutputsForArg(std::string_view arg) const;

 private:
  struct Arg {
    std::vector<Input> inputs;
    bool is_list = false;
  };
  Status Build(Node** out);
  Status ResolveInputs(std::vector<std::vector<Output>>* resolved);
  Status InferAttrsFromInputs(const tensorflow::OpDef& op_def,
                              const std::vector<std::vector<Output>>& inputs,
                              tensorflow::NodeDef* def) const;

  Scope scope_;
  std::string op_type_, default_name_;
  std::vector<Arg> args_;
  AttrList attrs_;
  Operation op_;
};

}  // namespace af
