// The tools/call pipeline (issue 2 §7) as one linear function over small steps:
// envelope -> lookup -> arguments -> deadline -> handler -> output check -> reply.
#include <typeinfo>

#include "mcpcxx/json_schema.hpp"

#include "engine/call.hpp"
#include "engine/method_table.hpp"
#include "engine/wire_errors.hpp"

namespace mcpcxx::detail {

namespace {

const json k_no_arguments = json::object();

// What the handler step produced.
struct handler_outcome {
  enum class kind { result, tool_failure, protocol_failure } what = kind::result;
  tool_result result;
  json failure_result;          ///< kind::tool_failure: the isError result to send
  std::string category;         ///< kind::tool_failure: the category to count
  std::string reference;        ///< set for unexpected failures
  jsonrpc::error_object error;  ///< kind::protocol_failure
};

wire::tool_facts facts(const tool_entry& t) {
  return {t.spec.name, t.read_only, t.output != nullptr};
}

// Steps a and b: the CallToolRequest envelope and the tool lookup.
std::shared_ptr<const tool_entry> find_called_tool(call& c) {
  auto name = c.params.find("name");
  if (name == c.params.end() || !name->is_string()) {
    c.reply_error(wire::invalid_params("tools/call needs params.name, the tool name as a string"));
    return nullptr;
  }
  auto args = c.params.find("arguments");
  if (args != c.params.end() && !args->is_object() && !args->is_null()) {
    c.reply_error(wire::invalid_params(
        "tools/call params.arguments must be an object mapping argument names to values, got " +
        std::string(args->type_name())));
    return nullptr;
  }
  c.tool = name->get<std::string>();
  auto tool = c.eng().find_tool(c.tool);
  if (!tool) c.reply_error(wire::unknown_tool(c.tool, closest_keys(c.tool, c.eng().tool_names())));
  return tool;
}

const json& arguments_of(const json& params) {
  auto it = params.find("arguments");
  return it != params.end() && it->is_object() ? *it : k_no_arguments;
}

// Step c: arguments against inputSchema; a failure is a tool execution error (SEP-1303).
bool arguments_valid(call& c, const tool_entry& t, const json& args) {
  if (t.input->is_valid(args)) return true;
  const auto result = t.input->validate(args);
  c.reply_result(wire::invalid_arguments_result(facts(t), schema::format_violations(result, args),
                                                schema::violations_to_json(result)),
                 outcome::tool_error, "invalid_arguments");
  return false;
}

// Step h: the per-tool deadline; whoever claims the reply first (timer or handler) answers.
std::optional<std::uint64_t> arm_deadline(const call& c, const tool_entry& t) {
  if (!t.spec.timeout) return std::nullopt;
  auto timer_call = std::make_shared<call>(c);
  const std::string name = t.spec.name;
  const double seconds = static_cast<double>(t.spec.timeout->count()) / 1000.0;
  const bool read_only = t.read_only;
  const bool has_output = t.output != nullptr;
  return c.eng().deadlines().schedule(
      std::chrono::steady_clock::now() + *t.spec.timeout,
      [timer_call, name, seconds, read_only, has_output] {
        const wire::tool_facts tf{name, read_only, has_output};
        if (timer_call->reply_result(wire::timeout_result(tf, seconds), outcome::tool_error,
                                     "timeout")) {
          timer_call->slot->token.cancel();
        }
      });
}

handler_outcome unexpected(call& c, const tool_entry& t, std::string_view type,
                           const std::string& summary, const std::string& detail) {
  handler_outcome o;
  o.what = handler_outcome::kind::tool_failure;
  o.category = "internal";
  o.reference = server_log::new_reference();
  c.eng().log().write("error", "tool_exception",
                      {{"tool", t.spec.name},
                       {"reference", o.reference},
                       {"type", type},
                       {"what", summary},
                       {"detail", detail}});
  std::optional<std::string> exposed;
  if (c.eng().options().expose_exception_details) exposed = summary;
  o.failure_result = wire::unexpected_error_result(facts(t), o.reference, exposed);
  return o;
}

// Steps d, e, f: run the handler and map what it throws.
handler_outcome invoke(call& c, const tool_entry& t, const json& args) {
  handler_outcome o;
  try {
    request_context ctx = c.make_context();
    o.result = t.handler(args, ctx);
  } catch (const tool_error& e) {
    o.what = handler_outcome::kind::tool_failure;
    o.category = std::string(to_string(e.category()));
    o.failure_result = wire::tool_error_result(facts(t), e);
  } catch (const protocol_error& e) {
    o.what = handler_outcome::kind::protocol_failure;
    o.error = wire::from_protocol_error(e);
  } catch (const missing_client_capability& e) {
    o.what = handler_outcome::kind::protocol_failure;
    o.error = wire::missing_client_capability(e.required());
  } catch (const unexpected_error& e) {
    return unexpected(c, t, "unexpected_error", e.summary(), e.detail());
  } catch (const std::exception& e) {
    return unexpected(c, t, typeid(e).name(), e.what(), e.what());
  } catch (...) {
    return unexpected(c, t, "unknown", "non-standard exception", "non-standard exception");
  }
  return o;
}

json to_wire(tool_result&& r) {
  json out = {{"content", std::move(r.content)}};
  if (r.structured_content) out["structuredContent"] = std::move(*r.structured_content);
  if (r.is_error) out["isError"] = true;
  if (!r.meta.is_null()) out["_meta"] = std::move(r.meta);
  return out;
}

// Step g: the result's shape and, with an outputSchema, its structuredContent. Results that are
// already isError are not validated against the outputSchema.
std::optional<std::string> output_problem(const tool_entry& t, const tool_result& r) {
  if (!r.content.is_array()) return "content is not an array";
  for (const auto& block : r.content) {
    if (!block.is_object() || !block.contains("type") || !block["type"].is_string()) {
      return "a content block lacks a string 'type'";
    }
  }
  if (r.is_error || !t.output) return std::nullopt;
  if (!r.structured_content) return "structuredContent is missing but the tool has an outputSchema";
  const auto v = t.output->validate(*r.structured_content);
  if (v.valid) return std::nullopt;
  return schema::format_violations(v, *r.structured_content);
}

void reply_with_result(call& c, const tool_entry& t, tool_result&& r) {
  if (auto problem = output_problem(t, r)) {
    const std::string ref = server_log::new_reference();
    c.eng().log().write("error", "tool_output_invalid",
                        {{"tool", t.spec.name},
                         {"reference", ref},
                         {"problem", *problem},
                         {"note", "server bug: the tool broke its own declared result contract"}});
    c.reply_result(wire::output_mismatch_result(facts(t), ref), outcome::tool_error, "internal",
                   ref);
    return;
  }
  const bool is_error = r.is_error;
  c.reply_result(to_wire(std::move(r)), is_error ? outcome::tool_error : outcome::ok,
                 is_error ? "tool_result_error" : "ok");
}

}  // namespace

void handle_tools_call(call& c) {
  const auto tool = find_called_tool(c);
  if (!tool) return;
  const json& args = arguments_of(c.params);
  if (!arguments_valid(c, *tool, args)) return;
  const auto deadline = arm_deadline(c, *tool);
  handler_outcome out = invoke(c, *tool, args);
  if (deadline) c.eng().deadlines().cancel(*deadline);
  switch (out.what) {
    case handler_outcome::kind::protocol_failure:
      c.reply_error(out.error);
      return;
    case handler_outcome::kind::tool_failure:
      c.reply_result(std::move(out.failure_result), outcome::tool_error, out.category,
                     out.reference);
      return;
    case handler_outcome::kind::result:
      reply_with_result(c, *tool, std::move(out.result));
      return;
  }
}

}  // namespace mcpcxx::detail
