// redis::client against a private redis-server (redis/redis_server.hpp): round trips, binary
// values, error replies, AUTH and SELECT, the pool, and the failure model (refused, timed out,
// killed mid-use and restarted, backoff).
#include "redis/client.hpp"

#include <atomic>
#include <netinet/in.h>
#include <stdexcept>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "redis/client_support.hpp"
#include "redis/redis_server.hpp"
#include "support/wait.hpp"

namespace mcpcxx::redis {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::redis_server;

class RedisClient : public ::testing::Test {
 protected:
  redis_server server;
};

TEST_F(RedisClient, CheckThenRunRoundTrips) {
  client c(test_client_options(server.url()));
  EXPECT_FALSE(c.healthy());  // nothing has succeeded yet
  c.check();
  EXPECT_TRUE(c.healthy());
  const reply set = c.run({"SET", "k", "v"});
  EXPECT_EQ(set.kind, reply::type::status);
  EXPECT_EQ(set.str, "OK");
  const reply get = c.run({"GET", "k"});
  EXPECT_EQ(get.kind, reply::type::string);
  EXPECT_EQ(get.str, "v");
  EXPECT_TRUE(c.run({"GET", "missing"}).is_nil());
  const reply n = c.run({"INCRBY", "n", "41"});
  EXPECT_EQ(n.kind, reply::type::integer);
  EXPECT_EQ(n.integer, 41);
  c.run({"RPUSH", "l", "a", "b"});
  const reply l = c.run({"LRANGE", "l", "0", "-1"});
  ASSERT_EQ(l.kind, reply::type::array);
  ASSERT_EQ(l.elements.size(), 2u);
  EXPECT_EQ(l.elements[1].str, "b");
  EXPECT_EQ(c.config().url.port, server.port());
}

TEST_F(RedisClient, ValuesAreBinarySafe) {
  client c(test_client_options(server.url()));
  std::string value;
  for (int i = 0; i < 256; ++i) value += static_cast<char>(i);
  value += "\r\n$3\r\n*1\r\n";
  const std::string key("k\0ey\r\n", 6);
  c.run({"SET", key, value});
  EXPECT_EQ(c.run({"GET", key}).str, value);
  EXPECT_EQ(c.run({"STRLEN", key}).integer, static_cast<long long>(value.size()));
  const std::string big((std::size_t{3} << 20) + 7, '\xfe');  // many reads and writes
  c.run({"SET", "big", big});
  EXPECT_EQ(c.run({"GET", "big"}).str, big);
  c.run({"SET", "empty", ""});
  const reply empty = c.run({"GET", "empty"});
  EXPECT_EQ(empty.kind, reply::type::string);
  EXPECT_EQ(empty.str, "");
}

TEST_F(RedisClient, PipelineRepliesInOrderWithErrorsIncluded) {
  client c(test_client_options(server.url()));
  const std::vector<reply> rs = c.pipeline({{"SET", "a", "1"},
                                            {"INCR", "a"},
                                            {"NOSUCHCOMMAND"},
                                            {"GET", "a"},
                                            {"LPUSH", "a", "x"},
                                            {"GET", "nothing"}});
  ASSERT_EQ(rs.size(), 6u);
  EXPECT_EQ(rs[0].str, "OK");
  EXPECT_EQ(rs[1].integer, 2);
  EXPECT_TRUE(rs[2].is_error());
  EXPECT_THAT(rs[2].str, HasSubstr("unknown command"));
  EXPECT_EQ(rs[3].str, "2");
  EXPECT_TRUE(rs[4].is_error());
  EXPECT_THAT(rs[4].str, HasSubstr("WRONGTYPE"));
  EXPECT_TRUE(rs[5].is_nil());
  EXPECT_TRUE(c.pipeline({}).empty());
  std::vector<command> many;
  many.reserve(2000);
  for (int i = 0; i < 2000; ++i) many.push_back({"INCR", "counter"});
  const std::vector<reply> counted = c.pipeline(many);
  ASSERT_EQ(counted.size(), 2000u);
  EXPECT_EQ(counted.back().integer, 2000);
}

TEST_F(RedisClient, ErrorReplyThrowsCommandErrorAndKeepsTheConnection) {
  client c(test_client_options(server.url()));
  c.run({"SET", "s", "text"});
  try {
    c.run({"INCR", "s"});
    FAIL() << "INCR of a string succeeded";
  } catch (const command_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("INCR"));
    EXPECT_THAT(e.what(), HasSubstr("not an integer"));
  }
  EXPECT_THROW(c.run({"NOSUCHCOMMAND", "x"}), command_error);
  EXPECT_TRUE(c.healthy());  // an error reply is not an outage
  EXPECT_EQ(c.run({"GET", "s"}).str, "text");
  EXPECT_THROW(c.run({}), std::invalid_argument);
  EXPECT_THROW(c.pipeline({{"PING"}, {}}), std::invalid_argument);
  EXPECT_TRUE(answers_ping(c));
}

