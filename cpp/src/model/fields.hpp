// Field readers and writers shared by the to_json/from_json hooks of the model types.
// Readers throw std::invalid_argument naming the object, the key and what was expected.
#pragma once

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mcpcxx/json.hpp"

namespace mcpcxx::model {

/// Throws std::invalid_argument: "<what>: '<key>' must be <expected>, got <the value's type>".
[[noreturn]] void fail(std::string_view what, std::string_view key, std::string_view expected,
                       const json& got);
/// Throws std::invalid_argument unless `j` is an object.
void require_object(const json& j, std::string_view what);
/// Throws std::invalid_argument for a key of `j` not in `known` (options are closed sets).
void reject_unknown(const json& j, std::string_view what, std::initializer_list<const char*> known);
/// The same, for a key list kept as a table (error text: "...; known options: a, b, ...").
void reject_unknown(const json& j, std::string_view what, std::span<const std::string_view> known);

/// The string at `key`; throws when absent or not a string.
std::string required_string(const json& j, const char* key, std::string_view what);
/// The string at `key`; nullopt when absent or null, throws for another type.
std::optional<std::string> optional_string(const json& j, const char* key, std::string_view what);
/// The value at `key`, or null when absent.
json optional_value(const json& j, const char* key);

/// Assigns `out` from `key` when present and not null; throws for the wrong type.
void read(const json& j, const char* key, std::string_view what, std::string& out);
void read(const json& j, const char* key, std::string_view what, bool& out);
void read(const json& j, const char* key, std::string_view what, std::size_t& out);
void read(const json& j, const char* key, std::string_view what, std::uint16_t& out);
void read(const json& j, const char* key, std::string_view what, std::int64_t& out);
void read(const json& j, const char* key, std::string_view what, std::vector<std::string>& out);
/// Durations travel as a number of seconds (fractions allowed, never negative).
void read(const json& j, const char* key, std::string_view what, std::chrono::milliseconds& out);
/// The same in microseconds, for the durations finer than a millisecond.
void read(const json& j, const char* key, std::string_view what, std::chrono::microseconds& out);

/// Sets `key` when `v` holds a value.
void put(json& j, const char* key, const std::optional<std::string>& v);
/// Sets `key` unless `v` is null.
void put(json& j, const char* key, const json& v);
/// A duration as seconds.
double seconds(std::chrono::milliseconds d);
/// A duration as seconds.
double seconds(std::chrono::microseconds d);

}  // namespace mcpcxx::model
