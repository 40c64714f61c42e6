// The method table: every method the engine serves, with its era and gating flags and handler.
// Thread-safety: the table is immutable.
#pragma once

#include <string_view>

namespace mcpcxx::detail {

struct call;

/// Flags of a method-table row.
enum method_flags : unsigned {
  in_legacy = 1u << 0,        ///< served to initialize-era sessions
  in_modern = 1u << 1,        ///< served to 2026-07-28 requests
  before_init = 1u << 2,      ///< legacy: allowed before initialize
  on_worker = 1u << 3,        ///< runs on the worker pool (user handlers)
  not_cancellable = 1u << 4,  ///< notifications/cancelled is ignored for it
};

/// One row: name -> flags, the capability gating it ("" for none), and the handler.
struct method_info {
  std::string_view name;
  unsigned flags;
  std::string_view capability;
  void (*handler)(call&);
};

/// The row for `name`; nullptr when the engine has no such method.
const method_info* find_method(std::string_view name) noexcept;

// Handlers, one per method, defined in the *_methods.cpp files.
void handle_initialize(call& c);
void handle_ping(call& c);
void handle_discover(call& c);
void handle_set_level(call& c);
void handle_tools_list(call& c);
void handle_tools_call(call& c);
void handle_resources_list(call& c);
void handle_templates_list(call& c);
void handle_resources_read(call& c);
void handle_resources_subscribe(call& c);
void handle_resources_unsubscribe(call& c);
void handle_prompts_list(call& c);
void handle_prompts_get(call& c);
void handle_complete(call& c);

}  // namespace mcpcxx::detail
