// Incremental HTTP/1.1 request parsing on top of llhttp, with size and count limits.
// Thread-safety: one parser per connection, used from that connection's strand only.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "transport/http/wire.hpp"

namespace mcpcxx::http {

/// One header field; names are lower-cased, values have surrounding whitespace removed.
using header_list = std::vector<std::pair<std::string, std::string>>;

/// `v` without the spaces and tabs around it (HTTP's optional whitespace, RFC 9110 5.6.3).
constexpr std::string_view trim_ows(std::string_view v) noexcept {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  return v;
}

/// `s` with ASCII letters in lower case (header names and tokens are ASCII, RFC 9110 5.1).
std::string lower_ascii(std::string_view s);

/// A complete parsed request.
struct request {
  std::string method;  ///< "GET", "POST", ...
  std::string target;  ///< request-target as sent ("/mcp?x=1")
  header_list headers;
  std::string body;
  bool keep_alive = true;

  /// First header named `name` (lower-case); nullptr when absent.
  const std::string* header(std::string_view name) const;
  /// Number of fields named `name`.
  std::size_t header_count(std::string_view name) const;
  /// The target without its query string.
  std::string_view path() const;
};

/// Limits applied while parsing.
struct parser_limits {
  std::size_t max_header_bytes = std::size_t{16} * 1024u;
  std::size_t max_headers = 64;
  std::size_t max_body_bytes = std::size_t{4} * 1024u * 1024u;
};

/// Result of feeding bytes.
enum class parse_state { need_more, complete, error };

/// Why parsing failed: the situation-table row to answer with, and its status and text.
struct parse_failure {
  problem what{mcpcxx::wire::situation::H23_malformed_http};
  int status = 400;     ///< the row's HTTP status
  std::string message;  ///< the row's rendered text (empty until a failure was recorded)
};

/// Wraps one llhttp parser; pauses after each complete request so requests are served in order.
class request_parser {
 public:
  explicit request_parser(parser_limits limits);
  ~request_parser();
  request_parser(const request_parser&) = delete;
  request_parser& operator=(const request_parser&) = delete;

  /// Consumes bytes from `data`; `consumed` tells how many were used (the rest belong to the
  /// next request). On complete, take() returns the request.
  parse_state feed(const char* data, std::size_t size, std::size_t& consumed);
  /// The connection closed: finishes a request that ends at EOF or reports truncation.
  parse_state finish();
  /// Moves out the completed request and readies the parser for the next one.
  request take();
  /// The failure after feed()/finish() returned error.
  const parse_failure& failure() const noexcept { return failure_; }
  /// True once any byte of the current request arrived.
  bool started() const noexcept { return started_; }
  /// True once the head of the current request is complete (the body is being read).
  bool in_body() const noexcept { return in_body_; }
  /// True once per request whose head asked for "Expect: 100-continue" within the limits.
  bool take_continue() noexcept { return std::exchange(continue_pending_, false); }

  struct callbacks;

 private:
  friend struct callbacks;
  struct impl;
  std::unique_ptr<impl> impl_;
  parser_limits limits_;
  request current_;
  std::string field_;
  std::string value_;
  bool in_value_ = false;
  std::size_t head_bytes_ = 0;
  bool started_ = false;
  bool in_body_ = false;
  bool complete_ = false;
  bool continue_pending_ = false;
  parse_failure failure_;

  int fail(problem p);
  int push_header();
};

}  // namespace mcpcxx::http
