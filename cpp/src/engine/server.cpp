// Public server and session facades over the engine.
#include "mcpcxx/server.hpp"

#include "mcpcxx/errors.hpp"

#include "core/session_state.hpp"
#include "engine/engine.hpp"
#include "engine/shared_store.hpp"

namespace mcpcxx {

namespace {

// The store is checked and opened before the engine exists, so a misconfigured replica fails
// at construction, before it could serve anything.
std::shared_ptr<detail::engine> assembled(server_options options) {
  detail::read_request_state_keys_from_env(options);
  detail::check_store_config(options.store.url, options);
  std::shared_ptr<detail::shared_store> store;
  if (detail::is_shared_store_url(options.store.url)) {
    store = detail::open_shared_store(options.store, options.info.name);
  }
  auto e = std::make_shared<detail::engine>(std::move(options));
  if (store) e->attach_store(std::move(store));
  return e;
}

}  // namespace

namespace detail {
std::shared_ptr<shared_store> shared_store_of(const server& srv) { return srv.engine_->store(); }
}  // namespace detail

server::server(server_options options) : engine_(assembled(std::move(options))) {}

void server::use_store(const std::string& url) {
  if (!detail::is_shared_store_url(url)) return;
  if (const auto& current = engine_->store()) {
    if (current->options.url == url) return;
    throw std::invalid_argument(
        "mcpcxx: this server already uses another store; give one store URL, either in "
        "server_options::store or in http_options::store / MCPCXX_STORE_URL");
  }
  detail::check_store_config(url, engine_->core()->options());
  store_options o = engine_->core()->options().store;
  o.url = url;
  engine_->attach_store(detail::open_shared_store(o, engine_->core()->options().info.name));
}

bool server::store_ready() const {
  const auto& s = engine_->store();
  return !s || s->client->healthy();
}

server::~server() { engine_->stop(); }

void server::add_tool(tool_spec spec, tool_handler handler) {
  engine_->mount_table().check_claim(detail::mount_kind::tool, spec.name);
  engine_->registry().add_tool(std::move(spec), std::move(handler));
}
void server::write_log(std::string_view level, std::string_view event, const json& fields) const {
  engine_->core()->log().write(level, event, fields);
}
void server::add_async_tool(tool_spec spec, async_tool_handler handler) {
  engine_->mount_table().check_claim(detail::mount_kind::tool, spec.name);
  engine_->registry().add_async_tool(std::move(spec), std::move(handler));
}
bool server::remove_tool(std::string_view name) { return engine_->registry().remove_tool(name); }
void server::add_resource(resource_spec spec, resource_reader reader) {
  engine_->mount_table().check_claim(detail::mount_kind::resource, spec.uri);
  engine_->registry().add_resource(std::move(spec), std::move(reader));
}
bool server::remove_resource(std::string_view uri) {
  return engine_->registry().remove_resource(uri);
}
bool server::has_resource(std::string_view uri) const {
  return engine_->registry().find_resource(uri) != nullptr;
}
void server::add_resource_template(resource_template_spec spec, resource_template_reader reader) {
  engine_->mount_table().check_claim(detail::mount_kind::resource_template, spec.uri_template);
  engine_->registry().add_resource_template(std::move(spec), std::move(reader));
}
bool server::remove_resource_template(std::string_view uri_template) {
  return engine_->registry().remove_resource_template(uri_template);
}
void server::add_prompt(prompt_spec spec, prompt_handler handler) {
  engine_->mount_table().check_claim(detail::mount_kind::prompt, spec.name);
  engine_->registry().add_prompt(std::move(spec), std::move(handler));
}
bool server::remove_prompt(std::string_view name) {
  return engine_->registry().remove_prompt(name);
}
void server::set_completion_handler(completion_handler handler) {
  engine_->registry().set_completion_handler(std::move(handler));
}
void server::add_extension(std::string id, json settings) {
  engine_->registry().add_extension(std::move(id), std::move(settings));
}
void server::add_middleware(middleware m) {
  engine_->core()->middleware().add(std::move(m));
  engine_->mount_table().middleware_changed();
}
void server::mount(server& child, const std::string& prefix) {
  detail::mounts::mount(engine_, child.engine_, prefix);
}
bool server::remove_extension(std::string_view id) {
  return engine_->registry().remove_extension(id);
}
void server::add_skills(const std::string& root, const skills_options& options) {
  engine_->skills().add(root, options);
}
void server::add_skills(const std::string& root) { add_skills(root, skills_options{}); }
skills_changes server::reload_skills() { return engine_->skills().reload(); }
void server::notify_resource_updated(std::string_view uri) {
  engine_->notify_resource_updated(uri);
}

bool server::notify_elicitation_complete(std::string_view elicitation_id) {
  return engine_->core()->elicitations().notify_complete(elicitation_id);
}

session server::open_session(std::shared_ptr<frame_sink> sink, session_options options) {
  auto state =
      std::make_shared<detail::session_state>(engine_->core(), std::move(sink), std::move(options));
  engine_->legacy_sessions().track(state);
  return session(std::move(state));
}

json server::capabilities() const { return engine_->registry().capabilities(); }
const server_options& server::options() const { return engine_->core()->options(); }
server_metrics server::metrics() const { return engine_->metrics(); }

std::string server::metrics_text() const { return engine_->metrics_text(); }

void server::set_tracer(std::shared_ptr<tracer> t) { engine_->core()->set_tracer(std::move(t)); }

std::shared_ptr<const json> server::tool_input_schema(std::string_view name) const {
  auto t = engine_->registry().find_tool(name);
  if (!t) return nullptr;
  return {t, &t->spec.input_schema};  // aliases the immutable registry entry
}

std::vector<std::string> server::tool_scopes(std::string_view name) const {
  auto t = engine_->registry().find_tool(name);
  if (!t) return {};
  return t->spec.scopes;
}

std::vector<std::string> server::required_scopes(std::string_view method,
                                                 std::string_view name) const {
  const auto& reg = engine_->registry();
  if (method == "tools/call") return tool_scopes(name);
  if (method == "prompts/get") {
    auto p = reg.find_prompt(name);
    return p ? p->spec.scopes : std::vector<std::string>{};
  }
  if (method != "resources/read" && method != "resources/subscribe") return {};
  if (auto r = reg.find_resource(name)) return r->spec.scopes;
  std::map<std::string, std::string> vars;
  auto t = reg.match_template(name, vars);
  return t ? t->spec.scopes : std::vector<std::string>{};
}

// tool_result::text, which nearly every call runs, is beside the exchange (core/exchange.cpp).
tool_result tool_result::failed(tool_error error) {
  tool_result r;
  r.error = std::make_shared<const tool_error>(std::move(error));
  return r;
}

tool_result tool_result::failed(unexpected_error error) {
  tool_result r;
  r.unexpected = std::make_shared<const unexpected_error>(std::move(error));
  return r;
}

tool_result tool_result::structured(json value) {
  tool_result r = text(value.dump());
  r.structured_content = std::move(value);
  return r;
}

prior_resolution prior_resolution::still_unknown() { return {}; }

prior_resolution prior_resolution::applied(tool_result r) {
  prior_resolution p;
  p.kind = verdict::applied;
  p.result = std::move(r);
  return p;
}

prior_resolution prior_resolution::not_applied() {
  prior_resolution p;
  p.kind = verdict::not_applied;
  return p;
}

}  // namespace mcpcxx
