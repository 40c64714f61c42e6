// The methods of the server's primitives: tools/call (tools_call.cpp), the list methods, the
// resources methods and prompts/get and completion/complete, bound to the server's core, whose
// catalog they serve.
// Thread-safety: the handlers may run on any thread at once (the catalog guards itself).
#pragma once

#include <string>

#include "mcpcxx/context.hpp"

#include "core/method_bindings.hpp"
#include "core/server_core.hpp"

namespace mcpcxx::detail {

/// tools/call; `arguments` points into the request's params (which outlive the handler), or to
/// a shared empty object when they are absent or null.
struct tools_call_params {
  std::string name;
  const json* arguments = nullptr;
};
/// Decodes the tools/call envelope (rows P16, P16a).
decode_result decode(json& params, std::string_view method, tools_call_params& out);

/// Binds the rows of the primitives' methods to `core`.
void bind_primitive_methods(method_bindings& methods, server_core& core);

/// request_context::read_resource: runs the reader of `uri` with `ctx` and returns its
/// ResourceContents array; throws resource_not_found when nothing matches or it gives nothing.
json read_own_resource(server_core& e, const std::string& uri, request_context& ctx);

/// True when `ex`'s principal may read `uri` (its resource's or template's scopes and rule; an
/// unknown URI: true). subscriptions/listen honors only such resourceSubscriptions.
bool may_read_resource(server_core& e, const exchange& ex, const std::string& uri);

/// A handler's tool_result for `t` as the call's outcome (an error member classified, the result
/// checked against the tool's declared contract), as run_tool gives it.
method_outcome tool_result_outcome(const exchange& ex, const tool_entry& t, tool_result&& r);
/// The tools/call pipeline after the lookup (arguments, handler, output check) with `ctx`.
method_outcome run_tool(const exchange_ptr& ex, const tool_entry& t, const json& args,
                        request_context& ctx);

method_outcome handle_list(server_core& e, const exchange_ptr& ex, list_params& p);
method_outcome handle_tools_call(server_core& e, const exchange_ptr& ex, tools_call_params& p);
method_outcome handle_resources_read(server_core& e, const exchange_ptr& ex, uri_params& p);
method_outcome handle_resources_subscribe(server_core& e, const exchange_ptr& ex, uri_params& p);
method_outcome handle_resources_unsubscribe(server_core& e, const exchange_ptr& ex, uri_params& p);
method_outcome handle_prompts_get(server_core& e, const exchange_ptr& ex, prompts_get_params& p);
method_outcome handle_complete(server_core& e, const exchange_ptr& ex, complete_params& p);

}  // namespace mcpcxx::detail
