// _core.Server and _core.Session: the engine, its registries and in-process sessions. Specs,
// options, results and counters cross as their JSON forms (json_caster.hpp).
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <pybind11/stl.h>

#include "mcpcxx/server.hpp"
#include "mcpcxx/server_json.hpp"
#include "mcpcxx/skills.hpp"

#include "bindings.hpp"
#include "handler_bridge.hpp"
#include "json_caster.hpp"
#include "once_bridge.hpp"
#include "tracing_bridge.hpp"

namespace mcpcxx::py_bind {

server_handle::~server_handle() {
  if (PyGILState_Check() != 0) {
    py::gil_scoped_release release;
    srv.reset();
  } else {
    srv.reset();
  }
}

namespace {

const char* kind_name(frame_kind kind) {
  switch (kind) {
    case frame_kind::response:
      return "response";
    case frame_kind::notification:
      return "notification";
    case frame_kind::request:
      return "request";
  }
  return "notification";
}

/// Forwards frames to sink(frame: str, kind: "response" | "notification" | "request") with the GIL
/// held; "request" is a server-to-client request the sink must answer.
class python_sink final : public frame_sink {
 public:
  explicit python_sink(py::object fn) : fn_(std::move(fn)) {}
  void send(std::string frame, frame_kind kind) override {
    const python_entry entry;
    if (!entry.entered()) return;
    py::gil_scoped_acquire gil;
    try {
      fn_.get()(py::str(frame), kind_name(kind));
    } catch (py::error_already_set& e) {
      e.discard_as_unraisable("mcpcxx frame sink");
    }
  }

