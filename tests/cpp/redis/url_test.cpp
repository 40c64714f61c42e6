// parse_store_url: every accepted form, many refused ones (each naming what is wrong and the
// accepted form), percent-decoding, and redaction of the password.
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "redis/client.hpp"

namespace mcpcxx::redis {
namespace {

using ::testing::HasSubstr;
using scheme = store_url::scheme;

store_url parsed(const std::string& text) {
  std::string why;
  const auto u = parse_store_url(text, &why);
  EXPECT_TRUE(u.has_value()) << text << ": " << why;
  return u.value_or(store_url{});
}

std::string refusal(const std::string& text) {
  std::string why;
  const auto u = parse_store_url(text, &why);
  EXPECT_FALSE(u.has_value()) << text << " was accepted";
  EXPECT_FALSE(why.empty()) << text;
  return why;
}

TEST(StoreUrl, Memory) {
  EXPECT_EQ(parsed("memory:").kind, scheme::memory);
  EXPECT_EQ(parsed("MEMORY:").kind, scheme::memory);
  EXPECT_EQ(store_url{}.redacted(), "memory:");
}

TEST(StoreUrl, RedisDefaults) {
  const store_url u = parsed("redis://cache.internal");
  EXPECT_EQ(u.kind, scheme::redis);
  EXPECT_EQ(u.host, "cache.internal");
  EXPECT_EQ(u.port, 6379);
  EXPECT_EQ(u.db, 0);
  EXPECT_EQ(u.user, "");
  EXPECT_EQ(u.password, "");
  EXPECT_EQ(u.ca_file, "");
  EXPECT_EQ(parsed("redis://h/").db, 0);
}

TEST(StoreUrl, RedisEveryPart) {
  const store_url u = parsed("redis://alice:s3cret@10.0.0.5:6380/7");
  EXPECT_EQ(u.kind, scheme::redis);
  EXPECT_EQ(u.host, "10.0.0.5");
  EXPECT_EQ(u.port, 6380);
  EXPECT_EQ(u.db, 7);
  EXPECT_EQ(u.user, "alice");
  EXPECT_EQ(u.password, "s3cret");
}

TEST(StoreUrl, PasswordWithoutUser) {
  const store_url u = parsed("redis://:pw@h");
  EXPECT_EQ(u.user, "");
  EXPECT_EQ(u.password, "pw");
}

TEST(StoreUrl, PercentDecodesUserAndPassword) {
  const store_url u = parsed("redis://us%40er:p%3Aa%2Fs%25s%20w@h:1");
  EXPECT_EQ(u.user, "us@er");
  EXPECT_EQ(u.password, "p:a/s%s w");
  EXPECT_EQ(u.port, 1);
}

TEST(StoreUrl, PasswordMayHoldAnUnescapedAt) {
  const store_url u = parsed("redis://:p@ss@h");  // the last '@' ends the credentials
  EXPECT_EQ(u.password, "p@ss");
  EXPECT_EQ(u.host, "h");
}

TEST(StoreUrl, Ipv6Literal) {
  const store_url u = parsed("redis://[::1]:7000/2");
  EXPECT_EQ(u.host, "::1");
  EXPECT_EQ(u.port, 7000);
  EXPECT_EQ(u.db, 2);
  EXPECT_EQ(parsed("redis://[fe80::1]").port, 6379);
  EXPECT_EQ(u.redacted(), "redis://[::1]:7000/2");
}

TEST(StoreUrl, Rediss) {
  const store_url u = parsed("rediss://:pw@redis.example.com:6390/1?ca=/etc/ssl/my%20ca.pem");
  EXPECT_EQ(u.kind, scheme::rediss);
  EXPECT_EQ(u.host, "redis.example.com");
  EXPECT_EQ(u.port, 6390);
  EXPECT_EQ(u.db, 1);
  EXPECT_EQ(u.ca_file, "/etc/ssl/my ca.pem");
  EXPECT_EQ(parsed("rediss://h").ca_file, "");
}

TEST(StoreUrl, UnixSocket) {
  const store_url u = parsed("unix:///run/redis/redis.sock");
  EXPECT_EQ(u.kind, scheme::unix_socket);
  EXPECT_EQ(u.path, "/run/redis/redis.sock");
  EXPECT_EQ(u.db, 0);
  const store_url v = parsed("unix:///tmp/r.sock?db=3&password=p%26w&user=bob");
  EXPECT_EQ(v.db, 3);
  EXPECT_EQ(v.password, "p&w");
  EXPECT_EQ(v.user, "bob");
}

TEST(StoreUrl, TheBriefsExample) {
  EXPECT_EQ(refusal("redis://host:notaport"),
            "the port 'notaport' is not a number 1-65535; expected "
            "redis://[user:password@]host[:port][/db]");
}

// Each refused URL and a piece of the reason it must give.
TEST(StoreUrl, RefusedForms) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "empty"},
      {"localhost:6379", "scheme 'localhost' is not known"},
      {"cache.internal", "has no scheme"},
      {"http://h", "scheme 'http' is not known"},
      {"memory", "has no scheme"},
      {"memory:x", "takes nothing after the colon"},
      {"redis://", "host is missing"},
      {"redis://:6379", "host is missing"},
      {"redis://h:", "port after ':' is missing"},
      {"redis://h:0", "port '0' is not a number 1-65535"},
      {"redis://h:65536", "port '65536'"},
      {"redis://h:-1", "port '-1'"},
      {"redis://h:12a", "port '12a'"},
      {"redis://h:99999999999", "port '99999999999'"},
      {"redis://h/x", "db 'x' is not a whole number"},
      {"redis://h/-1", "db '-1'"},
      {"redis://h/1/2", "db '1/2'"},
      {"redis://h/99999999999", "db '99999999999'"},
      {"redis://user@h", "no ':'"},
      {"redis://user:@h", "password is empty"},
      {"redis://:p%zz@h", "bad percent escape"},
      {"redis://:p%4@h", "bad percent escape"},
      {"redis://:p%@h", "bad percent escape"},
      {"redis://::1:6379", "several ':'"},
      {"redis://[::1", "no closing ']'"},
      {"redis://[::1]x", "unexpected 'x'"},
      {"redis://[]:1", "host is missing"},
      {"redis://[::1]:", "port after ':' is missing"},
      {"redis://h o", "space or control"},
      {"redis://h\n", "space or control"},
      {"redis://h%41", "not allowed in a host name"},
      {"redis://h?ca=/x", "query parameter 'ca' is not known"},
      {"rediss://h?", "query after '?' is empty"},
      {"rediss://h?ca=", "CA file after ca= is empty"},
      {"rediss://h?verify=no", "query parameter 'verify' is not known"},
      {"rediss://h?ca", "not name=value"},
      {"unix://relative.sock", "must be absolute"},
      {"unix://", "must be absolute"},
      {"unix:///s?db=x", "db 'x'"},
      {"unix:///s?tls=1", "query parameter 'tls' is not known"},
      {"unix:///s?user=u", "user= needs password="},
      {"unix:///" + std::string(120, 'a'), "longer than 107 bytes"},
  };
  for (const auto& [text, part] : cases) {
    EXPECT_THAT(refusal(text), HasSubstr(part)) << "for " << text;
  }
}

