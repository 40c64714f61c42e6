// The catalog: registration (checks, compiled schemas, listings), lookups and capabilities.
#include "registry/catalog.hpp"

#include <stdexcept>

#include "mcpcxx/json_schema.hpp"

#include "registry/async_tools.hpp"
#include "registry/once_checks.hpp"
#include "registry/tool_headers.hpp"
#include "registry/tool_scopes.hpp"

namespace mcpcxx::detail {

namespace {

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

bool read_only_hint(const json& annotations) {
  if (!annotations.is_object()) return false;
  auto it = annotations.find("readOnlyHint");
  return it != annotations.end() && it->is_boolean() && it->get<bool>();
}

// The checks of a tool spec that need no registry state; throws std::invalid_argument.
void check_tool_spec(const tool_spec& spec, bool has_handler) {
  if (!valid_tool_name(spec.name)) {
    throw std::invalid_argument("invalid tool name '" + spec.name.substr(0, 80) +
                                "': use 1-64 characters from A-Z a-z 0-9 _ . -");
  }
  if (!has_handler) throw std::invalid_argument("tool '" + spec.name + "' has no handler");
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
  check_at_most_once(spec);
}

}  // namespace

catalog::catalog(const server_options& options, json server_info)
    : options_(options), server_info_(std::move(server_info)) {}

void catalog::connect(change_callback on_change, tool_decorator decorate) {
  on_change_ = std::move(on_change);
  decorate_ = std::move(decorate);
}

template <class Entry>
void catalog::publish(ordered_registry<Entry>& reg, const std::string& key,
                      std::shared_ptr<const Entry> entry, std::string_view what,
                      std::string_view family) {
  const bool g = guarded(entry->spec);
  auto& guards = guards_of(reg);
  if (g) ++guards;  // before publishing: never listed unfiltered
  {
    std::unique_lock lock(mutex_);
    if (!reg.add(key, std::move(entry))) {
      if (g) --guards;
      throw std::invalid_argument("duplicate " + std::string(what) + " '" + key +
                                  "': it must be unique");
    }
    note_emptiness();
  }
  changed(family);
}

template <class Entry>
bool catalog::withdraw(ordered_registry<Entry>& reg, std::string_view key,
                       std::string_view family) {
  {
    std::unique_lock lock(mutex_);
    auto e = reg.find(key);
    if (!e || !reg.remove(key)) return false;
    if (guarded(e->spec)) --guards_of(reg);
    note_emptiness();
  }
  changed(family);
  return true;
}

void catalog::changed(std::string_view family) {
  invalidate(std::string(family) + "/");
  if (on_change_) on_change_(family);
}

void catalog::add_async_tool(tool_spec spec, async_tool_handler handler) {
  if (!handler) throw std::invalid_argument("tool '" + spec.name + "' has no handler");
  if (spec.inline_dispatch) {
    throw std::invalid_argument("tool '" + spec.name +
                                "' cannot be both async and inline_dispatch: an async tool "
                                "already returns at once; drop inline_dispatch");
  }
  tool_handler blocking = blocking_form(handler);
  register_tool(std::move(spec), std::move(blocking), std::move(handler));
}

void catalog::add_tool(tool_spec spec, tool_handler handler) {
  register_tool(std::move(spec), std::move(handler), nullptr);
}

std::shared_ptr<tool_entry> catalog::tool_entry_for(tool_spec spec) const {
  auto e = std::make_shared<tool_entry>();
  e->input = compile_tool_schema(spec.input_schema, options_.assert_formats,
                                 "tool '" + spec.name + "' inputSchema");
  if (spec.output_schema) {
    e->output = compile_tool_schema(*spec.output_schema, options_.assert_formats,
                                    "tool '" + spec.name + "' outputSchema");
  }
  e->read_only = read_only_hint(spec.annotations);
  e->listed = tool_listing(spec);
  e->spec = std::move(spec);
  return e;
}

void catalog::register_tool(tool_spec spec, tool_handler handler, async_tool_handler async) {
  check_tool_spec(spec, static_cast<bool>(handler));
  auto e = tool_entry_for(std::move(spec));
  e->handler = std::move(handler);
  e->async_handler = std::move(async);
  if (decorate_) decorate_(*e);
  const std::string name = e->spec.name;
  publish(tools_, name, std::shared_ptr<const tool_entry>(std::move(e)), "tool name", "tools");
}

bool catalog::remove_tool(std::string_view name) { return withdraw(tools_, name, "tools"); }

void catalog::add_resource(resource_spec spec, resource_reader reader) {
  if (spec.uri.empty()) throw std::invalid_argument("resource URI must not be empty");
  if (spec.name.empty()) throw std::invalid_argument("resource '" + spec.uri + "' needs a name");
  if (!reader) throw std::invalid_argument("resource '" + spec.uri + "' has no reader");
  check_cache_hint(spec.cache, "resource '" + spec.uri + "'");
  check_tool_scopes(spec.scopes, "resource '" + spec.uri + "'");
  auto e = std::make_shared<resource_entry>();
  e->listed = resource_listing(spec);
  e->spec = std::move(spec);
  e->reader = std::move(reader);
  const std::string uri = e->spec.uri;
  publish(resources_, uri, std::shared_ptr<const resource_entry>(std::move(e)), "resource URI",
          "resources");
}

bool catalog::remove_resource(std::string_view uri) {
  return withdraw(resources_, uri, "resources");
}

bool catalog::remove_resource_template(std::string_view uri_template) {
  return withdraw(templates_, uri_template, "resources");
}

void catalog::add_resource_template(resource_template_spec spec, resource_template_reader reader) {
  if (spec.name.empty()) throw std::invalid_argument("resource template needs a name");
  if (!reader) throw std::invalid_argument("resource template '" + spec.name + "' has no reader");
  check_cache_hint(spec.cache, "resource template '" + spec.name + "'");
  check_tool_scopes(spec.scopes, "resource template '" + spec.name + "'");
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

void catalog::add_prompt(prompt_spec spec, prompt_handler handler) {
  if (spec.name.empty()) throw std::invalid_argument("prompt name must not be empty");
  if (!handler) throw std::invalid_argument("prompt '" + spec.name + "' has no handler");
  check_cache_hint(spec.cache, "prompt '" + spec.name + "'");
  check_tool_scopes(spec.scopes, "prompt '" + spec.name + "'");
  auto e = std::make_shared<prompt_entry>();
  e->listed = prompt_listing(spec);
  e->spec = std::move(spec);
  e->handler = std::move(handler);
  const std::string name = e->spec.name;
  publish(prompts_, name, std::shared_ptr<const prompt_entry>(std::move(e)), "prompt name",
          "prompts");
}

bool catalog::remove_prompt(std::string_view name) { return withdraw(prompts_, name, "prompts"); }

void catalog::set_completion_handler(completion_handler handler) {
  std::unique_lock lock(mutex_);
  completion_ = std::move(handler);
}

std::shared_ptr<const resource_entry> catalog::find_resource(std::string_view uri) const {
  std::shared_lock lock(mutex_);
  return resources_.find(uri);
}

std::shared_ptr<const template_entry> catalog::match_template(
    std::string_view uri, std::map<std::string, std::string>& vars) const {
  std::shared_lock lock(mutex_);
  for (const auto& t : templates_.all()) {
    if (auto matched = t->parsed.match(uri)) {
      vars = std::move(*matched);
      return t;
    }
  }
  return nullptr;
}

std::shared_ptr<const prompt_entry> catalog::find_prompt(std::string_view name) const {
  std::shared_lock lock(mutex_);
  return prompts_.find(name);
}

bool catalog::may_read(const std::string& uri, const json& principal) const {
  if (guarded_resources_.load() == 0 && guarded_templates_.load() == 0) return true;
  if (auto r = find_resource(uri)) return check_access(r->spec, principal) == access::allowed;
  std::map<std::string, std::string> vars;
  auto t = match_template(uri, vars);
  return !t || check_access(t->spec, principal) == access::allowed;
}

std::shared_ptr<const template_entry> catalog::find_template(std::string_view uri_template) const {
  std::shared_lock lock(mutex_);
  return templates_.find(uri_template);
}

std::vector<std::string> catalog::closest_prompt_names(std::string_view name,
                                                       const json& principal) const {
  std::shared_lock lock(mutex_);
  if (guarded_prompts_.load() == 0) return closest_keys(name, prompts_.keys());
  std::vector<std::string> visible;
  for (const auto& p : prompts_.all()) {
    if (check_access(p->spec, principal) == access::allowed) visible.push_back(p->spec.name);
  }
  return closest_keys(name, visible);
}

std::vector<std::string> catalog::closest_tool_names(std::string_view name,
                                                     const json& principal) const {
  std::shared_lock lock(mutex_);
  if (guarded_tools_.load() == 0) return closest_keys(name, tools_.keys());
  std::vector<std::string> visible;
  for (const auto& t : tools_.all()) {
    if (tool_visible(*t, principal)) visible.push_back(t->spec.name);
  }
  return closest_keys(name, visible);
}

completion_handler catalog::completion() const {
  std::shared_lock lock(mutex_);
  return completion_;
}

std::vector<std::shared_ptr<const tool_entry>> catalog::all_tools() const {
  std::shared_lock lock(mutex_);
  return tools_.all();
}

std::vector<std::shared_ptr<const resource_entry>> catalog::all_resources() const {
  std::shared_lock lock(mutex_);
  return resources_.all();
}

std::vector<std::shared_ptr<const template_entry>> catalog::all_templates() const {
  std::shared_lock lock(mutex_);
  return templates_.all();
}

std::vector<std::shared_ptr<const prompt_entry>> catalog::all_prompts() const {
  std::shared_lock lock(mutex_);
  return prompts_.all();
}

namespace {

// Adds the declared extensions (id -> settings) to caps.extensions, replacing a non-object one.
void add_declared_extensions(json& caps, const json& extensions) {
  if (extensions.empty()) return;
  json& ext = caps["extensions"];
  if (!ext.is_object()) ext = json::object();
  for (const auto& [id, settings] : extensions.items()) ext[id] = settings;
}

}  // namespace

json catalog::capabilities() const {
  json caps =
      options_.extra_capabilities.is_object() ? options_.extra_capabilities : json::object();
  std::shared_lock lock(mutex_);
  if (!tools_.empty()) caps["tools"] = {{"listChanged", true}};
  if (!resources_.empty() || !templates_.empty() ||
      extensions_.contains(std::string(k_skills_extension))) {
    caps["resources"] = {{"subscribe", true}, {"listChanged", true}};
  }
  if (!prompts_.empty()) caps["prompts"] = {{"listChanged", true}};
  if (completion_) caps["completions"] = json::object();
  if (options_.logging) caps["logging"] = json::object();
  if (any_task_tool()) caps["extensions"][std::string(k_tasks_extension)] = json::object();
  add_declared_extensions(caps, extensions_);
  return caps;
}

bool catalog::any_task_tool() const {
  for (const auto& t : tools_.all()) {
    if (t->spec.task != task_support::forbidden) return true;
  }
  return false;
}

bool catalog::has_task_tools() const {
  std::shared_lock lock(mutex_);
  return any_task_tool();
}

void catalog::note_emptiness() {
  has_tools_.store(!tools_.empty(), std::memory_order_release);
  has_prompts_.store(!prompts_.empty(), std::memory_order_release);
}

bool catalog::has_other_capability(std::string_view name) const {
  std::shared_lock lock(mutex_);
  if (name == "resources") {
    return !resources_.empty() || !templates_.empty() ||
           extensions_.contains(std::string(k_skills_extension));
  }
  if (name == "completions") return static_cast<bool>(completion_);
  if (name == "logging") return options_.logging;
  if (name == "tasks") return any_task_tool();
  // An extension's methods (skills/list, ...) are served while the extension is declared.
  return extensions_.contains(std::string(name));
}

}  // namespace mcpcxx::detail
