// Where a server's graphs may touch files (core/file_access_policy.h):
// inside the allowed directories yes; outside, through `..` or through a
// symlink out of the tree no, each refusal naming the path and the limit.
#include <filesystem>
#include <fstream>

#include <boost/test/unit_test.hpp>

#include "core/file_access_policy.h"
#include "tests/temp_dir_test_util.h"

namespace af {
namespace {

namespace fs = std::filesystem;

// Lifts the restriction whatever the test did.
struct Unrestricted {
  ~Unrestricted() { BOOST_TEST(SetAllowedDirectories({}).ok()); }
};

BOOST_FIXTURE_TEST_SUITE(file_access_policy, Unrestricted)

BOOST_AUTO_TEST_CASE(paths_are_checked_after_dotdot_and_symlinks_resolve) {
  testing::TempDir allowed("af_policy"), outside("af_policy_out");
  fs::create_directory(allowed.path() + "/sub");
  fs::create_directory_symlink(outside.path(), allowed.path() + "/out_link");
  fs::create_directory_symlink(allowed.path() + "/sub", outside.path() + "/in_link");
  BOOST_TEST(CheckFileAccess("/etc/passwd").ok());  // unrestricted until set
  BOOST_TEST_REQUIRE(SetAllowedDirectories({allowed.path()}).ok());
  BOOST_TEST(AllowedDirectories().size() == 1u);
  BOOST_TEST(CheckFileAccess(allowed.path() + "/model.ckpt").ok());  // need not exist
  BOOST_TEST(CheckFileAccess(allowed.path() + "/sub/new/dir/file").ok());
  BOOST_TEST(CheckFileAccess(allowed.path() + "/sub/../file").ok());
  // A symlink elsewhere that points into the tree is inside.
  BOOST_TEST(CheckFileAccess(outside.path() + "/in_link/file").ok());
  for (const std::string& path :
       {std::string("/etc/passwd"), allowed.path() + "/../x", allowed.path() + "/out_link/x",
        outside.path() + "/file", allowed.path() + "_sibling/file"}) {
    const Status s = CheckFileAccess(path);
    BOOST_TEST(s.code() == Code::PERMISSION_DENIED, path << ": " << s);
    BOOST_TEST(s.message().find("'" + path + "'") != std::string::npos, s);
    BOOST_TEST(s.message().find("--allowed_dirs") != std::string::npos, s);
  }
}

BOOST_AUTO_TEST_CASE(a_missing_directory_is_refused_and_nothing_changes) {
  const Status s = SetAllowedDirectories({"/no/such/directory"});
  BOOST_TEST(s.code() == Code::INVALID_ARGUMENT, s);
  BOOST_TEST(AllowedDirectories().empty());
  BOOST_TEST(CheckFileAccess("/etc/passwd").ok());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af