TEST(StoreUrl, RefusalsListTheAcceptedForms) {
  EXPECT_THAT(refusal("redis://h:x"), HasSubstr("expected redis://[user:password@]host[:port]"));
  EXPECT_THAT(refusal("rediss://h:x"), HasSubstr("expected rediss://"));
  EXPECT_THAT(refusal("rediss://h:x"), HasSubstr("?ca=/path/ca.pem"));
  EXPECT_THAT(refusal("unix://x"), HasSubstr("expected unix:///"));
  const std::string unknown = refusal("ftp://h");
  for (const char* form : {"memory:", "redis://", "rediss://", "unix:///"}) {
    EXPECT_THAT(unknown, HasSubstr(form));
  }
}

TEST(StoreUrl, WhyMayBeNull) {
  EXPECT_FALSE(parse_store_url("nope", nullptr).has_value());
  EXPECT_TRUE(parse_store_url("memory:", nullptr).has_value());
}

TEST(StoreUrl, RedactedHidesThePasswordOnly) {
  EXPECT_EQ(parsed("redis://alice:s3cret@h:6380/7").redacted(), "redis://alice:***@h:6380/7");
  EXPECT_EQ(parsed("redis://:s3cret@h").redacted(), "redis://:***@h:6379");
  EXPECT_EQ(parsed("redis://h").redacted(), "redis://h:6379");
  EXPECT_EQ(parsed("rediss://:pw@h?ca=/c.pem").redacted(), "rediss://:***@h:6379?ca=/c.pem");
  EXPECT_EQ(parsed("unix:///s.sock?db=2&password=pw").redacted(),
            "unix:///s.sock?db=2&password=***");
  EXPECT_EQ(parsed("unix:///s.sock").redacted(), "unix:///s.sock");
  const std::string secret = "Zz9%21secret";
  const std::string r = parsed("redis://u:" + secret + "@h").redacted();
  EXPECT_EQ(r.find("Zz9"), std::string::npos) << r;
  EXPECT_EQ(parsed("redis://u%40x:pw@h").redacted(), "redis://u%40x:***@h:6379");
}

TEST(StoreUrl, RedactedParsesBackToTheSameTarget) {
  for (const char* text : {"redis://h:1/2", "redis://[::1]:7000", "rediss://h:9?ca=/a.pem",
                           "unix:///tmp/x.sock?db=4"}) {
    const store_url a = parsed(text);
    const store_url b = parsed(a.redacted());
    EXPECT_EQ(a.kind, b.kind) << text;
    EXPECT_EQ(a.host, b.host) << text;
    EXPECT_EQ(a.port, b.port) << text;
    EXPECT_EQ(a.path, b.path) << text;
    EXPECT_EQ(a.db, b.db) << text;
    EXPECT_EQ(a.ca_file, b.ca_file) << text;
  }
}

}  // namespace
}  // namespace mcpcxx::redis
