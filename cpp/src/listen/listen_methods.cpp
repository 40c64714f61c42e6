// subscriptions/listen (2026-07-28): its params decoder (rows P39-P41, P44, P52) and handler (P13,
// P42, P43).
#include "listen/listen_methods.hpp"

#include <algorithm>

#include "core/exchange.hpp"
#include "core/method_bindings.hpp"
#include "core/server_core.hpp"
#include "listen/listeners.hpp"
#include "methods/primitive_methods.hpp"
#include "tasks/task_calls.hpp"
#include "tasks/tasks.hpp"

namespace mcpcxx::detail {

namespace {

constexpr const char* k_flags[] = {"toolsListChanged", "promptsListChanged",
                                   "resourcesListChanged"};

method_outcome refuse(situation row, const json& args) {
  return method_outcome::protocol(row, args);
}

decode_result decode_uris(const json& uris, std::vector<std::string>& out) {
  if (!uris.is_array()) {
    return refuse(situation::P41_listen_uris_not_array, {{"got", uris.type_name()}});
  }
  out.reserve(uris.size());
  for (std::size_t i = 0; i < uris.size(); ++i) {
    const json& u = uris[i];
    if (!u.is_string() || u.get_ref<const std::string&>().empty()) {
      const std::string got = u.is_string() ? "an empty string" : u.type_name();
      return refuse(situation::P44_listen_uri_invalid, {{"index", i}, {"got", got}});
    }
    out.push_back(u.get<std::string>());
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return std::nullopt;
}

// taskIds (the tasks extension): task id strings as CreateTaskResult returned them.
decode_result decode_task_ids(const json& ids, std::vector<std::string>& out) {
  if (!ids.is_array()) {
    return refuse(situation::P52_listen_task_ids_invalid,
                  {{"problem", std::string("got ") + ids.type_name()}});
  }
  out.reserve(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const json& id = ids[i];
    if (!id.is_string() || id.get_ref<const std::string&>().empty()) {
      const std::string what = id.is_string() ? "an empty string" : id.type_name();
      return refuse(situation::P52_listen_task_ids_invalid,
                    {{"problem", "member " + std::to_string(i) + " (counting from 0) is " + what}});
    }
    out.push_back(id.get<std::string>());
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return std::nullopt;
}

// Keeps the ids of tasks the caller owns (others are left out of the acknowledgement, as the
// extension allows); returns the records of those already terminal, whose state never changes.
std::vector<task_record> honor_task_ids(listener_registry& registry, const exchange& ex,
                                        std::vector<std::string>& ids) {
  std::vector<task_record> terminal;
  const std::string owner = task_owner(ex);
  std::erase_if(ids, [&](const std::string& id) {
    const auto r = registry.tasks().store().get(id, owner);
    if (r && is_terminal(r->status)) terminal.push_back(*r);
    return !r;
  });
  return terminal;
}

}  // namespace

// Members the schema does not name are allowed (SubscriptionFilter is open): they are kept in
// `requested` for the features that define them and left out of the acknowledgement.
decode_result decode(json& params, std::string_view, listen_params& out) {
  auto it = params.find("notifications");
  if (it == params.end() || !it->is_object()) {
    json args = json::object();
    if (it != params.end()) args["got"] = it->type_name();
    return refuse(situation::P39_listen_filter_missing, args);
  }
  const json& n = *it;
  bool* flags[] = {&out.filter.tools_list_changed, &out.filter.prompts_list_changed,
                   &out.filter.resources_list_changed};
  for (std::size_t i = 0; i < std::size(k_flags); ++i) {
    auto f = n.find(k_flags[i]);
    if (f == n.end()) continue;
    if (!f->is_boolean()) {
      return refuse(situation::P40_listen_flag_not_boolean,
                    {{"field", k_flags[i]}, {"got", f->type_name()}});
    }
    *flags[i] = f->get<bool>();
  }
  if (auto u = n.find("resourceSubscriptions"); u != n.end()) {
    if (auto r = decode_uris(*u, out.filter.resource_subscriptions)) return r;
  }
  if (auto t = n.find("taskIds"); t != n.end()) {
    if (auto r = decode_task_ids(*t, out.filter.task_ids)) return r;
    out.filter.task_ids_requested = true;
  }
  out.filter.requested = n;
  return std::nullopt;
}

namespace {

// Honors only what this server has: the acknowledgement lists exactly that subset.
void narrow_to_server(server_core& e, const exchange& ex, listen_filter& f) {
  f.tools_list_changed = f.tools_list_changed && e.registry().has_capability("tools");
  f.prompts_list_changed = f.prompts_list_changed && e.registry().has_capability("prompts");
  const bool resources = e.registry().has_capability("resources");
  f.resources_list_changed = f.resources_list_changed && resources;
  if (!resources) f.resource_subscriptions.clear();
  if (e.registry().varies_by_principal("resources/list") ||
      e.registry().varies_by_principal("resources/templates/list")) {
    // A resource the caller may not read is not honored, so its updates never reach it.
    std::erase_if(f.resource_subscriptions,
                  [&](const std::string& uri) { return !may_read_resource(e, ex, uri); });
  }
}

// A task that ended before the stream opened sends no more status changes: its final state
// follows the acknowledgement, so a client need not poll for it.
void replay_finished_tasks(listener_registry& streams, const std::shared_ptr<listener>& l,
                           const std::vector<task_record>& finished, std::size_t queue_limit) {
  for (const task_record& r : finished) {
    if (l->offer(task_status_notification(r.task_id, modern_detailed_task_json(r)))) continue;
    if (streams.remove(l.get())) {
      l->end("more tasks ended than the stream may queue (" + std::to_string(queue_limit) +
             "); follow fewer taskIds per stream");
    }
    return;
  }
}

}  // namespace

method_outcome handle_listen(listener_registry& streams, const exchange_ptr& ex, listen_params& p) {
  server_core& e = ex->core();
  listen_filter& f = p.filter;
  const std::size_t max_uris = e.options().max_listen_uris;
  if (f.resource_subscriptions.size() > max_uris) {
    return refuse(situation::P42_listen_too_many_uris,
                  {{"count", f.resource_subscriptions.size()}, {"limit", max_uris}});
  }
  if (f.task_ids_requested && !declares_tasks_extension(*ex)) return missing_tasks_extension();
  const std::vector<task_record> finished = honor_task_ids(streams, *ex, f.task_ids);
  narrow_to_server(e, *ex, f);
  if (streams.closed()) {
    // The server is stopping: the stream ends at once, as every open one just did.
    return method_outcome::ok(
        {{"_meta", {{k_subscription_id_key, jsonrpc::id_to_json(ex->id())}}}});
  }
  const auto l = streams.open(ex, std::move(f));
  if (!l) {
    return refuse(situation::P43_listen_too_many_listeners, {{"limit", e.options().max_listeners}});
  }
  replay_finished_tasks(streams, l, finished, e.options().listener_queue);
  return method_outcome::pending();
}

void bind_listen_method(method_bindings& methods, listener_registry& streams) {
  methods.bind<&handle_listen>("subscriptions/listen", streams);
}

listen_notification task_status_notification(const std::string& task_id, json task) {
  return {"notifications/tasks", std::move(task), "task " + task_id};
}

}  // namespace mcpcxx::detail
