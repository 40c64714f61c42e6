// Shared engine state: registration, capabilities, metrics.
#include "engine/engine.hpp"

#include <algorithm>
#include <stdexcept>
#include <thread>

#include "mcpcxx/json_schema.hpp"

#include "engine/async_tools.hpp"
#include "engine/cache_hints.hpp"
#include "engine/session_state.hpp"
#include "engine/task_calls.hpp"
#include "engine/tool_headers.hpp"
#include "engine/tool_scopes.hpp"

namespace mcpcxx::detail {

namespace {

json info_json(const server_info& i) {
  json j = {{"name", i.name}, {"version", i.version}};
  if (i.title) j["title"] = *i.title;
  if (i.description) j["description"] = *i.description;
  if (!i.icons.is_null()) j["icons"] = i.icons;
  if (i.website_url) j["websiteUrl"] = *i.website_url;
  return j;
}

std::size_t pool_size(std::size_t requested) {
  if (requested != 0) return requested;
  return std::max<std::size_t>(2, std::thread::hardware_concurrency());
}

std::shared_ptr<const schema::compiled_schema> compile_tool_schema(const json& s, bool formats,
                                                                   const std::string& what) {
  if (!s.is_object() && !s.is_boolean()) {
    throw std::invalid_argument(what + " must be a JSON Schema object");
  }
  schema::compile_options opts;
  opts.assert_formats = formats;
  try {
    return schema::compile(s, opts);
  } catch (const schema::schema_error& e) {
    throw schema::schema_error(what + " does not compile: " + e.what());
  }
}

// The request pool grows for handlers that wait (worker_pool.hpp); a handler running past
// long_handler_after is logged once with its label (the tool, or the method).
pool_limits pool_limits_for(const server_options& o, server_log& log) {
  pool_limits l;
  l.threads = pool_size(o.worker_threads);
  l.max_threads = std::max(l.threads, o.max_worker_threads);
  l.max_stuck = o.max_stuck_workers;
  l.long_after = o.long_handler_after;
  l.on_long = [&log](const std::string& label, std::chrono::milliseconds ran) {
    log.write("warning", "handler_running_long",
              {{"handler", label},
               {"running_ms", ran.count()},
               {"note", "still running; it keeps a worker thread until it returns"}});
  };
  return l;
}

bool read_only_hint(const json& annotations) {
  if (!annotations.is_object()) return false;
  auto it = annotations.find("readOnlyHint");
  return it != annotations.end() && it->is_boolean() && it->get<bool>();
}

}  // namespace

engine::engine(server_options options)
    : options_(std::move(options)),
      server_info_(info_json(options_.info)),
      server_info_text_(server_info_.dump(-1, ' ', false, json::error_handler_t::replace)),
      log_(options_.log_writer, options_.log_threshold),
      request_states_(state::key_ring::from_config(options_.request_state_key,
                                                   options_.request_state_previous_keys),
                      std::chrono::seconds(options_.request_state_ttl_s)),
      tasks_(std::make_unique<task_manager>(options_.tasks)),
      pool_(pool_limits_for(options_, log_)) {
  check_default_hints(options_);
  tasks_->set_status_listener([this](const task_record& r) { publish_task_status(*this, r); });
}

engine::~engine() = default;

void engine::stop() {
  tasks_->stop(options_.stop_grace);  // cancels running tasks so their handlers return
  listeners_.close("the server is stopping");
  const auto left = pool_.stop(options_.stop_grace);
  deadlines_.stop();
  if (left.detached != 0 || left.dropped != 0) {
    log_.write("warning", "handlers_abandoned_at_stop",
               {{"detached", left.detached},
                {"dropped", left.dropped},
                {"grace_ms", options_.stop_grace.count()}});
  }
}

template <class Entry>
void engine::publish(ordered_registry<Entry>& reg, const std::string& key,
                     std::shared_ptr<const Entry> entry, std::string_view what,
                     std::string_view family) {
  {
    std::unique_lock lock(registry_mutex_);
    if (!reg.add(key, std::move(entry))) {
      throw std::invalid_argument("duplicate " + std::string(what) + " '" + key +
                                  "': it must be unique");
    }
  }
  changed(family);
}

void engine::changed(std::string_view family) {
  invalidate(std::string(family) + "/");
  announce(family);
}

void engine::announce(std::string_view family) {
  const auto now = std::chrono::steady_clock::now();
  std::string name(family);
  if (!has_audience(name)) return;
  {
    std::lock_guard lock(announce_mutex_);
    announcement& a = announced_[name];
    if (a.trailing) return;  // the scheduled announcement covers this change too
    if (now - a.last >= k_list_changed_window) {
      a.last = now;
    } else {
      a.trailing = true;
      std::weak_ptr<engine> weak = weak_from_this();
      deadlines_.schedule(a.last + k_list_changed_window, [weak, name] {
        auto self = weak.lock();
        if (!self) return;
        {
          std::lock_guard lock(self->announce_mutex_);
          announcement& t = self->announced_[name];
          t.trailing = false;
          t.last = std::chrono::steady_clock::now();
        }
        self->announce_now(name);
      });
      return;
    }
  }
  announce_now(name);
}

namespace {

// Whether listener `l` asked for the list_changed of `family`.
bool follows(const listener& l, const std::string& family) {
  const auto& f = l.filter();
  if (family == "tools") return f.tools_list_changed;
  if (family == "prompts") return f.prompts_list_changed;
  return f.resources_list_changed;
}

}  // namespace

bool engine::has_audience(const std::string& family) {
  {
    std::lock_guard lock(sessions_mutex_);
    for (const auto& w : sessions_) {
      if (auto s = w.lock(); s && s->legacy_ready()) return true;
    }
  }
  return listeners_.any([&family](const listener& l) { return follows(l, family); });
}

void engine::announce_now(const std::string& family) {
  const std::string method = "notifications/" + family + "/list_changed";
  broadcast_legacy(method, nullptr);
  listeners_.publish({method, json::object(), method},
                     [&family](const listener& l) { return follows(l, family); });
}

void engine::add_async_tool(tool_spec spec, async_tool_handler handler) {
  if (!handler) throw std::invalid_argument("tool '" + spec.name + "' has no handler");
  if (spec.inline_dispatch) {
    throw std::invalid_argument("tool '" + spec.name +
                                "' cannot be both async and inline_dispatch: an async tool "
                                "already returns at once; drop inline_dispatch");
  }
  tool_handler blocking = blocking_form(handler);
  register_tool(std::move(spec), std::move(blocking), std::move(handler));
}

void engine::add_tool(tool_spec spec, tool_handler handler) {
  register_tool(std::move(spec), std::move(handler), nullptr);
}

void engine::register_tool(tool_spec spec, tool_handler handler, async_tool_handler async) {
  if (!valid_tool_name(spec.name)) {
    throw std::invalid_argument("invalid tool name '" + spec.name.substr(0, 80) +
                                "': use 1-64 characters from A-Z a-z 0-9 _ . -");
  }
  if (!handler) throw std::invalid_argument("tool '" + spec.name + "' has no handler");
  if (!spec.input_schema.is_object()) {
    throw std::invalid_argument("tool '" + spec.name + "' inputSchema must be a JSON object");
  }
  check_param_headers(spec.input_schema, spec.name);
  check_cache_hint(spec.cache, "tool '" + spec.name + "'");
  if (spec.inline_dispatch && spec.task != task_support::forbidden) {
    throw std::invalid_argument(
        "tool '" + spec.name +
        "' cannot be both inline_dispatch and a task tool: a task runs past its request, and an "
        "inline handler must return at once; set task to forbidden or drop inline_dispatch");
  }
  check_tool_scopes(spec.scopes, "tool '" + spec.name + "'");
  auto e = std::make_shared<tool_entry>();
  e->input = compile_tool_schema(spec.input_schema, options_.assert_formats,
                                 "tool '" + spec.name + "' inputSchema");
  if (spec.output_schema) {
    e->output = compile_tool_schema(*spec.output_schema, options_.assert_formats,
                                    "tool '" + spec.name + "' outputSchema");
  }
  e->read_only = read_only_hint(spec.annotations);
  e->listed = tool_listing(spec);
  e->metrics_slot = stats_.tool_slot(spec.name);
  e->spec = std::move(spec);
  e->handler = std::move(handler);
  e->async_handler = std::move(async);
  const std::string name = e->spec.name;
  const bool scoped = !e->spec.scopes.empty();
  if (scoped) ++scoped_tools_;  // before publishing: never listed unfiltered
  try {
    publish(tools_, name, std::shared_ptr<const tool_entry>(std::move(e)), "tool name", "tools");
  } catch (...) {
    if (scoped) --scoped_tools_;
    throw;
  }
}

bool engine::remove_tool(std::string_view name) {
  {
    std::unique_lock lock(registry_mutex_);
    auto t = tools_.find(name);
    if (!t || !tools_.remove(name)) return false;
    if (!t->spec.scopes.empty()) --scoped_tools_;
  }
  changed("tools");
  return true;
}

void engine::add_resource(resource_spec spec, resource_reader reader) {
  if (spec.uri.empty()) throw std::invalid_argument("resource URI must not be empty");
  if (spec.name.empty()) throw std::invalid_argument("resource '" + spec.uri + "' needs a name");
  if (!reader) throw std::invalid_argument("resource '" + spec.uri + "' has no reader");
  check_cache_hint(spec.cache, "resource '" + spec.uri + "'");
  auto e = std::make_shared<resource_entry>();
  e->listed = resource_listing(spec);
  e->spec = std::move(spec);
  e->reader = std::move(reader);
  const std::string uri = e->spec.uri;
  publish(resources_, uri, std::shared_ptr<const resource_entry>(std::move(e)), "resource URI",
          "resources");
}

bool engine::remove_resource(std::string_view uri) {
  {
    std::unique_lock lock(registry_mutex_);
    if (!resources_.remove(uri)) return false;
  }
  changed("resources");
  return true;
}

bool engine::remove_resource_template(std::string_view uri_template) {
  {
    std::unique_lock lock(registry_mutex_);
    if (!templates_.remove(uri_template)) return false;
  }
  changed("resources");
  return true;
}

void engine::add_resource_template(resource_template_spec spec, resource_template_reader reader) {
  if (spec.name.empty()) throw std::invalid_argument("resource template needs a name");
  if (!reader) throw std::invalid_argument("resource template '" + spec.name + "' has no reader");
  check_cache_hint(spec.cache, "resource template '" + spec.name + "'");
  auto e = std::make_shared<template_entry>();
  try {
    e->parsed = uri_template(spec.uri_template);
  } catch (const std::invalid_argument& err) {
    throw std::invalid_argument("resource template '" + spec.uri_template + "': " + err.what());
  }
  e->listed = template_listing(spec);
  e->spec = std::move(spec);
  e->reader = std::move(reader);
  const std::string key = e->spec.uri_template;
  publish(templates_, key, std::shared_ptr<const template_entry>(std::move(e)), "resource template",
          "resources");
}

void engine::add_prompt(prompt_spec spec, prompt_handler handler) {
  if (spec.name.empty()) throw std::invalid_argument("prompt name must not be empty");
  if (!handler) throw std::invalid_argument("prompt '" + spec.name + "' has no handler");
  check_cache_hint(spec.cache, "prompt '" + spec.name + "'");
  auto e = std::make_shared<prompt_entry>();
  e->listed = prompt_listing(spec);
  e->spec = std::move(spec);
  e->handler = std::move(handler);
  const std::string name = e->spec.name;
  publish(prompts_, name, std::shared_ptr<const prompt_entry>(std::move(e)), "prompt name",
          "prompts");
}

bool engine::remove_prompt(std::string_view name) {
  {
    std::unique_lock lock(registry_mutex_);
    if (!prompts_.remove(name)) return false;
  }
  changed("prompts");
  return true;
}

void engine::set_completion_handler(completion_handler handler) {
  std::unique_lock lock(registry_mutex_);
  completion_ = std::move(handler);
}

std::shared_ptr<const tool_entry> engine::find_tool(std::string_view name) const {
  std::shared_lock lock(registry_mutex_);
  return tools_.find(name);
}

std::shared_ptr<const resource_entry> engine::find_resource(std::string_view uri) const {
  std::shared_lock lock(registry_mutex_);
  return resources_.find(uri);
}

std::shared_ptr<const template_entry> engine::match_template(
    std::string_view uri, std::map<std::string, std::string>& vars) const {
  std::shared_lock lock(registry_mutex_);
  for (const auto& t : templates_.all()) {
    if (auto matched = t->parsed.match(uri)) {
      vars = std::move(*matched);
      return t;
    }
  }
  return nullptr;
}

std::shared_ptr<const prompt_entry> engine::find_prompt(std::string_view name) const {
  std::shared_lock lock(registry_mutex_);
  return prompts_.find(name);
}

std::vector<std::string> engine::closest_prompt_names(std::string_view name) const {
  std::shared_lock lock(registry_mutex_);
  return closest_keys(name, prompts_.keys());
}

completion_handler engine::completion() const {
  std::shared_lock lock(registry_mutex_);
  return completion_;
}

json engine::capabilities() const {
  json caps =
      options_.extra_capabilities.is_object() ? options_.extra_capabilities : json::object();
  std::shared_lock lock(registry_mutex_);
  if (!tools_.empty()) caps["tools"] = {{"listChanged", true}};
  if (!resources_.empty() || !templates_.empty()) {
    caps["resources"] = {{"subscribe", true}, {"listChanged", true}};
  }
  if (!prompts_.empty()) caps["prompts"] = {{"listChanged", true}};
  if (completion_) caps["completions"] = json::object();
  if (options_.logging) caps["logging"] = json::object();
  if (any_task_tool()) caps["extensions"][std::string(k_tasks_extension)] = json::object();
  if (!extensions_.empty()) {
    json& ext = caps["extensions"];
    if (!ext.is_object()) ext = json::object();
    for (const auto& [id, settings] : extensions_.items()) ext[id] = settings;
  }
  return caps;
}

bool engine::any_task_tool() const {
  for (const auto& t : tools_.all()) {
    if (t->spec.task != task_support::forbidden) return true;
  }
  return false;
}

bool engine::has_task_tools() const {
  std::shared_lock lock(registry_mutex_);
  return any_task_tool();
}

bool engine::has_capability(std::string_view name) const {
  std::shared_lock lock(registry_mutex_);
  if (name == "tools") return !tools_.empty();
  if (name == "resources") return !resources_.empty() || !templates_.empty();
  if (name == "prompts") return !prompts_.empty();
  if (name == "completions") return static_cast<bool>(completion_);
  if (name == "logging") return options_.logging;
  if (name == "tasks") return any_task_tool();
  return false;
}

void engine::count(outcome_class o, std::string_view category) {
  stats_.record_message(o, category);
}

server_metrics engine::metrics() const {
  server_metrics m = stats_.snapshot();
  m.stuck_handlers = pool_.stuck();
  m.long_running_handlers = pool_.long_running();
  m.worker_threads = pool_.threads();
  return m;
}

std::string engine::metrics_text() const {
  gauge_values g;
  {
    std::lock_guard lock(sessions_mutex_);
    g.sessions_open = static_cast<std::uint64_t>(std::count_if(
        sessions_.begin(), sessions_.end(), [](const auto& w) { return !w.expired(); }));
  }
  g.listeners = listeners_.size();
  g.stuck_handlers = pool_.stuck();
  g.long_running_handlers = pool_.long_running();
  g.worker_threads = pool_.threads();
  return stats_.render(g);
}

}  // namespace mcpcxx::detail
