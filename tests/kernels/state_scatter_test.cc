// ScatterUpdate / ScatterAdd / ScatterSub against a reference loop.
#include <string>
#include <vector>

#include "tests/kernels/state_test_util.h"

namespace af::test {
namespace {

enum class Kind { kUpdate, kAdd, kSub };

template <typename T, typename Index>
void CheckScatter(Kind kind, const char* op) {
  BOOST_TEST_CONTEXT(op << "<" << DataTypeString(DataTypeToEnum<T>::value) << ", "
                        << DataTypeString(DataTypeToEnum<Index>::value) << ">") {
    TestVariable v(DataTypeToEnum<T>::value, std::string("scatter_") + op);
    const Tensor initial = RandomTensor<T>({5, 3}, 1, -10, 10);
    BOOST_REQUIRE(v.Assign(initial.DeepCopy()).ok());
    // Index 3 appears twice: adds accumulate, the last update wins.
    const std::vector<Index> idx = {3, 0, 3, 4};
    const Tensor updates = RandomTensor<T>({2, 2, 3}, 2, -10, 10);
    KernelRunner r(op);
    r.RefInput(v.storage(), v.mu()).Input(Tensor::FromVector<Index>(idx, {2, 2})).Input(updates);
    AF_REQUIRE_OK(r.Run().status());

    std::vector<double> want(15);
    for (int i = 0; i < 15; ++i) want[i] = ValueAsDouble(initial, i);
    for (size_t i = 0; i < idx.size(); ++i) {
      for (int j = 0; j < 3; ++j) {
        double& w = want[idx[i] * 3 + j];
        const double u = ValueAsDouble(updates, static_cast<int64_t>(i) * 3 + j);
        if (kind == Kind::kUpdate) w = u;
        if (kind == Kind::kAdd) w += u;
        if (kind == Kind::kSub) w -= u;
      }
    }
    AF_EXPECT_OK(CheckTensor(v.Value(), DataTypeToEnum<T>::value, {5, 3}, want, 1e-6, 1e-6));
  }
}

template <typename T>
void CheckAllScatters() {
  CheckScatter<T, int32_t>(Kind::kUpdate, "ScatterUpdate");
  CheckScatter<T, int64_t>(Kind::kUpdate, "ScatterUpdate");
  CheckScatter<T, int32_t>(Kind::kAdd, "ScatterAdd");
  CheckScatter<T, int64_t>(Kind::kAdd, "ScatterAdd");
  CheckScatter<T, int32_t>(Kind::kSub, "ScatterSub");
  CheckScatter<T, int64_t>(Kind::kSub, "ScatterSub");
}

BOOST_AUTO_TEST_SUITE(state_scatter)

BOOST_AUTO_TEST_CASE(float_double_int32_int64) {
  CheckAllScatters<float>();
  CheckAllScatters<double>();
  CheckAllScatters<int32_t>();
  CheckAllScatters<int64_t>();
}

BOOST_AUTO_TEST_CASE(a_scalar_update_goes_to_every_selected_element) {
  TestVariable v(DT_FLOAT, "scatter_scalar");
  BOOST_REQUIRE(v.Assign(Tensor::FromVector<float>({1, 2, 3, 4}, {2, 2})).ok());
  KernelRunner r("ScatterAdd");
  r.RefInput(v.storage(), v.mu()).Input(Tensor::FromVector<int32_t>({1})).Input(
      Tensor::Scalar<float>(10));
  AF_REQUIRE_OK(r.Run().status());
  AF_EXPECT_OK(CheckTensor(v.Value(), DT_FLOAT, {2, 2}, {1, 2, 13, 14}));
}

BOOST_AUTO_TEST_CASE(scatter_update_of_strings) {
  TestVariable v(DT_STRING, "scatter_strings");
  BOOST_REQUIRE(v.Assign(Tensor::FromVector<std::string>({"a", "b", "c"})).ok());
  KernelRunner r("ScatterUpdate");
  r.RefInput(v.storage(), v.mu()).Input(Tensor::FromVector<int64_t>({2, 0})).Input(
      Tensor::FromVector<std::string>({"z", "x"}));
  AF_REQUIRE_OK(r.Run().status());
  const std::string* s = v.storage()->data<std::string>();
  BOOST_TEST(s[0] == "x");
  BOOST_TEST(s[1] == "b");
  BOOST_TEST(s[2] == "z");
}

BOOST_AUTO_TEST_CASE(out_of_range_indices_change_nothing) {
  TestVariable v(DT_FLOAT, "scatter_range");
  BOOST_REQUIRE(v.Assign(Tensor::FromVector<float>({1, 2, 3})).ok());
  for (int64_t bad : {int64_t{3}, int64_t{-1}, int64_t{1} << 40}) {
    KernelRunner r("ScatterUpdate", "scatter");
    // The valid first index must not be applied either.
    r.RefInput(v.storage(), v.mu()).Input(Tensor::FromVector<int64_t>({0, bad})).Input(
        Tensor::FromVector<float>({9, 9}));
    Status s = r.Run().status();
    BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
    BOOST_CHECK_MESSAGE(s.message().find("indices[1] = " + std::to_string(bad) +
                                         " is not in [0, 3)") != std::string::npos,
                        s.message());
    BOOST_CHECK_MESSAGE(s.message().find("scatter") != std::string::npos, s.message());
  }
  AF_EXPECT_OK(CheckTensor(v.Value(), DT_FLOAT, {3}, {1, 2, 3}));
}

BOOST_AUTO_TEST_CASE(mismatched_updates_and_uninitialized_refs_fail) {
  TestVariable v(DT_FLOAT, "scatter_shapes");
  KernelRunner uninit("ScatterAdd");
  uninit.RefInput(v.storage(), v.mu()).Input(Tensor::FromVector<int32_t>({0})).Input(
      Tensor::FromVector<float>({1}));
  BOOST_TEST(uninit.Run().status().code() == Code::FAILED_PRECONDITION);

  BOOST_REQUIRE(v.Assign(Tensor::FromVector<float>({1, 2, 3, 4}, {2, 2})).ok());
  KernelRunner r("ScatterAdd");
  r.RefInput(v.storage(), v.mu()).Input(Tensor::FromVector<int32_t>({0})).Input(
      Tensor::FromVector<float>({1, 2, 3}));
  Status s = r.Run().status();
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT);
  BOOST_CHECK_MESSAGE(s.message().find("updates.shape = indices.shape + params.shape[1:]") !=
                          std::string::npos,
                      s.message());

  TestVariable scalar(DT_FLOAT, "scatter_scalar_ref");
  BOOST_REQUIRE(scalar.Assign(Tensor::Scalar<float>(1)).ok());
  KernelRunner r0("ScatterUpdate");
  r0.RefInput(scalar.storage(), scalar.mu()).Input(Tensor::FromVector<int32_t>({0})).Input(
      Tensor::FromVector<float>({1}));
  BOOST_TEST(r0.Run().status().code() == Code::INVALID_ARGUMENT);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::test
