// redis::client's failure model against a private redis-server: refused and wrong passwords name
// the redacted URL, an unreachable or hung server is unavailable (the deadline message), a Redis
// killed mid-use recovers after a restart without a new client, and backoff throws at once.
#include <atomic>
#include <netinet/in.h>
#include <stdexcept>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "redis/client.hpp"
#include "redis/client_support.hpp"
#include "redis/fake_server.hpp"
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

// N of "not retrying for N ms" in an unavailable's text (-1 when absent).
int retry_wait_ms(const std::string& text) {
  const std::string marker = "not retrying for ";
  const auto at = text.find(marker);
  EXPECT_NE(at, std::string::npos) << text;
  return at == std::string::npos ? -1 : std::stoi(text.substr(at + marker.size()));
}

// A TCP port with nothing listening (bound once, then closed).
std::uint16_t closed_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  const bool bound = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
                     ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0;
  ::close(fd);
  if (!bound) throw std::runtime_error("closed_port: no free port");
  return ntohs(a.sin_port);
}

TEST(RedisFailure, WrongPasswordIsUnavailableNamingTheUrlWithoutThePassword) {
  redis_server::config cfg;
  cfg.password = "right horse battery";
  redis_server server(cfg);
  const std::string url = "redis://:Wr0ngPa55@127.0.0.1:" + std::to_string(server.port());
  client c(test_client_options(url));
  const std::string text = unavailable_text([&] { c.check(); });
  EXPECT_THAT(text, HasSubstr("redis://:***@127.0.0.1:" + std::to_string(server.port())));
  EXPECT_THAT(text, HasSubstr("authentication refused"));
  EXPECT_THAT(text, HasSubstr("WRONGPASS"));
  EXPECT_THAT(text, Not(HasSubstr("Wr0ngPa55")));
  EXPECT_FALSE(c.healthy());
  client named_user(
      test_client_options("redis://nobody:x@127.0.0.1:" + std::to_string(server.port())));
  EXPECT_THAT(unavailable_text([&] { named_user.check(); }),
              AllOf(HasSubstr("redis://nobody:***@"), HasSubstr("WRONGPASS")));
}

TEST(RedisFailure, RightPasswordWithAndWithoutTheDefaultUser) {
  redis_server::config cfg;
  cfg.password = "p@ss:w/rd";
  redis_server server(cfg);
  client c(test_client_options(server.url()));  // percent-encoded in the URL
  c.check();
  EXPECT_TRUE(answers_ping(c));
  client user(test_client_options("redis://default:p%40ss%3Aw%2Frd@127.0.0.1:" +
                                  std::to_string(server.port())));
  EXPECT_TRUE(answers_ping(user));
  client unix_socket(test_client_options(server.unix_url() + "?password=p%40ss%3Aw%2Frd"));
  EXPECT_TRUE(answers_ping(unix_socket));
}

TEST(RedisFailure, MissingPasswordSaysAuthenticationRequired) {
  redis_server::config cfg;
  cfg.password = "secret";
  redis_server server(cfg);
  client c(test_client_options("redis://127.0.0.1:" + std::to_string(server.port())));
  EXPECT_THAT(unavailable_text([&] { c.check(); }),
              AllOf(HasSubstr("authentication required"), HasSubstr("NOAUTH")));
}

TEST(RedisFailure, NothingListeningIsConnectionRefused) {
  const std::uint16_t port = closed_port();
  client c(test_client_options("redis://:hidden@127.0.0.1:" + std::to_string(port)));
  const std::string text = unavailable_text([&] { c.check(); });
  EXPECT_THAT(text, HasSubstr("Redis at redis://:***@127.0.0.1:" + std::to_string(port)));
  EXPECT_THAT(text, HasSubstr("connection refused"));
  EXPECT_THAT(text, Not(HasSubstr("hidden")));
  EXPECT_THAT(unavailable_text([&] { c.run({"PING"}); }), HasSubstr("redis://:***@"));
}

TEST(RedisFailure, UnresolvableHostIsUnavailable) {
  client c(test_client_options("redis://no-such-host.invalid:6379"));
  EXPECT_THAT(unavailable_text([&] { c.check(); }),
              AnyOf(HasSubstr("cannot resolve 'no-such-host.invalid'"),
                    HasSubstr("timed out after 2000 ms resolving")));
}

TEST(RedisFailure, HungServerTimesOutWithinConnectTimeout) {
  redis_server server;
  server.freeze();  // the kernel accepts; nothing answers the PING
  options o = test_client_options(server.url());
  o.connect_timeout = 300ms;
  client c(o);
  EXPECT_THAT(unavailable_text([&] { c.check(); }),
              AllOf(HasSubstr(server.url()), HasSubstr("timed out after 300 ms")));
  server.thaw();
  c.check();
  EXPECT_TRUE(c.healthy());
}

