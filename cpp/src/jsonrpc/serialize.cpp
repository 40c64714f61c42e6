// Reply builders on the engine's hot path: each writes one compact JSON text straight into a
// reserved std::string, with a single nlohmann serializer for the embedded values.
#include <charconv>
#include <cstdint>
#include <string>

#include "mcpcxx/jsonrpc.hpp"

namespace mcpcxx::jsonrpc {

namespace {

using serializer = nlohmann::detail::serializer<json>;

/// Appends compact JSON for embedded values. Ill-formed UTF-8 from handler strings is replaced
/// with U+FFFD because the wire must stay UTF-8 and a reply must never fail to serialize.
class writer {
 public:
  explicit writer(std::size_t reserve)
      : ser_(nlohmann::detail::output_adapter<char, std::string>(out_), ' ',
             json::error_handler_t::replace) {
    out_.reserve(reserve);
  }
  void raw(std::string_view s) { out_.append(s); }
  /// The same bytes as nlohmann's compact dump, written without its per-character virtual
  /// output calls for the common members (plain ASCII strings, integers, containers); floats,
  /// binary and strings that need escaping go to nlohmann's serializer itself.
  void value(const json& v) {
    switch (v.type()) {
      case json::value_t::object:
        object(v);
        return;
      case json::value_t::array:
        array(v);
        return;
      case json::value_t::string:
        string_value(v);
        return;
      case json::value_t::boolean:
        out_.append(v.get<bool>() ? "true" : "false");
        return;
      case json::value_t::null:
        out_.append("null");
        return;
      case json::value_t::number_integer:
        integer(v.get<std::int64_t>());
        return;
      case json::value_t::number_unsigned:
        integer(v.get<std::uint64_t>());
        return;
      default:
        ser_.dump(v, false, false, 0);
    }
  }
  void string(std::string_view s) {
    if (plain(s)) {
      out_.push_back('"');
      out_.append(s);
      out_.push_back('"');
    } else {
      value(json(s));
    }
  }
  void id(const request_id& id) {
    if (const auto* n = std::get_if<std::int64_t>(&id)) {
      char buf[24];
      const auto r = std::to_chars(buf, buf + sizeof buf, *n);
      out_.append(buf, r.ptr);
    } else {
      string(std::get<std::string>(id));
    }
  }
  std::string take() { return std::move(out_); }

 private:
  void object(const json& v) {
    out_.push_back('{');
    bool first = true;
    for (const auto& [key, member] : v.get_ref<const json::object_t&>()) {
      if (!first) out_.push_back(',');
      first = false;
      string(key);
      out_.push_back(':');
      value(member);
    }
    out_.push_back('}');
  }
  void array(const json& v) {
    out_.push_back('[');
    bool first = true;
    for (const json& item : v) {
      if (!first) out_.push_back(',');
      first = false;
      value(item);
    }
    out_.push_back(']');
  }
  void string_value(const json& v) {
    const auto& s = v.get_ref<const std::string&>();
    if (plain(s)) {
      out_.push_back('"');
      out_.append(s);
      out_.push_back('"');
    } else {
      ser_.dump(v, false, false, 0);
    }
  }
  template <class Int>
  void integer(Int n) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, n);
    out_.append(buf, r.ptr);
  }

  /// Printable ASCII without quote or backslash needs no escaping.
  static bool plain(std::string_view s) noexcept {
    for (const char c : s) {
      if (c < 0x20 || c > 0x7E || c == '"' || c == '\\') return false;
    }
    return true;
  }

  std::string out_;
  serializer ser_;
};

}  // namespace

std::string serialize_result(const request_id& id, const json& result) {
  writer w(512);  // typical tools/call results fit without regrowth
  w.raw(R"({"jsonrpc":"2.0","id":)");
  w.id(id);
  w.raw(R"(,"result":)");
  w.value(result);
  w.raw("}");
  return w.take();
}

std::string serialize_error(const std::optional<request_id>& id, const error_object& error) {
  writer w(96 + error.message.size());
  w.raw(R"({"jsonrpc":"2.0","id":)");
  if (id) {
    w.id(*id);
  } else {
    w.raw("null");
  }
  w.raw(R"(,"error":{"code":)");
  w.raw(std::to_string(error.code));
  w.raw(R"(,"message":)");
  w.string(error.message);
  if (!error.data.is_null()) {
    w.raw(R"(,"data":)");
    w.value(error.data);
  }
  w.raw("}}");
  return w.take();
}

std::string serialize_notification(std::string_view method, const json& params) {
  writer w(64 + method.size());
  w.raw(R"({"jsonrpc":"2.0","method":)");
  w.string(method);
  if (!params.is_null()) {
    w.raw(R"(,"params":)");
    w.value(params);
  }
  w.raw("}");
  return w.take();
}

}  // namespace mcpcxx::jsonrpc
