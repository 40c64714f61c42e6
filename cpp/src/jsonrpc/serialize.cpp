// Reply builders on the engine's hot path: each writes one compact JSON text straight into a
// reserved std::string, with a single nlohmann serializer for the embedded values.
#include <array>
#include <charconv>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>

#include "mcpcxx/jsonrpc.hpp"

#include "jsonrpc/plain_text.hpp"
#include "jsonrpc/splice.hpp"

namespace mcpcxx::jsonrpc {

namespace {

using serializer = nlohmann::detail::serializer<json>;

/// Appends compact JSON for embedded values. Ill-formed UTF-8 from handler strings is replaced
/// with U+FFFD because the wire must stay UTF-8 and a reply must never fail to serialize.
class writer {
 public:
  explicit writer(std::size_t reserve) { out_.reserve(reserve); }
  void raw(std::string_view s) { out_.append(s); }
  /// The same bytes as nlohmann's compact dump, written without its per-character virtual
  /// output calls for the common members (ASCII strings, integers, containers); floats, binary
  /// and strings with bytes of 0x80 and above go to nlohmann's serializer itself.
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
        nlohmann_serializer().dump(v, false, false, 0);
    }
  }
  void string(std::string_view s) {
    if (!append_quoted_ascii(out_, s)) value(json(s));
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

  /// `v` (an object) with the members of `extra` whose parent is `parent` merged in at their
  /// sorted places; at the top level, a parent named by `extra` is written merged the same way.
  void object_spliced(const json& v, std::span<const spliced_member> extra,
                      std::string_view parent) {
    std::array<pending, 8> level{};
    const std::size_t n = collect(extra, parent, level);
    out_.push_back('{');
    bool first = true;
    const auto write = [&](std::string_view key, const pending* p, const json* existing) {
      if (!first) out_.push_back(',');
      first = false;
      string(key);
      out_.push_back(':');
      if (p == nullptr) {
        value(*existing);
      } else if (p->raw != nullptr) {
        out_.append(p->raw->json_text);
      } else {
        object_spliced(existing != nullptr && existing->is_object() ? *existing : empty_object(),
                       extra, p->key);
      }
    };
    std::size_t i = 0;
    for (const auto& [key, member] : v.get_ref<const json::object_t&>()) {
      for (; i < n && level[i].key < key; ++i) write(level[i].key, &level[i], nullptr);
      if (i < n && level[i].key == key) {
        write(key, &level[i], &member);
        ++i;
      } else {
        write(key, nullptr, &member);
      }
    }
    for (; i < n; ++i) write(level[i].key, &level[i], nullptr);
    out_.push_back('}');
  }

 private:
  // A member to splice at one level: written verbatim (`raw`), or a parent merged in.
  struct pending {
    std::string_view key;
    const spliced_member* raw = nullptr;
  };

  // The members of one level, sorted by key; their count.
  static std::size_t collect(std::span<const spliced_member> extra, std::string_view parent,
                             std::array<pending, 8>& level) {
    std::size_t n = 0;
    const auto add = [&](pending p) {
      for (std::size_t i = 0; i < n; ++i) {
        if (level[i].key == p.key) return;
      }
      if (n == level.size()) throw std::length_error("too many spliced result members");
      std::size_t at = n++;
      for (; at > 0 && p.key < level[at - 1].key; --at) level[at] = level[at - 1];
      level[at] = p;  // kept sorted by key as it fills
    };
    for (const auto& m : extra) {
      if (m.parent == parent) {
        add({m.key, &m});
      } else if (parent.empty()) {
        add({m.parent, nullptr});
      }
    }
    return n;
  }
  static const json& empty_object() {
    static const json e = json::object();
    return e;
  }

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
    if (!append_quoted_ascii(out_, v.get_ref<const std::string&>())) {
      nlohmann_serializer().dump(v, false, false, 0);
    }
  }
  template <class Int>
  void integer(Int n) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, n);
    out_.append(buf, r.ptr);
  }

  // Made on first use: its constructor reads the locale and allocates a 512-byte indent string,
  // and most replies (ASCII text, integers) never need it.
  serializer& nlohmann_serializer() {
    if (!ser_) {
      ser_.emplace(nlohmann::detail::output_adapter<char, std::string>(out_), ' ',
                   json::error_handler_t::replace);
    }
    return *ser_;
  }

  std::string out_;
  std::optional<serializer> ser_;
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

std::string serialize_result_spliced(const request_id& id, const json& result,
                                     std::initializer_list<spliced_member> members) {
  return serialize_result_spliced(id, result,
                                  std::span<const spliced_member>(members.begin(), members.size()));
}

std::string serialize_result_spliced(const request_id& id, const json& result,
                                     std::span<const spliced_member> members) {
  writer w(512);
  w.raw(R"({"jsonrpc":"2.0","id":)");
  w.id(id);
  w.raw(R"(,"result":)");
  w.object_spliced(result, members, {});
  w.raw("}");
  return w.take();
}

std::string serialize_value(const json& value) {
  writer w(128);
  w.value(value);
  return w.take();
}

std::string serialize_object_spliced(const json& object, std::span<const spliced_member> members) {
  writer w(256);
  w.object_spliced(object, members, {});
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
