// The exception classifier (the table of mappings is in classify.hpp).
#include "engine/classify.hpp"

#include <typeinfo>

#include "mcpcxx/errors.hpp"

#include "engine/engine.hpp"
#include "engine/exchange.hpp"
#include "engine/input_round.hpp"
#include "engine/wire_errors_pending.hpp"

namespace mcpcxx::detail {

namespace {

// What an unexpected failure looked like, for the log.
struct failure_text {
  std::string type;
  std::string summary;
  std::string detail;
};

method_outcome unexpected(const exchange& ex, const wire::tool_facts* tool, const failure_text& f) {
  const std::string ref = server_log::new_reference();
  json fields = {{"method", ex.method()},
                 {"reference", ref},
                 {"type", f.type},
                 {"what", f.summary},
                 {"detail", f.detail}};
  if (tool == nullptr) {
    ex.eng().log().write("error", "handler_exception", fields);
    return method_outcome::protocol(situation::P24_internal_error, {{"reference", ref}}, ref);
  }
  fields["tool"] = tool->name;
  ex.eng().log().write("error", "tool_exception", fields);
  json args = {{"name", tool->name}, {"reference", ref}};
  if (ex.eng().options().expose_exception_details) args["detail"] = f.summary;
  return method_outcome::tool_failed(
      tool->read_only ? situation::T3_unexpected_read_only : situation::T3w_unexpected_may_have_run,
      args, tool->has_output_schema, "internal", ref);
}

method_outcome not_found(const exchange& ex, const resource_not_found& e,
                         const wire::tool_facts* tool) {
  if (tool != nullptr) {
    return method_outcome::rendered_tool_failed(situation::T7_tool_resource_not_found,
                                                wire::resource_not_found_result(*tool, e.uri()),
                                                "not_found");
  }
  return method_outcome::protocol(ex.facts.modern ? situation::P21_resource_not_found_modern
                                                  : situation::P20_resource_not_found_legacy,
                                  {{"uri", e.uri()}});
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

}  // namespace

method_outcome classify_tool_error(const tool_error& e, const wire::tool_facts* tool) {
  const std::string category(to_string(e.category()));
  if (tool != nullptr) {
    return method_outcome::tool_failed(
        situation::T2_tool_error,
        {{"name", tool->name}, {"message", e.message()}, {"details", e.details()}},
        tool->has_output_schema, category);
  }
  method_outcome o =
      method_outcome::rendered(situation::P26_handler_tool_error, wire::handler_tool_error(e));
  o.category = category;
  return o;
}

method_outcome classify(std::exception_ptr error, const exchange& ex, handler_kind kind,
                        const wire::tool_facts* tool) {
  if (kind != handler_kind::tool) tool = nullptr;
  try {
    std::rethrow_exception(std::move(error));
  } catch (const tool_error& e) {
    return classify_tool_error(e, tool);
  } catch (const protocol_error& e) {
    return method_outcome::protocol(situation::P23_handler_protocol_error,
                                    wire::handler_error_args(e.code(), e.message(), e.data()));
  } catch (const missing_client_capability& e) {
    return missing_capability(ex, e);
  } catch (const resource_not_found& e) {
    return not_found(ex, e, tool);
  } catch (const unexpected_error& e) {
    return unexpected(ex, tool, {"unexpected_error", e.summary(), e.detail()});
  } catch (const std::exception& e) {
    return unexpected(ex, tool, {typeid(e).name(), e.what(), e.what()});
  } catch (input_required_signal& s) {  // not a std::exception: the run stopped at a question
    return input_required_outcome(std::move(s));
  } catch (...) {
    return unexpected(ex, tool, {"unknown", "non-standard exception", "non-standard exception"});
  }
}

}  // namespace mcpcxx::detail