 private:
  held_object fn_;
};

std::function<void(std::string_view)> log_writer_from(py::object fn) {
  if (fn.is_none()) return {};
  return [held = held_object(std::move(fn))](std::string_view line) {
    const python_entry entry;
    if (!entry.entered()) return;
    py::gil_scoped_acquire gil;
    try {
      held.get()(py::str(line.data(), line.size()));
    } catch (py::error_already_set& e) {
      e.discard_as_unraisable("mcpcxx log writer");
    }
  };
}

std::unique_ptr<server_handle> make_server(server_options options, py::object log_writer) {
  options.log_writer = log_writer_from(std::move(log_writer));
  auto h = std::make_unique<server_handle>();
  py::gil_scoped_release release;
  h->srv = std::make_unique<server>(std::move(options));
  return h;
}

/// Registers `spec` with the engine handler bridging to the Python callable `fn`.
template <class Spec, auto Add, class R, class... Payload>
void add(server_handle& h, Spec spec, py::object fn) {
  auto handler = bridge<R, Payload...>(std::move(fn));
  py::gil_scoped_release release;  // registration may notify sessions, whose sinks take the GIL
  ((*h.srv).*Add)(std::move(spec), std::move(handler));
}

/// add() with the primitive's cache hints (None: the server defaults); the engine checks them.
template <class Spec, auto Add, class R, class... Payload>
void add_cached(server_handle& h, Spec spec, py::object fn, std::optional<std::int64_t> ttl_ms,
                std::optional<std::string> cache_scope) {
  spec.cache = {ttl_ms, std::move(cache_scope)};
  add<Spec, Add, R, Payload...>(h, std::move(spec), std::move(fn));
}

/// The engine rule of `visible_to`: None (no rule), {"roles": [...]} / {"claims": {...}} (checked
/// in C++, no GIL), or a callable of the principal dict returning bool (a raise: unexpected).
principal_rule rule_from(const py::object& visible_to, std::string requirement) {
  if (visible_to.is_none()) return {};
  if (py::isinstance<py::dict>(visible_to)) {
    const json spec = visible_to.cast<json>();
    if (spec.contains("roles")) return require_roles(spec["roles"].get<std::vector<std::string>>());
    return require_claims(spec.at("claims"));
  }
  principal_rule rule;
  rule.requirement = std::move(requirement);
  rule.test = [held = held_object(visible_to)](const json& principal) {
    const python_entry entry;
    if (!entry.entered()) return false;
    py::gil_scoped_acquire gil;
    try {
      return held.get()(principal).cast<bool>();
    } catch (py::error_already_set& e) {
      throw std::runtime_error(e.what());  // logged under a reference, never on the wire
    }
  };
  return rule;
}

/// add_cached() of a primitive with scopes and a principal rule.
template <class Spec, auto Add, class R, class... Payload>
void add_guarded(server_handle& h, Spec spec, py::object fn, std::optional<std::int64_t> ttl_ms,
                 std::optional<std::string> cache_scope, const std::vector<std::string>& scopes,
                 const py::object& visible_to, std::string requirement) {
  spec.scopes = scopes;
  spec.visible_to = rule_from(visible_to, std::move(requirement));
  add_cached<Spec, Add, R, Payload...>(h, std::move(spec), std::move(fn), ttl_ms,
                                       std::move(cache_scope));
}

void add_tool(server_handle& h, tool_spec spec, py::object fn, std::optional<double> timeout,
              std::optional<std::int64_t> ttl_ms, std::optional<std::string> cache_scope,
              bool task_started_by_handler, std::vector<std::string> scopes, bool inline_dispatch,
              bool is_async, const json& at_most_once, py::object resolver,
              const py::object& visible_to, std::string requirement) {
  if (timeout) spec.timeout = std::chrono::milliseconds(std::llround(*timeout * 1000.0));
  if (!at_most_once.is_null()) {
    spec.at_most_once = at_most_once_from(at_most_once, std::move(resolver));
  }
  spec.task_started_by_handler = task_started_by_handler;
  spec.inline_dispatch = inline_dispatch;
  spec.scopes = std::move(scopes);
  spec.visible_to = rule_from(visible_to, std::move(requirement));
  if (!is_async) {
    add_cached<tool_spec, &server::add_tool, tool_result, json>(h, std::move(spec), std::move(fn),
                                                                ttl_ms, std::move(cache_scope));
    return;
  }
  spec.cache = {ttl_ms, std::move(cache_scope)};
  auto handler = async_bridge(std::move(fn));
  py::gil_scoped_release release;  // registration may notify sessions, whose sinks take the GIL
  h.srv->add_async_tool(std::move(spec), std::move(handler));
}

void set_completion_handler(server_handle& h, py::object fn) {
  auto handler = bridge<completion_result, completion_request>(std::move(fn));
  py::gil_scoped_release release;
  h.srv->set_completion_handler(std::move(handler));
}

// A size option of add_skills: a positive integer.
std::size_t skills_size(const json& v, const std::string& key) {
  if (!v.is_number_integer() || v.get<std::int64_t>() <= 0) {
    throw std::invalid_argument("add_skills: " + key + " must be a positive integer, got " +
                                v.dump());
  }
  return v.get<std::size_t>();
}

// The skills_options a dict names (the keys of Server.add_skills).
skills_options skills_options_from(const json& d) {
  skills_options o;
  for (const auto& [key, v] : d.items()) {
    if (v.is_null()) continue;
    if (key == "directory_read" || key == "include_hidden") {
      if (!v.is_boolean()) throw std::invalid_argument("add_skills: " + key + " must be a bool");
      (key == "directory_read" ? o.directory_read : o.include_hidden) = v.get<bool>();
    } else if (key == "symlinks") {
      if (v != "refuse" && v != "follow_inside") {
        throw std::invalid_argument(
            "add_skills: symlinks must be \"refuse\" or "
            "\"follow_inside\", got " +
            v.dump());
      }
      o.symlinks = v == "refuse" ? skills_symlinks::refuse : skills_symlinks::follow_inside;
    } else if (key == "max_file_bytes") {
      o.max_file_bytes = skills_size(v, key);
    } else if (key == "max_skill_bytes") {
      o.max_skill_bytes = skills_size(v, key);
    } else if (key == "max_skill_files") {
      o.max_skill_files = skills_size(v, key);
    } else if (key == "max_total_bytes") {
      o.max_total_bytes = skills_size(v, key);
    } else if (key == "max_depth") {
      o.max_depth = skills_size(v, key);
    } else if (key == "ttl_ms" && v.is_number_integer()) {
      o.ttl_ms = v.get<std::int64_t>();
    } else if (key == "cache_scope" && v.is_string()) {
      o.cache_scope = v.get<std::string>();
    } else {
      throw std::invalid_argument("add_skills: unknown or mistyped option " + key);
    }
  }
  return o;
}

json skills_changes_json(const skills_changes& c) {
  return {{"added", c.added}, {"removed", c.removed}, {"changed", c.changed}, {"skills", c.skills}};
}

session open_session(server_handle& h, py::object sink, bool inline_dispatch) {
  std::shared_ptr<frame_sink> s = std::make_shared<python_sink>(std::move(sink));
  py::gil_scoped_release release;
  return h.srv->open_session(std::move(s), {.inline_dispatch = inline_dispatch});
}

void bind_session(py::module_& m) {
  using release = py::call_guard<py::gil_scoped_release>;
  py::class_<session>(m, "Session", "One logical peer of a Server; frames in, frames out.")
      .def(
          "receive", [](session& s, const std::string& frame) { s.receive(frame); },
          py::arg("frame"), release(),
          "Process one inbound JSON-RPC frame (inline dispatch answers before returning).")
      .def("cancel", &session::cancel, py::arg("request_id"), py::arg("reason") = "cancelled",
           release(), "Cancel one in-flight request; no reply is sent.")
      .def(
          "shutdown",
          [](session& s, double grace_seconds) {
            return s.shutdown(std::chrono::milliseconds(std::llround(grace_seconds * 1000)));
          },
          py::arg("grace_seconds") = 5.0, release(),
          "Cancel all in-flight requests; True when every handler returned within the grace.")
      .def("wait_idle", &session::wait_idle, release(), "Block until no request is in flight.")
      .def_property_readonly("in_flight", &session::in_flight)
      .def("notify", &session::notify, py::arg("method"), py::arg("params") = json(), release(),
           "Send a server-initiated notification on this session's sink.");
}

}  // namespace

void bind_server(py::module_& m) {
  using release = py::call_guard<py::gil_scoped_release>;
  bind_session(m);
  // The keys server_options' JSON parser accepts, from the table the parser itself reads.
  m.attr("SERVER_OPTION_KEYS") = py::tuple(py::cast(server_option_keys()));
  py::class_<server_handle>(m, "Server", "The C++ MCP engine: registries and sessions.")
      .def(py::init(&make_server), py::arg("options"), py::arg("log_writer") = py::none())
      .def("add_tool", &add_tool, py::arg("spec"), py::arg("handler"),
           py::arg("timeout_seconds") = py::none(), py::arg("ttl_ms") = py::none(),
           py::arg("cache_scope") = py::none(), py::arg("task_started_by_handler") = false,
           py::arg("scopes") = std::vector<std::string>{}, py::arg("inline_dispatch") = false,
           py::arg("is_async") = false, py::arg("at_most_once") = py::none(),
           py::arg("resolver") = py::none(), py::arg("visible_to") = py::none(),
           py::arg("requirement") = std::string())
      .def(
          "write_log",
          [](server_handle& h, const std::string& level, const std::string& event,
             const json& fields) { h.srv->write_log(level, event, fields); },
          py::arg("level"), py::arg("event"), py::arg("fields"), release())
      .def(
          "remove_tool",
          [](server_handle& h, const std::string& n) { return h.srv->remove_tool(n); },
          py::arg("name"), release())
      .def("add_resource",
           &add_guarded<resource_spec, &server::add_resource, std::vector<resource_contents>,
                        std::string>,
           py::arg("spec"), py::arg("reader"), py::arg("ttl_ms") = py::none(),
           py::arg("cache_scope") = py::none(), py::arg("scopes") = std::vector<std::string>{},
           py::arg("visible_to") = py::none(), py::arg("requirement") = std::string())
      .def("add_resource_template",
           &add_guarded<resource_template_spec, &server::add_resource_template,
                        std::vector<resource_contents>, std::string,
                        std::map<std::string, std::string>>,
           py::arg("spec"), py::arg("reader"), py::arg("ttl_ms") = py::none(),
           py::arg("cache_scope") = py::none(), py::arg("scopes") = std::vector<std::string>{},
           py::arg("visible_to") = py::none(), py::arg("requirement") = std::string())
      .def("add_prompt",
           &add_guarded<prompt_spec, &server::add_prompt, prompt_result,
                        std::map<std::string, std::string>>,
           py::arg("spec"), py::arg("handler"), py::arg("ttl_ms") = py::none(),
           py::arg("cache_scope") = py::none(), py::arg("scopes") = std::vector<std::string>{},
           py::arg("visible_to") = py::none(), py::arg("requirement") = std::string())
      .def(
          "add_extension",
          [](server_handle& h, std::string id, json settings) {
            h.srv->add_extension(std::move(id), std::move(settings));
          },
          py::arg("id"), py::arg("settings"), release(),
          "Declare extension id with its settings object (ServerCapabilities extensions).")
      .def(
          "remove_extension",
          [](server_handle& h, const std::string& id) { return h.srv->remove_extension(id); },
          py::arg("id"), release(), "Withdraw a declared extension; False when absent.")
      .def(
          "mount",
          [](server_handle& h, server_handle& child, const std::string& prefix) {
            h.srv->mount(*child.srv, prefix);
          },
          py::arg("child"), py::arg("prefix"), release(),
          "Serve child's tools, resources and prompts under prefix (ValueError when refused).")
      .def(
          "add_skills",
          [](server_handle& h, const std::string& root, const json& options) {
            h.srv->add_skills(root, skills_options_from(options));
          },
          py::arg("root"), py::arg("options"), release(),
          "Serve the skills below root (Skills extension); options as Server.add_skills names "
          "them.")
      .def(
          "reload_skills",
          [](server_handle& h) { return skills_changes_json(h.srv->reload_skills()); }, release(),
          "Re-read the skills tree; {added, removed, changed, skills}.")
      .def(
          "remove_resource",
          [](server_handle& h, const std::string& uri) {
            return h.srv->remove_resource(uri) || h.srv->remove_resource_template(uri);
          },
          py::arg("uri"), release(),
          "Remove a resource (or a template by its uriTemplate); False when absent.")
      .def(
          "remove_prompt",
          [](server_handle& h, const std::string& n) { return h.srv->remove_prompt(n); },
          py::arg("name"), release(), "Remove a prompt; False when absent.")
      .def(
          "notify_resource_updated",
          [](server_handle& h, const std::string& uri) { h.srv->notify_resource_updated(uri); },
          py::arg("uri"), release(),
          "Send notifications/resources/updated to legacy subscribers and listen streams.")
      .def("set_completion_handler", &set_completion_handler, py::arg("handler"))
      .def("open_session", &open_session, py::arg("sink"), py::arg("inline_dispatch") = true,
           py::keep_alive<0, 1>(), "Open a session whose outbound frames go to sink(frame, kind).")
      .def(
          "capabilities", [](server_handle& h) { return h.srv->capabilities(); }, release())
      .def(
          "metrics", [](server_handle& h) { return h.srv->metrics(); }, release())
      .def(
          "metrics_text", [](server_handle& h) { return h.srv->metrics_text(); }, release(),
          "Every metric in the Prometheus text exposition format 0.0.4.")
      .def(
          "set_tracer",
          [](server_handle& h, py::object start, py::object end) {
            set_python_tracer(*h.srv, std::move(start), std::move(end));
          },
          py::arg("start"), py::arg("end"),
          "Attach start(info) -> span|None and end(span, info) as the request tracer (None, None "
          "detaches). Call before serving.");
}

}  // namespace mcpcxx::py_bind
