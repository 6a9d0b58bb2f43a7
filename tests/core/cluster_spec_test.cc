#include <boost/test/unit_test.hpp>

#include <limits>
#include <string>
#include <vector>

#include "core/cluster_spec.h"
#include "core/json_value.h"

namespace af {
namespace {

constexpr std::string_view kFlag =
    "ps=ps0.example.com:2222,ps1.example.com:2222;"
    "worker=w0.example.com:2222,w1.example.com:2222,w2.example.com:2222";

constexpr std::string_view kTfConfig = R"({
  "cluster": {
    "worker": ["w0.example.com:2222", "w1.example.com:2222", "w2.example.com:2222"],
    "ps": ["ps0.example.com:2222", "ps1.example.com:2222"]
  },
  "task": {"type": "worker", "index": 1},
  "environment": "cloud",
  "rpc_layer": "grpc"
})";

ClusterSpec MustParseFlag(std::string_view flag) {
  ClusterSpec spec;
  Status s = ClusterSpec::FromFlag(flag, &spec);
  BOOST_REQUIRE_MESSAGE(s.ok(), flag << ": " << s);
  return spec;
}

ClusterSpec MustParseTfConfig(std::string_view json, std::string* job = nullptr,
                              int* index = nullptr) {
  ClusterSpec spec;
  Status s = ClusterSpec::FromTfConfig(json, &spec, job, index);
  BOOST_REQUIRE_MESSAGE(s.ok(), json << ": " << s);
  return spec;
}

std::string AddressOf(const ClusterSpec& spec, std::string_view job, int task) {
  std::string address;
  Status s = spec.Address(job, task, &address);
  BOOST_REQUIRE_MESSAGE(s.ok(), s);
  return address;
}

// The status is INVALID_ARGUMENT and its message contains every fragment.
void ExpectInvalid(const Status& s, std::initializer_list<std::string_view> fragments) {
  BOOST_TEST_CONTEXT("status: " << s) {
    BOOST_TEST((s.code() == Code::INVALID_ARGUMENT));
    for (std::string_view f : fragments)
      BOOST_CHECK_MESSAGE(s.message().find(f) != std::string::npos, "message lacks '" << f << "'");
  }
}

void ExpectFlagInvalid(std::string_view flag, std::initializer_list<std::string_view> fragments) {
  ClusterSpec spec;
  BOOST_TEST_CONTEXT("flag: " << flag) {
    ExpectInvalid(ClusterSpec::FromFlag(flag, &spec), fragments);
  }
}

void ExpectTfConfigInvalid(std::string_view json,
                           std::initializer_list<std::string_view> fragments) {
  ClusterSpec spec;
  std::string job;
  int index;
  BOOST_TEST_CONTEXT("TF_CONFIG: " << json) {
    ExpectInvalid(ClusterSpec::FromTfConfig(json, &spec, &job, &index), fragments);
  }
}

bool SameTasks(const std::vector<TaskAddress>& a, const std::vector<TaskAddress>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].job != b[i].job || a[i].task != b[i].task || a[i].host != b[i].host ||
        a[i].port != b[i].port)
      return false;
  return true;
}

BOOST_AUTO_TEST_SUITE(cluster_spec)

BOOST_AUTO_TEST_CASE(flag_with_two_ps_and_three_workers) {
  ClusterSpec spec = MustParseFlag(kFlag);
  BOOST_TEST(spec.jobs() == (std::vector<std::string>{"ps", "worker"}));
  BOOST_TEST(spec.num_tasks("ps") == 2);
  BOOST_TEST(spec.num_tasks("worker") == 3);
  BOOST_TEST(spec.num_tasks("chief") == 0);
  BOOST_TEST(spec.task_indices("worker") == (std::vector<int>{0, 1, 2}));
  BOOST_TEST(spec.task_indices("chief").empty());
  BOOST_TEST(AddressOf(spec, "ps", 1) == "ps1.example.com:2222");
  BOOST_TEST(AddressOf(spec, "worker", 2) == "w2.example.com:2222");

  const std::vector<TaskAddress> all = spec.AllTasks();
  BOOST_REQUIRE(all.size() == 5u);
  BOOST_TEST(all[0].job == "ps");
  BOOST_TEST(all[0].task == 0);
  BOOST_TEST(all[0].host == "ps0.example.com");
  BOOST_TEST(all[0].port == 2222);
  BOOST_TEST(all[4].job == "worker");
  BOOST_TEST(all[4].task == 2);
  BOOST_TEST(all[4].HostPort() == "w2.example.com:2222");
}

