// The data plane's encryption (core/net/sealed_stream.h) over a socket
// pair: what is written arrives intact in any split of reads, the bytes on
// the wire are not the plaintext, and a flipped bit, a wrong key or an
// oversized record is DATA_LOSS with nothing of the record delivered.
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "core/net/sealed_stream.h"
#include "core/net/tcp_socket.h"

namespace af::net {
namespace {

const std::string kKey(kSealedKeyBytes, 'k');

struct SocketPair {
  int fds[2] = {-1, -1};
  SocketPair() { BOOST_TEST_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0); }
  ~SocketPair() {
    for (int fd : fds) {
      if (fd >= 0) close(fd);
    }
  }
};

std::string Pattern(size_t bytes) {
  std::string out(bytes, '\0');
  for (size_t i = 0; i < bytes; ++i) out[i] = static_cast<char>((i * 131 + 7) % 251);
  return out;
}

BOOST_AUTO_TEST_SUITE(sealed_stream)

BOOST_AUTO_TEST_CASE(what_is_sealed_opens_intact_in_any_split) {
  SocketPair pair;
  const std::string header = "a frame header";
  const std::string payload = Pattern(3 * kMaxRecordBytes + 12345);
  std::thread writer([&] {
    SealingWriter sealed(pair.fds[0], kKey);
    iovec iov[2] = {{const_cast<char*>(header.data()), header.size()},
                    {const_cast<char*>(payload.data()), payload.size()}};
    BOOST_TEST(sealed.Send(iov, 2).ok());
    close(pair.fds[0]);
    pair.fds[0] = -1;
  });
  OpeningReader opened(pair.fds[1], kKey);
  std::string got_header(5, '\0'), rest(header.size() - 5, '\0'), got(payload.size(), '\0');
  BOOST_TEST_REQUIRE(opened.Recv(got_header.data(), got_header.size()).ok());
  BOOST_TEST_REQUIRE(opened.Recv(rest.data(), rest.size()).ok());
  BOOST_TEST(got_header + rest == header);
  // An odd split of the payload: part of a record, then the rest at once.
  BOOST_TEST_REQUIRE(opened.Recv(got.data(), 1000).ok());
  BOOST_TEST_REQUIRE(opened.Recv(got.data() + 1000, got.size() - 1000).ok());
  BOOST_TEST((got == payload));
  bool closed = false;
  char byte = 0;
  BOOST_TEST(opened.Recv(&byte, 1, &closed).ok());
  BOOST_TEST(closed);
  writer.join();
}

BOOST_AUTO_TEST_CASE(the_wire_carries_no_plaintext) {
  SocketPair pair;
  const std::string secret_text(4096, 'S');
  std::thread writer([&] {
    SealingWriter sealed(pair.fds[0], kKey);
    iovec iov{const_cast<char*>(secret_text.data()), secret_text.size()};
    BOOST_TEST(sealed.Send(&iov, 1).ok());
  });
  std::string wire(4 + secret_text.size() + 16, '\0');
  BOOST_TEST_REQUIRE(RecvAll(pair.fds[1], wire.data(), wire.size()).ok());
  writer.join();
  BOOST_TEST(wire.find("SSSSSSSS") == std::string::npos);
}

// Writes one sealed record of `text`, lets `tamper` change the wire bytes,
// and returns what opening them with `key` says.
template <class Tamper>
Status OpenTampered(const std::string& text, const std::string& key, Tamper tamper,
                    std::string* out) {
  SocketPair in, out_pair;
  {
    SealingWriter sealed(in.fds[0], kKey);
    iovec iov{const_cast<char*>(text.data()), text.size()};
    BOOST_TEST_REQUIRE(sealed.Send(&iov, 1).ok());
  }
  std::string wire(4 + text.size() + 16, '\0');
  BOOST_TEST_REQUIRE(RecvAll(in.fds[1], wire.data(), wire.size()).ok());
  tamper(&wire);
  BOOST_TEST_REQUIRE(SendAll(out_pair.fds[0], wire.data(), wire.size()).ok());
  OpeningReader opened(out_pair.fds[1], key);
  out->assign(text.size(), 'x');
  return opened.Recv(out->data(), out->size());
}

BOOST_AUTO_TEST_CASE(tampered_records_and_wrong_keys_are_data_loss) {
  const std::string text = Pattern(1000);
  std::string got;
  Status s = OpenTampered(text, kKey, [](std::string*) {}, &got);
  BOOST_TEST(s.ok(), s);
  BOOST_TEST((got == text));
  s = OpenTampered(text, kKey, [](std::string* wire) { (*wire)[100] ^= 1; }, &got);
  BOOST_TEST(s.code() == Code::DATA_LOSS, s);
  BOOST_TEST(got.find(text.substr(200, 100)) == std::string::npos);  // nothing delivered
  s = OpenTampered(text, std::string(kSealedKeyBytes, 'w'), [](std::string*) {}, &got);
  BOOST_TEST(s.code() == Code::DATA_LOSS, s);
  s = OpenTampered(text, kKey, [](std::string* wire) { (*wire)[3] = 0x7f; }, &got);
  BOOST_TEST(s.code() == Code::DATA_LOSS, s);  // a record longer than allowed
  BOOST_TEST(s.message().find("at most") != std::string::npos, s);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace af::net
