// Unit tests of the llhttp wrapper and the pure security helpers.
#include <set>

#include <gtest/gtest.h>

#include "transport/http/request_parser.hpp"
#include "transport/http/security.hpp"
#include "transport/http/session_table.hpp"

namespace mcpcxx::http {
namespace {

parse_state feed_all(request_parser& p, const std::string& bytes, std::size_t& used) {
  return p.feed(bytes.data(), bytes.size(), used);
}

TEST(HttpParser, ParsesARequestAndKeepsPipelinedBytes) {
  request_parser p({});
  std::string two =
      "POST /mcp?x=1 HTTP/1.1\r\nHost: a\r\nX-Thing:  v  \r\nContent-Length: 2\r\n\r\nhi"
      "GET /next HTTP/1.1\r\nHost: a\r\n\r\n";
  std::size_t used = 0;
  ASSERT_EQ(feed_all(p, two, used), parse_state::complete);
  request r = p.take();
  EXPECT_EQ(r.method, "POST");
  EXPECT_EQ(r.path(), "/mcp");
  EXPECT_EQ(r.body, "hi");
  ASSERT_NE(r.header("x-thing"), nullptr);
  EXPECT_EQ(*r.header("x-thing"), "v");
  EXPECT_TRUE(r.keep_alive);
  std::string rest = two.substr(used);
  ASSERT_EQ(feed_all(p, rest, used), parse_state::complete);
  EXPECT_EQ(p.take().target, "/next");
}

TEST(HttpParser, ByteByByteFeedingWorks) {
  request_parser p({});
  std::string req = "POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello";
  parse_state st = parse_state::need_more;
  for (std::size_t i = 0; i < req.size(); ++i) {
    std::size_t used = 0;
    st = p.feed(req.data() + i, 1, used);
    EXPECT_EQ(used, 1u);
  }
  ASSERT_EQ(st, parse_state::complete);
  EXPECT_EQ(p.take().body, "hello");
}

TEST(HttpParser, LimitsGive413And431) {
  std::size_t used = 0;
  request_parser big_body({.max_header_bytes = 1024, .max_headers = 8, .max_body_bytes = 10});
  EXPECT_EQ(feed_all(big_body, "POST / HTTP/1.1\r\nContent-Length: 11\r\n\r\n", used),
            parse_state::error);
  EXPECT_EQ(big_body.failure().status, 413);

  request_parser chunked({.max_header_bytes = 1024, .max_headers = 8, .max_body_bytes = 10});
  EXPECT_EQ(feed_all(chunked,
                     "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                     "8\r\n12345678\r\n8\r\n12345678\r\n0\r\n\r\n",
                     used),
            parse_state::error);
  EXPECT_EQ(chunked.failure().status, 413);

  request_parser long_header({.max_header_bytes = 64, .max_headers = 8, .max_body_bytes = 10});
  EXPECT_EQ(
      feed_all(long_header, "GET / HTTP/1.1\r\nX: " + std::string(100, 'a') + "\r\n\r\n", used),
      parse_state::error);
  EXPECT_EQ(long_header.failure().status, 431);

  request_parser many({.max_header_bytes = 4096, .max_headers = 3, .max_body_bytes = 10});
  EXPECT_EQ(feed_all(many, "GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n", used),
            parse_state::error);
  EXPECT_EQ(many.failure().status, 431);
  EXPECT_NE(many.failure().message.find("header fields"), std::string::npos);
}

TEST(HttpParser, MalformedAndTruncatedRequestsAre400) {
  std::size_t used = 0;
  request_parser bad_line({});
  EXPECT_EQ(feed_all(bad_line, "THIS IS NOT HTTP\r\n\r\n", used), parse_state::error);
  EXPECT_EQ(bad_line.failure().status, 400);
  EXPECT_NE(bad_line.failure().message.find("Malformed HTTP request"), std::string::npos);

  request_parser truncated({});
  EXPECT_EQ(feed_all(truncated, "POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc", used),
            parse_state::need_more);
  EXPECT_TRUE(truncated.in_body());
  EXPECT_EQ(truncated.finish(), parse_state::error);
  EXPECT_EQ(truncated.failure().status, 400);
  EXPECT_NE(truncated.failure().message.find("Truncated"), std::string::npos);

  request_parser idle({});
  EXPECT_EQ(idle.finish(), parse_state::need_more);  // EOF between requests is not an error
}

TEST(HttpParser, ExpectContinueIsReportedOnce) {
  request_parser p({});
  std::size_t used = 0;
  EXPECT_EQ(
      feed_all(p, "POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n", used),
      parse_state::need_more);
  EXPECT_TRUE(p.take_continue());
  EXPECT_FALSE(p.take_continue());
}

TEST(HttpSecurityHelpers, HeaderValueDecoding) {
  EXPECT_EQ(decode_header_value("  tools/call \t"), "tools/call");
  EXPECT_EQ(decode_header_value("=?base64?SGVsbG8=?="), "Hello");
  EXPECT_EQ(decode_header_value("=?BASE64?4pyTIMOpdMOp?="), "\xE2\x9C\x93 \xC3\xA9t\xC3\xA9");
  EXPECT_FALSE(decode_header_value("=?base64?SGVsbG8?="));      // missing padding
  EXPECT_FALSE(decode_header_value("=?base64?SGVs!!!bG8=?="));  // not the alphabet
  EXPECT_FALSE(decode_header_value("=?base64?/w==?="));         // decodes to invalid UTF-8
  EXPECT_FALSE(decode_header_value("caf\xC3\xA9"));             // raw non-ASCII
  EXPECT_FALSE(decode_header_value(std::string("a\x01", 2)));   // control character
  EXPECT_EQ(decode_header_value("base64?SGVsbG8=?="), "base64?SGVsbG8=?=");  // no prefix: literal
}

TEST(HttpSecurityHelpers, Utf8AndBase64) {
  EXPECT_TRUE(valid_utf8("plain"));
  EXPECT_TRUE(valid_utf8("\xF0\x9F\x98\x80"));
  EXPECT_FALSE(valid_utf8("\xC0\xAF"));      // overlong
  EXPECT_FALSE(valid_utf8("\xED\xA0\x80"));  // surrogate
  EXPECT_FALSE(valid_utf8("\xE2\x9C"));      // truncated
  EXPECT_EQ(base64_decode("TWFu"), "Man");
  EXPECT_EQ(base64_decode("TWE="), "Ma");
  EXPECT_FALSE(base64_decode("TW=u"));
  EXPECT_FALSE(base64_decode("T==="));
}

TEST(HttpSecurityHelpers, AcceptAndContentType) {
  std::string both = "application/json, text/event-stream";
  EXPECT_TRUE(accepts(&both, "application/json"));
  EXPECT_TRUE(accepts(&both, "text/event-stream"));
  std::string wild = "*/*";
  EXPECT_TRUE(accepts(&wild, "text/event-stream"));
  std::string partial = "application/*;q=0.9";
  EXPECT_TRUE(accepts(&partial, "application/json"));
  EXPECT_FALSE(accepts(&partial, "text/event-stream"));
  std::string refused = "application/json;q=0, text/event-stream";
  EXPECT_FALSE(accepts(&refused, "application/json"));
  EXPECT_FALSE(accepts(nullptr, "application/json"));
  std::string ct = "Application/JSON; charset=utf-8";
  EXPECT_TRUE(is_json_content_type(&ct));
  std::string text = "text/plain";
  EXPECT_FALSE(is_json_content_type(&text));
}

TEST(HttpSecurityHelpers, HostAndOriginPolicy) {
  origin_policy local;
  std::string h1 = "127.0.0.1:8080", h2 = "localhost", h3 = "[::1]:9", bad = "evil.example.com",
              badport = "localhost:abc";
  EXPECT_TRUE(host_allowed(local, &h1));
  EXPECT_TRUE(host_allowed(local, &h2));
  EXPECT_TRUE(host_allowed(local, &h3));
  EXPECT_FALSE(host_allowed(local, &bad));
  EXPECT_FALSE(host_allowed(local, &badport));
  EXPECT_FALSE(host_allowed(local, nullptr));
  std::string o1 = "http://localhost:3000", o2 = "https://127.0.0.1",
              evil = "http://evil.example.com", null_origin = "null";
  EXPECT_TRUE(origin_allowed(local, nullptr));
  EXPECT_TRUE(origin_allowed(local, &o1));
  EXPECT_TRUE(origin_allowed(local, &o2));
  EXPECT_FALSE(origin_allowed(local, &evil));
  EXPECT_FALSE(origin_allowed(local, &null_origin));
  origin_policy custom{{"mcp.example.com"}, {"https://app.example.com"}, false};
  std::string ch = "mcp.example.com:443", co = "https://app.example.com";
  EXPECT_TRUE(host_allowed(custom, &ch));
  EXPECT_FALSE(host_allowed(custom, &h2));
  EXPECT_TRUE(origin_allowed(custom, &co));
  EXPECT_FALSE(origin_allowed(custom, &o1));
}

TEST(HttpSecurityHelpers, BearerToken) {
  std::string ok = "Bearer abc.def", lower = "bearer xyz", basic = "Basic Zm9v",
              empty = "Bearer   ";
  EXPECT_EQ(bearer_token(&ok), "abc.def");
  EXPECT_EQ(bearer_token(&lower), "xyz");
  EXPECT_FALSE(bearer_token(&basic));
  EXPECT_FALSE(bearer_token(&empty));
  EXPECT_FALSE(bearer_token(nullptr));
}

TEST(HttpSecurityHelpers, B64TokenSyntax) {
  EXPECT_TRUE(is_b64token("abc.DEF-123_~+/"));
  EXPECT_TRUE(is_b64token("YWJj=="));
  EXPECT_FALSE(is_b64token(""));
  EXPECT_FALSE(is_b64token("=="));
  EXPECT_FALSE(is_b64token("a=b"));
  EXPECT_FALSE(is_b64token("a b"));
  EXPECT_FALSE(is_b64token("a\"b"));
  EXPECT_FALSE(is_b64token("caf\xC3\xA9"));
}

TEST(HttpSecurityHelpers, PrintableHeaderMasksEverythingButVisibleAscii) {
  EXPECT_EQ(printable_header("2025-11-25"), "2025-11-25");
  EXPECT_EQ(printable_header("a\xFF\xC3\xA9\tb c"), "a????b c");
  EXPECT_TRUE(valid_utf8(printable_header("\x80\xC0\xAF\xFF")));
}

TEST(HttpSessionIds, AreRandomVisibleAsciiAnd128Bits) {
  std::set<std::string> seen;
  for (int i = 0; i < 200; ++i) {
    std::string id = mint_session_id();
    ASSERT_EQ(id.size(), 32u);
    for (char c : id) ASSERT_TRUE(c >= 0x21 && c <= 0x7E);
    seen.insert(id);
  }
  EXPECT_EQ(seen.size(), 200u);
  auto pos = parse_event_id("3-17");
  ASSERT_TRUE(pos);
  EXPECT_EQ(pos->stream, 3u);
  EXPECT_EQ(pos->seq, 17u);
  EXPECT_FALSE(parse_event_id("x-1"));
  EXPECT_FALSE(parse_event_id("3-"));
  EXPECT_FALSE(parse_event_id("3-1-2"));
}

}  // namespace
}  // namespace mcpcxx::http
