// StepTimer: decides when a periodic hook acts, every N global steps or
// every S seconds (TensorFlow's SecondOrStepTimer). Hooks trigger on the
// global step, not on calls to Run, so that a recovery (which may move the
// global step back to a checkpoint's) and several workers sharing one step
// counter behave as TensorFlow's do.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <utility>

namespace af {

class StepTimer {
 public:
  using Clock = std::chrono::steady_clock;

  // Either bound may be 0 (off); with both 0 the timer never triggers.
  StepTimer(double every_secs, int64_t every_steps)
      : every_secs_(every_secs), every_steps_(every_steps) {}

  bool enabled() const { return every_secs_ > 0 || every_steps_ > 0; }

  // True for the first step seen, then once every_steps steps or
  // every_secs seconds passed since the last triggered step.
  bool ShouldTrigger(int64_t global_step) const {
    if (!enabled()) return false;
    if (!last_step_) return true;
    if (*last_step_ == global_step) return false;
    if (every_steps_ > 0 && global_step >= *last_step_ + every_steps_) return true;
    if (every_secs_ > 0 &&
        std::chrono::duration<double>(Clock::now() - last_time_).count() >= every_secs_)
      return true;
    // The global step went back (restored from an older checkpoint): start
    // counting from there.
    return global_step < *last_step_;
  }

  // Records a trigger at `global_step`; returns the seconds and steps since
  // the previous one (0 and 0 the first time).
  std::pair<double, int64_t> Update(int64_t global_step) {
    const Clock::time_point now = Clock::now();
    std::pair<double, int64_t> elapsed{0.0, 0};
    if (last_step_) {
      elapsed = {std::chrono::duration<double>(now - last_time_).count(),
                 global_step - *last_step_};
    }
    last_step_ = global_step;
    last_time_ = now;
    return elapsed;
  }

  std::optional<int64_t> last_triggered_step() const { return last_step_; }

 private:
  double every_secs_;
  int64_t every_steps_;
  std::optional<int64_t> last_step_;
  Clock::time_point last_time_;
};

}  // namespace af
