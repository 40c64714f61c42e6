// Template rendering for the situation table (notation in situation.hpp). Never throws: a render
// that fails for lack of memory degrades to the row's bare template text.
#include <atomic>
#include <cassert>
#include <cstdio>
#include <optional>
#include <string>
#include <type_traits>

#include "wire/era.hpp"
#include "wire/fill.hpp"
#include "wire/situation.hpp"

namespace mcpcxx::wire {

namespace {

std::atomic<std::size_t> g_missing{0};

void note_missing(std::string_view row_id, std::string_view name) noexcept {
  g_missing.fetch_add(1, std::memory_order_relaxed);
  (void)row_id;
  (void)name;
  assert(false && "wire: a situation was rendered without one of its arguments");
}

// Compact JSON that stays valid UTF-8 whatever the strings hold.
std::string dump(const json& v) { return v.dump(-1, ' ', false, json::error_handler_t::replace); }

std::string format_g(const json& v) {
  if (!v.is_number()) return dump(v);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v.get<double>());
  return buf;
}

std::string format_list(const json& v) {
  if (!v.is_array()) return v.is_string() ? v.get<std::string>() : dump(v);
  std::string out;
  for (const json& item : v) {
    if (!out.empty()) out += ", ";
    out += item.is_string() ? item.get<std::string>() : dump(item);
  }
  return out;
}

std::string format_bullets(const json& v) {
  const std::string text = v.is_string() ? v.get<std::string>() : dump(v);
  std::string out = "- ";
  for (const char c : text) {
    out += c;
    if (c == '\n') out += "- ";
  }
  return out;
}

std::string format_value(const json& v, std::string_view how) {
  if (how == "json") return dump(v);
  if (how == "list") return format_list(v);
  if (how == "bullets") return format_bullets(v);
  if (how == "g") return format_g(v);
  return v.is_string() ? v.get<std::string>() : dump(v);
}

bool is_name_char(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// A placeholder starting at tpl[i] == '{': its name, format and length; nullopt for a literal.
struct placeholder {
  std::string_view name;
  std::string_view format;
  std::size_t length;
};
std::optional<placeholder> read_placeholder(std::string_view tpl, std::size_t i) {
  std::size_t j = i + 1;
  while (j < tpl.size() && is_name_char(tpl[j])) ++j;
  if (j == i + 1 || j >= tpl.size()) return std::nullopt;
  std::size_t name_end = j;
  if (tpl[j] == ':') {
    ++j;
    while (j < tpl.size() && is_name_char(tpl[j])) ++j;
  }
  if (j >= tpl.size() || tpl[j] != '}') return std::nullopt;
  std::string_view name = tpl.substr(i + 1, name_end - i - 1);
  std::string_view format =
      name_end < j ? tpl.substr(name_end + 1, j - name_end - 1) : std::string_view{};
  return placeholder{name, format, j - i + 1};
}

// Appends argument `v` as placeholder format `how` asks; a plain string is appended as it is.
void append_value(std::string& out, const json& v, std::string_view how) {
  if (how.empty() && v.is_string()) {
    out.append(v.get_ref<const std::string&>());
  } else {
    out.append(format_value(v, how));
  }
}

// Fills `tpl` (no optional segments inside); counts the placeholders seen and those it could not
// fill. Literal text between placeholders is copied a run at a time.
std::string fill(std::string_view tpl, const json& args, std::size_t& missing, std::size_t& seen) {
  std::string out;
  out.reserve(tpl.size() + 32);
  std::size_t i = 0;
  while (i < tpl.size()) {
    const std::size_t open = tpl.find('{', i);
    if (open == std::string_view::npos) {
      out.append(tpl.substr(i));
      break;
    }
    out.append(tpl.substr(i, open - i));
    const auto ph = read_placeholder(tpl, open);
    if (!ph) {
      out += '{';
      i = open + 1;
      continue;
    }
    ++seen;
    const auto it = args.is_object() ? args.find(ph->name) : args.end();
    if (it == args.end() || it->is_null()) {
      ++missing;
      out += '?';
    } else {
      append_value(out, *it, ph->format);
    }
    i = open + ph->length;
  }
  return out;
}

}  // namespace

namespace detail {

// Fills a whole template: an optional "[...]" segment vanishes when an argument inside it is
// missing; brackets around no placeholder are literal text.
std::string fill_template(const row& r, const json& args) {
  std::string out;
  std::string_view tpl = r.message;
  std::size_t missing = 0;
  std::size_t seen = 0;
  while (!tpl.empty()) {
    const std::size_t open = tpl.find('[');
    const std::size_t close = open == std::string_view::npos ? open : tpl.find(']', open);
    if (close == std::string_view::npos) {
      out += fill(tpl, args, missing, seen);
      break;
    }
    out += fill(tpl.substr(0, open), args, missing, seen);
    std::size_t segment_missing = 0;
    std::size_t segment_seen = 0;
    std::string segment =
        fill(tpl.substr(open + 1, close - open - 1), args, segment_missing, segment_seen);
    if (segment_seen == 0) {
      out += '[' + segment + ']';
    } else if (segment_missing == 0) {
      out += segment;
    }
    tpl.remove_prefix(close + 1);
  }
  if (missing > 0) note_missing(r.id, r.message);
  return out;
}

namespace {

// The data object of a row from `args` (a const json to copy from, a json to move out of).
template <class Args>
json data_of(const row& r, Args& args) {
  const auto value = [&args](const std::string& key) -> json {
    if constexpr (std::is_const_v<Args>) {
      return args[key];
    } else {
      return std::move(args[key]);
    }
  };
  std::string_view keys = r.data_keys;
  if (keys.empty()) return nullptr;
  if (keys.front() == '=') {
    const std::string key(keys.substr(1));
    return args.is_object() && args.contains(key) ? value(key) : json(nullptr);
  }
  json data = json::object();
  while (!keys.empty()) {
    const std::size_t sp = keys.find(' ');
    const std::string key(keys.substr(0, sp));
    keys.remove_prefix(sp == std::string_view::npos ? keys.size() : sp + 1);
    if (key == "supported" && !(args.is_object() && args.contains(key))) {
      data[key] = supported_versions_json();
    } else if (args.is_object() && args.contains(key)) {
      data[key] = value(key);
    } else {
      note_missing(r.id, key);
      data[key] = nullptr;
    }
  }
  return data;
}

}  // namespace

// The data object of a row: each listed key copied from args ("=key": args[key] is the data).
json fill_data(const row& r, const json& args) { return data_of(r, args); }

json take_data(const row& r, json& args) { return data_of(r, args); }

}  // namespace detail

using detail::fill_data;
using detail::fill_template;

std::string render_text(situation s, const json& args) noexcept {
  const row& r = row_of(s);
  try {
    return fill_template(r, args);
  } catch (...) {
    return std::string(r.message);
  }
}

jsonrpc::error_object render(situation s, const json& args) noexcept {
  const row& r = row_of(s);
  jsonrpc::error_object e;
  e.code = r.code;
  try {
    if (r.code == k_code_from_args) {
      const auto it = args.find("code");
      e.code = it != args.end() && it->is_number_integer() ? it->get<int>() : 0;
      if (e.code == 0) note_missing(r.id, "code");
    }
    e.message = fill_template(r, args);
    e.data = fill_data(r, args);
  } catch (...) {
    e.message = std::string(r.message);
    e.data = nullptr;
  }
  return e;
}

json error_json(const jsonrpc::error_object& e) {
  json j = {{"code", e.code}, {"message", e.message}};
  if (!e.data.is_null()) j["data"] = e.data;
  return j;
}

std::size_t missing_argument_count() noexcept { return g_missing.load(std::memory_order_relaxed); }

}  // namespace mcpcxx::wire
