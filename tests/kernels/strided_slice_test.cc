// Slice, StridedSlice and StridedSliceGrad. StridedSlice is checked against
// a reference written from Python's indexing rules (x[1:-1:2, ..., None, 3])
// over thousands of random specs: masks, ellipses, new axes, shrinks,
// negative and out-of-range indices, negative strides.
#include <optional>
#include <random>
#include <vector>

#include "tests/kernels/array_test_util.h"

namespace af::test {
namespace {

struct Masks {
  int32_t begin = 0, end = 0, ellipsis = 0, new_axis = 0, shrink = 0;
};

bool Bit(int32_t mask, size_t i) { return i < 32 && ((mask >> i) & 1) != 0; }

// The input indices a Python slice start:stop:step picks from a dim.
std::vector<int64_t> SliceIndices(std::optional<int64_t> start, std::optional<int64_t> stop,
                                  int64_t step, int64_t len) {
  const int64_t lower = step > 0 ? 0 : -1, upper = step > 0 ? len : len - 1;
  auto resolve = [&](std::optional<int64_t> x, int64_t if_none) {
    if (!x) return if_none;
    return *x < 0 ? std::max(*x + len, lower) : std::min(*x, upper);
  };
  const int64_t first = resolve(start, step > 0 ? lower : upper);
  const int64_t last = resolve(stop, step > 0 ? upper : lower);
  std::vector<int64_t> out;
  for (int64_t i = first; step > 0 ? i < last : i > last; i += step) out.push_back(i);
  return out;
}

struct Reference {
  bool ok = false;
  TensorShape shape;
  std::vector<int64_t> source;  // output element -> input flat position
};

// x[spec] by Python's rules. Errors (several ellipses, more indices than
// dims, a shrink index out of range, a zero stride, a shrink with a
// negative stride) leave ok false.
Reference ReferenceStridedSlice(const TensorShape& in, const std::vector<int64_t>& begin,
                                const std::vector<int64_t>& end,
                                const std::vector<int64_t>& strides, const Masks& m) {
  enum Kind { kRange, kIndex, kNewAxis, kEllipsis };
  struct Item {
    Kind kind;
    std::optional<int64_t> start, stop;
    int64_t step = 1;
  };
  Reference r;
  if ((m.ellipsis & (m.ellipsis - 1)) != 0) return r;
  std::vector<Item> items;
  bool ellipsis = false;
  int real = 0;
  for (size_t i = 0; i < begin.size(); ++i) {
    if (Bit(m.ellipsis, i)) {
      items.push_back({kEllipsis, {}, {}, 1});
      ellipsis = true;
    } else if (Bit(m.new_axis, i)) {
      items.push_back({kNewAxis, {}, {}, 1});
    } else {
      if (strides[i] == 0) return r;
      if (Bit(m.shrink, i)) {
        if (strides[i] < 0) return r;
        items.push_back({kIndex, begin[i], {}, 1});
      } else {
        items.push_back({kRange, Bit(m.begin, i) ? std::nullopt : std::optional(begin[i]),
                         Bit(m.end, i) ? std::nullopt : std::optional(end[i]), strides[i]});
      }
      ++real;
    }
  }
  if (!ellipsis) items.push_back({kEllipsis, {}, {}, 1});
  if (real > in.dims()) return r;

  // Per output dim: the input dim it walks and the indices it takes; per
  // input dim fixed by a shrink: the index.
  std::vector<int> out_in_dim;
  std::vector<std::vector<int64_t>> out_indices;
  std::vector<int64_t> fixed(static_cast<size_t>(in.dims()), 0);
  int dim = 0;
  for (const Item& item : items) {
    if (item.kind == kNewAxis) {
      out_in_dim.push_back(-1);
      out_indices.push_back({0});
    } else if (item.kind == kEllipsis) {
      for (int k = 0; k < in.dims() - real; ++k, ++dim) {
        out_in_dim.push_back(dim);
        out_indices.push_back(SliceIndices({}, {}, 1, in.dim_size(dim)));
      }
    } else if (item.kind == kIndex) {
      const int64_t len = in.dim_size(dim);
      const int64_t i = *item.start < 0 ? *item.start + len : *item.start;
      if (i < 0 || i >= len) return r;
      fixed[static_cast<size_t>(dim++)] = i;
    } else {
      out_in_dim.push_back(dim);
      out_indices.push_back(SliceIndices(item.start, item.stop, item.step, in.dim_size(dim)));
      ++dim;
    }
  }
  for (const auto& indices : out_indices) r.shape.AddDim(static_cast<int64_t>(indices.size()));
  for (int64_t j = 0; j < r.shape.num_elements(); ++j) {
    const std::vector<int64_t> out_index = Unflatten(r.shape, j);
    std::vector<int64_t> in_index = fixed;
    for (size_t d = 0; d < out_index.size(); ++d)
      if (out_in_dim[d] >= 0) in_index[out_in_dim[d]] = out_indices[d][out_index[d]];
    r.source.push_back(Flatten(in, in_index));
  }
  r.ok = true;
  return r;
}

KernelRunner& AddSpec(KernelRunner& runner, const std::vector<int64_t>& begin,
                      const std::vector<int64_t>& end, const std::vector<int64_t>& strides,
                      const Masks& m, DataType index_type) {
  runner.Input(Ints(begin, index_type))
      .Input(Ints(end, index_type))
      .Input(Ints(strides, index_type));
  runner.Attr("begin_mask", int64_t{m.begin}).Attr("end_mask", int64_t{m.end});
  runner.Attr("ellipsis_mask", int64_t{m.ellipsis}).Attr("new_axis_mask", int64_t{m.new_axis});
  return runner.Attr("shrink_axis_mask", int64_t{m.shrink});
}

std::string SpecString(const TensorShape& in, const std::vector<int64_t>& b,
                       const std::vector<int64_t>& e, const std::vector<int64_t>& s,
                       const Masks& m) {
  return in.DebugString() + " begin " + Ints(b).DebugString(10) + " end " +
         Ints(e).DebugString(10) + " strides " + Ints(s).DebugString(10) + " masks b" +
         std::to_string(m.begin) + " e" + std::to_string(m.end) + " ell" +
         std::to_string(m.ellipsis) + " new" + std::to_string(m.new_axis) + " shr" +
         std::to_string(m.shrink);
}

int32_t RandomMask(std::mt19937& rng, size_t n, int percent) {
  int32_t mask = 0;
  for (size_t i = 0; i < n; ++i)
    if (static_cast<int>(rng() % 100) < percent) mask |= 1 << i;
  return mask;
}

BOOST_AUTO_TEST_SUITE(strided_slice_ops)

BOOST_AUTO_TEST_CASE(random_specs_match_python_indexing) {
  std::mt19937 rng(2024);
  const std::vector<DataType> types = {DT_FLOAT, DT_STRING, DT_COMPLEX128, DT_INT8};
  int checked_ok = 0, checked_error = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const int rank = static_cast<int>(rng() % 5);
    const TensorShape shape = RandomShape(rng, rank, trial % 7 == 0 ? 0 : 1, 5);
    const size_t n = rng() % static_cast<size_t>(rank + 3);
    std::vector<int64_t> begin(n), end(n), strides(n);
    std::uniform_int_distribution<int64_t> index(-8, 8);
    const int64_t steps[] = {-3, -2, -1, -1, 1, 1, 1, 2, 3};
    for (size_t i = 0; i < n; ++i) {
      begin[i] = index(rng);
      end[i] = index(rng);
      strides[i] = steps[rng() % 9];
    }
    Masks m;
    m.begin = RandomMask(rng, n, 25);
    m.end = RandomMask(rng, n, 25);
    m.new_axis = RandomMask(rng, n, 10);
    m.shrink = RandomMask(rng, n, 15);
    if (n > 0 && rng() % 3 == 0) m.ellipsis = 1 << (rng() % n);
    if (n > 1 && rng() % 40 == 0) m.ellipsis |= 1 << (rng() % n);  // maybe two
    // Shrink indices mostly in range, so that most shrinks succeed.
    for (size_t i = 0; i < n; ++i)
      if (Bit(m.shrink, i) && rng() % 4 != 0) begin[i] = static_cast<int64_t>(rng() % 3) - 1;

    const Reference want = ReferenceStridedSlice(shape, begin, end, strides, m);
    const DataType dt = types[static_cast<size_t>(trial) % types.size()];
    Tensor in = RandomValues(dt, shape, static_cast<uint32_t>(trial));
    KernelRunner runner("StridedSlice", "ss");
    runner.Input(in);
    AddSpec(runner, begin, end, strides, m, trial % 2 ? DT_INT32 : DT_INT64);
    auto out = runner.Run();
    const std::string spec = SpecString(shape, begin, end, strides, m);
    if (!want.ok) {
      BOOST_CHECK_MESSAGE(!out.ok(), "expected an error for " << spec);
      if (!out.ok()) {
        BOOST_CHECK_EQUAL(out.status().code(), Code::INVALID_ARGUMENT);
        BOOST_CHECK_MESSAGE(Contains(out.status().message(), "node 'ss' (op 'StridedSlice')"),
                            out.status().ToString());
      }
      ++checked_error;
      continue;
    }
    BOOST_REQUIRE_MESSAGE(out.ok(), out.status().ToString() << " for " << spec);
    const Status s = CheckPicked((*out)[0], want.shape, in, want.source);
    BOOST_REQUIRE_MESSAGE(s.ok(), s.ToString() << " for " << spec);
    ++checked_ok;
  }
  // The generator must exercise both outcomes substantially.
  BOOST_CHECK_GT(checked_ok, 2000);
  BOOST_CHECK_GT(checked_error, 100);
}

BOOST_AUTO_TEST_CASE(known_python_expressions) {
  Tensor x = RandomValues(DT_FLOAT, {4, 5, 6}, 77);
  struct Case {
    std::vector<int64_t> b, e, s;
    Masks m;
    TensorShape want;
  };
  Masks reverse_all;  // x[::-1]
  reverse_all.begin = reverse_all.end = 1;
  Masks ellipsis_last;  // x[..., 2]
  ellipsis_last.ellipsis = 1;
  ellipsis_last.shrink = 2;
  Masks new_axis_middle;  // x[:, None, 1:3]
  new_axis_middle.begin = 1;
  new_axis_middle.end = 1;
  new_axis_middle.new_axis = 2;
  const std::vector<Case> cases = {
      {{0}, {0}, {-1}, reverse_all, {4, 5, 6}},
      {{0, 2}, {0, 0}, {1, 1}, ellipsis_last, {4, 5}},
      {{0, 0, 1}, {0, 0, 3}, {1, 1, 1}, new_axis_middle, {4, 1, 2, 6}},
      {{-1, 10}, {-10, -10}, {-2, -1}, Masks{}, {2, 5, 6}},
  };
  for (const Case& c : cases) {
    const Reference want = ReferenceStridedSlice(x.shape(), c.b, c.e, c.s, c.m);
    BOOST_REQUIRE(want.ok);
    BOOST_CHECK_EQUAL(want.shape, c.want);
    KernelRunner runner("StridedSlice");
    runner.Input(x);
    AddSpec(runner, c.b, c.e, c.s, c.m, DT_INT32);
    auto out = runner.Run();
    AF_REQUIRE_OK(out.status());
    AF_EXPECT_OK(CheckPicked((*out)[0], c.want, x, want.source));
  }
}

BOOST_AUTO_TEST_CASE(contiguous_slices_share_the_buffer) {
  Tensor x = RandomValues(DT_FLOAT, {6, 4}, 5);
  {
    KernelRunner rows("StridedSlice");  // x[1:3]
    rows.Input(x);
    AddSpec(rows, {1}, {3}, {1}, Masks{}, DT_INT32);
    auto out = rows.Run();
    AF_REQUIRE_OK(out.status());
    BOOST_CHECK((*out)[0].SharesBufferWith(x));
    BOOST_CHECK_EQUAL((*out)[0].shape(), TensorShape({2, 4}));
  }
  {
    KernelRunner row("StridedSlice");  // x[2, 1:3]
    Masks shrink_first;
    shrink_first.shrink = 1;
    row.Input(x);
    AddSpec(row, {2, 1}, {3, 3}, {1, 1}, shrink_first, DT_INT32);
    auto out = row.Run();
    AF_REQUIRE_OK(out.status());
    BOOST_CHECK((*out)[0].SharesBufferWith(x));
  }
  {
    KernelRunner column("StridedSlice");  // x[:, 1]: strided, copied
    Masks m;
    m.begin = m.end = 1;
    m.shrink = 2;
    column.Input(x);
    AddSpec(column, {0, 1}, {0, 2}, {1, 1}, m, DT_INT32);
    auto out = column.Run();
    AF_REQUIRE_OK(out.status());
    BOOST_CHECK(!(*out)[0].SharesBufferWith(x));
  }
  {
    KernelRunner slice("Slice");  // rows 2..4 of x
    slice.Input(x).Input(Ints({2, 0})).Input(Ints({3, -1}));
    auto out = slice.Run();
    AF_REQUIRE_OK(out.status());
    BOOST_CHECK((*out)[0].SharesBufferWith(x));
  }
}

BOOST_AUTO_TEST_CASE(strided_slice_errors) {
  struct Case {
    std::vector<int64_t> b, e, s;
    Masks m;
    std::string message;
  };
  Masks shrink;
  shrink.shrink = 1;
  Masks two_ellipses;
  two_ellipses.ellipsis = 3;
  const std::vector<Case> cases = {
      {{0}, {1}, {0}, Masks{}, "strides[0] must be non-zero"},
      {{5}, {6}, {1}, shrink, "slice index 5 of dimension 0 out of bounds."},
      {{0, 0}, {1, 1}, {1, 1}, two_ellipses, "Multiple ellipses in slice spec not allowed"},
      {{0, 0, 0},
       {1, 1, 1},
       {1, 1, 1},
       Masks{},
       "Index out of range using input dim 2; input has only 2 dims"},
      {{1}, {2}, {-1}, shrink, "only stride 1 allowed on non-range indexing."},
  };
  for (const Case& c : cases) {
    KernelRunner runner("StridedSlice", "ss");
    runner.Input(Tensor(DT_FLOAT, TensorShape{3, 4}));
    AddSpec(runner, c.b, c.e, c.s, c.m, DT_INT32);
    auto out = runner.Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_CHECK_EQUAL(out.status().code(), Code::INVALID_ARGUMENT);
    BOOST_CHECK_MESSAGE(
        Contains(out.status().message(), "node 'ss' (op 'StridedSlice'): " + c.message),
        out.status().ToString());
  }
  KernelRunner lengths("StridedSlice", "ss");
  lengths.Input(Tensor(DT_FLOAT, TensorShape{3}));
  AddSpec(lengths, {0}, {1, 2}, {1}, Masks{}, DT_INT32);
  auto out = lengths.Run();
  BOOST_REQUIRE(!out.ok());
  BOOST_CHECK_MESSAGE(Contains(out.status().message(), "1D equal size tensors"),
                      out.status().ToString());
}

BOOST_AUTO_TEST_CASE(grad_scatters_dy_where_the_slice_read) {
  std::mt19937 rng(77);
  int checked = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const int rank = 1 + static_cast<int>(rng() % 3);
    const TensorShape shape = RandomShape(rng, rank, 1, 5);
    const size_t n = static_cast<size_t>(rank);
    std::vector<int64_t> begin(n), end(n), strides(n);
    const int64_t steps[] = {-2, -1, 1, 1, 2};
    for (size_t i = 0; i < n; ++i) {
      begin[i] = static_cast<int64_t>(rng() % 11) - 5;
      end[i] = static_cast<int64_t>(rng() % 11) - 5;
      strides[i] = steps[rng() % 5];
    }
    Masks m;
    m.begin = RandomMask(rng, n, 30);
    m.end = RandomMask(rng, n, 30);
    m.new_axis = RandomMask(rng, n, 10);
    const Reference slice = ReferenceStridedSlice(shape, begin, end, strides, m);
    if (!slice.ok) continue;
    Tensor dy = RandomTensor<float>(slice.shape, static_cast<uint32_t>(trial));
    std::vector<double> want(static_cast<size_t>(shape.num_elements()), 0.0);
    for (size_t j = 0; j < slice.source.size(); ++j)
      want[static_cast<size_t>(slice.source[j])] = dy.data<float>()[j];
    KernelRunner runner("StridedSliceGrad", "ssg");
    runner.Input(Ints(shape.dim_vector()));
    AddSpec(runner, begin, end, strides, m, DT_INT32);
    runner.Input(dy);
    auto out = runner.Run();
    AF_REQUIRE_OK(out.status());
    AF_REQUIRE_OK(CheckTensor((*out)[0], DT_FLOAT, shape, want));
    ++checked;
  }
  BOOST_CHECK_GT(checked, 300);

