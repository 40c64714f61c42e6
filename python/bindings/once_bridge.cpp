// At-most-once tools across the boundary (once_bridge.hpp).
#include "once_bridge.hpp"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "bindings.hpp"
#include "handler_bridge.hpp"
#include "json_caster.hpp"

namespace mcpcxx::py_bind {

namespace {

[[noreturn]] void refuse_once(std::string_view what, std::string_view key, std::string_view want,
                              const json& got) {
  throw py::value_error(std::string(what) + " '" + std::string(key) + "' must be " +
                        std::string(want) + ", got " + got.dump());
}

void only_keys(const json& j, std::string_view what, std::initializer_list<std::string_view> keys) {
  if (!j.is_object()) {
    throw py::value_error(std::string(what) + "s must be a dict, got " + j.dump());
  }
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool known = false;
    for (const std::string_view k : keys) known = known || it.key() == k;
    if (known) continue;
    std::string names;
    for (const std::string_view k : keys) names += (names.empty() ? "" : ", ") + std::string(k);
    throw py::value_error("unexpected " + std::string(what) + " '" + it.key() +
                          "'; known: " + names);
  }
}

const json* present(const json& j, const char* key) {
  const auto it = j.find(key);
  return it == j.end() || it->is_null() ? nullptr : &*it;
}

std::chrono::milliseconds seconds_of(const json& v, const char* key, std::string_view what) {
  if (!v.is_number()) refuse_once(what, key, "a number of seconds", v);
  return std::chrono::milliseconds(std::llround(v.get<double>() * 1000.0));
}

std::string text_of(const json& v, const char* key, std::string_view what) {
  if (!v.is_string()) refuse_once(what, key, "a str", v);
  return v.get<std::string>();
}

status_check status_check_from(const json& j) {
  constexpr std::string_view what = "status check option";
  only_keys(j, what, {"tool", "arguments"});
  status_check c;
  c.tool = text_of(j.value("tool", json()), "tool", what);
  if (const json* args = present(j, "arguments")) {
    if (!args->is_array()) refuse_once(what, "arguments", "a list of str", *args);
    for (const auto& a : *args) c.arguments.push_back(text_of(a, "arguments", what));
  }
  return c;
}

// The resolver's answer in its dict form, as the engine's verdict.
prior_resolution resolution_from(const json& answer) {
  const std::string kind =
      answer.is_object() ? answer.value("verdict", std::string()) : std::string();
  if (kind == "applied") return prior_resolution::applied(answer.at("result").get<tool_result>());
  if (kind == "not_applied") return prior_resolution::not_applied();
  if (kind == "unknown") return prior_resolution::still_unknown();
  throw std::invalid_argument("the resolver's answer has no verdict: " + answer.dump());
}

}  // namespace

at_most_once at_most_once_from(const json& spec, py::object resolver) {
  constexpr std::string_view what = "at_most_once option";
  only_keys(spec, what, {"window", "key_argument", "status_check"});
  at_most_once p;
  p.window = seconds_of(spec.value("window", json()), "window", what);
  if (const json* key = present(spec, "key_argument")) {
    p.key_argument = text_of(*key, "key_argument", what);
  }
  if (const json* check = present(spec, "status_check")) p.check = status_check_from(*check);
  if (!resolver.is_none()) {
    // Runs on the repeat's worker thread: the GIL, the context and the translation of a Python
    // failure are call_python's, as for a tool handler; the engine counts a failure as unknown.
    p.resolver = [fn = held_object(std::move(resolver))](const prior_call& prior,
                                                         request_context& ctx) {
      const std::int64_t first_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                        prior.first_called_at.time_since_epoch())
                                        .count();
      return resolution_from(
          call_python<json>(fn, ctx, prior.call_id, first_ms, prior.reason, prior.arguments));
    };
  }
  return p;
}

}  // namespace mcpcxx::py_bind
