// Checking AttrValues against an OpDef's AttrDef. Shared by OpDefBuilder
// (defaults must satisfy their own attr) and ValidateNodeDef (a node's attrs
// must satisfy the op), so both reject the same values with the same words.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"
#include "core/types.h"
#include "proto/attr_value.pb.h"
#include "proto/node_def.pb.h"
#include "proto/op_def.pb.h"

namespace af {

// TensorFlow's type sets, in DataType enum order.
const DataTypeVector& NumberTypes();      // "numbertype"
const DataTypeVector& RealNumberTypes();  // "realnumbertype"
const DataTypeVector& QuantizedTypes();   // "quantizedtype"
const DataTypeVector& AllTypes();         // "all"
// The set a shorthand names, or nullptr if `name` is not one.
const DataTypeVector* TypeSetByName(std::string_view name);

// The attr type ("int", "list(type)", ...) an AttrValue holds; "" when no
// value is set. An empty list reads "list".
std::string AttrValueTypeName(const tensorflow::AttrValue& value);

// INVALID_ARGUMENT unless `value` holds a value of the OpDef attr type
// `type` ("int", "list(shape)", ...). Messages carry no node context.
Status AttrValueHasType(const tensorflow::AttrValue& value, std::string_view type);

// Type, allowed values and minimum of `value` against `attr`. Messages
// name the attr but no node.
Status ValidateAttrValue(const tensorflow::AttrValue& value,
                         const tensorflow::OpDef::AttrDef& attr);

// "node 'name' (op 'Op')": how every error about a node starts.
std::string NodeContext(const tensorflow::NodeDef& node);
// `cause` with "node 'name' (op 'Op'): " prefixed, code kept; OK stays OK.
Status NodeStatus(const tensorflow::NodeDef& node, const Status& cause);

// "DT_FLOAT" spelling used in kernel registry messages.
std::string DataTypeEnumName(DataType dt);

}  // namespace af