BOOST_AUTO_TEST_CASE(flag_jobs_in_any_order_and_spaces_ignored) {
  ClusterSpec a = MustParseFlag(" worker = b:1 , c:2 ; ps=a:3 ");
  ClusterSpec b = MustParseFlag("ps=a:3;worker=b:1,c:2");
  BOOST_TEST(a.jobs() == b.jobs());
  BOOST_TEST(SameTasks(a.AllTasks(), b.AllTasks()));
  BOOST_TEST(AddressOf(a, "worker", 1) == "c:2");
}

BOOST_AUTO_TEST_CASE(tf_config_list_form_matches_the_flag) {
  std::string job = "stale";
  int index = -7;
  ClusterSpec spec = MustParseTfConfig(kTfConfig, &job, &index);
  BOOST_TEST(job == "worker");
  BOOST_TEST(index == 1);
  ClusterSpec flag = MustParseFlag(kFlag);
  BOOST_TEST(spec.jobs() == flag.jobs());
  BOOST_TEST(SameTasks(spec.AllTasks(), flag.AllTasks()));
  BOOST_TEST(spec.ToFlag() == std::string(kFlag));
}

BOOST_AUTO_TEST_CASE(tf_config_dict_form_matches_the_list_form) {
  ClusterSpec dict = MustParseTfConfig(R"({"cluster": {
      "ps": {"1": "ps1.example.com:2222", "0": "ps0.example.com:2222"},
      "worker": {"0": "w0.example.com:2222", "1": "w1.example.com:2222",
                 "2": "w2.example.com:2222"}}})");
  BOOST_TEST(SameTasks(dict.AllTasks(), MustParseFlag(kFlag).AllTasks()));
}

BOOST_AUTO_TEST_CASE(tf_config_dict_form_keeps_sparse_indices) {
  std::string job;
  int index = -1;
  ClusterSpec spec = MustParseTfConfig(
      R"({"cluster": {"worker": {"0": "a:1", "3": "b:2"}, "chief": ["c:3"]},
          "task": {"type": "worker", "index": 3}})",
      &job, &index);
  BOOST_TEST(job == "worker");
  BOOST_TEST(index == 3);
  BOOST_TEST(spec.num_tasks("worker") == 2);
  BOOST_TEST(spec.task_indices("worker") == (std::vector<int>{0, 3}));
  BOOST_TEST(AddressOf(spec, "worker", 3) == "b:2");
  BOOST_TEST(spec.jobs() == (std::vector<std::string>{"chief", "worker"}));
  std::string unused;
  BOOST_TEST((spec.Address("worker", 1, &unused).code() == Code::NOT_FOUND));
  // The flag has no way to say "3": ToFlag renumbers densely.
  BOOST_TEST(spec.ToFlag() == "chief=c:3;worker=a:1,b:2");
}

BOOST_AUTO_TEST_CASE(tf_config_task_part_is_optional) {
  std::string job = "stale";
  int index = 5;
  MustParseTfConfig(R"({"cluster": {"worker": ["a:1"]}})", &job, &index);
  BOOST_TEST(job.empty());
  BOOST_TEST(index == -1);
  job = "stale";
  index = 5;
  MustParseTfConfig(R"({"cluster": {"worker": ["a:1"]}, "task": {}})", &job, &index);
  BOOST_TEST(job.empty());
  BOOST_TEST(index == -1);
  // Missing index means task 0, as in TensorFlow's RunConfig.
  MustParseTfConfig(R"({"cluster": {"chief": ["a:1"]}, "task": {"type": "chief"}})", &job,
                    &index);
  BOOST_TEST(job == "chief");
  BOOST_TEST(index == 0);
  // Null outputs are allowed.
  MustParseTfConfig(kTfConfig);
}

