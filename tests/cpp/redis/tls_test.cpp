// rediss:// against a private redis-server with TLS (Debian's redis-server is built with TLS;
// redis/redis_server.hpp makes a self-signed certificate with the openssl CLI): round trips, AUTH
// over TLS, a subscriber, and every handshake failure (untrusted CA, name mismatch, a plain
// server, a plain-text answer, a missing CA file, a hung server), each unavailable naming the
// redacted URL; and that a lazy build maps OpenSSL only once a TLS connection is made.
#include <atomic>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "redis/client.hpp"
#include "redis/client_support.hpp"
#include "redis/fake_server.hpp"
#include "redis/libssl.hpp"
#include "redis/redis_server.hpp"
#include "support/wait.hpp"

namespace mcpcxx::redis {
namespace {

using namespace std::chrono_literals;
using ::testing::AllOf;
using ::testing::AnyOf;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::redis_server;

redis_server tls_server(const std::string& password = "", const std::string& san = "") {
  redis_server::config c;
  c.tls = true;
  c.password = password;
  if (!san.empty()) c.tls_san = san;
  return redis_server(c);
}

std::string port_of(const redis_server& s) { return std::to_string(s.port()); }

TEST(RedisTls, RoundTripWithTheCaOfTheUrl) {
  redis_server server = tls_server();
  client c(test_client_options(server.url()));  // rediss://localhost:P?ca=cert.pem
  c.check();
  c.run({"SET", "secure", "yes"});
  EXPECT_EQ(c.run({"GET", "secure"}).str, "yes");
  const std::string big(std::size_t{1} << 20, 'x');  // many TLS records
  c.run({"SET", "big", big});
  EXPECT_EQ(c.run({"GET", "big"}).str, big);
  EXPECT_EQ(c.pipeline({{"INCR", "n"}, {"INCR", "n"}}).back().integer, 2);
  EXPECT_EQ(c.eval("return 'lua'", {}, {}).str, "lua");
}

TEST(RedisTls, AnIpAddressIsCheckedAgainstTheCertificate) {
  redis_server server = tls_server();  // subjectAltName has IP:127.0.0.1
  client c(
      test_client_options("rediss://127.0.0.1:" + port_of(server) + "?ca=" + server.ca_file()));
  c.check();
  EXPECT_TRUE(c.healthy());
}

TEST(RedisTls, PasswordOverTls) {
  redis_server server = tls_server("tls-secret");
  client good(test_client_options(server.url()));
  good.check();
  client bad(test_client_options("rediss://:nope@localhost:" + port_of(server) +
                                 "?ca=" + server.ca_file()));
  EXPECT_THAT(
      unavailable_text([&] { bad.check(); }),
      AllOf(HasSubstr("rediss://:***@localhost"), HasSubstr("WRONGPASS"), Not(HasSubstr("nope"))));
}

TEST(RedisTls, UntrustedCertificateFailsTheHandshake) {
  redis_server server = tls_server("pw");
  client c(test_client_options("rediss://:pw@localhost:" + port_of(server)));  // system CAs only
  const std::string text = unavailable_text([&] { c.check(); });
  EXPECT_THAT(text, HasSubstr("rediss://:***@localhost:" + port_of(server)));
  EXPECT_THAT(text, HasSubstr("TLS handshake failed: certificate verify failed"));
  EXPECT_THAT(text, HasSubstr("self-signed certificate"));
}

TEST(RedisTls, HostnameMismatchFailsTheHandshake) {
  redis_server server = tls_server("", "DNS:other.example");
  client c(test_client_options(server.url()));  // localhost, trusted CA, wrong name
  EXPECT_THAT(unavailable_text([&] { c.check(); }),
              AllOf(HasSubstr("TLS handshake failed"), HasSubstr("hostname mismatch")));
  client by_ip(
      test_client_options("rediss://127.0.0.1:" + port_of(server) + "?ca=" + server.ca_file()));
  EXPECT_THAT(unavailable_text([&] { by_ip.check(); }),
              AllOf(HasSubstr("TLS handshake failed"), HasSubstr("IP address mismatch")));
}

TEST(RedisTls, PlainRedisNeverFinishesTheHandshake) {
  redis_server server;  // no TLS: it waits for the end of an inline command in the hello
  options o = test_client_options("rediss://127.0.0.1:" + port_of(server));
  o.connect_timeout = 300ms;
  client c(o);
  EXPECT_THAT(unavailable_text([&] { c.check(); }),
              AnyOf(HasSubstr("timed out after 300 ms in the TLS handshake"),
                    HasSubstr("TLS handshake failed")));
}

TEST(RedisTls, PlainTextAnswerFailsTheHandshake) {
  testing::fake_server plain("-ERR this is not TLS\r\n");
  client c(test_client_options("rediss://127.0.0.1:" + std::to_string(plain.port())));
  const std::string text = unavailable_text([&] { c.check(); });
  EXPECT_THAT(text, HasSubstr("rediss://127.0.0.1:" + std::to_string(plain.port())));
  EXPECT_THAT(text, HasSubstr("TLS handshake failed: "));
}

TEST(RedisTls, PlainClientOnATlsPortIsUnavailable) {
  redis_server server = tls_server();
  options o = test_client_options("redis://127.0.0.1:" + port_of(server));
  o.connect_timeout = 500ms;
  client c(o);
  EXPECT_THAT(unavailable_text([&] { c.check(); }),
              AnyOf(HasSubstr("connection closed by the server"), HasSubstr("not RESP"),
                    HasSubstr("timed out after 500 ms"), HasSubstr("connection reset")));
}

TEST(RedisTls, MissingCaFileIsUnavailableNamingIt) {
  redis_server server = tls_server();
  client c(
      test_client_options("rediss://localhost:" + port_of(server) + "?ca=/nonexistent/ca.pem"));
  EXPECT_THAT(unavailable_text([&] { c.check(); }),
              HasSubstr("cannot load the CA file '/nonexistent/ca.pem'"));
}

TEST(RedisTls, HungServerTimesOutInTheHandshake) {
  redis_server server = tls_server();
  server.freeze();
  options o = test_client_options(server.url());
  o.connect_timeout = 300ms;
  client c(o);
  EXPECT_THAT(unavailable_text([&] { c.check(); }),
              HasSubstr("timed out after 300 ms in the TLS handshake"));
  server.thaw();
}

TEST(RedisTls, KilledAndRestartedTlsServerRecovers) {
  redis_server server = tls_server();
  client c(test_client_options(server.url()));
  c.run({"SET", "k", "v"});
  server.kill();
  EXPECT_THAT(unavailable_text([&] { c.run({"GET", "k"}); }), HasSubstr("rediss://localhost"));
  server.restart();
  EXPECT_TRUE(testing::wait_until([&] {
    try {
      return c.run({"PING"}).str == "PONG";
    } catch (const unavailable&) {
      return false;
    }
  }));
}

TEST(RedisTls, SubscriberOverTls) {
  redis_server server = tls_server();
  std::atomic<int> got{0};
  subscriber sub(test_client_options(server.url()), [&](std::string_view c, std::string_view p) {
    if (c == "s" && p == "tls message") ++got;
  });
  sub.subscribe("s");
  ASSERT_TRUE(sub.wait_subscribed(10s));
  client pub(test_client_options(server.url()));
  EXPECT_EQ(pub.run({"PUBLISH", "s", "tls message"}).integer, 1);
  EXPECT_TRUE(testing::wait_until([&] { return got.load() == 1; }));
}

bool maps_openssl() {
  std::ifstream maps("/proc/self/maps");
  std::stringstream text;
  text << maps.rdbuf();
  return text.str().find("libssl.so") != std::string::npos ||
         text.str().find("libcrypto.so") != std::string::npos;
}

// In a fresh process: 0 when OpenSSL is mapped by the first rediss:// connection and not before
// (neither at start nor by a plain connection); the step that went wrong otherwise.
int openssl_mapped_only_for_tls() {
  if (maps_openssl()) return 1;
  redis_server plain;
  client c(test_client_options(plain.url()));
  c.check();
  if (maps_openssl()) return 2;
  redis_server secure = tls_server();
  client t(test_client_options(secure.url()));
  t.check();
  return maps_openssl() ? 0 : 3;
}

TEST(RedisTlsDeathTest, OpenSslIsMappedOnlyByTheFirstTlsConnection) {
  if (!detail::libssl_is_lazy())
    GTEST_SKIP() << "this build links libssl (MCPCXX_LAZY_LIBCRYPTO=OFF)";
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // a fresh process, nothing loaded yet
  EXPECT_EXIT(::_exit(openssl_mapped_only_for_tls()), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace mcpcxx::redis
