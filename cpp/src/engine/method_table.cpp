// The method table (go-sdk style): one row per method with its typed params; gating lives in
// dispatch.cpp.
#include "engine/method_table.hpp"

#include <array>

#include "engine/exchange.hpp"

namespace mcpcxx::detail {

namespace {

constexpr unsigned both = in_legacy | in_modern;

// Decodes `P` from the request's params, then calls `H`; a refusal is the decoder's row.
template <class P, method_outcome (*H)(const exchange_ptr&, P&)>
method_outcome typed(const exchange_ptr& ex) {
  P params;
  if (auto refusal = decode(ex->params(), ex->method(), params)) return std::move(*refusal);
  return H(ex, params);
}

constexpr std::array<method_info, 14> k_methods{{
    {"initialize", in_legacy | before_init | not_cancellable, "",
     typed<initialize_params, handle_initialize>},
    {"ping", in_legacy | before_init, "", typed<no_params, handle_ping>},
    {"server/discover", in_modern, "", typed<no_params, handle_discover>},
    {"logging/setLevel", in_legacy, "logging", typed<set_level_params, handle_set_level>},
    {"tools/list", both, "tools", typed<list_params, handle_list>},
    {"tools/call", both | on_worker, "tools", typed<tools_call_params, handle_tools_call>},
    {"resources/list", both, "resources", typed<list_params, handle_list>},
    {"resources/templates/list", both, "resources", typed<list_params, handle_list>},
    {"resources/read", both | on_worker, "resources", typed<uri_params, handle_resources_read>},
    {"resources/subscribe", in_legacy, "resources", typed<uri_params, handle_resources_subscribe>},
    {"resources/unsubscribe", in_legacy, "resources",
     typed<uri_params, handle_resources_unsubscribe>},
    {"prompts/list", both, "prompts", typed<list_params, handle_list>},
    {"prompts/get", both | on_worker, "prompts", typed<prompts_get_params, handle_prompts_get>},
    {"completion/complete", both | on_worker, "completions",
     typed<complete_params, handle_complete>},
}};

}  // namespace

const method_info* find_method(std::string_view name) noexcept {
  for (const auto& m : k_methods) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

}  // namespace mcpcxx::detail
