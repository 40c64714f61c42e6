// libFuzzer harness for the HTTP/1.1 request parser glue (cpp/src/transport/http/request_parser):
// bytes arrive in fuzzer-chosen chunks, pipelined requests are taken one by one, and every
// failure must name a 4xx status and a message. Any violated property aborts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "transport/http/request_parser.hpp"

namespace {

using namespace mcpcxx::http;

void require(bool ok) {
  if (!ok) std::abort();
}

void check_request(const request& r, const parser_limits& limits) {
  require(!r.method.empty());
  require(r.body.size() <= limits.max_body_bytes);
  require(r.headers.size() <= limits.max_headers);
  for (const auto& [name, value] : r.headers) {
    for (const char c : name) require(!(c >= 'A' && c <= 'Z'));
    (void)r.header(name);
    require(r.header_count(name) >= 1);
  }
  (void)r.path();
}

bool check_failure(const request_parser& p) {
  const parse_failure& f = p.failure();
  require(f.status >= 400 && f.status < 500);
  require(!f.message.empty());
  return false;
}

// Feeds `bytes` in chunks of `chunk` bytes; false once the parser reported an error.
bool feed_all(request_parser& p, std::string_view bytes, std::size_t chunk,
              const parser_limits& limits) {
  while (!bytes.empty()) {
    const std::size_t n = bytes.size() < chunk ? bytes.size() : chunk;
    std::size_t consumed = 0;
    const parse_state st = p.feed(bytes.data(), n, consumed);
    require(consumed <= n);
    if (st == parse_state::error) return check_failure(p);
    if (st == parse_state::complete) {
      check_request(p.take(), limits);
      bytes.remove_prefix(consumed);
      continue;
    }
    require(consumed == n);
    (void)p.take_continue();
    bytes.remove_prefix(n);
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  // The first byte picks the chunking (1..64 bytes, 0 = all at once) and tight or default limits.
  const std::size_t chunk = (data[0] & 0x3F) == 0 ? size : (data[0] & 0x3F);
  parser_limits limits;
  if ((data[0] & 0x40) != 0) {
    limits.max_header_bytes = 256;
    limits.max_headers = 4;
    limits.max_body_bytes = 64;
  }
  const std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  request_parser p(limits);
  if (!feed_all(p, bytes, chunk, limits)) return 0;
  const parse_state end = p.finish();
  if (end == parse_state::error) check_failure(p);
  if (end == parse_state::complete) check_request(p.take(), limits);
  return 0;
}
