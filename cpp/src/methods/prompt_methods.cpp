// prompts/get and completion/complete.
#include <algorithm>

#include "core/exchange.hpp"
#include "core/method_table.hpp"
#include "core/server_core.hpp"
#include "core/session_state.hpp"
#include "methods/access_refusal.hpp"
#include "methods/primitive_methods.hpp"

namespace mcpcxx::detail {

namespace {

method_outcome unknown_prompt(server_core& e, const exchange& ex, const std::string& name) {
  // A prompt hidden from this caller is never suggested.
  const json principal = ex.session().principal();
  return method_outcome::protocol(
      situation::P19_unknown_prompt,
      {{"name", name}, {"didYouMean", e.registry().closest_prompt_names(name, principal)}});
}

// Completing a prompt's or a template's arguments needs the right to use it.
std::optional<method_outcome> refuse_completion(server_core& e, const exchange& ex,
                                                const completion_request& req) {
  if (req.ref_type == "ref/prompt") {
    auto prompt = e.registry().find_prompt(req.ref);
    if (!prompt) return unknown_prompt(e, ex, req.ref);
    return refuse_access(ex, "prompt", req.ref, prompt->spec);
  }
  if (req.ref_type != "ref/resource") return std::nullopt;
  if (auto t = e.registry().find_template(req.ref)) {
    return refuse_access(ex, "resource template", req.ref, t->spec);
  }
  if (auto r = e.registry().find_resource(req.ref)) {
    return refuse_access(ex, "resource", req.ref, r->spec);
  }
  return std::nullopt;
}

}  // namespace

method_outcome handle_prompts_get(server_core& e, const exchange_ptr& ex, prompts_get_params& p) {
  auto prompt = e.registry().find_prompt(p.name);
  if (!prompt) return unknown_prompt(e, *ex, p.name);
  if (auto refused = refuse_access(*ex, "prompt", p.name, prompt->spec)) return std::move(*refused);
  std::vector<std::string> missing;
  for (const auto& a : prompt->spec.arguments) {
    if (a.required && p.arguments.count(a.name) == 0) missing.push_back(a.name);
  }
  if (!missing.empty()) {
    return method_outcome::protocol(situation::P19a_missing_prompt_arguments,
                                    {{"name", p.name}, {"missing", missing}});
  }
  request_context ctx = ex->make_context(ex);
  prompt_result r = prompt->handler(p.arguments, ctx);
  json result = {{"messages", std::move(r.messages)}};
  if (r.description) result["description"] = *r.description;
  return method_outcome::ok(std::move(result));
}

method_outcome handle_complete(server_core& e, const exchange_ptr& ex, complete_params& p) {
  const completion_request& req = p.request;
  if (auto refused = refuse_completion(e, *ex, req)) return std::move(*refused);
  request_context ctx = ex->make_context(ex);
  completion_result r = e.registry().completion()(req, ctx);
  const std::size_t n = std::min<std::size_t>(r.values.size(), 100);
  json values = json::array();
  for (std::size_t i = 0; i < n; ++i) values.push_back(r.values[i]);
  json completion = {{"values", std::move(values)}, {"hasMore", r.has_more || r.values.size() > n}};
  if (r.total) completion["total"] = *r.total;
  return method_outcome::ok({{"completion", std::move(completion)}});
}

}  // namespace mcpcxx::detail
