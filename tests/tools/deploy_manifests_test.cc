// The Kubernetes manifests in deploy/k8s (issue 28): the headless Service
// names every task pod and publishes them before they are ready; each
// StatefulSet belongs to it, and its CLUSTER lists exactly its pods on the
// Service's task port; the ps tasks have liveness and readiness probes on
// their metrics port; every flag the manifests give `actorflow server` is
// one it accepts; and the TFJob has the PS and Worker replicas, container
// and port names Kubeflow's operator requires.
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <boost/test/unit_test.hpp>

#include "tests/process_test_util.h"
#include "tests/tools/yaml_subset.h"

namespace af {
namespace {

using testing::ParseYamlDocuments;
using testing::Yaml;

std::vector<Yaml> Load(const std::string& name) {
  std::ifstream in(std::string(AF_SOURCE_DIR) + "/deploy/k8s/" + name);
  std::ostringstream text;
  text << in.rdbuf();
  BOOST_TEST_REQUIRE(!text.str().empty(), name);
  return ParseYamlDocuments(text.str());
}

// The flags `actorflow server` documents in its usage.
std::set<std::string> ServerFlags() {
  const testing::CommandResult r = testing::RunCommand(std::string(AF_ACTORFLOW_BIN) +
                                                       " help server");
  std::set<std::string> flags;
  const std::regex flag(R"(--[a-z_]+)");
  for (std::sregex_iterator it(r.output.begin(), r.output.end(), flag), end; it != end; ++it) {
    flags.insert(it->str());
  }
  BOOST_TEST_REQUIRE(flags.count("--metrics_port") == 1u, r.output);
  return flags;
}

void CheckServerFlags(const std::string& command, const std::set<std::string>& known) {
  const std::regex flag(R"(--[a-z_]+)");
  int seen = 0;
  for (std::sregex_iterator it(command.begin(), command.end(), flag), end; it != end; ++it) {
    BOOST_TEST(known.count(it->str()) == 1u, it->str() << " in: " << command);
    ++seen;
  }
  BOOST_TEST(seen > 0, command);
}

void CheckProbes(const Yaml& container, const std::string& port) {
  BOOST_TEST(container["livenessProbe"]["httpGet"]["path"].scalar == "/healthz");
  BOOST_TEST(container["livenessProbe"]["httpGet"]["port"].scalar == port);
  BOOST_TEST(container["readinessProbe"]["httpGet"]["path"].scalar == "/readyz");
  BOOST_TEST(container["readinessProbe"]["httpGet"]["port"].scalar == port);
}

std::string Env(const Yaml& container, const std::string& name) {
  for (const Yaml& e : container["env"].list) {
    if (e["name"].scalar == name) return e["value"].scalar;
  }
  return "";
}

BOOST_AUTO_TEST_SUITE(deploy_manifests)

BOOST_AUTO_TEST_CASE(the_parameter_server_job_is_consistent) {
  const std::vector<Yaml> docs = Load("parameter-server-job.yaml");
  BOOST_TEST_REQUIRE(docs.size() == 3u);
  const Yaml& service = docs[0];
  BOOST_TEST(service["kind"].scalar == "Service");
  const std::string service_name = service["metadata"]["name"].scalar;
  BOOST_TEST(service["spec"]["clusterIP"].scalar == "None");
  BOOST_TEST(service["spec"]["publishNotReadyAddresses"].scalar == "true");
  std::set<std::string> ports;
  for (const Yaml& p : service["spec"]["ports"].list) ports.insert(p["port"].scalar);
  BOOST_TEST((ports == std::set<std::string>{"2222", "9100"}));

  const std::set<std::string> known = ServerFlags();
  std::string expected_cluster;
  std::vector<std::string> clusters;
  for (size_t d = 1; d < 3; ++d) {
    const Yaml& set = docs[d];
    BOOST_TEST(set["kind"].scalar == "StatefulSet");
    BOOST_TEST(set["spec"]["serviceName"].scalar == service_name);
    const std::string name = set["metadata"]["name"].scalar;
    const int replicas = std::stoi(set["spec"]["replicas"].scalar);
    // The pods carry the labels the set selects and the Service selects.
    const Yaml& labels = set["spec"]["template"]["metadata"]["labels"];
    for (const auto& [key, value] : set["spec"]["selector"]["matchLabels"].map) {
      BOOST_TEST(labels[key].scalar == value.scalar, key);
    }
    BOOST_TEST(labels["app"].scalar == service["spec"]["selector"]["app"].scalar);
    const Yaml& container = set["spec"]["template"]["spec"]["containers"].at(0);
    const std::string job = labels["job"].scalar;
    std::string pods;
    for (int i = 0; i < replicas; ++i) {
      pods += (i ? "," : "") + name + "-" + std::to_string(i) + "." + service_name + ":2222";
    }
    if (!expected_cluster.empty()) expected_cluster += ";";
    expected_cluster += job + "=" + pods;
    clusters.push_back(Env(container, "CLUSTER"));
    const std::string script = container["command"].at(2).scalar;
    BOOST_TEST(script.find("--task \"${HOSTNAME##*-}\"") != std::string::npos, script);
    if (job == "ps") {
      BOOST_TEST(script.find("exec actorflow server") != std::string::npos, script);
      CheckServerFlags(script, known);
      CheckProbes(container, "9100");
    } else {
      BOOST_TEST(script.find("exec fashion_mnist") != std::string::npos, script);
      BOOST_TEST(Env(container, "ACTORFLOW_SECRET_FILE") == "/etc/actorflow/secret");
    }
  }
  for (const std::string& cluster : clusters) BOOST_TEST(cluster == expected_cluster);
}

BOOST_AUTO_TEST_CASE(the_tfjob_has_what_kubeflow_requires) {
  const std::vector<Yaml> docs = Load("tfjob.yaml");
  BOOST_TEST_REQUIRE(docs.size() == 1u);
  const Yaml& job = docs[0];
  BOOST_TEST(job["apiVersion"].scalar == "kubeflow.org/v1");
  BOOST_TEST(job["kind"].scalar == "TFJob");
  const std::set<std::string> known = ServerFlags();
  for (const std::string replica : {"PS", "Worker"}) {
    const Yaml& spec = job["spec"]["tfReplicaSpecs"][replica];
    BOOST_TEST_REQUIRE(!spec.null(), replica);
    const Yaml& container = spec["template"]["spec"]["containers"].at(0);
    BOOST_TEST(container["name"].scalar == "tensorflow");
    bool port = false;
    for (const Yaml& p : container["ports"].list) {
      port = port || (p["name"].scalar == "tfjob-port" && p["containerPort"].scalar == "2222");
    }
    BOOST_TEST(port, replica);
    std::string command;
    for (const Yaml& word : container["command"].list) command += word.scalar + " ";
    if (replica == "PS") {
      BOOST_TEST(command.rfind("actorflow server ", 0) == 0, command);
      CheckServerFlags(command, known);
      CheckProbes(container, "9100");
    } else {
      BOOST_TEST(command.rfind("fashion_mnist ", 0) == 0, command);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
