// examples/fashion_mnist end to end on the real data set (skipped when
// Debian's dataset-fashion-mnist is absent): a short run on 1,000 examples
// whose loss falls, its event file, checkpoints and trace, and a second
// start on the same logdir that resumes instead of starting over.
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "client/event_file_reader.h"
#include "proto/event.pb.h"
#include "tests/client/json_test_util.h"
#include "tests/integration/fashion_mnist_test_util.h"
#include "tests/process_test_util.h"
#include "tests/temp_dir_test_util.h"

namespace af {
namespace {

using testing::JsonParser;
using testing::JsonValue;
using testing::Capture;
using testing::TempDir;
namespace fs = std::filesystem;

using testing::HaveFashionMnist;
using testing::LastJsonLine;
constexpr const char* kDataDir = testing::kFashionMnistDir;

std::string Trainer(const std::string& logdir, const std::string& extra) {
  return std::string(AF_FASHION_MNIST_BIN) +
         " --model cnn --max_examples 1000 --batch 50 --threads 2 --progress false"
         " --checkpoint_secs 0 --logdir " + logdir + " " + extra;
}

BOOST_AUTO_TEST_CASE(short_cnn_run_learns_writes_events_and_resumes) {
  if (!HaveFashionMnist()) {
    BOOST_TEST_MESSAGE("skipped: " << kDataDir << " is missing (apt install dataset-fashion-mnist)");
    return;
  }
  TempDir dir;
  const std::string trace = dir.path() + "/step.json";
  int code = 0;
  std::string out = Capture(Trainer(dir.path(), "--epochs 3 --trace " + trace), &code);
  BOOST_TEST_REQUIRE(code == 0, out);
  JsonValue report = LastJsonLine(out);
  const auto& losses = report["train_loss"].array;
  BOOST_TEST_REQUIRE(losses.size() == 3u, out);
  BOOST_TEST(losses[2].number < 0.8 * losses[0].number, out);
  BOOST_TEST(report["test_acc"].array.back().number > 0.6, out);
  BOOST_TEST(report["global_step"].number == 60);  // 3 epochs of 1000 / 50

  // Event file: version first, the graph, loss curve, accuracy, histograms
  // and the first layer's filters as images.
  std::string events_file;
  for (const auto& entry : fs::directory_iterator(dir.path()))
    if (entry.path().filename().string().rfind("events.out.tfevents.", 0) == 0)
      events_file = entry.path().string();
  BOOST_TEST_REQUIRE(!events_file.empty());
  std::vector<tensorflow::Event> events;
  Status s = ReadEventFile(events_file, &events);
  BOOST_TEST_REQUIRE(s.ok(), s);
  BOOST_TEST_REQUIRE(!events.empty());
  BOOST_TEST(events[0].file_version() == "brain.Event:2");
  bool graph = false;
  std::set<std::string> tags;
  int images = 0;
  for (const auto& e : events) {
    graph = graph || e.has_graph_def();
    if (!e.has_summary()) continue;
    for (const auto& v : e.summary().value()) {
      tags.insert(v.tag());
      if (v.has_image()) ++images;
    }
  }
  BOOST_TEST(graph);
  BOOST_TEST(tags.count("loss") == 1u);
  BOOST_TEST(tags.count("test_accuracy") == 1u);
  BOOST_TEST(tags.count("cnn/conv1/weights") == 1u);
  BOOST_TEST(images >= 32);

  // The trace parses and holds the step's nodes.
  std::ifstream trace_in(trace);
  std::stringstream trace_text;
  trace_text << trace_in.rdbuf();
  JsonValue trace_json;
  std::string error;
  BOOST_TEST_REQUIRE(JsonParser::Parse(trace_text.str(), &trace_json, &error), error);
  BOOST_TEST(trace_json["traceEvents"].array.size() > 20u);

  // Checkpoints, then a restart with more epochs continues from step 60.
  BOOST_TEST(fs::exists(dir.path() + "/checkpoint"));
  out = Capture(Trainer(dir.path(), "--epochs 4"), &code);
  BOOST_TEST_REQUIRE(code == 0, out);
  BOOST_TEST(out.find("resumed from") != std::string::npos, out);
  report = LastJsonLine(out);
  BOOST_TEST(report["global_step"].number == 80, out);
  BOOST_TEST(report["test_acc"].array.size() == 1u, out);
}

BOOST_AUTO_TEST_CASE(bad_flags_are_named) {
  int code = 0;
  std::string out = Capture(std::string(AF_FASHION_MNIST_BIN) + " --model resnet", &code);
  BOOST_TEST(code == 2);
  BOOST_TEST(out.find("--model") != std::string::npos, out);
  out = Capture(std::string(AF_FASHION_MNIST_BIN) + " --data_dir /nonexistent --max_examples 10 "
                "--progress false", &code);
  BOOST_TEST(code == 1);
  BOOST_TEST(out.find("/nonexistent") != std::string::npos, out);
}

}  // namespace
}  // namespace af
