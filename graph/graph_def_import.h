// GraphDef -> Graph and back, plus reading GraphDef files.
#pragma once

#include <string>

#include "core/status.h"
#include "graph/graph.h"
#include "proto/graph.pb.h"

namespace af {

struct ImportOptions {
  // Run each op's shape function and record output shapes on the nodes.
  bool infer_shapes = true;
};

// Adds every node of `def` to the empty graph `g`. Inputs "name",
// "name:port" and "^name" become edges. Errors (INVALID_ARGUMENT or
// NOT_FOUND) name the node: unknown op, invalid attrs, duplicate names,
// inputs naming missing nodes or ports out of range, type mismatches along
// an edge, and cycles other than through NextIteration.
Status ImportGraphDef(const tensorflow::GraphDef& def, Graph* g,
                      const ImportOptions& options = {});

// Reads a GraphDef from a binary (.pb) or text (.pbtxt/.pbtext/.txt) file;
// any other extension tries binary first, then text. DATA_LOSS or
// INVALID_ARGUMENT for unparsable bytes, NOT_FOUND for a missing file.
Status ReadGraphDefFile(const std::string& path, tensorflow::GraphDef* out);
Status ParseGraphDefBytes(const std::string& bytes, bool text, tensorflow::GraphDef* out);

}  // namespace af
