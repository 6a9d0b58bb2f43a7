// Loops the control-flow tests share: the usual counting condition, and a
// nested loop with a cond inside that reads the outer loop's variable and a
// tensor from outside both loops.
#pragma once

#include <vector>

#include "client/control_flow/cond.h"
#include "client/control_flow/while_loop.h"
#include "client/standard_ops.h"

namespace af::testing {

// v[0] < limit.
inline WhileCondFn CountBelow(int limit) {
  return [limit](const Scope& s, const std::vector<Output>& v, Output* c) {
    *c = ops::Less(s, v[0], limit);
    return s.status();
  };
}

// for i < 4: for j < 3: acc += (i+j) even ? i*j : 1, with the 1 a Const
// named "one" built outside both loops. outputs[1] is acc (double).
inline Status NestedLoopsWithCond(const Scope& root, std::vector<Output>* outputs) {
  auto one = ops::Const(root.WithOpName("one"), 1.0);
  return WhileLoop(
      root, {ops::Const(root, 0), ops::Const(root, 0.0)}, CountBelow(4),
      [&](const Scope& outer, const std::vector<Output>& ov, std::vector<Output>* onext) {
        std::vector<Output> inner_out;
        AF_RETURN_IF_ERROR(WhileLoop(
            outer, {ops::Const(outer, 0), ov[1]}, CountBelow(3),
            [&](const Scope& sc, const std::vector<Output>& v, std::vector<Output>* next) {
              auto sum = ops::Add(sc, ov[0], v[0]);  // reads the outer loop's variable
              auto even = ops::Equal(sc, ops::FloorMod(sc, sum, 2), 0);
              std::vector<Output> picked;
              AF_RETURN_IF_ERROR(Cond(
                  sc, even,
                  [&](const Scope& b, std::vector<Output>* r) {
                    *r = {ops::Cast(b, ops::Mul(b, ov[0], v[0]), DT_DOUBLE)};
                    return b.status();
                  },
                  [&](const Scope&, std::vector<Output>* r) {
                    *r = {one};  // a tensor from outside both loops
                    return Status::OK();
                  },
                  &picked));
              *next = {ops::Add(sc, v[0], 1), ops::Add(sc, v[1], picked[0])};
              return sc.status();
            },
            &inner_out));
        *onext = {ops::Add(outer, ov[0], 1), inner_out[1]};
        return outer.status();
      },
      outputs);
}

// What NestedLoopsWithCond computes, in plain C++.
inline double NestedLoopsWithCondValue() {
  double acc = 0;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) acc += (i + j) % 2 == 0 ? i * j : 1;
  return acc;
}

}  // namespace af::testing