BOOST_AUTO_TEST_CASE(tf_config_evaluator_runs_outside_the_cluster) {
  std::string job;
  int index = -1;
  MustParseTfConfig(
      R"({"cluster": {"chief": ["a:1"], "worker": ["b:1"]},
          "task": {"type": "evaluator", "index": 0}})",
      &job, &index);
  BOOST_TEST(job == "evaluator");
  BOOST_TEST(index == 0);
}

BOOST_AUTO_TEST_CASE(task_name) {
  BOOST_TEST(ClusterSpec::TaskName("worker", 2) == "/job:worker/replica:0/task:2");
  BOOST_TEST(ClusterSpec::TaskName("ps", 0) == "/job:ps/replica:0/task:0");
}

BOOST_AUTO_TEST_CASE(to_flag_round_trips) {
  ClusterSpec spec = MustParseFlag("worker=b:1,[::1]:2,10.0.0.1:3;chief=c:4;ps=a:5");
  const std::string flag = spec.ToFlag();
  BOOST_TEST(flag == "chief=c:4;ps=a:5;worker=b:1,[::1]:2,10.0.0.1:3");
  ClusterSpec again = MustParseFlag(flag);
  BOOST_TEST(again.jobs() == spec.jobs());
  BOOST_TEST(SameTasks(again.AllTasks(), spec.AllTasks()));
  BOOST_TEST(again.ToFlag() == flag);
}

BOOST_AUTO_TEST_CASE(ipv6_addresses) {
  ClusterSpec spec = MustParseFlag("ps=[::1]:2222;worker=[2001:db8::7]:2223,[fe80::1%eth0]:1");
  const std::vector<TaskAddress> all = spec.AllTasks();
  BOOST_REQUIRE(all.size() == 3u);
  BOOST_TEST(all[0].host == "::1");
  BOOST_TEST(all[0].port == 2222);
  BOOST_TEST(all[1].host == "2001:db8::7");
  BOOST_TEST(all[2].host == "fe80::1%eth0");
  BOOST_TEST(AddressOf(spec, "ps", 0) == "[::1]:2222");
  BOOST_TEST(AddressOf(spec, "worker", 0) == "[2001:db8::7]:2223");

  MustParseTfConfig(R"({"cluster": {"ps": ["[::1]:2222", "[::ffff:10.0.0.1]:1"]}})");
  ExpectFlagInvalid("ps=::1:2222", {"\"::1:2222\"", "brackets"});
  ExpectFlagInvalid("ps=[::1]2222", {"\"[::1]2222\"", "':port'"});
  ExpectFlagInvalid("ps=[::1:2222", {"\"[::1:2222\"", "']'"});
  ExpectFlagInvalid("ps=[ab.cd]:1", {"\"[ab.cd]:1\"", "IPv6"});
  ExpectFlagInvalid("ps=[]:1", {"\"[]:1\"", "IPv6"});
  // The same address spelled in other case is the same task.
  ExpectFlagInvalid("ps=[::a]:1;worker=[::A]:1", {"\"[::A]:1\"", "already used"});
}

BOOST_AUTO_TEST_CASE(parse_host_port) {
  std::string host;
  uint16_t port = 0;
  BOOST_TEST(ParseHostPort("localhost:1", &host, &port).ok());
  BOOST_TEST(host == "localhost");
  BOOST_TEST(port == 1);
  BOOST_TEST(ParseHostPort("10.1.2.3:65535", &host, &port).ok());
  BOOST_TEST(host == "10.1.2.3");
  BOOST_TEST(port == 65535);
  BOOST_TEST(ParseHostPort("[::1]:2222", &host, &port).ok());
  BOOST_TEST(host == "::1");
  BOOST_TEST(port == 2222);
  for (std::string_view bad : {"h:99999", "h:65536", "h:0", "h:", "h:-1", "h:+80", "h:8o",
                               "h:123456"}) {
    BOOST_TEST_CONTEXT(bad) { ExpectInvalid(ParseHostPort(bad, &host, &port), {"bad port"}); }
  }
  for (std::string_view bad : {"", "h", ":80", "a b:1", "h/x:1", "[::1]", "[::1]:"}) {
    BOOST_TEST_CONTEXT(bad) {
      ExpectInvalid(ParseHostPort(bad, &host, &port),
                    {internal::StrCat("address \"", bad, "\"")});
    }
  }
}

