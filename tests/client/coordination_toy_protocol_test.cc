// The worked example of docs/coordination.md: a new coordination protocol
// written against client/coordination/coordination_protocol.h, registered
// with the factory and selected by its name like the built-in ones.
//
// "every:K" — each worker computes a gradient every step but applies only
// every K-th one, directly (as async does); the others are dropped and
// counted. A toy, but it uses every part of the interface: Build adds the
// ops, BeforeStep picks what each step runs, AfterStep counts, stats()
// reports.
#include <boost/test/unit_test.hpp>

#include <charconv>
#include <memory>
#include <string>
#include <vector>

#include "client/coordination/coordination_protocol.h"
#include "tests/client/coordination_test_util.h"

namespace af::testing {
namespace {

class EveryKthProtocol : public CoordinationProtocol {
 public:
  explicit EveryKthProtocol(int64_t k) : k_(k) {}

  std::string name() const override { return "every:" + std::to_string(k_); }

  // Graph time: the plain update (with the global step), and the
  // gradients, which a step that drops them still computes.
  Status Build(const Scope& scope, const std::vector<GradAndVar>& grads_and_vars,
               const ReplicaContext& replica) override {
    AF_RETURN_IF_ERROR(ValidateReplicaContext(name(), replica, /*needs_global_step=*/false));
    for (const auto& [grad, var] : grads_and_vars) {
      if (grad.valid()) gradients_.push_back(grad.dense());
    }
    return replica.optimizer->ApplyGradients(scope, grads_and_vars, replica.global_step,
                                             &update_);
  }

  // Step time: the K-th step runs the update; the others only fetch the
  // gradients (computed, then thrown away).
  Status BeforeStep(ClientSession&, ProtocolStepArgs* args) override {
    applying_ = step_ % k_ == k_ - 1;
    if (applying_) {
      args->targets.push_back(update_);
    } else {
      args->fetches.insert(args->fetches.end(), gradients_.begin(), gradients_.end());
    }
    return Status::OK();
  }

  Status AfterStep(ClientSession&, const std::vector<Tensor>&) override {
    ++step_;
    const int64_t n = static_cast<int64_t>(gradients_.size());
    RecordStep(applying_ ? n : 0, applying_ ? 0 : n, /*global_step=*/-1);
    return Status::OK();
  }

 private:
  const int64_t k_;
  std::vector<Output> gradients_;
  Operation update_;
  int64_t step_ = 0;
  bool applying_ = false;
};

// --protocol every:K, next to the built-in ones.
Status RegisterEveryKth() {
  return RegisterCoordinationProtocol(
      "every", [](std::string_view spec, std::string_view argument, const ProtocolOptions&,
                  std::unique_ptr<CoordinationProtocol>* out) -> Status {
        int64_t k = 0;
        auto [end, ec] = std::from_chars(argument.data(), argument.data() + argument.size(), k);
        if (ec != std::errc() || end != argument.data() + argument.size() || k < 1) {
          return errors::InvalidArgument("coordination protocol '", spec,
                                         "': K must be a whole number >= 1");
        }
        *out = std::make_unique<EveryKthProtocol>(k);
        return Status::OK();
      });
}

BOOST_AUTO_TEST_CASE(a_new_protocol_is_selected_by_name_and_follows_its_rule) {
  Status s = RegisterEveryKth();
  BOOST_TEST_REQUIRE(s.ok(), s);
  s = RegisterEveryKth();
  BOOST_TEST(s.code() == Code::ALREADY_EXISTS, s);
  BOOST_TEST(RegisterCoordinationProtocol("sync", [](auto&&...) { return Status::OK(); })
                 .code() == Code::ALREADY_EXISTS);
  std::unique_ptr<CoordinationProtocol> bad;
  s = CreateCoordinationProtocol("every:0", {}, &bad);
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, s);

  FakeWorker worker("every:3", 0, 1, "every");
  BOOST_TEST_REQUIRE(worker.status.ok(), worker.status);
  BOOST_TEST(worker.protocol->name() == "every:3");
  BOOST_TEST_REQUIRE(worker.Initialize().ok());
  BOOST_TEST_REQUIRE(worker.Start().ok());
  for (int step = 0; step < 9; ++step) BOOST_TEST_REQUIRE(worker.Step(1).ok());
  double combined = 0;
  int64_t global_step = -1;
  BOOST_TEST_REQUIRE(worker.Read(&combined, &global_step).ok());
  BOOST_TEST(global_step == 3);  // steps 3, 6 and 9 applied
  BOOST_TEST(combined == -kLearningRate * 2 * 3);
  const CoordinationStats stats = worker.protocol->stats();
  BOOST_TEST(stats.steps == 9);
  BOOST_TEST(stats.gradients_applied == 6);
  BOOST_TEST(stats.gradients_dropped == 12);
  BOOST_TEST(stats.steps_dropped == 6);
  BOOST_TEST(worker.protocol->Stop().ok());
  BOOST_REQUIRE(worker.session->Reset({}).ok());
}

}  // namespace
}  // namespace af::testing