TEST_F(RedisClient, EvalUsesEvalshaAndReloadsAfterScriptFlush) {
  client c(test_client_options(server.url()));
  const std::string script = "redis.call('SET', KEYS[1], ARGV[1]); return {KEYS[1], ARGV[1], 7}";
  const reply r = c.eval(script, {"ek"}, {"ev"});
  ASSERT_EQ(r.kind, reply::type::array);
  ASSERT_EQ(r.elements.size(), 3u);
  EXPECT_EQ(r.elements[0].str, "ek");
  EXPECT_EQ(r.elements[1].str, "ev");
  EXPECT_EQ(r.elements[2].integer, 7);
  EXPECT_EQ(c.run({"GET", "ek"}).str, "ev");
  c.run({"SCRIPT", "FLUSH"});  // the cached SHA now answers NOSCRIPT
  EXPECT_EQ(c.eval(script, {"ek2"}, {"x"}).elements[1].str, "x");
  EXPECT_EQ(c.eval("return ARGV[1] .. ARGV[2]", {}, {"a", "b"}).str, "ab");
  EXPECT_THROW(c.eval("return redis.call('INCR', KEYS[1])", {"ek"}, {}), command_error);
  EXPECT_THROW(c.eval("this is not lua", {}, {}), command_error);
  EXPECT_TRUE(answers_ping(c));
}

TEST_F(RedisClient, EvalWorksAfterARestartEmptiedTheScriptCache) {
  client c(test_client_options(server.url()));
  EXPECT_EQ(c.eval("return 1", {}, {}).integer, 1);
  server.restart();
  ASSERT_TRUE(testing::wait_until([&] { return answers_ping(c); }));
  EXPECT_EQ(c.eval("return 1", {}, {}).integer, 1);
}

TEST_F(RedisClient, SelectsTheDatabaseOfTheUrl) {
  client db3(test_client_options(server.url(3)));
  client db0(test_client_options(server.url()));
  db3.run({"SET", "where", "three"});
  EXPECT_TRUE(db0.run({"GET", "where"}).is_nil());
  EXPECT_EQ(db3.run({"GET", "where"}).str, "three");
  client bad(test_client_options(server.url(99)));
  EXPECT_THAT(unavailable_text([&] { bad.check(); }), HasSubstr("SELECT 99 refused"));
}

TEST_F(RedisClient, MemoryUrlIsNotARedisTarget) {
  client c(test_client_options("memory:"));
  EXPECT_THAT(unavailable_text([&] { c.check(); }), HasSubstr("not a Redis URL"));
}

TEST_F(RedisClient, UnixSocket) {
  client c(test_client_options(server.unix_url()));
  c.check();
  c.run({"SET", "via", "unix"});
  client tcp(test_client_options(server.url()));
  EXPECT_EQ(tcp.run({"GET", "via"}).str, "unix");
  client missing(test_client_options("unix://" + server.dir().string() + "/nothing.sock"));
  EXPECT_THAT(unavailable_text([&] { missing.check(); }), HasSubstr("no such file"));
}

TEST_F(RedisClient, PoolServesManyThreadsWithAtMostPoolSizeConnections) {
  options o = test_client_options(server.url());
  o.pool_size = 2;
  client c(o);
  std::vector<std::thread> threads;
  threads.reserve(8);
  std::atomic<int> failures{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        try {
          c.run({"INCR", "shared"});
        } catch (const std::exception&) {
          ++failures;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(c.run({"GET", "shared"}).str, "1600");
  const std::string info = c.run({"INFO", "clients"}).str;
  EXPECT_THAT(info, HasSubstr("connected_clients:2\r\n")) << info;
}

}  // namespace
}  // namespace mcpcxx::redis
