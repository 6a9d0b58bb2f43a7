// examples/fashion_mnist trained by a real Slurm (issue 28): a one-node
// cluster of Debian's slurmctld, slurmd and munge on this machine
// (scripts/slurm-one-node.sh), and one `srun --multi-prog` job step whose
// rank 0 is `actorflow server` (the ps task) and ranks 1 and 2 are
// fashion_mnist workers. No task is told the cluster: each finds its job,
// index and port in SLURM_* as TensorFlow's SlurmClusterResolver would, and
// the ps task ends with its workers (--idle_exit_secs), so the step, and
// srun, end by themselves with 0. Skipped, saying why, where Slurm cannot
// start (not root, the packages missing).
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "tests/integration/fashion_mnist_test_util.h"
#include "tests/process_test_util.h"
#include "tests/temp_dir_test_util.h"

namespace af {
namespace {

using testing::Capture;
using testing::HaveFashionMnist;
using testing::JsonValue;
using testing::LastJsonLine;
using testing::TempDir;

const std::string kSlurmScript = std::string(AF_SOURCE_DIR) + "/scripts/slurm-one-node.sh";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The daemons of one test, stopped however the test ends.
class OneNodeSlurm {
 public:
  explicit OneNodeSlurm(std::string dir) : dir_(std::move(dir)) {
    output_ = Capture(kSlurmScript + " start " + dir_ + " 8", &code_);
  }
  ~OneNodeSlurm() {
    int code = 0;
    Capture(kSlurmScript + " stop " + dir_, &code);
  }
  bool cannot_start() const { return code_ == 2; }
  int code() const { return code_; }
  const std::string& output() const { return output_; }
  std::string conf() const { return dir_ + "/slurm.conf"; }
  std::string logs() const {
    return ReadFile(dir_ + "/log/slurmctld.log") + ReadFile(dir_ + "/log/slurmd.log");
  }

 private:
  std::string dir_, output_;
  int code_ = -1;
};

BOOST_AUTO_TEST_SUITE(slurm_training)

BOOST_AUTO_TEST_CASE(an_srun_job_step_of_a_ps_task_and_two_workers_trains_with_no_wrapper) {
  if (!HaveFashionMnist()) {
    BOOST_TEST_MESSAGE("skipped: " << testing::kFashionMnistDir
                                   << " is missing (apt install dataset-fashion-mnist)");
    return;
  }
  TempDir dir("af_slurm");
  OneNodeSlurm slurm(dir.path() + "/slurm");
  if (slurm.cannot_start()) {
    BOOST_TEST_MESSAGE("skipped: " << slurm.output());
    return;
  }
  BOOST_TEST_REQUIRE(slurm.code() == 0, slurm.output());

  // srun's own way to run different programs in one step: rank 0 the ps
  // task, ranks 1-2 the workers. Each task's output goes to its own file.
  const std::string programs = dir.path() + "/programs.conf";
  {
    std::ofstream conf(programs);
    conf << "0 " << AF_ACTORFLOW_BIN << " server --idle_exit_secs 2\n"
         << "1-2 " << AF_FASHION_MNIST_BIN
         << " --model mlp --threads 1 --progress false --max_examples 3000"
         << " --checkpoint_secs 0 --epochs 1 --protocol sync --logdir " << dir.path()
         << "/train\n";
  }
  std::string out;
  int code = -1;
  // A port base another process holds fails the step: another base is tried.
  for (int attempt = 0; attempt < 3 && code != 0; ++attempt) {
    const int base = 20000 + static_cast<int>((getpid() * 13 + attempt * 1009) % 20000);
    out = Capture("SLURM_CONF=" + slurm.conf() +
                      " ACTORFLOW_SLURM_JOBS=ps=1,worker=2 ACTORFLOW_SLURM_PORT_BASE=" +
                      std::to_string(base) + " timeout 300 srun -n 3 --time=4 --output=" +
                      dir.path() + "/task-%t.out --multi-prog " + programs,
                  &code);
  }
  const std::string ps = ReadFile(dir.path() + "/task-0.out");
  const std::string chief = ReadFile(dir.path() + "/task-1.out");
  const std::string worker = ReadFile(dir.path() + "/task-2.out");
  BOOST_TEST_REQUIRE(code == 0, out << ps << chief << worker << slurm.logs());

  // Each task found its place from Slurm's variables alone.
  BOOST_TEST(ps.find("device /job:ps/replica:0/task:0/device:CPU:0") != std::string::npos, ps);
  BOOST_TEST(ps.find("none has been open for 2 s (--idle_exit_secs)") != std::string::npos, ps);
  const JsonValue report = LastJsonLine(chief);
  BOOST_TEST(report["task"].string == "/job:worker/replica:0/task:0", chief);
  BOOST_TEST(report["ps"].number == 1);
  BOOST_TEST(report["workers"].number == 2);
  // 3,000 examples, 64 per gradient, 2 gradients per sync step.
  BOOST_TEST(report["global_step"].number == std::ceil(3000.0 / (64 * 2)), chief);
  BOOST_TEST_REQUIRE(report["test_acc"].array.size() == 1u, chief);
  BOOST_TEST(report["test_acc"].array.back().number > 0.6, chief);
  BOOST_TEST(LastJsonLine(worker)["task"].string == "/job:worker/replica:0/task:1", worker);
  BOOST_TEST_MESSAGE("the Slurm step's chief:\n" << chief.substr(chief.rfind("\n{") + 1));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