TEST(RedisFailure, HungServerTimesOutACommand) {
  redis_server server;
  options o = test_client_options(server.url());
  o.command_timeout = 300ms;
  client c(o);
  ASSERT_TRUE(answers_ping(c));
  server.freeze();
  EXPECT_THAT(unavailable_text([&] {
                c.run({"GET", "x"});
              }),
              HasSubstr("timed out after 300 ms waiting for the reply"));
  EXPECT_FALSE(c.healthy());
  server.thaw();
  EXPECT_TRUE(testing::wait_until([&] { return answers_ping(c); }));
  EXPECT_TRUE(c.healthy());
}

TEST(RedisFailure, NotRedisIsUnavailable) {
  testing::fake_server http("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n");
  client c(test_client_options("redis://127.0.0.1:" + std::to_string(http.port())));
  EXPECT_THAT(unavailable_text([&] { c.check(); }), HasSubstr("not RESP"));
}

TEST(RedisFailure, KilledMidUseIsUnavailableThenTheSameClientRecovers) {
  redis_server server;
  client c(test_client_options(server.url()));
  c.run({"SET", "before", "1"});
  EXPECT_TRUE(c.healthy());
  server.kill();
  EXPECT_THAT(unavailable_text([&] { c.run({"GET", "before"}); }), HasSubstr(server.url()));
  EXPECT_FALSE(c.healthy());
  EXPECT_THAT(unavailable_text([&] { c.pipeline({{"PING"}, {"PING"}}); }), HasSubstr(server.url()));
  server.restart();
  ASSERT_TRUE(testing::wait_until([&] { return answers_ping(c); }));
  EXPECT_TRUE(c.healthy());
  EXPECT_TRUE(c.run({"GET", "before"}).is_nil());  // no persistence: a fresh server
}

TEST(RedisFailure, PooledConnectionsClosedByARestartAreReplacedSilently) {
  redis_server server;
  options o = test_client_options(server.url());
  o.pool_size = 3;
  client c(o);
  std::vector<std::thread> ts;  // three connections in the pool
  ts.reserve(3);
  for (int i = 0; i < 3; ++i) ts.emplace_back([&] { c.run({"INCR", "n"}); });
  for (auto& t : ts) t.join();
  server.restart();  // every pooled connection is now closed by the server
  EXPECT_EQ(c.run({"INCR", "n"}).integer, 1);
  EXPECT_TRUE(c.healthy());
}

TEST(RedisFailure, BackoffThrowsAtOnceWithoutConnecting) {
  redis_server server;
  options o = test_client_options(server.url());
  o.backoff_min = 60s;  // no retry during this test once a connect failed
  o.backoff_max = 60s;
  client c(o);
  ASSERT_TRUE(answers_ping(c));
  server.kill();
  EXPECT_THAT(unavailable_text([&] { c.run({"PING"}); }), Not(HasSubstr("not retrying")));
  EXPECT_THAT(unavailable_text([&] { c.run({"PING"}); }), HasSubstr("connection refused"));
  server.restart();
  // Redis is back, but the client does not try before the backoff has passed.
  const std::string text = unavailable_text([&] { c.run({"PING"}); });
  EXPECT_THAT(text, AllOf(HasSubstr("not retrying for"), HasSubstr("connection refused"),
                          HasSubstr(server.url())));
  EXPECT_FALSE(c.healthy());
  c.check();  // an explicit check connects regardless and resets the backoff
  EXPECT_TRUE(c.healthy());
  EXPECT_TRUE(answers_ping(c));
}

TEST(RedisFailure, BackoffDoublesUpToTheMaximum) {
  const std::uint16_t port = closed_port();
  options o = test_client_options("redis://127.0.0.1:" + std::to_string(port));
  o.backoff_min = 1000ms;
  o.backoff_max = 3000ms;
  client c(o);
  EXPECT_THAT(unavailable_text([&] { c.check(); }), HasSubstr("connection refused"));
  const int first = retry_wait_ms(unavailable_text([&] { c.run({"PING"}); }));
  EXPECT_GT(first, 0);
  EXPECT_LE(first, 1000);
  for (int i = 0; i < 3; ++i) EXPECT_THROW(c.check(), unavailable);  // waits 2 s, 3 s, 3 s
  const int last = retry_wait_ms(unavailable_text([&] { c.run({"PING"}); }));
  EXPECT_GT(last, 1000);  // grew past backoff_min
  EXPECT_LE(last, 3000);  // but not past backoff_max
}

}  // namespace
}  // namespace mcpcxx::redis
