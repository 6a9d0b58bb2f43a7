// The coordination protocols' rules with deterministic fakes (tests/client/
// coordination_test_util.h): a stale gradient dropped and counted exactly;
// sync averaging every worker's gradient per step; backup averaging exactly
// m per step and counting the rest, as a property over random (seeded)
// delays of worker threads; async applying everything; ssp's clock; and
// the factory's names and errors.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <cmath>
#include <future>
#include <limits>
#include <random>
#include <thread>
#include <vector>

#include "client/coordination/ssp_protocol.h"
#include "tests/client/coordination_test_util.h"
#include "tests/test_util.h"

namespace af::testing {
namespace {

BOOST_AUTO_TEST_SUITE(coordination_protocols)

BOOST_AUTO_TEST_CASE(the_factory_knows_the_protocols_and_names_bad_strings) {
  std::unique_ptr<CoordinationProtocol> p;
  for (const char* spec : {"async", "sync", "backup:0", "backup:2", "ssp:0", "ssp:3"}) {
    Status s = CreateCoordinationProtocol(spec, {}, &p);
    BOOST_TEST_REQUIRE(s.ok(), s);
    BOOST_TEST(p->name() == spec);
  }
  for (const char* spec : {"", "Sync", "sync:1", "backup", "backup:", "backup:-1", "backup:x",
                           "backup:1.5", "ssp:", "ssp:inf", "ssp:2x", "hogwild"}) {
    Status s = CreateCoordinationProtocol(spec, {}, &p);
    BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, spec);
    BOOST_TEST(Mentions(s, "'" + std::string(spec) + "'"), s);
    BOOST_TEST(Mentions(s, "async, sync, backup:B or ssp:S"), s);
  }
}

// What one global step applies, for trainings that count examples applied.
BOOST_AUTO_TEST_CASE(each_protocol_says_how_many_gradients_a_global_step_applies) {
  const std::pair<const char*, int64_t> expected[] = {
      {"async", 1}, {"ssp:2", 1}, {"sync", 3}, {"backup:1", 2}, {"backup:2", 1}};
  for (const auto& [spec, m] : expected) {
    std::unique_ptr<CoordinationProtocol> p;
    BOOST_TEST_REQUIRE(CreateCoordinationProtocol(spec, {}, &p).ok());
    BOOST_TEST(p->GradientsPerGlobalStep(3) == m, spec);
  }
}

BOOST_AUTO_TEST_CASE(build_refuses_what_the_protocol_cannot_run) {
  FakeWorker too_many_backups("backup:3", 0, 3, "bad_backup");
  BOOST_TEST(too_many_backups.status.code() == Code::INVALID_ARGUMENT);
  BOOST_TEST(Mentions(too_many_backups.status,
                      "coordination protocol 'backup:3' needs more than 3 workers; the "
                      "training has 3"),
             too_many_backups.status);
  FakeWorker outside("sync", 3, 3, "bad_index");
  BOOST_TEST(Mentions(outside.status, "worker_index 3 is outside 0..2"), outside.status);
  // A step before Start is refused, not run with a made-up local step.
  FakeWorker early("sync", 1, 2, "early");
  BOOST_TEST_REQUIRE(early.status.ok(), early.status);
  Status s = early.Step(1);
  BOOST_TEST(s.code() == Code::FAILED_PRECONDITION, s);
}

// backup:1 with three workers (m = 2): workers 0 and 1 make step 0; worker
// 2's gradient, computed at global step 0, comes after it and is dropped
// by both accumulators, and counted by worker 2 and by them.
BOOST_AUTO_TEST_CASE(a_stale_gradient_is_dropped_and_counted_exactly) {
  const std::string prefix = "stale";
  std::vector<std::unique_ptr<FakeWorker>> w;
  for (int i = 0; i < 3; ++i) {
    w.push_back(std::make_unique<FakeWorker>("backup:1", i, 3, prefix));
    BOOST_TEST_REQUIRE(w[i]->status.ok(), w[i]->status);
  }
  BOOST_TEST_REQUIRE(w[0]->Initialize().ok());
  for (auto& worker : w) BOOST_TEST_REQUIRE(worker->Start().ok());
  auto step0 = std::async(std::launch::async, [&] { return w[0]->Step(1); });
  auto step1 = std::async(std::launch::async, [&] { return w[1]->Step(2); });
  BOOST_TEST(step0.get().ok());
  BOOST_TEST(step1.get().ok());
  double combined = 0;
  int64_t global_step = -1;
  BOOST_TEST_REQUIRE(w[0]->Read(&combined, &global_step).ok());
  BOOST_TEST(global_step == 1);
  BOOST_TEST(combined == -kLearningRate * (1 + 2) / 2 * 2);  // w and b/10 moved alike
  // The straggler, still at local step 0.
  Status s = w[2]->Step(4);
  BOOST_TEST_REQUIRE(s.ok(), s);
  CoordinationStats late = w[2]->protocol->stats();
  BOOST_TEST(late.steps == 1);
  BOOST_TEST(late.gradients_applied == 0);
  BOOST_TEST(late.gradients_dropped == 2);
  BOOST_TEST(late.steps_dropped == 1);
  BOOST_TEST(late.global_step == 1);  // its token: it goes on from step 1
  BOOST_TEST(AccumulatorDrops(prefix, prefix + "_w") == 1);
  BOOST_TEST(AccumulatorDrops(prefix, prefix + "_b") == 1);
  BOOST_TEST_REQUIRE(w[0]->Read(&combined, &global_step).ok());
  BOOST_TEST(combined == -kLearningRate * 3);  // the stale gradient changed nothing
  for (int i = 0; i < 2; ++i) {
    BOOST_TEST(w[i]->protocol->stats().gradients_applied == 2);
    BOOST_TEST(w[i]->protocol->stats().gradients_dropped == 0);
  }
  BOOST_TEST(w[0]->protocol->stats().updates == 1);
  BOOST_TEST(w[0]->protocol->stats().replicas_to_aggregate == 2);
  BOOST_TEST(w[0]->protocol->stats().total_num_replicas == 3);
  BOOST_TEST(w[0]->protocol->Stop().ok());
  BOOST_REQUIRE(w[0]->session->Reset({}).ok());
}

struct Outcome {
  std::vector<CoordinationStats> stats;
  double combined = 0;
  int64_t global_step = 0;
  int64_t accumulator_drops = 0;
};

// `workers` threads run `spec` until they see global step `steps`, each
// sleeping a random (seeded) while before every step; worker 2 is a
// straggler. Worker i's gradient constant is 2^i.
Outcome Train(const std::string& spec, const std::string& prefix, int workers, int64_t steps,
              uint32_t seed, bool sparse_w = false) {
  Outcome outcome;
  std::vector<std::unique_ptr<FakeWorker>> w;
  for (int i = 0; i < workers; ++i) {
    w.push_back(std::make_unique<FakeWorker>(spec, i, workers, prefix, TestProtocolOptions(),
                                             sparse_w));
    BOOST_TEST_REQUIRE(w[i]->status.ok(), w[i]->status);
  }
  BOOST_TEST_REQUIRE(w[0]->Initialize().ok());
  for (auto& worker : w) BOOST_TEST_REQUIRE(worker->Start().ok());
  std::vector<std::future<Status>> running;
  for (int i = 0; i < workers; ++i) {
    running.push_back(std::async(std::launch::async, [&, i]() -> Status {
      std::mt19937 rng(seed + static_cast<uint32_t>(i));
      std::uniform_int_distribution<int> delay_us(0, i == 2 ? 6000 : 1500);
      while (w[i]->protocol->stats().global_step < steps) {
        std::this_thread::sleep_for(std::chrono::microseconds(delay_us(rng)));
        AF_RETURN_IF_ERROR(w[i]->Step(double(1 << i)));
      }
      return Status::OK();
    }));
  }
  for (auto& r : running) {
    Status s = r.get();
    BOOST_TEST(s.ok(), s);
  }
  BOOST_TEST(w[0]->protocol->Stop().ok());
  for (auto& worker : w) outcome.stats.push_back(worker->protocol->stats());
  BOOST_TEST(w[0]->Read(&outcome.combined, &outcome.global_step).ok());
  outcome.accumulator_drops =
      AccumulatorDrops(prefix, prefix + "_w") + AccumulatorDrops(prefix, prefix + "_b");
  BOOST_REQUIRE(w[0]->session->Reset({}).ok());
  return outcome;
}

// The rule of sync and backup: per step, exactly m gradients of every
// variable are averaged; the others are dropped, and counted by exactly
// one worker each. With gradient constants 2^i the final weights tell
// whose gradients went in and what they were divided by.
void CheckExactlyMPerStep(const std::string& spec, int workers, int m, uint32_t seed,
                          bool sparse_w = false) {
  constexpr int64_t kSteps = 12;
  const std::string prefix = std::string(spec == "sync" ? "sync_m" : "backup_m") +
                             (sparse_w ? "_sparse" : "");
  const Outcome o = Train(spec, prefix, workers, kSteps, seed, sparse_w);
  BOOST_TEST(o.global_step == kSteps);
  int64_t applied = 0, dropped = 0, computed = 0;
  double weighted = 0;  // sum over kept gradients of their constant
  for (int i = 0; i < workers; ++i) {
    const CoordinationStats& s = o.stats[i];
    BOOST_TEST(s.global_step == kSteps, "worker " << i);
    BOOST_TEST(s.gradients_applied + s.gradients_dropped == 2 * s.steps);
    applied += s.gradients_applied;
    dropped += s.gradients_dropped;
    computed += 2 * s.steps;
    weighted += double(1 << i) * s.gradients_applied;
  }
  BOOST_TEST(applied == 2 * m * kSteps, spec);  // two variables
  BOOST_TEST(dropped == computed - applied);
  BOOST_TEST(o.accumulator_drops == dropped);
  BOOST_TEST(o.stats[0].updates == kSteps);
  // Each kept gradient moved w + b/10 by -lr * 2 * c / m.
  const double expected = -kLearningRate * weighted / m;
  BOOST_TEST(std::abs(o.combined - expected) <= 1e-9 * std::abs(expected),
             spec << ": " << o.combined << " vs " << expected);
  if (m == workers) BOOST_TEST(dropped == 0);
  BOOST_TEST_MESSAGE(spec << ": " << applied << " gradients applied, " << dropped
                          << " dropped; worker 2: " << o.stats[2].ToString());
}

BOOST_AUTO_TEST_CASE(sync_averages_one_gradient_of_every_worker_per_step) {
  CheckExactlyMPerStep("sync", 3, 3, 7);
}

BOOST_AUTO_TEST_CASE(backup_applies_exactly_m_per_step_and_counts_the_rest) {
  for (uint32_t seed : {11u, 12u, 13u}) CheckExactlyMPerStep("backup:1", 3, 2, seed);
  CheckExactlyMPerStep("backup:2", 3, 1, 21);
}

// A gathered variable's gradient stays rows through a sparse accumulator
// (SparseAccumulatorTryApplyGradient), with the same exact counts.
BOOST_AUTO_TEST_CASE(sync_and_backup_carry_sparse_gradients_with_exact_drop_counts) {
  {
    FakeWorker chief("sync", 0, 3, "sparse_probe", TestProtocolOptions(), /*sparse_w=*/true);
    BOOST_TEST_REQUIRE(chief.status.ok(), chief.status);
    int sparse_applies = 0, dense_applies = 0, deduplications = 0;
    for (const Node* n : chief.root.graph()->nodes()) {
      sparse_applies += n->type_string() == "SparseAccumulatorTryApplyGradient";
      dense_applies += n->type_string() == "AccumulatorTryApplyGradient";
      deduplications += n->type_string() == "Unique";
    }
    BOOST_TEST(sparse_applies == 1);  // w
    BOOST_TEST(dense_applies == 1);   // b
    // The take's rows are distinct already: the chief's update uses them as they are.
    BOOST_TEST(deduplications == 0);
  }
  CheckExactlyMPerStep("sync", 3, 3, 31, /*sparse_w=*/true);
  CheckExactlyMPerStep("backup:1", 3, 2, 32, /*sparse_w=*/true);
}

// Elastic sync: worker 2 stops after two steps. The chief's next
// aggregation times out with two gradients held; it goes on with 2 of 2
// replicas, and the two workers left train until the global step is 5, as
// a TensorFlow training loop does.
//
// Tokens belong to no worker (as in TensorFlow): a worker that finishes its
// next step before another has asked for its token may take that one too,
// and contribute two gradients to the next update. So which gradients meet
// in which update depends on the scheduler (a loaded `ctest -j2` showed it),
// and the values are chosen so that the result does not: workers 0 and 1
// send 1, worker 2 sends 4. Worker 2's two gradients fall into updates of 3
// (it has stopped before anyone shrinks), so R updates of 3 sum to
// (8 + (3R - 2)) / 3 = R + 2 and the 5 - R updates of 2 to 5 - R: 7 in all,
// whatever R and whoever took which token. A wrong divisor after the shrink,
// a lost or a dropped gradient all change it.
BOOST_AUTO_TEST_CASE(sync_shrinks_to_the_workers_left_after_the_deadline) {
  ProtocolOptions options = TestProtocolOptions();
  // Long enough that a live worker slowed by a loaded machine (ctest -j2
  // beside the cluster tests) is not taken for lost: 1 s once dropped
  // worker 1 as well.
  options.aggregation_timeout_ms = 3000;
  std::vector<std::unique_ptr<FakeWorker>> w;
  for (int i = 0; i < 3; ++i) {
    w.push_back(std::make_unique<FakeWorker>("sync", i, 3, "shrink", options));
    BOOST_TEST_REQUIRE(w[i]->status.ok(), w[i]->status);
  }
  BOOST_TEST_REQUIRE(w[0]->Initialize().ok());
  for (auto& worker : w) BOOST_TEST_REQUIRE(worker->Start().ok());
  std::vector<std::future<Status>> running;
  for (int i = 0; i < 3; ++i) {
    running.push_back(std::async(std::launch::async, [&, i]() -> Status {
      if (i == 2) {
        for (int step = 0; step < 2; ++step) AF_RETURN_IF_ERROR(w[i]->Step(4));
        return Status::OK();
      }
      while (w[i]->protocol->stats().global_step < 5) AF_RETURN_IF_ERROR(w[i]->Step(1));
      return Status::OK();
    }));
  }
  for (auto& r : running) {
    Status s = r.get();
    BOOST_TEST(s.ok(), s);
  }
  BOOST_TEST(w[0]->protocol->Stop().ok());
  const CoordinationStats chief = w[0]->protocol->stats();
  BOOST_TEST(chief.updates == 5);
  BOOST_TEST(chief.replicas_to_aggregate == 2);
  BOOST_TEST(chief.total_num_replicas == 2);
  double combined = 0;
  int64_t step = 0;
  BOOST_TEST_REQUIRE(w[0]->Read(&combined, &step).ok());
  BOOST_TEST(step == 5);
  const double expected = -kLearningRate * 2 * 7;
  BOOST_TEST(std::abs(combined - expected) <= 1e-9, combined << " vs " << expected);
  for (auto& worker : w) BOOST_TEST(worker->protocol->stats().gradients_dropped == 0);
  BOOST_REQUIRE(w[0]->session->Reset({}).ok());
}

// The shrink above, then a replacement for worker 2 (a new process: its own
// graph and session) joins: its steps show in the workers' last steps, and
// the chief grows m and n back to 3 of 3. The workers train on until six
// global steps after the replacement's first step.
BOOST_AUTO_TEST_CASE(sync_grows_back_when_a_replacement_worker_joins) {
  ProtocolOptions options = TestProtocolOptions();
  options.aggregation_timeout_ms = 3000;  // as above
  std::vector<std::unique_ptr<FakeWorker>> w;
  for (int i = 0; i < 3; ++i) {
    w.push_back(std::make_unique<FakeWorker>("sync", i, 3, "grow", options));
    BOOST_TEST_REQUIRE(w[i]->status.ok(), w[i]->status);
  }
  BOOST_TEST_REQUIRE(w[0]->Initialize().ok());
  for (auto& worker : w) BOOST_TEST_REQUIRE(worker->Start().ok());
  // Until the replacement's first step, the training goes on without end.
  std::atomic<int64_t> last_step{std::numeric_limits<int64_t>::max()};
  const auto train = [&](const FakeWorker& worker) -> Status {
    while (worker.protocol->stats().global_step < last_step) {
      AF_RETURN_IF_ERROR(worker.Step(1));
      int64_t endless = std::numeric_limits<int64_t>::max();
      if (&worker != w[0].get() && &worker != w[1].get()) {
        last_step.compare_exchange_strong(endless, worker.protocol->stats().global_step + 6);
      }
    }
    return Status::OK();
  };
  std::vector<std::future<Status>> running;
  for (int i = 0; i < 2; ++i) {
    running.push_back(std::async(std::launch::async, [&, i] { return train(*w[i]); }));
  }
  // Worker 2 makes two steps and is lost; the chief shrinks to 2 of 2.
  for (int step = 0; step < 2; ++step) BOOST_TEST_REQUIRE(w[2]->Step(1).ok());
  const auto shrunk_by = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (w[0]->protocol->stats().total_num_replicas != 2 &&
         std::chrono::steady_clock::now() < shrunk_by) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const bool shrunk = w[0]->protocol->stats().total_num_replicas == 2;
  BOOST_TEST(shrunk);
  BOOST_TEST(w[0]->protocol->stats().replicas_to_aggregate == 2);

  auto replacement = std::make_unique<FakeWorker>("sync", 2, 3, "grow", options);
  BOOST_TEST(replacement->status.ok(), replacement->status);
  Status started = replacement->status.ok() ? replacement->Start() : replacement->status;
  BOOST_TEST(started.ok(), started);
  if (started.ok() && shrunk) {
    running.push_back(std::async(std::launch::async, [&] { return train(*replacement); }));
  } else {
    last_step = 0;  // ends the others
  }
  for (auto& r : running) {
    Status s = r.get();
    BOOST_TEST(s.ok(), s);
  }
  BOOST_TEST(w[0]->protocol->Stop().ok());
  const CoordinationStats chief = w[0]->protocol->stats();
  BOOST_TEST(chief.replicas_to_aggregate == 3);
  BOOST_TEST(chief.total_num_replicas == 3);
  BOOST_TEST(replacement->protocol->stats().gradients_applied > 0);
  BOOST_REQUIRE(w[0]->session->Reset({}).ok());
}

// async, driven in turns so the updates do not race (plain SGD does not
// lock, as in TensorFlow): every gradient reaches the model at once.
BOOST_AUTO_TEST_CASE(async_applies_every_gradient_as_it_comes) {
  std::vector<std::unique_ptr<FakeWorker>> w;
  for (int i = 0; i < 2; ++i) {
    w.push_back(std::make_unique<FakeWorker>("async", i, 2, "async"));
    BOOST_TEST_REQUIRE(w[i]->status.ok(), w[i]->status);
  }
  BOOST_TEST_REQUIRE(w[0]->Initialize().ok());
  for (auto& worker : w) BOOST_TEST_REQUIRE(worker->Start().ok());
  for (int round = 0; round < 5; ++round) {
    BOOST_TEST_REQUIRE(w[0]->Step(1).ok());
    BOOST_TEST_REQUIRE(w[1]->Step(2).ok());
    BOOST_TEST_REQUIRE(w[1]->Step(2).ok());  // worker 1 is twice as fast
  }
  double combined = 0;
  int64_t step = 0;
  BOOST_TEST_REQUIRE(w[0]->Read(&combined, &step).ok());
  BOOST_TEST(step == 15);
  BOOST_TEST(combined == -kLearningRate * 2 * (5 * 1 + 10 * 2));
  BOOST_TEST(w[0]->protocol->stats().gradients_applied == 10);
  BOOST_TEST(w[1]->protocol->stats().gradients_applied == 20);
  BOOST_TEST(w[1]->protocol->stats().gradients_dropped == 0);
  BOOST_TEST(w[1]->protocol->stats().global_step == 15);
  BOOST_REQUIRE(w[0]->session->Reset({}).ok());
}

// ssp:1 in the protocol: every worker runs its steps, the clock numbers
// them, nothing is dropped. (The bound itself is a property test of the
// clock: tests/actors/staleness_clock_session_test.cc.)
BOOST_AUTO_TEST_CASE(ssp_ticks_the_clock_after_every_update) {
  constexpr int kWorkers = 3;
  constexpr int64_t kSteps = 8;
  std::vector<std::unique_ptr<FakeWorker>> w;
  for (int i = 0; i < kWorkers; ++i) {
    w.push_back(std::make_unique<FakeWorker>("ssp:1", i, kWorkers, "ssp"));
    BOOST_TEST_REQUIRE(w[i]->status.ok(), w[i]->status);
  }
  BOOST_TEST_REQUIRE(w[0]->Initialize().ok());
  std::vector<std::future<Status>> running;
  for (int i = 0; i < kWorkers; ++i) {
    BOOST_TEST_REQUIRE(w[i]->Start().ok());
    running.push_back(std::async(std::launch::async, [&, i]() -> Status {
      for (int64_t step = 0; step < kSteps; ++step) {
        std::this_thread::sleep_for(std::chrono::microseconds(i == 0 ? 2000 : 200));
        AF_RETURN_IF_ERROR(w[i]->Step(1));
        // The clock says which step the worker may start now.
        const int64_t clock = dynamic_cast<SspProtocol&>(*w[i]->protocol).clock();
        if (clock != step + 1) return errors::Internal("worker ", i, " clock ", clock);
      }
      return Status::OK();
    }));
  }
  for (auto& r : running) {
    Status s = r.get();
    BOOST_TEST(s.ok(), s);
  }
  for (int i = 0; i < kWorkers; ++i) {
    const CoordinationStats s = w[i]->protocol->stats();
    BOOST_TEST(s.steps == kSteps);
    BOOST_TEST(s.gradients_applied == 2 * kSteps);
    BOOST_TEST(s.gradients_dropped == 0);
    BOOST_TEST(s.global_step > 0);
  }
  BOOST_REQUIRE(w[0]->session->Reset({}).ok());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::testing