  KernelRunner bad("StridedSliceGrad", "ssg");
  bad.Input(Ints({4}));
  AddSpec(bad, {0}, {2}, {1}, Masks{}, DT_INT32);
  bad.Input(Tensor(DT_FLOAT, TensorShape{3}));
  auto out = bad.Run();
  BOOST_REQUIRE(!out.ok());
  BOOST_CHECK_MESSAGE(Contains(out.status().message(), "shape of dy was [3] instead of [2]"),
                      out.status().ToString());
}

// Slice: begin/size per dim, size -1 to the end.
BOOST_AUTO_TEST_CASE(slice_matches_the_reference) {
  std::mt19937 rng(31);
  uint32_t seed = 1;
  for (int trial = 0; trial < 300; ++trial) {
    const int rank = static_cast<int>(rng() % 5);
    const TensorShape shape = RandomShape(rng, rank, 0, 5);
    std::vector<int64_t> begin, size;
    TensorShape want;
    for (int d = 0; d < rank; ++d) {
      const int64_t dim = shape.dim_size(d);
      const int64_t b = static_cast<int64_t>(rng() % static_cast<uint64_t>(dim + 1));
      const int64_t s = rng() % 4 == 0 ? -1 : static_cast<int64_t>(rng() % (dim - b + 1));
      begin.push_back(b);
      size.push_back(s);
      want.AddDim(s == -1 ? dim - b : s);
    }
    std::vector<int64_t> source;
    for (int64_t j = 0; j < want.num_elements(); ++j) {
      std::vector<int64_t> index = Unflatten(want, j);
      for (int d = 0; d < rank; ++d) index[d] += begin[d];
      source.push_back(Flatten(shape, index));
    }
    for (DataType dt : MovableTestTypes()) {
      Tensor in = RandomValues(dt, shape, seed++);
      KernelRunner runner("Slice");
      const DataType index_type = trial % 2 ? DT_INT32 : DT_INT64;
      runner.Input(in).Input(Ints(begin, index_type)).Input(Ints(size, index_type));
      auto out = runner.Run();
      AF_REQUIRE_OK(out.status());
      AF_REQUIRE_OK(CheckPicked((*out)[0], want, in, source));
    }
  }
}

BOOST_AUTO_TEST_CASE(slice_rejects_out_of_range_boxes) {
  struct Case {
    std::vector<int64_t> begin, size;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{0, 3}, {1, 2}, "Expected size[1] in [0, 1], but got 2"},
      {{4, 0}, {-1, 1}, "Expected begin[0] in [0, 3], but got 4"},
      {{0}, {1}, "Expected begin and size arguments to be 1-D tensors of size 2"},
      {{0, 0}, {-2, 1}, "Expected size[0] in [0, 3], but got -2"},
  };
  for (const Case& c : cases) {
    KernelRunner runner("Slice", "sl");
    runner.Input(Tensor(DT_FLOAT, TensorShape{3, 4})).Input(Ints(c.begin)).Input(Ints(c.size));
    auto out = runner.Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_CHECK_MESSAGE(Contains(out.status().message(), "node 'sl' (op 'Slice'): " + c.message),
                        out.status().ToString());
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
