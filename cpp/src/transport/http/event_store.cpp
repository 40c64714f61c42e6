#include "transport/http/event_store.hpp"

#include <charconv>

namespace mcpcxx::http {

std::optional<event_position> parse_event_id(std::string_view id) {
  auto dash = id.find('-');
  if (dash == std::string_view::npos || dash == 0 || dash + 1 >= id.size()) return std::nullopt;
  event_position p;
  auto a = std::from_chars(id.data(), id.data() + dash, p.stream);
  auto b = std::from_chars(id.data() + dash + 1, id.data() + id.size(), p.seq);
  if (a.ec != std::errc{} || a.ptr != id.data() + dash || b.ec != std::errc{} ||
      b.ptr != id.data() + id.size()) {
    return std::nullopt;
  }
  return p;
}

std::string format_event_id(event_position p) {
  return std::to_string(p.stream) + "-" + std::to_string(p.seq);
}

}  // namespace mcpcxx::http
