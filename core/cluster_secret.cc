#include "core/cluster_secret.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

namespace af {
namespace {

// A secret file is a short line; anything this large is the wrong file.
constexpr size_t kMaxSecretFileBytes = 64 * 1024;
constexpr size_t kNewSecretBytes = 32;  // 64 hex characters

std::string ModeString(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "0%03o", static_cast<unsigned>(mode & 0777));
  return text;
}

// Whoever else can read the file knows the secret; whoever can write it
// chooses it. ssh refuses private keys in the same state.
Status CheckOwnerOnly(const std::string& path, const struct stat& st) {
  if (!S_ISREG(st.st_mode)) {
    return errors::InvalidArgument("secret file ", path, " is not a regular file");
  }
  if ((st.st_mode & 077) != 0) {
    return errors::InvalidArgument("secret file ", path, " has mode ", ModeString(st.st_mode),
                                   ": group or others can access it; it must be private to "
                                   "its owner (chmod 600 ",
                                   path, ")");
  }
  return Status::OK();
}

Status ReadAll(int fd, const std::string& path, std::string* out) {
  char buffer[4096];
  while (true) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n == 0) return Status::OK();
    if (n < 0) {
      if (errno == EINTR) continue;
      return errors::NotFound("cannot read secret file ", path, ": ", std::strerror(errno));
    }
    out->append(buffer, static_cast<size_t>(n));
    if (out->size() > kMaxSecretFileBytes) {
      return errors::InvalidArgument("secret file ", path, " is larger than ",
                                     kMaxSecretFileBytes, " bytes; is it the right file?");
    }
  }
}

void TrimTrailingWhitespace(std::string* text) {
  const size_t end = text->find_last_not_of(" \t\r\n\v\f");
  text->resize(end == std::string::npos ? 0 : end + 1);
}

std::string Hex(const std::string& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

Status WriteFully(int fd, const std::string& path, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return errors::Internal("cannot write secret file ", path, ": ", std::strerror(errno));
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return Status::OK();
}

}  // namespace

Status ReadSecretFile(const std::string& path, std::string* secret) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return errors::NotFound("cannot open secret file ", path, ": ", std::strerror(errno));
  }
  struct stat st;
  Status s = fstat(fd, &st) == 0
                 ? CheckOwnerOnly(path, st)
                 : errors::NotFound("cannot stat secret file ", path, ": ", std::strerror(errno));
  std::string text;
  if (s.ok()) s = ReadAll(fd, path, &text);
  close(fd);
  AF_RETURN_IF_ERROR(s);
  TrimTrailingWhitespace(&text);
  if (text.size() < kMinSecretBytes) {
    return errors::InvalidArgument("secret file ", path, " holds ", text.size(),
                                   " bytes; a cluster secret needs at least ", kMinSecretBytes,
                                   " (make one with `(umask 077; openssl rand -hex 32 > FILE)`)");
  }
  *secret = std::move(text);
  return Status::OK();
}

Status LoadClusterSecret(const std::string& path, std::string* secret) {
  secret->clear();
  if (!path.empty()) return ReadSecretFile(path, secret);
  const char* from_env = std::getenv(kSecretFileEnv);
  if (from_env == nullptr || *from_env == '\0') return Status::OK();
  return ReadSecretFile(from_env, secret).WithContext(std::string(kSecretFileEnv));
}

Status WriteNewSecretFile(const std::string& path) {
  std::string bytes;
  AF_RETURN_IF_ERROR(RandomBytes(kNewSecretBytes, &bytes));
  // O_EXCL: never replace a secret a running cluster may still use.
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    if (errno == EEXIST) return errors::AlreadyExists("secret file ", path, " already exists");
    return errors::Internal("cannot create secret file ", path, ": ", std::strerror(errno));
  }
  Status s = WriteFully(fd, path, Hex(bytes) + "\n");
  if (close(fd) != 0 && s.ok()) {
    s = errors::Internal("cannot write secret file ", path, ": ", std::strerror(errno));
  }
  if (!s.ok()) unlink(path.c_str());
  return s;
}

namespace {
// OpenSSL frees a thread's own state (its error queue) when the thread ends,
// through a thread key that its atexit clean-up deletes; threads that end
// after that (the actor system's, stopped in static destruction) keep their
// state for ever, which LeakSanitizer reports in every cluster process.
// Without the atexit clean-up the key outlives them.
const bool kOpenSslWithoutAtexit = OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, nullptr) == 1;
}  // namespace

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &length);
  return std::string(reinterpret_cast<const char*>(out), length);
}

// The kernel's generator (getrandom(2)), not OpenSSL's: RAND_bytes gives
// every calling thread a generator of its own that lives until the thread
// ends, and data-plane threads live as long as their connections.
Status RandomBytes(size_t n, std::string* out) {
  out->assign(n, '\0');
  size_t filled = 0;
  while (filled < n) {
    const ssize_t got = getrandom(out->data() + filled, n - filled, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      return errors::Internal("the kernel's random generator failed: ", std::strerror(errno));
    }
    filled += static_cast<size_t>(got);
  }
  return Status::OK();
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  // The length of a proof is public (32 bytes); only the contents are not.
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

bool IsLoopbackHost(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  const std::string text(host);
  if (strcasecmp(text.c_str(), "localhost") == 0) return true;
  in_addr v4;
  if (inet_pton(AF_INET, text.c_str(), &v4) == 1) {
    return (ntohl(v4.s_addr) >> 24) == 127;
  }
  in6_addr v6;
  if (inet_pton(AF_INET6, text.c_str(), &v6) == 1) {
    return IN6_IS_ADDR_LOOPBACK(&v6) || (IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127);
  }
  return false;
}

}  // namespace af
