// The middleware chain (see middleware_chain.hpp).
#include "core/middleware_chain.hpp"

#include <algorithm>
#include <cxxabi.h>
#include <stdexcept>
#include <string>

#include "core/classify.hpp"
#include "core/method_table.hpp"
#include "core/notification_middleware.hpp"
#include "core/server_core.hpp"
#include "core/wire_errors.hpp"

namespace mcpcxx::detail {

namespace {

handler_kind handler_kind_of(std::string_view method) {
  if (method == "tools/call") return handler_kind::tool;
  if (method == "resources/read") return handler_kind::resource;
  if (method == "prompts/get") return handler_kind::prompt;
  if (method == "completion/complete") return handler_kind::completion;
  return handler_kind::engine;
}

// The row arguments every refusal carries: the method and, when it has one, its subject.
json subject_args(const exchange& ex, json args) {
  args["method"] = ex.method();
  const auto name = middleware_access::request(const_cast<exchange&>(ex)).name();
  // null, not absent: the row's data always has "name" (its text skips the optional segment)
  args["name"] = name.empty() ? json(nullptr) : json(std::string(name));
  return args;
}

// A refusal's tool row on tools/call of a registered tool (T14, T15/T15w); nullopt otherwise.
std::optional<method_outcome> tool_refusal(const refusal& r, const exchange& ex) {
  const auto& tool = ex.middleware_tool();
  if (!tool || r.row() == "P58") return std::nullopt;
  json args = r.arguments();
  args["name"] = tool->spec.name;
  const bool output = tool->output != nullptr;
  if (r.row() == "P59") {
    return method_outcome::tool_failed(situation::T14_rate_limited, std::move(args), output,
                                       "rate_limited");
  }
  const situation row = tool->read_only ? situation::T15_result_too_large_read_only
                                        : situation::T15w_result_too_large_applied;
  return method_outcome::tool_failed(row, std::move(args), output, "invalid_arguments");
}

method_outcome middleware_refusal_outcome(const refusal& r, const exchange& ex) {
  if (auto t = tool_refusal(r, ex)) return std::move(*t);
  const situation row = r.row() == "P58"   ? situation::P58_middleware_forbidden
                        : r.row() == "P59" ? situation::P59_rate_limited
                                           : situation::P60_reply_too_large;
  method_outcome o = method_outcome::protocol(row, subject_args(ex, r.arguments()));
  o.category = std::string(r.category());
  return o;
}

std::optional<wire::tool_facts> facts_of(const exchange& ex) {
  const auto& tool = ex.middleware_tool();
  if (!tool) return std::nullopt;
  return wire::tool_facts{tool->spec.name, tool->read_only, tool->output != nullptr};
}

// What a hook that threw answers: the classifier's row, as for the method's own handler.
method_outcome hook_failed(const exchange& ex) {
  const auto facts = facts_of(ex);
  return classify(std::current_exception(), ex, handler_kind_of(ex.method()),
                  facts ? &*facts : nullptr);
}

bool contains(const std::vector<std::string>& list, std::string_view s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

// The handshake and ping: wrapped only by middleware that name them, so a policy written for
// "every method" cannot lock legacy clients out of initialize.
bool lifecycle(std::string_view method) { return method == "initialize" || method == "ping"; }

bool known_method(std::string_view name) {
  const auto& rows = all_methods();
  return std::any_of(rows.begin(), rows.end(),
                     [&](const method_info& m) { return m.name == name; });
}

}  // namespace

middleware_reply middleware_access::wrap(method_outcome o) {
  middleware_reply r;
  r.outcome_ = std::make_unique<method_outcome>(std::move(o));
  return r;
}

method_outcome middleware_access::outcome(middleware_reply&& r, const exchange& ex) {
  if (r.refusal_) return middleware_refusal_outcome(*r.refusal_, ex);
  if (r.tool_error_) {
    const auto facts = facts_of(ex);
    return classify_tool_error(*r.tool_error_, facts ? &*facts : nullptr);
  }
  return std::move(*r.outcome_);
}

// A mounted server's middleware applies only to its own primitives, which it knows by `subject`.
bool middleware_chain::applies(const scoped_middleware& s, const exchange& ex,
                               std::optional<std::string>& subject) {
  const middleware& m = s.m;
  if (m.methods.empty() ? lifecycle(ex.method()) : !contains(m.methods, ex.method())) return false;
  const auto name = middleware_access::request(const_cast<exchange&>(ex)).name();
  if (s.subject) {
    subject = s.subject(ex.method(), name);
    if (!subject) return false;
  }
  if (m.tools.empty() || ex.method() != "tools/call") return true;
  return contains(m.tools, subject ? std::string_view(*subject) : name);
}

std::optional<method_outcome> middleware_chain::before(exchange& ex) const {
  if (const auto& tool = ex.middleware_tool()) {  // a refused call still names its tool
    ex.set_tool(tool->spec.name);
    ex.set_tool_slot(tool->metrics_slot);
  }
  for (std::size_t i = 0; i < list_.size(); ++i) {
    ex.set_middleware_reached(i + 1);
    const middleware& m = list_[i].m;
    std::optional<std::string> subject;
    if (!m.before || !applies(list_[i], ex, subject)) continue;
    try {
      if (auto r = m.before(middleware_access::request(ex, subject ? &*subject : nullptr))) {
        return middleware_access::outcome(std::move(*r), ex);
      }
    } catch (abi::__forced_unwind&) {
      throw;  // a cancelled thread must unwind
    } catch (...) {
      return hook_failed(ex);
    }
  }
  return std::nullopt;
}

void middleware_chain::after(exchange& ex, method_outcome& o) const {
  for (std::size_t i = std::min(ex.middleware_reached(), list_.size()); i-- > 0;) {
    const middleware& m = list_[i].m;
    std::optional<std::string> subject;
    if (!m.after || !applies(list_[i], ex, subject)) continue;
    middleware_reply reply = middleware_access::wrap(std::move(o));
    try {
      auto replaced = m.after(middleware_access::request(ex, subject ? &*subject : nullptr), reply);
      o = replaced ? middleware_access::outcome(std::move(*replaced), ex)
                   : middleware_access::outcome(std::move(reply), ex);
    } catch (abi::__forced_unwind&) {
      throw;
    } catch (...) {
      o = hook_failed(ex);
    }
  }
}

bool middleware_chain::blocks(std::string_view method) const noexcept {
  return std::any_of(list_.begin(), list_.end(), [&](const scoped_middleware& s) {
    const middleware& m = s.m;
    return m.may_block && (m.methods.empty() ? !lifecycle(method) : contains(m.methods, method));
  });
}

bool middleware_chain::any_blocks() const noexcept {
  return std::any_of(list_.begin(), list_.end(),
                     [](const scoped_middleware& s) { return s.m.may_block; });
}

void middleware_list::add(middleware m) {
  const std::string who = "middleware " + (m.name.empty() ? std::string("(unnamed)") : m.name);
  if (m.name.empty()) throw std::invalid_argument("middleware: give it a name (middleware::name)");
  if (!m.before && !m.after && !m.on_notification) {
    throw std::invalid_argument(
        who + ": set a before hook, an after hook, or both (or an on_notification hook)");
  }
  for (const auto& method : m.methods) {
    if (!known_method(method) && !is_client_notification(method)) {
      std::string why = who;
      why += ": \"";
      why += method;
      why +=
          "\" is not a request method this server serves; name methods such as tools/call, "
          "resources/read, prompts/get, tools/list, or a client notification such as "
          "notifications/cancelled";
      throw std::invalid_argument(why);
    }
  }
  check_notification_hook(m, who);
  if (!m.tools.empty() && !m.methods.empty() && !contains(m.methods, "tools/call")) {
    throw std::invalid_argument(who + ": tools are named but methods leave out tools/call");
  }
  std::lock_guard g(mutex_);
  list_.push_back(std::move(m));
  rebuild();
}

void middleware_list::set_mounted(const void* key, std::vector<scoped_middleware> list) {
  std::lock_guard g(mutex_);
  auto it = std::find_if(mounted_.begin(), mounted_.end(),
                         [key](const auto& group) { return group.first == key; });
  if (list.empty()) {
    if (it == mounted_.end()) return;
    mounted_.erase(it);
  } else if (it == mounted_.end()) {
    mounted_.emplace_back(key, std::move(list));
  } else {
    it->second = std::move(list);
  }
  rebuild();
}

std::vector<scoped_middleware> middleware_list::effective() const {
  std::lock_guard g(mutex_);
  return flat();
}

std::vector<scoped_middleware> middleware_list::flat() const {
  std::vector<scoped_middleware> all;
  for (const auto& m : list_) all.push_back({m, nullptr});
  for (const auto& group : mounted_)
    all.insert(all.end(), group.second.begin(), group.second.end());
  return all;
}

void middleware_list::rebuild() {
  auto all = flat();
  chain_ = all.empty() ? nullptr : std::make_shared<const middleware_chain>(std::move(all));
  // Stays true once set: a request reading it racing a removal finds a null chain either way.
  if (chain_) any_.store(true, std::memory_order_release);
}

}  // namespace mcpcxx::detail
