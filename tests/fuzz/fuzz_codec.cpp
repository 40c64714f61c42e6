// libFuzzer harness for the JSON-RPC codec: parse() must answer every byte sequence without
// throwing, classify() every batch member, and what the serializers write must parse back to
// the same message. Any violated property aborts (a crash for libFuzzer).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "mcpcxx/jsonrpc.hpp"

namespace {

using namespace mcpcxx;
using namespace mcpcxx::jsonrpc;

void require(bool ok) {
  if (!ok) std::abort();
}

// The bytes written by a serializer are one valid JSON object.
json reparse(const std::string& frame) {
  json v = json::parse(frame, nullptr, false);
  require(!v.is_discarded() && v.is_object());
  return v;
}

void check_invalid(const message& m) {
  require(m.refusal.has_value() && m.error.code != 0 && !m.error.message.empty());
  const json back = reparse(serialize_error(m.id, m.error));
  require(back["error"]["code"] == m.error.code);
  require(m.id ? back["id"] == id_to_json(*m.id) : back["id"].is_null());
}

// A request or notification written back out reads as the same method and params.
void check_round_trip(const message& m) {
  const message again = parse(serialize_notification(m.method, m.params));
  require(again.kind == message_kind::notification);
  require(again.method == m.method);
  require(again.params == m.params);
  if (m.id) {
    const json back = reparse(serialize_result(*m.id, m.params));
    require(back["id"] == id_to_json(*m.id));
    require(!id_key(*m.id).empty());
  }
}

void check(const message& m) {
  switch (m.kind) {
    case message_kind::invalid:
      check_invalid(m);
      break;
    case message_kind::request:
    case message_kind::notification:
      check_round_trip(m);
      break;
    case message_kind::response:
      require(m.body.is_object());
      break;
    case message_kind::batch:
      require(m.body.is_array() && !m.body.empty());
      for (const json& element : m.body) check(classify(element));
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  check(parse(bytes));
  // Tight limits reach the size and depth rows with small inputs.
  parse_limits tight;
  tight.max_message_bytes = 512;
  tight.max_depth = 4;
  check(parse(bytes, tight));
  return 0;
}