BOOST_AUTO_TEST_CASE(flag_errors_name_the_field_and_value) {
  ExpectFlagInvalid("", {"cluster spec", "empty"});
  ExpectFlagInvalid("  ", {"cluster spec", "empty"});
  ExpectFlagInvalid("=a:1", {"empty job name", "\"=a:1\""});
  ExpectFlagInvalid("1ps=a:1", {"job name \"1ps\"", "[a-zA-Z][_a-zA-Z0-9]*"});
  ExpectFlagInvalid("p-s=a:1", {"job name \"p-s\""});
  ExpectFlagInvalid("ps=a:1;ps=b:1", {"job \"ps\" appears twice"});
  ExpectFlagInvalid("ps=a:1;worker=", {"job \"worker\" has no tasks"});
  ExpectFlagInvalid("ps=a:1;;worker=b:1", {"empty job entry"});
  ExpectFlagInvalid("ps=a:1;worker", {"\"worker\"", "no '='"});
  ExpectFlagInvalid("ps=a:1,,b:2", {"job \"ps\" task 1", "address \"\""});
  ExpectFlagInvalid("ps=h:1,h:99999", {"job \"ps\" task 1: address \"h:99999\" has a bad port"});
  ExpectFlagInvalid(
      "ps=h:1;worker=x:2,H:1",
      {"job \"worker\" task 1: address \"H:1\" is already used by job \"ps\" task 0"});
  // A failed parse leaves the output alone.
  ClusterSpec spec = MustParseFlag("ps=a:1");
  BOOST_TEST(!ClusterSpec::FromFlag("ps=a:0", &spec).ok());
  BOOST_TEST(spec.ToFlag() == "ps=a:1");
}

