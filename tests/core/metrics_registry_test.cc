// The metrics registry (core/metrics/metrics_registry.h) writes Prometheus'
// text format: HELP and TYPE lines, labels with escaped values, cumulative
// histogram buckets ending in +Inf with _sum and _count, gauges and counters
// read when scraped; and the endpoint's routing (core/metrics/http_endpoint.h).
#include <boost/test/unit_test.hpp>

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
