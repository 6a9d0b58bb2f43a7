// The metrics registry (core/metrics/metrics_registry.h) writes Prometheus'
// text format: HELP and TYPE lines, labels with escaped values, cumulative
// histogram buckets ending in +Inf with _sum and _count, gauges and counters
// read when scraped, labeled gauges one sorted series per label value; the
// gauge sets of things that come and go (core/metrics/gauge_set.h); and the
// endpoint's routing (core/metrics/http_endpoint.h).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "core/metrics/gauge_set.h"
#include "core/metrics/http_endpoint.h"
#include "core/metrics/metrics_registry.h"

namespace af::metrics {
namespace {

bool Has(const std::string& text, const std::string& line) {
  return text.find(line + "\n") != std::string::npos;
}

BOOST_AUTO_TEST_SUITE(metrics_registry)

BOOST_AUTO_TEST_CASE(counters_gauges_and_histograms_in_the_text_format) {
  MetricsRegistry& m = MetricsRegistry::Global();
  Counter* a = m.GetCounter("test_requests_total", "Requests.", {{"peer", "a\"b\\c\nd"}});
  Counter* b = m.GetCounter("test_requests_total", "ignored", {{"peer", "plain"}});
  BOOST_TEST(a != b);
  BOOST_TEST(m.GetCounter("test_requests_total", "", {{"peer", "plain"}}) == b);
  a->Add(3);
  b->Add();
  m.SetGauge("test_temperature", "A gauge.", [] { return 0.25; });
  m.SetCounterReader("test_kept_elsewhere_total", "Read at scrape.", [] { return 7.0; });
  Histogram* h = m.GetHistogram("test_seconds", "Durations.", {0.1, 1});
  h->Observe(0.05);
  h->Observe(0.1);  // on a bound: that bucket
  h->Observe(0.5);
  h->Observe(30);
  const std::string text = m.Exposition();
  BOOST_TEST(Has(text, "# HELP test_requests_total Requests."), text);
  BOOST_TEST(Has(text, "# TYPE test_requests_total counter"), text);
  BOOST_TEST(Has(text, "test_requests_total{peer=\"a\\\"b\\\\c\\nd\"} 3"), text);
  BOOST_TEST(Has(text, "test_requests_total{peer=\"plain\"} 1"), text);
  BOOST_TEST(Has(text, "# TYPE test_temperature gauge"), text);
  BOOST_TEST(Has(text, "test_temperature 0.25"), text);
  BOOST_TEST(Has(text, "# TYPE test_kept_elsewhere_total counter"), text);
  BOOST_TEST(Has(text, "test_kept_elsewhere_total 7"), text);
  BOOST_TEST(Has(text, "# TYPE test_seconds histogram"), text);
  BOOST_TEST(Has(text, "test_seconds_bucket{le=\"0.1\"} 2"), text);
  BOOST_TEST(Has(text, "test_seconds_bucket{le=\"1\"} 3"), text);
  BOOST_TEST(Has(text, "test_seconds_bucket{le=\"+Inf\"} 4"), text);
  BOOST_TEST(Has(text, "test_seconds_sum 30.65"), text);
  BOOST_TEST(Has(text, "test_seconds_count 4"), text);
}

// The lines of `text` that are samples of `name` (not its HELP or TYPE).
std::vector<std::string> Samples(const std::string& text, const std::string& name) {
  std::vector<std::string> lines;
  size_t from = 0;
  for (size_t end; (end = text.find('\n', from)) != std::string::npos; from = end + 1) {
    const std::string line = text.substr(from, end - from);
    if (line.rfind(name + "{", 0) == 0 || line.rfind(name + " ", 0) == 0) lines.push_back(line);
  }
  return lines;
}

BOOST_AUTO_TEST_CASE(a_labeled_gauge_lists_one_sorted_series_per_label_value) {
  MetricsRegistry& m = MetricsRegistry::Global();
  // Shared with the reader, which the registry keeps past this test.
  auto values = std::make_shared<MetricsRegistry::LabeledValues>(
      MetricsRegistry::LabeledValues{{"zeta", 3}, {"alpha", 1.5}, {"q\"uo\\te\nd", 0}});
  m.SetLabeledGauge("test_depth", "Depths.", "queue", [values] { return *values; });
  std::string text = m.Exposition();
  BOOST_TEST(Has(text, "# HELP test_depth Depths."), text);
  BOOST_TEST(Has(text, "# TYPE test_depth gauge"), text);
  const std::vector<std::string> expected = {"test_depth{queue=\"alpha\"} 1.5",
                                             "test_depth{queue=\"q\\\"uo\\\\te\\nd\"} 0",
                                             "test_depth{queue=\"zeta\"} 3"};
  BOOST_TEST(Samples(text, "test_depth") == expected, boost::test_tools::per_element());
  // Read at every scrape; none left: the family stays listed, without series.
  values->clear();
  text = m.Exposition();
  BOOST_TEST(Has(text, "# TYPE test_depth gauge"), text);
  BOOST_TEST(Samples(text, "test_depth").empty(), text);
  // A plain gauge of the same name replaces it.
  m.SetGauge("test_depth", "Depth.", [] { return 9.0; });
  text = m.Exposition();
  BOOST_TEST(Samples(text, "test_depth") == std::vector<std::string>{"test_depth 9"},
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_gauge_set_shows_its_live_members_and_forgets_the_gone) {
  GaugeSet* set = NewRegisteredGaugeSet("test_held", "Held.", "queue", GaugeSet::Combine::kSum);
  auto scrape = [] { return Samples(MetricsRegistry::Global().Exposition(), "test_held"); };
  BOOST_TEST(scrape().empty());
  GaugeSet::Member a = set->Register("a");
  std::optional<GaugeSet::Member> b1(set->Register("b"));
  GaugeSet::Member b2 = set->Register("b");
  BOOST_TEST(scrape() ==
                 (std::vector<std::string>{"test_held{queue=\"a\"} 0", "test_held{queue=\"b\"} 0"}),
             boost::test_tools::per_element());
  a.Set(4);
  b1->Set(2);
  b2.Set(5);
  // Two members of one label value are one series: their sum.
  BOOST_TEST(scrape() ==
                 (std::vector<std::string>{"test_held{queue=\"a\"} 4", "test_held{queue=\"b\"} 7"}),
             boost::test_tools::per_element());
  b1.reset();
  BOOST_TEST(scrape() ==
                 (std::vector<std::string>{"test_held{queue=\"a\"} 4", "test_held{queue=\"b\"} 5"}),
             boost::test_tools::per_element());
  // A moved member is still the one series; the moved-from one is no member.
  GaugeSet::Member moved = std::move(a);
  a.Set(100);
  moved.Set(6);
  BOOST_TEST(scrape() ==
                 (std::vector<std::string>{"test_held{queue=\"a\"} 6", "test_held{queue=\"b\"} 5"}),
             boost::test_tools::per_element());
  moved.Reset();
  b2 = GaugeSet::Member();
  BOOST_TEST(scrape().empty());
  moved.Set(1);  // after Reset: no member, nothing listed
  BOOST_TEST(scrape().empty());
}

BOOST_AUTO_TEST_CASE(a_gauge_set_can_keep_the_largest_and_render_it) {
  GaugeSet* set = NewRegisteredGaugeSet("test_age", "Age.", "task", GaugeSet::Combine::kMax,
                                        [](int64_t stamp) { return 100.0 - stamp; });
  GaugeSet::Member first = set->Register("/job:ps/replica:0/task:0");
  GaugeSet::Member second = set->Register("/job:ps/replica:0/task:0");
  first.Set(30);
  second.Set(70);
  const std::string text = MetricsRegistry::Global().Exposition();
  BOOST_TEST(Samples(text, "test_age") ==
                 std::vector<std::string>{"test_age{task=\"/job:ps/replica:0/task:0\"} 30"},
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(the_endpoint_routes_probes_and_refuses_the_rest) {
  BOOST_TEST(Route("GET /healthz HTTP/1.1", nullptr).code == 200);
  BOOST_TEST(Route("GET /readyz HTTP/1.1", [] { return false; }).code == 503);
  BOOST_TEST(Route("GET /readyz HTTP/1.1", [] { return true; }).code == 200);
  const HttpAnswer metrics = Route("GET /metrics?name=x HTTP/1.1", nullptr);
  BOOST_TEST(metrics.code == 200);
  BOOST_TEST(metrics.content_type.find("version=0.0.4") != std::string::npos);
  BOOST_TEST(Route("HEAD /metrics HTTP/1.1", nullptr).body.empty());
  BOOST_TEST(Route("DELETE /metrics HTTP/1.1", nullptr).code == 405);
  BOOST_TEST(Route("GET /etc/passwd HTTP/1.1", nullptr).code == 404);
  BOOST_TEST(Route("GARBAGE", nullptr).code == 400);
  BOOST_TEST(Route("", nullptr).code == 400);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::metrics
