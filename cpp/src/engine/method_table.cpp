// The method table (go-sdk style): one row per method; gating lives in session_state.cpp.
#include "engine/method_table.hpp"

#include <array>

namespace mcpcxx::detail {

namespace {

constexpr unsigned both = in_legacy | in_modern;

constexpr std::array<method_info, 14> k_methods{{
    {"initialize", in_legacy | before_init | not_cancellable, "", handle_initialize},
    {"ping", in_legacy | before_init, "", handle_ping},
    {"server/discover", in_modern, "", handle_discover},
    {"logging/setLevel", in_legacy, "logging", handle_set_level},
    {"tools/list", both, "tools", handle_tools_list},
    {"tools/call", both | on_worker, "tools", handle_tools_call},
    {"resources/list", both, "resources", handle_resources_list},
    {"resources/templates/list", both, "resources", handle_templates_list},
    {"resources/read", both | on_worker, "resources", handle_resources_read},
    {"resources/subscribe", in_legacy, "resources", handle_resources_subscribe},
    {"resources/unsubscribe", in_legacy, "resources", handle_resources_unsubscribe},
    {"prompts/list", both, "prompts", handle_prompts_list},
    {"prompts/get", both | on_worker, "prompts", handle_prompts_get},
    {"completion/complete", both | on_worker, "completions", handle_complete},
}};

}  // namespace

const method_info* find_method(std::string_view name) noexcept {
  for (const auto& m : k_methods) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

}  // namespace mcpcxx::detail