BOOST_AUTO_TEST_CASE(tf_config_errors_name_the_field_and_value) {
  ExpectTfConfigInvalid("{\"cluster\": ", {"TF_CONFIG", "not valid JSON", "offset 12"});
  ExpectTfConfigInvalid("[1]", {"TF_CONFIG", "must be a JSON object", "array"});
  ExpectTfConfigInvalid(R"({"task": {"type": "worker"}})", {"\"cluster\" is missing"});
  ExpectTfConfigInvalid(R"({"cluster": ["a:1"]})", {"\"cluster\" must be an object", "array"});
  ExpectTfConfigInvalid(R"({"cluster": {}})", {"TF_CONFIG", "no jobs"});
  ExpectTfConfigInvalid(R"({"cluster": {"": ["a:1"]}})", {"TF_CONFIG", "job name is empty"});
  ExpectTfConfigInvalid(R"({"cluster": {"my-job": ["a:1"]}})", {"job name \"my-job\""});
  ExpectTfConfigInvalid(R"({"cluster": {"ps": ["a:1"], "ps": ["b:1"]}})",
                        {"job \"ps\" appears twice"});
  ExpectTfConfigInvalid(R"({"cluster": {"ps": []}})", {"job \"ps\" has no tasks"});
  ExpectTfConfigInvalid(R"({"cluster": {"ps": {}}})", {"job \"ps\" has no tasks"});
  ExpectTfConfigInvalid(R"({"cluster": {"ps": 3}})", {"cluster.ps must be", "found 3"});
  ExpectTfConfigInvalid(R"({"cluster": {"ps": ["a:1", 7]}})",
                        {"cluster.ps[1] must be a \"host:port\" string", "found 7"});
  ExpectTfConfigInvalid(R"({"cluster": {"ps": {"x": "a:1"}}})",
                        {"cluster.ps key \"x\"", "not a task index"});
  ExpectTfConfigInvalid(R"({"cluster": {"ps": {"-1": "a:1"}}})", {"cluster.ps key \"-1\""});
  ExpectTfConfigInvalid(R"({"cluster": {"ps": {"3": "a:1", "03": "b:1"}}})",
                        {"job \"ps\" task 3 appears twice"});
  ExpectTfConfigInvalid(R"({"cluster": {"ps": {"0": null}}})", {"cluster.ps[\"0\"]", "null"});
  ExpectTfConfigInvalid(R"({"cluster": {"ps": ["a:1", "b:99999"]}})",
                        {"TF_CONFIG: job \"ps\" task 1: address \"b:99999\" has a bad port"});
  ExpectTfConfigInvalid(R"({"cluster": {"ps": ["a:1"], "worker": ["a:1"]}})",
                        {"address \"a:1\" is already used by job \"ps\" task 0"});
  ExpectTfConfigInvalid(R"({"cluster": {"ps": ["a:1"]}, "cluster": {"ps": ["b:1"]}})",
                        {"key \"cluster\" appears twice"});

  constexpr std::string_view kCluster =
      R"({"cluster": {"ps": ["a:1"], "worker": ["b:1", "c:1"]},)";
  const auto with_task = [&](std::string_view task) {
    return internal::StrCat(kCluster, R"( "task": )", task, "}");
  };
  ExpectTfConfigInvalid(with_task("[]"), {"\"task\" must be an object", "array"});
  ExpectTfConfigInvalid(with_task(R"({"type": "chief", "index": 0})"),
                        {"task.type \"chief\" is not a job of the cluster", "ps, worker"});
  ExpectTfConfigInvalid(with_task(R"({"type": 1, "index": 0})"),
                        {"task.type must be a string", "found 1"});
  ExpectTfConfigInvalid(with_task(R"({"index": 1})"), {"task.type is missing"});
  ExpectTfConfigInvalid(with_task(R"({"type": "worker", "index": 2})"),
                        {"TF_CONFIG: task.index 2 is out of range for job \"worker\" (2 tasks)"});
  ExpectTfConfigInvalid(with_task(R"({"type": "worker", "index": -1})"),
                        {"task.index must be a non-negative integer", "found -1"});
  ExpectTfConfigInvalid(with_task(R"({"type": "worker", "index": 1.5})"),
                        {"task.index", "found 1.5"});
  ExpectTfConfigInvalid(with_task(R"({"type": "worker", "index": "1"})"),
                        {"task.index", "found \"1\""});
  ExpectTfConfigInvalid(with_task(R"({"type": "worker", "index": 99999999999})"),
                        {"task.index", "found 99999999999"});
  ExpectTfConfigInvalid(with_task(R"({"type": "worker", "type": "ps"})"),
                        {"\"task\" key \"type\" appears twice"});
  ExpectTfConfigInvalid(
      R"({"cluster": {"worker": {"0": "a:1", "3": "b:1"}},
          "task": {"type": "worker", "index": 2}})",
      {"task.index 2 is not a task of job \"worker\" (tasks 0, 3)"});
  // An integral value spelled as a float is still an index.
  std::string job;
  int index = -1;
  MustParseTfConfig(with_task(R"({"type": "worker", "index": 1.0})"), &job, &index);
  BOOST_TEST(index == 1);
}

BOOST_AUTO_TEST_CASE(address_of_a_missing_task_is_not_found) {
  ClusterSpec spec = MustParseFlag(kFlag);
  std::string address = "unchanged";
  Status s = spec.Address("chief", 0, &address);
  BOOST_TEST((s.code() == Code::NOT_FOUND));
  BOOST_CHECK_MESSAGE(s.message().find("job \"chief\"") != std::string::npos, s);
  s = spec.Address("worker", 3, &address);
  BOOST_TEST((s.code() == Code::NOT_FOUND));
  BOOST_CHECK_MESSAGE(s.message().find("job \"worker\" has no task 3") != std::string::npos, s);
  BOOST_TEST(address == "unchanged");
}

BOOST_AUTO_TEST_SUITE_END()

// ---------------------------------------------------------------------------

JsonValue MustParseJson(std::string_view text) {
  JsonValue v;
  Status s = ParseJson(text, &v);
  BOOST_REQUIRE_MESSAGE(s.ok(), text << ": " << s);
  return v;
}

void ExpectJsonInvalid(std::string_view text, std::initializer_list<std::string_view> fragments) {
  JsonValue v;
  BOOST_TEST_CONTEXT("JSON: " << text) { ExpectInvalid(ParseJson(text, &v), fragments); }
}

