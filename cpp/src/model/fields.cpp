// Field readers and writers of the model types' JSON forms.
#include "model/fields.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

namespace mcpcxx::model {

void fail(std::string_view what, std::string_view key, std::string_view expected, const json& got) {
  throw std::invalid_argument(std::string(what) + ": '" + std::string(key) + "' must be " +
                              std::string(expected) + ", got " + got.type_name() + " " +
                              got.dump(-1, ' ', false, json::error_handler_t::replace));
}

void require_object(const json& j, std::string_view what) {
  if (!j.is_object()) {
    throw std::invalid_argument(std::string(what) + " must be a JSON object, got " + j.type_name());
  }
}

namespace {

template <class Keys>
void reject_unknown_in(const json& j, std::string_view what, const Keys& known) {
  for (const auto& [key, value] : j.items()) {
    bool found = false;
    for (std::string_view k : known) found = found || key == k;
    if (found) continue;
    std::string message("unexpected ");
    message.append(what).append(" '").append(key).append("'; known options: ");
    const char* separator = "";
    for (std::string_view k : known) message.append(std::exchange(separator, ", ")).append(k);
    throw std::invalid_argument(message);
  }
}

}  // namespace

void reject_unknown(const json& j, std::string_view what,
                    std::initializer_list<const char*> known) {
  reject_unknown_in(j, what, known);
}

void reject_unknown(const json& j, std::string_view what, std::span<const std::string_view> known) {
  reject_unknown_in(j, what, known);
}

std::string required_string(const json& j, const char* key, std::string_view what) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) fail(what, key, "a string", it == j.end() ? json() : *it);
  return it->get<std::string>();
}

std::optional<std::string> optional_string(const json& j, const char* key, std::string_view what) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) fail(what, key, "a string or null", *it);
  return it->get<std::string>();
}

json optional_value(const json& j, const char* key) {
  auto it = j.find(key);
  return it == j.end() ? json() : *it;
}

namespace {

/// The value at `key` when present and not null.
const json* present(const json& j, const char* key) {
  auto it = j.find(key);
  return it == j.end() || it->is_null() ? nullptr : &*it;
}

std::uint64_t unsigned_at(const json& v, const char* key, std::string_view what,
                          std::uint64_t max) {
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0)) {
    fail(what, key, "an integer >= 0", v);
  }
  const auto n = v.get<std::uint64_t>();
  if (n > max) fail(what, key, "an integer <= " + std::to_string(max), v);
  return n;
}

}  // namespace

void read(const json& j, const char* key, std::string_view what, std::string& out) {
  if (const json* v = present(j, key)) {
    if (!v->is_string()) fail(what, key, "a string", *v);
    out = v->get<std::string>();
  }
}

void read(const json& j, const char* key, std::string_view what, bool& out) {
  if (const json* v = present(j, key)) {
    if (!v->is_boolean()) fail(what, key, "a boolean", *v);
    out = v->get<bool>();
  }
}

void read(const json& j, const char* key, std::string_view what, std::size_t& out) {
  if (const json* v = present(j, key)) {
    out = static_cast<std::size_t>(
        unsigned_at(*v, key, what, std::numeric_limits<std::size_t>::max()));
  }
}

void read(const json& j, const char* key, std::string_view what, std::uint16_t& out) {
  if (const json* v = present(j, key)) {
    out = static_cast<std::uint16_t>(unsigned_at(*v, key, what, 65535));
  }
}

void read(const json& j, const char* key, std::string_view what, std::int64_t& out) {
  if (const json* v = present(j, key)) {
    if (!v->is_number_integer() ||
        (v->is_number_unsigned() &&
         v->get<std::uint64_t>() > std::uint64_t(std::numeric_limits<std::int64_t>::max()))) {
      fail(what, key, "a 64-bit integer", *v);
    }
    out = v->get<std::int64_t>();
  }
}

void read(const json& j, const char* key, std::string_view what, std::vector<std::string>& out) {
  if (const json* v = present(j, key)) {
    const bool strings = v->is_array() && std::all_of(v->begin(), v->end(),
                                                      [](const json& e) { return e.is_string(); });
    if (!strings) fail(what, key, "a list of strings", *v);
    out = v->get<std::vector<std::string>>();
  }
}

namespace {
// A present duration in seconds, checked; nullopt when absent. Bounded well below the
// microseconds range so the conversions cannot overflow.
std::optional<double> duration_seconds(const json& j, const char* key, std::string_view what) {
  const json* v = present(j, key);
  if (v == nullptr) return std::nullopt;
  constexpr double k_max_seconds = 1e12;
  if (!v->is_number() || !(v->get<double>() >= 0) || v->get<double>() > k_max_seconds) {
    fail(what, key, "a number of seconds >= 0", *v);
  }
  return v->get<double>();
}
}  // namespace

void read(const json& j, const char* key, std::string_view what, std::chrono::milliseconds& out) {
  if (auto s = duration_seconds(j, key, what))
    out = std::chrono::milliseconds(std::llround(*s * 1e3));
}

void read(const json& j, const char* key, std::string_view what, std::chrono::microseconds& out) {
  if (auto s = duration_seconds(j, key, what))
    out = std::chrono::microseconds(std::llround(*s * 1e6));
}

void put(json& j, const char* key, const std::optional<std::string>& v) {
  if (v) j[key] = *v;
}

void put(json& j, const char* key, const json& v) {
  if (!v.is_null()) j[key] = v;
}

double seconds(std::chrono::milliseconds d) { return static_cast<double>(d.count()) / 1000.0; }

double seconds(std::chrono::microseconds d) { return static_cast<double>(d.count()) / 1e6; }

}  // namespace mcpcxx::model
