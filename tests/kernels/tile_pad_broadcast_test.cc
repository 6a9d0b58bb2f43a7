// Tile, Pad, PadV2, BroadcastTo and BroadcastGradientArgs against
// reference loops.
#include <cstring>
#include <random>
#include <tuple>
#include <vector>

#include "tests/kernels/array_test_util.h"

namespace af::test {
namespace {

BOOST_AUTO_TEST_SUITE(tile_pad_broadcast_ops)

BOOST_AUTO_TEST_CASE(tile_matches_the_reference) {
  std::mt19937 rng(17);
  uint32_t seed = 1;
  for (int rank = 0; rank <= 4; ++rank) {
    for (int trial = 0; trial < 5; ++trial) {
      const TensorShape shape = RandomShape(rng, rank, trial == 0 ? 0 : 1, 4);
      std::vector<int64_t> multiples;
      TensorShape want;
      for (int d = 0; d < rank; ++d) {
        multiples.push_back(static_cast<int64_t>(rng() % 4));  // 0 too
        want.AddDim(shape.dim_size(d) * multiples.back());
      }
      std::vector<int64_t> source;
      for (int64_t j = 0; j < want.num_elements(); ++j) {
        std::vector<int64_t> index = Unflatten(want, j);
        for (int d = 0; d < rank; ++d) index[d] %= shape.dim_size(d);
        source.push_back(Flatten(shape, index));
      }
      for (DataType dt : MovableTestTypes()) {
        Tensor in = RandomValues(dt, shape, seed++);
        KernelRunner runner("Tile");
        runner.Input(in).Input(Ints(multiples, trial % 2 ? DT_INT32 : DT_INT64));
        auto out = runner.Run();
        AF_REQUIRE_OK(out.status());
        AF_REQUIRE_OK(CheckPicked((*out)[0], want, in, source));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(tile_errors_name_the_node) {
  struct Case {
    std::vector<int64_t> multiples;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {{2}, "Expected multiples argument to be a vector of length 2 but got length 1"},
           {{1, -1}, "Expected multiples[1] >= 0, but got -1"}}) {
    KernelRunner runner("Tile", "tile");
    runner.Input(Tensor(DT_FLOAT, TensorShape{2, 3})).Input(Ints(c.multiples));
    auto out = runner.Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_CHECK_MESSAGE(Contains(out.status().message(), "node 'tile' (op 'Tile'): " + c.message),
                        out.status().ToString());
  }
}

BOOST_AUTO_TEST_CASE(pad_and_pad_v2_match_the_reference) {
  std::mt19937 rng(19);
  uint32_t seed = 100;
  for (int rank = 0; rank <= 4; ++rank) {
    for (int trial = 0; trial < 5; ++trial) {
      const TensorShape shape = RandomShape(rng, rank, trial == 0 ? 0 : 1, 4);
      std::vector<int64_t> paddings;
      TensorShape want;
      for (int d = 0; d < rank; ++d) {
        paddings.push_back(static_cast<int64_t>(rng() % 3));
        paddings.push_back(static_cast<int64_t>(rng() % 3));
        want.AddDim(shape.dim_size(d) + paddings[2 * d] + paddings[2 * d + 1]);
      }
      std::vector<int64_t> source;
      for (int64_t j = 0; j < want.num_elements(); ++j) {
        std::vector<int64_t> index = Unflatten(want, j);
        bool inside = true;
        for (int d = 0; d < rank; ++d) {
          index[d] -= paddings[2 * d];
          inside &= index[d] >= 0 && index[d] < shape.dim_size(d);
        }
        source.push_back(inside ? Flatten(shape, index) : -1);
      }
      const Tensor paddings_t = IntsOfShape(paddings, {rank, 2}, trial % 2 ? DT_INT32 : DT_INT64);
      for (DataType dt : MovableTestTypes()) {
        Tensor in = RandomValues(dt, shape, seed++);
        Tensor constant = RandomValues(dt, {}, seed++);
        KernelRunner v2("PadV2");
        v2.Input(in).Input(paddings_t).Input(constant);
        auto out = v2.Run();
        AF_REQUIRE_OK(out.status());
        AF_REQUIRE_OK(CheckPicked((*out)[0], want, in, source, &constant));

        Tensor zero(dt, TensorShape{});  // zero bits; an empty string
        if (dt != DT_STRING) std::memset(zero.raw_data(), 0, zero.TotalBytes());
        KernelRunner pad("Pad");
        pad.Input(in).Input(paddings_t);
        out = pad.Run();
        AF_REQUIRE_OK(out.status());
        AF_REQUIRE_OK(CheckPicked((*out)[0], want, in, source, &zero));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(pad_errors_name_the_node) {
  struct Case {
    Tensor paddings;
    std::string message;
  };
  const std::vector<Case> cases = {
      {IntsOfShape({1, 1, 1}, {3, 1}), "paddings must be a matrix with 2 columns: [3,1]"},
      {IntsOfShape({1, 1}, {1, 2}), "The first dimension of paddings must be the rank of inputs"},
      {IntsOfShape({0, 0, -1, 0}, {2, 2}), "Paddings must be non-negative: -1 0"},
  };
  for (const Case& c : cases) {
    KernelRunner runner("Pad", "pad");
    runner.Input(Tensor(DT_FLOAT, TensorShape{2, 3})).Input(c.paddings);
    auto out = runner.Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_CHECK_MESSAGE(Contains(out.status().message(), "node 'pad' (op 'Pad'): " + c.message),
                        out.status().ToString());
  }
}

BOOST_AUTO_TEST_CASE(broadcast_to_matches_numpy) {
  struct Case {
    TensorShape in, target;
  };
  const std::vector<Case> cases = {
      {{3}, {2, 3}},
      {{}, {2, 2}},
      {{2, 1}, {2, 5}},
      {{1, 4}, {3, 4}},
      {{2, 1, 3}, {4, 2, 5, 3}},
      {{1}, {0}},
      {{2, 3}, {2, 3}},
      {{1, 1}, {3, 1, 2}},
      {{0, 1}, {4, 0, 3}},
  };
  uint32_t seed = 400;
  for (const Case& c : cases) {
    std::vector<int64_t> source;
    const int offset = c.target.dims() - c.in.dims();
    for (int64_t j = 0; j < c.target.num_elements(); ++j) {
      const std::vector<int64_t> t = Unflatten(c.target, j);
      std::vector<int64_t> index;
      for (int d = 0; d < c.in.dims(); ++d)
        index.push_back(c.in.dim_size(d) == 1 ? 0 : t[static_cast<size_t>(offset + d)]);
      source.push_back(Flatten(c.in, index));
    }
    for (DataType dt : MovableTestTypes()) {
      Tensor in = RandomValues(dt, c.in, seed++);
      KernelRunner runner("BroadcastTo");
      runner.Input(in).Input(Ints(c.target.dim_vector(), seed % 2 ? DT_INT32 : DT_INT64));
      auto out = runner.Run();
      AF_REQUIRE_OK(out.status());
      AF_REQUIRE_OK(CheckPicked((*out)[0], c.target, in, source));
      if (c.in == c.target) BOOST_CHECK((*out)[0].SharesBufferWith(in));
    }
  }
  for (const auto& [in, target, message] :
       std::vector<std::tuple<TensorShape, std::vector<int64_t>, std::string>>{
           {{2, 3}, {4, 3}, "Unable to broadcast tensor of shape [2,3] to tensor of shape [4,3]"},
           {{2, 3}, {3}, "Rank of input (2) must be no greater than rank of output shape (1)."}}) {
    KernelRunner runner("BroadcastTo", "bt");
    runner.Input(Tensor(DT_FLOAT, in)).Input(Ints(target));
    auto out = runner.Run();
    BOOST_REQUIRE(!out.ok());
    BOOST_CHECK_MESSAGE(
        Contains(out.status().message(), "node 'bt' (op 'BroadcastTo'): " + message),
        out.status().ToString());
  }
}

BOOST_AUTO_TEST_CASE(broadcast_gradient_args_lists_the_reduced_dims) {
  struct Case {
    std::vector<int64_t> s0, s1;
    std::vector<double> r0, r1;
  };
  const std::vector<Case> cases = {
      {{2, 3, 5}, {1}, {}, {0, 1, 2}},
      {{2, 3, 5}, {5}, {}, {0, 1}},
      {{2, 1, 5}, {2, 3, 5}, {1}, {}},
      {{1}, {1}, {0}, {0}},
      {{}, {}, {}, {}},
      {{}, {4, 1}, {0, 1}, {1}},
      {{2, 0, 3, 0, 5}, {3, 0, 5}, {}, {0, 1}},
      {{1, 4, 1}, {3, 1, 1}, {0, 2}, {1, 2}},
  };
  for (const Case& c : cases) {
    for (DataType dt : {DT_INT32, DT_INT64}) {
      auto out = RunKernel("BroadcastGradientArgs", {Ints(c.s0, dt), Ints(c.s1, dt)});
      AF_REQUIRE_OK(out.status());
      AF_EXPECT_OK(CheckTensor((*out)[0], dt, {static_cast<int64_t>(c.r0.size())}, c.r0));
      AF_EXPECT_OK(CheckTensor((*out)[1], dt, {static_cast<int64_t>(c.r1.size())}, c.r1));
    }
  }
  KernelRunner bad("BroadcastGradientArgs", "bga");
  bad.Input(Ints({2, 3})).Input(Ints({4}));
  auto out = bad.Run();
  BOOST_REQUIRE(!out.ok());
  BOOST_CHECK_MESSAGE(Contains(out.status().message(), "Incompatible shapes: [2,3] vs. [4]"),
                      out.status().ToString());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
