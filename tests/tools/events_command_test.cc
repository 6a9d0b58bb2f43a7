// `actorflow events`, on event files written by client/summary_writer.h:
// every event printed with its step, tags and values, a log directory read
// file by file in name order, and damaged or missing files reported with
// their status and exit code 1.
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "client/summary_writer.h"
#include "core/io/record_writer.h"
#include "tests/process_test_util.h"
#include "tests/temp_dir_test_util.h"
#include "tests/test_util.h"

namespace af {
namespace {

using Result = testing::CommandResult;
using testing::TempDir;

Result Events(const std::string& args) {
  return testing::RunCommand(std::string(AF_ACTORFLOW_BIN) + " events " + args);
}

using testing::Contains;

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

#define AF_TOOLS_REQUIRE_OK(expr)                        \
  do {                                                   \
    const ::af::Status af_s_ = (expr);                   \
    BOOST_REQUIRE_MESSAGE(af_s_.ok(), af_s_.ToString()); \
  } while (0)

tensorflow::GraphDef TwoNodeGraph() {
  tensorflow::GraphDef graph;
  graph.add_node()->set_name("x");
  graph.mutable_node(0)->set_op("Placeholder");
  graph.add_node()->set_name("y");
  graph.mutable_node(1)->set_op("Identity");
  graph.mutable_node(1)->add_input("x");
  return graph;
}

// One summary with a scalar, a histogram and an image.
tensorflow::Summary MixedSummary() {
  tensorflow::Summary summary;
  auto* accuracy = summary.add_value();
  accuracy->set_tag("accuracy");
  accuracy->set_simple_value(0.75f);
  auto* weights = summary.add_value();
  weights->set_tag("weights");
  tensorflow::HistogramProto* h = weights->mutable_histo();
  h->set_min(1);
  h->set_max(4);
  h->set_num(4);
  h->set_sum(10);
  h->add_bucket_limit(2);
  h->add_bucket_limit(4);
  h->add_bucket(2);
  h->add_bucket(2);
  auto* digits = summary.add_value();
  digits->set_tag("digits");
  tensorflow::Summary::Image* image = digits->mutable_image();
  image->set_height(2);
  image->set_width(3);
  image->set_colorspace(1);
  image->set_encoded_image_string("0123456789");
  return summary;
}

// A training run's events: graph, two losses, a mixed summary, a stop.
std::string WriteRun(const std::string& logdir) {
  std::unique_ptr<SummaryWriter> writer;
  AF_TOOLS_REQUIRE_OK(SummaryWriter::Create(logdir, &writer));
  AF_TOOLS_REQUIRE_OK(writer->AddGraph(TwoNodeGraph()));
  AF_TOOLS_REQUIRE_OK(writer->AddScalar("loss", 0.5f, 1));
  AF_TOOLS_REQUIRE_OK(writer->AddScalar("loss", 0.25f, 2));
  AF_TOOLS_REQUIRE_OK(writer->AddSummary(MixedSummary(), 3));
  tensorflow::Event stop;
  stop.set_step(4);
  stop.mutable_session_log()->set_status(tensorflow::SessionLog::STOP);
  AF_TOOLS_REQUIRE_OK(writer->AddEvent(stop));
  AF_TOOLS_REQUIRE_OK(writer->Close());
  return writer->path();
}

// What `actorflow events` prints for WriteRun's file.
std::string RunListing(const std::string& path) {
  return path + "\n" +
         "  step 0  file_version brain.Event:2\n"
         "  step 0  graph 2 nodes (" +
         std::to_string(TwoNodeGraph().SerializeAsString().size()) +
         " bytes)\n"
         "  step 1  summary  loss=0.5\n"
         "  step 2  summary  loss=0.25\n"
         "  step 3  summary  accuracy=0.75  weights histogram(num=4 min=1 max=4 mean=2.5 "
         "buckets=2)  digits image(2x3x1, 10 bytes)\n"
         "  step 4  session_log STOP\n"
         "  6 events, all CRCs valid\n";
}

BOOST_AUTO_TEST_SUITE(events_command)

BOOST_AUTO_TEST_CASE(prints_every_event_with_step_tags_and_values) {
  TempDir dir("af_events");
  const std::string file = WriteRun(dir.path());
  const Result r = Events(file);
  BOOST_TEST_INFO(r.output);
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(r.output == RunListing(file));
}

BOOST_AUTO_TEST_CASE(a_log_directory_is_read_file_by_file_in_name_order) {
  TempDir dir("af_events");
  const std::string run = WriteRun(dir.path());
  SummaryWriterOptions options;
  options.filename_suffix = ".eval";
  std::unique_ptr<SummaryWriter> eval;
  AF_TOOLS_REQUIRE_OK(SummaryWriter::Create(dir.path(), options, &eval));
  AF_TOOLS_REQUIRE_OK(eval->AddScalar("eval/accuracy", 0.875f, 7));
  AF_TOOLS_REQUIRE_OK(eval->Close());
  // Neither a file without "tfevents" in its name nor a directory is read.
  WriteBytes(dir.path() + "/notes.txt", "not events");
  std::filesystem::create_directory(dir.path() + "/old.tfevents.d");

  const std::string eval_listing = eval->path() + "\n" +
                                   "  step 0  file_version brain.Event:2\n"
                                   "  step 7  summary  eval/accuracy=0.875\n"
                                   "  2 events, all CRCs valid\n";
  const std::string expected = run < eval->path() ? RunListing(run) + eval_listing
                                                  : eval_listing + RunListing(run);
  const Result r = Events(dir.path());
  BOOST_TEST_INFO(r.output);
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(r.output == expected);
}

BOOST_AUTO_TEST_CASE(damaged_files_print_what_precedes_then_data_loss) {
  TempDir dir("af_events");
  const std::string file = WriteRun(dir.path());
  const std::string bytes = ReadBytes(file);

  // The last payload byte flipped: the session_log record fails its CRC.
  std::string flipped = bytes;
  flipped[flipped.size() - 5] = static_cast<char>(flipped[flipped.size() - 5] ^ 0x20);
  WriteBytes(file, flipped);
  Result r = Events(file);
  BOOST_TEST_INFO(r.output);
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(Contains(r.output, "  step 3  summary  accuracy=0.75"));
  BOOST_TEST(!Contains(r.output, "session_log"));
  BOOST_TEST(Contains(r.output, "actorflow events: DATA_LOSS"));
  BOOST_TEST(Contains(r.output, file));
  BOOST_TEST(!Contains(r.output, "all CRCs valid"));

  // Cut inside the last record.
  WriteBytes(file, bytes.substr(0, bytes.size() - 3));
  r = Events(file);
  BOOST_TEST_INFO(r.output);
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(Contains(r.output, "  step 2  summary  loss=0.25"));
  BOOST_TEST(Contains(r.output, "DATA_LOSS"));

  // Intact framing around a payload that is not an Event.
  std::string not_event;
  AppendRecord("\xff\xff\xff", &not_event);
  const std::string odd = dir.path() + "/events.out.tfevents.odd";
  WriteBytes(odd, not_event);
  r = Events(odd);
  BOOST_TEST_INFO(r.output);
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(Contains(r.output, "DATA_LOSS"));
  BOOST_TEST(Contains(r.output, "not an Event"));

  // A text file is no record file at all.
  const std::string text = dir.path() + "/notes.txt";
  WriteBytes(text, "these are not the events you are looking for\n");
  r = Events(text);
  BOOST_TEST_INFO(r.output);
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(Contains(r.output, "DATA_LOSS"));
}

BOOST_AUTO_TEST_CASE(missing_files_empty_directories_and_usage) {
  TempDir dir("af_events");
  const std::string missing = dir.path() + "/events.out.tfevents.missing";
  Result r = Events(missing);
  BOOST_TEST_INFO(r.output);
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(Contains(r.output, "actorflow events: NOT_FOUND"));
  BOOST_TEST(Contains(r.output, missing));

  r = Events(dir.path());
  BOOST_TEST_INFO(r.output);
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(Contains(r.output, "NOT_FOUND"));
  BOOST_TEST(Contains(r.output, "no event files"));

  r = Events("");
  BOOST_TEST(r.exit_code == 2);
  BOOST_TEST(Contains(r.output, "usage: actorflow events FILE|LOGDIR"));
  r = Events(dir.path() + " " + dir.path());
  BOOST_TEST(r.exit_code == 2);

  r = testing::RunCommand(std::string(AF_ACTORFLOW_BIN) + " help");
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(Contains(r.output, "events"));
  r = testing::RunCommand(std::string(AF_ACTORFLOW_BIN) + " help events");
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(Contains(r.output, "usage: actorflow events"));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
