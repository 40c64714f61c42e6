// The arguments of the rows whose arguments the engine computes (P15a/P15b shapes, P23/P26 from a
// handler's error) and the tool facts the classifier passes on. An outcome is built only as
// method_outcome::protocol(row, args) or method_outcome::tool_failed(row, args, ...): the
// situation table (cpp/src/wire/table.cpp) renders every text; nothing here composes one.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "mcpcxx/errors.hpp"
#include "mcpcxx/json.hpp"

namespace mcpcxx::detail::wire {

/// Facts about the failing tool that shape the text and the structured details.
struct tool_facts {
  std::string_view name;
  bool read_only = false;
  bool has_output_schema = false;
};

/// Row P15a's arguments (`{method} needs params.{field}{requirement}`); `requirement` is the
/// expected shape with its leading separator (", a non-empty string").
json param_missing_args(std::string_view method, std::string_view field,
                        std::string_view requirement);
/// Row P15b's arguments (`{subject} must be {expected}[, got {got}]`); `got` is the value sent,
/// whose JSON type is named, when known.
json param_invalid_args(std::string_view subject, std::string_view expected,
                        const json* got = nullptr);
/// Row P23's (and P26's) arguments: a handler's own code, message and data.
json handler_error_args(int code, const std::string& message, const json& data);
/// Row P26's arguments for a tool_error raised outside a tool: its text and details, code
/// -32602 for client-side categories (invalid_arguments, not_found, permission_denied, conflict,
/// precondition_failed), else -32603.
json handler_tool_error_args(const tool_error& e);

}  // namespace mcpcxx::detail::wire