BOOST_AUTO_TEST_SUITE(json_value)

BOOST_AUTO_TEST_CASE(scalars) {
  BOOST_TEST((MustParseJson("null").kind == JsonValue::Kind::kNull));
  JsonValue t = MustParseJson(" true ");
  BOOST_TEST((t.kind == JsonValue::Kind::kBool));
  BOOST_TEST(t.boolean);
  BOOST_TEST(!MustParseJson("\tfalse\r\n").boolean);
  BOOST_TEST(MustParseJson("\"x\"").text == "x");
  BOOST_TEST(MustParseJson("\"x\"").TypeName() == "string");
}

BOOST_AUTO_TEST_CASE(numbers) {
  const std::vector<std::pair<std::string_view, double>> cases = {
      {"0", 0},       {"-0", -0.0},     {"12", 12},          {"-3.5e2", -350},
      {"1E+2", 100},  {"0.5", 0.5},     {"2.5e-3", 0.0025},  {"123456789", 123456789}};
  for (const auto& [text, value] : cases) {
    JsonValue v = MustParseJson(text);
    BOOST_TEST((v.kind == JsonValue::Kind::kNumber));
    BOOST_TEST_CONTEXT(text) { BOOST_TEST(v.number == value); }
    BOOST_TEST(v.text == text);
  }
  int64_t i = 0;
  BOOST_TEST(MustParseJson("9007199254740993").GetInt64(&i));  // 2^53 + 1, exact
  BOOST_TEST(i == 9007199254740993);
  BOOST_TEST(MustParseJson("-9223372036854775808").GetInt64(&i));
  BOOST_TEST(i == std::numeric_limits<int64_t>::min());
  BOOST_TEST(!MustParseJson("9223372036854775808").GetInt64(&i));
  BOOST_TEST(MustParseJson("1e2").GetInt64(&i));
  BOOST_TEST(i == 100);
  BOOST_TEST(!MustParseJson("1.5").GetInt64(&i));
  BOOST_TEST(!MustParseJson("\"1\"").GetInt64(&i));
  for (std::string_view bad : {"01", "1.", ".5", "-", "+1", "1e", "1e+", "0x10", "NaN",
                               "Infinity", "-Infinity", "--1", "1.e3"})
    ExpectJsonInvalid(bad, {"invalid JSON at offset"});
  ExpectJsonInvalid("1e999", {"offset 0", "range of a double"});
  ExpectJsonInvalid("[1, -1e400]", {"offset 4", "range of a double"});
}

