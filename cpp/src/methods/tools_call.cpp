// The tools/call pipeline (issue 2 §7) as one linear function over small steps:
// lookup -> arguments -> deadline -> handler -> output check -> outcome. The envelope (7a) is
// decoded here (tools_call_params, rows P16 and P16a); exceptions go through the one classifier.
#include <cxxabi.h>

#include "mcpcxx/json_schema.hpp"

#include "core/classify.hpp"
#include "core/exchange.hpp"
#include "core/method_table.hpp"
#include "core/server_core.hpp"
#include "core/session_state.hpp"
#include "core/tool_step.hpp"
#include "core/wire_errors.hpp"
#include "methods/primitive_methods.hpp"
#include "registry/violations_text.hpp"

namespace mcpcxx::detail {

namespace {

// The table's arguments naming the tool.
json tool_args(const tool_entry& t) { return {{"name", t.spec.name}}; }

bool has_output(const tool_entry& t) { return t.output != nullptr; }

// Step c: arguments against inputSchema; a failure is a tool execution error (SEP-1303).
std::optional<method_outcome> argument_problem(const tool_entry& t, const json& args) {
  if (t.input->is_valid(args)) return std::nullopt;
  const auto result = t.input->validate(args);
  json a = tool_args(t);
  a["violations_text"] = schema::format_violations(result, args);
  a["violations"] = nullptr;  // written into the frame as text, without a tree (below)
  method_outcome o = method_outcome::tool_failed(situation::T1_invalid_arguments, std::move(a),
                                                 has_output(t), "invalid_arguments");
  if (o.details.is_object()) o.details_violations = violations_json_text(result);
  return o;
}

// Step h: the per-tool deadline; whoever settles the exchange first (timer or handler) answers.
void arm_deadline(const exchange_ptr& ex, const tool_entry& t) {
  if (!t.spec.timeout) return;
  const double seconds = static_cast<double>(t.spec.timeout->count()) / 1000.0;
  json a = tool_args(t);
  a["seconds"] = seconds;
  a["timeoutSeconds"] = seconds;
  const situation row =
      t.read_only ? situation::T5_timeout_read_only : situation::T5w_timeout_may_have_run;
  ex->arm_deadline(
      *t.spec.timeout,
      [a = std::move(a), row, out = has_output(t)] {
        return method_outcome::tool_failed(row, a, out, "timeout");
      },
      ex);
}

json to_wire(tool_result&& r) {
  json out(json::value_t::object);
  auto& members = out.get_ref<json::object_t&>();
  if (!r.meta.is_null()) members.emplace("_meta", std::move(r.meta));
  members.emplace("content", std::move(r.content));
  if (r.is_error) members.emplace("isError", true);
  if (r.structured_content) members.emplace("structuredContent", std::move(*r.structured_content));
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

}  // namespace

method_outcome tool_result_outcome(const exchange& ex, const tool_entry& t, tool_result&& r) {
  if (r.error) {  // tool_result::failed: classified as if thrown
    const wire::tool_facts tf{t.spec.name, t.read_only, has_output(t)};
    return classify_tool_error(*r.error, &tf);
  }
  if (r.unexpected) {  // tool_result::failed(unexpected_error): classified as if thrown
    const wire::tool_facts tf{t.spec.name, t.read_only, has_output(t)};
    return classify_caught(*r.unexpected, ex, handler_kind::tool, &tf);
  }
  if (auto problem = output_problem(t, r)) {
    const std::string ref = server_log::new_reference();
    ex.core().log().write(
        "error", "tool_output_invalid",
        {{"tool", t.spec.name},
         {"reference", ref},
         {"problem", *problem},
         {"note", "server bug: the tool broke its own declared result contract"}});
    json a = tool_args(t);
    a["reference"] = ref;
    return method_outcome::tool_failed(t.read_only ? situation::T4_output_mismatch_read_only
                                                   : situation::T4w_output_mismatch_applied,
                                       std::move(a), has_output(t), "internal", ref);
  }
  if (r.is_error) return method_outcome::tool_reported_error(to_wire(std::move(r)));
  return method_outcome::ok(to_wire(std::move(r)));
}

namespace {

// Steps d, e, f: run the handler; what it throws goes through the classifier as a tool failure.
method_outcome invoke(const exchange_ptr& ex, const tool_entry& t, const json& args,
                      request_context& ctx) {
  const wire::tool_facts tf{t.spec.name, t.read_only, has_output(t)};
  try {
    return tool_result_outcome(*ex, t, t.handler(args, ctx));
  } catch (const tool_error& e) {  // the expected failure: no rethrow through classify()
    return classify_tool_error(e, &tf);
  } catch (const std::exception& e) {  // classified by dynamic type, without a rethrow
    return classify_caught(e, *ex, handler_kind::tool, &tf);
  } catch (abi::__forced_unwind&) {
    throw;  // a cancelled thread (pthread_exit at interpreter exit) must unwind, never be swallowed
  } catch (...) {
    return classify(std::current_exception(), *ex, handler_kind::tool, &tf);
  }
}

// One call of an async tool between its start and its completion: it keeps the request's
// context alive for the handler and answers the exchange once (the deadline or a cancel may
// have answered it first; finish() then sends nothing).
class async_call final : public tool_completion::target {
 public:
  async_call(exchange_ptr ex, std::shared_ptr<const tool_entry> tool, request_context ctx,
             handler_end_hook on_end)
      : ex_(std::move(ex)),
        tool_(std::move(tool)),
        ctx_(std::move(ctx)),
        on_end_(std::move(on_end)) {}
  request_context& ctx() noexcept { return ctx_; }

