// A process's TLS identity directory: made private and named for its pid,
// and directories left by processes that died unannounced are removed by
// the next process that makes one.
#include <boost/test/unit_test.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/tls_identity.h"

namespace af {
namespace {

BOOST_AUTO_TEST_SUITE(tls_identity)

// A pid that belonged to a process which has exited and been reaped.
pid_t DeadPid() {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  int status = 0;
  waitpid(child, &status, 0);
  return child;
}

std::filesystem::path FakeDirectory(pid_t pid) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("actorflow-tls-" + std::to_string(pid) + "-test00");
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "key.pem") << "left behind";
  return dir;
}

BOOST_AUTO_TEST_CASE(directories_of_dead_processes_are_removed_and_live_ones_kept) {
  const auto dead = FakeDirectory(DeadPid());
  const auto live = FakeDirectory(getppid());
  TlsIdentityFiles files;
  Status s = UseTlsIdentityFor("a test cluster secret of some length", &files);
  BOOST_TEST_REQUIRE(s.ok(), s.ToString());
  BOOST_TEST(!std::filesystem::exists(dead));
  BOOST_TEST(std::filesystem::exists(live));
  std::filesystem::remove_all(live);
  const std::string own = std::filesystem::path(files.directory).filename().string();
  BOOST_TEST(own.rfind("actorflow-tls-" + std::to_string(getpid()) + "-", 0) == 0u, own);
  BOOST_TEST(std::filesystem::exists(files.private_key));
  const auto mode = std::filesystem::status(files.directory).permissions();
  using std::filesystem::perms;
  BOOST_TEST(((mode & (perms::group_all | perms::others_all)) == perms::none));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