BOOST_AUTO_TEST_CASE(string_escapes_and_unicode) {
  BOOST_TEST(MustParseJson(R"("\"\\\/\b\f\n\r\t")").text == "\"\\/\b\f\n\r\t");
  BOOST_TEST(MustParseJson(R"("caf\u00e9")").text == "caf\xc3\xa9");
  BOOST_TEST(MustParseJson(R"("\u20AC")").text == "\xe2\x82\xac");
  BOOST_TEST(MustParseJson(R"("\u0000")").text == std::string(1, '\0'));
  BOOST_TEST(MustParseJson(R"("\ud83d\ude00")").text == "\xf0\x9f\x98\x80");  // U+1F600
  BOOST_TEST(MustParseJson(R"("\uDBFF\uDFFF")").text == "\xf4\x8f\xbf\xbf");  // U+10FFFF
  // Raw UTF-8 passes through unchanged.
  BOOST_TEST(MustParseJson("\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"").text ==
             "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");

  ExpectJsonInvalid(R"("\ud83d")", {"low surrogate"});
  ExpectJsonInvalid(R"("\ud83dx")", {"low surrogate"});
  ExpectJsonInvalid(R"("\ud83d\u0041")", {"low surrogate"});
  ExpectJsonInvalid(R"("\ude00")", {"offset 3", "lone low surrogate"});
  ExpectJsonInvalid(R"("\u12g4")", {"hexadecimal digit"});
  ExpectJsonInvalid(R"("\u12")", {"hexadecimal digit"});
  ExpectJsonInvalid(R"("\x41")", {"offset 2", "an escape"});
  ExpectJsonInvalid("\"a\nb\"", {"offset 2", "control character"});
  ExpectJsonInvalid("\"abc", {"closing the string"});
  ExpectJsonInvalid("\"\xff\"", {"offset 1", "UTF-8"});
  ExpectJsonInvalid("\"\xc0\x80\"", {"UTF-8"});          // overlong NUL
  ExpectJsonInvalid("\"\xed\xa0\x80\"", {"UTF-8"});      // an encoded surrogate
  ExpectJsonInvalid("\"\xf4\x90\x80\x80\"", {"UTF-8"});  // beyond U+10FFFF
  ExpectJsonInvalid("\"\xe2\x82\"", {"UTF-8"});          // truncated
  ExpectJsonInvalid("'a'", {"offset 0", "a value"});
}

BOOST_AUTO_TEST_CASE(nesting) {
  JsonValue v = MustParseJson(R"( {"a": [1, {"b": null}, []], "c": {}, "a": "again"} )");
  BOOST_TEST((v.kind == JsonValue::Kind::kObject));
  BOOST_TEST(v.keys == (std::vector<std::string>{"a", "c", "a"}));  // duplicates kept, in order
  const JsonValue* a = v.Find("a");
  BOOST_REQUIRE((a != nullptr));
  BOOST_TEST((a->kind == JsonValue::Kind::kArray));  // the first "a"
  BOOST_REQUIRE(a->items.size() == 3u);
  BOOST_TEST(a->items[0].number == 1);
  BOOST_REQUIRE((a->items[1].Find("b") != nullptr));
  BOOST_TEST((a->items[1].Find("b")->kind == JsonValue::Kind::kNull));
  BOOST_TEST(a->items[2].items.empty());
  BOOST_TEST(v.Find("c")->items.empty());
  BOOST_TEST((v.Find("missing") == nullptr));
  BOOST_TEST((a->Find("a") == nullptr));  // not an object
  BOOST_TEST(MustParseJson("[]").items.empty());
  BOOST_TEST(MustParseJson("{ }").keys.empty());
}

BOOST_AUTO_TEST_CASE(malformed_structure_and_trailing_garbage) {
  ExpectJsonInvalid("", {"offset 0", "a value", "end of the text"});
  ExpectJsonInvalid("   ", {"offset 3", "a value"});
  ExpectJsonInvalid("[1, 2] x", {"offset 7", "the end of the text", "'x'"});
  ExpectJsonInvalid("{} {}", {"offset 3"});
  ExpectJsonInvalid("1 2", {"offset 2"});
  ExpectJsonInvalid("truex", {"offset 4"});
  ExpectJsonInvalid("nul", {"offset 0"});
  ExpectJsonInvalid("[1,]", {"offset 3", "a value"});
  ExpectJsonInvalid("[1 2]", {"offset 3", "',' or ']'"});
  ExpectJsonInvalid("[1", {"offset 2", "',' or ']'"});
  ExpectJsonInvalid(R"({"a":1,})", {"offset 7", "a string key"});
  ExpectJsonInvalid(R"({"a" 1})", {"offset 5", "':'"});
  ExpectJsonInvalid(R"({a: 1})", {"offset 1", "a string key"});
  ExpectJsonInvalid(R"({"a": 1 "b": 2})", {"offset 8", "',' or '}'"});
  ExpectJsonInvalid(std::string_view("[1]\0", 4), {"offset 3", "byte 0"});
}

BOOST_AUTO_TEST_CASE(deep_nesting_is_rejected) {
  const std::string ok = std::string(64, '[') + std::string(64, ']');
  BOOST_TEST(MustParseJson(ok).items.size() == 1u);
  ExpectJsonInvalid(std::string(65, '[') + std::string(65, ']'), {"offset 64", "64 levels"});
  std::string objects;
  for (int i = 0; i < 65; ++i) objects += "{\"k\":";
  objects += "1" + std::string(65, '}');
  ExpectJsonInvalid(objects, {"64 levels"});
  // Far deeper input fails at the limit instead of exhausting the stack.
  ExpectJsonInvalid(std::string(1000000, '['), {"64 levels"});
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