  void complete(tool_result r) override {
    ex_->disarm_deadline();
    settle(tool_result_outcome(*ex_, *tool_, std::move(r)));
  }
  void fail(std::exception_ptr error) override {
    ex_->disarm_deadline();
    const wire::tool_facts tf{tool_->spec.name, tool_->read_only, has_output(*tool_)};
    settle(classify(std::move(error), *ex_, handler_kind::tool, &tf));
  }

 private:
  void settle(method_outcome out) {
    if (on_end_) on_end_(out, true, ex_->token().cancelled());
    ex_->finish(std::move(out));
    ex_->session().handler_returned();  // the dispatcher left it to the completion
  }

  exchange_ptr ex_;
  std::shared_ptr<const tool_entry> tool_;
  request_context ctx_;
  handler_end_hook on_end_;
};

// An async tool's call: started here, answered by its completion from any thread; the worker
// that started it returns at once.
method_outcome start_async(const exchange_ptr& ex, const std::shared_ptr<const tool_entry>& t,
                           const json& args, handler_end_hook on_end) {
  if (auto problem = argument_problem(*t, args)) {
    if (on_end) on_end(*problem, false, false);
    return std::move(*problem);
  }
  arm_deadline(ex, *t);
  auto call = std::make_shared<async_call>(ex, t, ex->make_context(ex), std::move(on_end));
  tool_completion done(call);
  try {
    t->async_handler(args, call->ctx(), done);
  } catch (abi::__forced_unwind&) {
    throw;  // a cancelled thread (pthread_exit at interpreter exit) must unwind, never be swallowed
  } catch (...) {
    done.fail(std::current_exception());
  }
  return method_outcome::still_running();
}

}  // namespace

method_outcome run_tool(const exchange_ptr& ex, const tool_entry& t, const json& args,
                        request_context& ctx) {
  if (auto problem = argument_problem(t, args)) return std::move(*problem);
  return invoke(ex, t, args, ctx);
}

namespace {

// The tool's steps (scopes, tasks) in order; a tool without task support whose legacy params
// carry "task" gets the revision's refusal instead.
std::optional<method_outcome> run_steps(server_core& e, const exchange_ptr& ex,
                                        const std::shared_ptr<const tool_entry>& tool,
                                        const json& arguments, tool_call_plan& plan) {
  for (const auto& step : tool->steps) {
    if (auto answered = step->before(ex, tool, arguments, plan)) return answered;
  }
  const auto& refuse = e.hooks().task_param_refusal;
  if (refuse && tool->spec.task == task_support::forbidden && ex->params().contains("task")) {
    return refuse(*ex, *tool);
  }
  return std::nullopt;
}

}  // namespace

decode_result decode(json& params, std::string_view, tools_call_params& out) {
  auto name = params.find("name");
  if (name == params.end() || !name->is_string()) {
    return method_outcome::protocol(situation::P16_tool_name_missing);
  }
  auto args = params.find("arguments");
  if (args != params.end() && !args->is_object() && !args->is_null()) {
    return method_outcome::protocol(situation::P16a_tool_arguments_not_object,
                                    {{"type", args->type_name()}});
  }
  static const json no_arguments = json::object();
  out.name = name->get<std::string>();
  out.arguments = args != params.end() && args->is_object() ? &*args : &no_arguments;
  return std::nullopt;
}

method_outcome handle_tools_call(server_core& e, const exchange_ptr& ex, tools_call_params& p) {
  ex->set_tool(p.name);
  // An inline call runs where it was looked up; a pooled one looks again, since the registry may
  // have changed while it was queued.
  const auto tool = ex->inline_tool() ? ex->inline_tool() : e.registry().find_tool(p.name);
  if (!tool) {
    return method_outcome::protocol(
        situation::P17_unknown_tool,
        {{"name", p.name},
         {"didYouMean", e.registry().closest_tool_names(p.name, ex->session().principal())}});
  }
  ex->set_tool_slot(tool->metrics_slot);
  tool_call_plan plan;
  if (auto answered = run_steps(e, ex, tool, *p.arguments, plan)) {
    if (plan.on_handler_end && !plan.handed_off) plan.on_handler_end(*answered, false, false);
    return std::move(*answered);
  }
  if (tool->async_handler && plan.allow_async) {
    return start_async(ex, tool, *p.arguments, std::move(plan.on_handler_end));
  }
  if (auto problem = argument_problem(*tool, *p.arguments)) {
    if (plan.on_handler_end) plan.on_handler_end(*problem, false, false);
    return std::move(*problem);
  }
  arm_deadline(ex, *tool);
  request_context ctx = ex->make_context(ex, plan.decorate_context);
  method_outcome out = invoke(ex, *tool, *p.arguments, ctx);
  ex->disarm_deadline();
  if (plan.after_handler) plan.after_handler(out);
  if (plan.on_handler_end) plan.on_handler_end(out, true, ex->token().cancelled());
  return out;
}

}  // namespace mcpcxx::detail
