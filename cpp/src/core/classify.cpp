// The exception classifier (the table of mappings is in classify.hpp).
#include "core/classify.hpp"

#include <cxxabi.h>
#include <optional>
#include <typeinfo>

#include "mcpcxx/errors.hpp"

#include "core/client_caps.hpp"
#include "core/exchange.hpp"
#include "core/input_round.hpp"
#include "core/server_core.hpp"
#include "core/session_state.hpp"
#include "core/store_unavailable.hpp"
#include "core/wire_errors.hpp"
#include "observability/log_line.hpp"

namespace mcpcxx::detail {

namespace {

// What an unexpected failure looked like, for the log.
struct failure_text {
  std::string type;
  std::string summary;
  std::string detail;
};

// The log line of an unexpected failure, written member by member (the same members, in the
// same sorted order, as the json object server_log::write would have dumped).
void log_unexpected(const exchange& ex, const wire::tool_facts* tool, const failure_text& f,
                    const std::string& ref) {
  if (!ex.core().log().enabled("error")) return;
  thread_local std::string buf;
  log_line line(buf, "error", tool == nullptr ? "handler_exception" : "tool_exception");
  line.str("detail", f.detail).str("method", ex.method()).str("reference", ref);
  if (tool != nullptr) line.str("tool", tool->name);
  line.str("type", f.type).str("what", f.summary);
  ex.core().log().write_line(line.finish());
}

method_outcome unexpected(const exchange& ex, const wire::tool_facts* tool, const failure_text& f) {
  std::string ref = server_log::new_reference();
  log_unexpected(ex, tool, f, ref);
  if (tool == nullptr) {
    return method_outcome::protocol(situation::P24_internal_error, {{"reference", ref}}, ref);
  }
  json args(json::value_t::object);
  args["name"] = tool->name;
  args["reference"] = ref;
  if (ex.core().options().expose_exception_details) args["detail"] = f.summary;
  return method_outcome::tool_failed(
      tool->read_only ? situation::T3_unexpected_read_only : situation::T3w_unexpected_may_have_run,
      std::move(args), tool->has_output_schema, "internal", std::move(ref));
}

method_outcome not_found(const exchange& ex, const resource_not_found& e,
                         const wire::tool_facts* tool) {
  if (tool != nullptr) {
    return method_outcome::tool_failed(
        situation::T7_tool_resource_not_found,
        {{"name", tool->name}, {"uri", e.uri()}, {"resource", e.uri()}}, tool->has_output_schema,
        "not_found");
  }
  return method_outcome::protocol(ex.facts.modern ? situation::P21_resource_not_found_modern
                                                  : situation::P20_resource_not_found_legacy,
                                  {{"uri", e.uri()}});
}

// A tool's own conversion refused arguments the inputSchema accepted: row T1, one line per
// violation as the schema's would be ("- /pointer: message"), the violations as given.
method_outcome converted_arguments_refused(const invalid_arguments_error& e,
                                           const wire::tool_facts& tool) {
  std::string lines;
  for (const auto& v : e.violations()) {
    const auto& at = v["instanceLocation"].get_ref<const std::string&>();
    lines += (lines.empty() ? "" : "\n") + (at.empty() ? std::string("(root)") : at) + ": " +
             v["message"].get<std::string>();
  }
  return method_outcome::tool_failed(
      situation::T1_invalid_arguments,
      {{"name", tool.name}, {"violations_text", lines}, {"violations", e.violations()}},
      tool.has_output_schema, "invalid_arguments");
}

method_outcome missing_capability(const exchange& ex, const missing_client_capability& e) {
  if (ex.facts.modern) {
    return method_outcome::protocol(situation::P13_missing_client_capability,
                                    {{"requiredCapabilities", e.required()}});
  }
  return method_outcome::protocol(
      situation::P25_missing_client_capability_legacy,
      {{"method", ex.method()}, {"requiredCapabilities", e.required()}});
}

// A handler's request to the client failed and the handler let it propagate: a T row for a
// tool, a P row for any other handler.
method_outcome client_failure(const exchange& ex, const wire::tool_facts* tool, situation tool_row,
                              situation protocol_row, json args, std::string category) {
  if (tool != nullptr) {
    args["name"] = tool->name;
    return method_outcome::tool_failed(tool_row, std::move(args), tool->has_output_schema,
                                       std::move(category));
  }
  args["method"] = ex.method();
  return method_outcome::protocol(protocol_row, args);
}

// 2026-07-28 has no -32042: the flows become URL-mode elicitation inputRequests (keyed by their
// elicitationId), so the same tool code works in both eras. The client completes them and
// retries; a handler that still requires them once they are answered is a server bug.
method_outcome url_required_modern(const exchange& ex, const wire::tool_facts* tool,
                                   const url_elicitation_required& e) {
  if (!detail::declares_url_elicitation(ex.facts.client_capabilities)) {
    return missing_capability(ex, client_capability_error("elicitation/create", "elicitation.url"));
  }
  if (ex.round()) {
    std::vector<client_request> flows;
    for (const auto& el : e.elicitations()) {
      flows.push_back({"elicitation/create", el, "url:" + el.value("elicitationId", "")});
    }
    try {
      ex.round()->ask(flows);
    } catch (input_required_signal& s) {
      return input_required_outcome(std::move(s));
    }
  }
  return unexpected(ex, tool, {"url_elicitation_required", e.what(), e.elicitations().dump()});
}

method_outcome url_required(const exchange& ex, const wire::tool_facts* tool,
                            const url_elicitation_required& e) {
  if (ex.facts.modern) return url_required_modern(ex, tool, e);
  auto self = ex.session().shared_from_this();
  for (const auto& el : e.elicitations()) {
    ex.core().elicitations().remember(el.value("elicitationId", ""), self);
  }
  return method_outcome::protocol(situation::P30_url_elicitation_required,
                                  {{"method", ex.method()}, {"elicitations", e.elicitations()}});
}

}  // namespace

method_outcome classify_tool_error(const tool_error& e, const wire::tool_facts* tool) {
  std::string category(to_string(e.category()));
  if (tool != nullptr) {
    return method_outcome::tool_failed(situation::T2_tool_error,
                                       {{"message", e.message()}, {"details", e.details()}},
                                       tool->has_output_schema, std::move(category));
  }
  method_outcome o =
      method_outcome::protocol(situation::P26_handler_tool_error, wire::handler_tool_error_args(e));
  o.category = std::move(category);
  return o;
}

namespace {

// The exceptions of a handler's request to the client (and of its cancellation); nullopt for
// any other exception.
std::optional<method_outcome> classify_asking(const std::exception& error, const exchange& ex,
                                              const wire::tool_facts* tool) {
  if (dynamic_cast<const request_cancelled*>(&error) != nullptr) {
    // The request was settled by its cancellation already, so this reply is normally dropped;
    // no exception log for an ordinary cancel.
    return method_outcome::protocol(situation::H41_request_cancelled);
  }
  if (const auto* e = dynamic_cast<const url_elicitation_required*>(&error)) {
    return url_required(ex, tool, *e);
  }
  if (const auto* e = dynamic_cast<const client_request_timeout*>(&error)) {
    return client_failure(
        ex, tool, situation::T8_client_request_timeout, situation::P31_client_request_timeout,
        {{"clientMethod", e->method()}, {"timeoutMs", e->timeout().count()}}, "timeout");
  }
  if (const auto* e = dynamic_cast<const client_request_error*>(&error)) {
    return client_failure(
        ex, tool, situation::T9_client_request_error, situation::P32_client_request_error,
        {{"clientMethod", e->method()}, {"clientCode", e->code()}, {"clientMessage", e->message()}},
        "unavailable");
  }
  if (const auto* e = dynamic_cast<const client_answer_invalid*>(&error)) {
    return client_failure(
        ex, tool, situation::T10_client_answer_invalid, situation::P33_client_answer_invalid,
        {{"clientMethod", e->method()}, {"reason", e->reason()}}, "invalid_arguments");
  }
  return std::nullopt;
}

}  // namespace

namespace {

// The shared store did not answer: nothing was done, so a retry is safe (P57, also for a call
// that would have become a task, as P50 for a full task store).
method_outcome store_refusal(const store_unavailable& e) {
  method_outcome o =
      method_outcome::protocol(situation::P57_store_unavailable, {{"reason", e.what()}});
  o.category = "unavailable";
  return o;
}

}  // namespace

// The mappings of classify.hpp by dynamic type, in the order a catch sequence would test them.
method_outcome classify_caught(const std::exception& error, const exchange& ex, handler_kind kind,
                               const wire::tool_facts* tool) {
  if (kind != handler_kind::tool) tool = nullptr;
  if (const auto* e = dynamic_cast<const tool_error*>(&error)) return classify_tool_error(*e, tool);
  if (const auto* e = dynamic_cast<const protocol_error*>(&error)) {
    return method_outcome::protocol(situation::P23_handler_protocol_error,
                                    wire::handler_error_args(e->code(), e->message(), e->data()));
  }
  if (const auto* e = dynamic_cast<const missing_client_capability*>(&error)) {
    return missing_capability(ex, *e);
  }
  if (const auto* e = dynamic_cast<const resource_not_found*>(&error)) {
    return not_found(ex, *e, tool);
  }
  if (const auto* e = dynamic_cast<const invalid_arguments_error*>(&error); e && tool) {
    return converted_arguments_refused(*e, *tool);
  }
  if (auto asked = classify_asking(error, ex, tool)) return std::move(*asked);
  if (const auto* e = dynamic_cast<const store_unavailable*>(&error)) {
    return store_refusal(*e);
  }
  if (const auto* e = dynamic_cast<const unexpected_error*>(&error)) {
    return unexpected(ex, tool, {"unexpected_error", e->summary(), e->detail()});
  }
  return unexpected(ex, tool, {typeid(error).name(), error.what(), error.what()});
}

method_outcome classify(std::exception_ptr error, const exchange& ex, handler_kind kind,
                        const wire::tool_facts* tool) {
  try {
    std::rethrow_exception(std::move(error));
  } catch (const std::exception& e) {
    return classify_caught(e, ex, kind, tool);
  } catch (input_required_signal& s) {  // not a std::exception: the run stopped at a question
    return input_required_outcome(std::move(s));
  } catch (abi::__forced_unwind&) {
    throw;  // a cancelled thread (pthread_exit at interpreter exit) must unwind, never be swallowed
  } catch (...) {
    if (kind != handler_kind::tool) tool = nullptr;
    return unexpected(ex, tool, {"unknown", "non-standard exception", "non-standard exception"});
  }
}

}  // namespace mcpcxx::detail
