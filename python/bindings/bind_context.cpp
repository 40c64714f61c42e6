// _core.RequestContext: what a Python handler may know about and do for its request.
#include <optional>
#include <string>

#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include "handler_bridge.hpp"
#include "json_caster.hpp"
#include "tracing_bridge.hpp"

namespace mcpcxx::py_bind {

context_state::context_state(request_context& ctx)
    : request_id(ctx.request_id()),
      protocol_version(ctx.protocol_version()),
      modern(ctx.modern()),
      client_info(ctx.client_info()),
      client_capabilities(ctx.client_capabilities()),
      principal(ctx.principal()),
      request_meta(ctx.request_meta()),
      http_headers(ctx.http_headers()),
      token(ctx.token()),
      ctx_(&ctx) {}

void context_state::invalidate() {
  std::unique_lock<std::shared_mutex> lock(mutex_);
  ctx_ = nullptr;
}

void keep_thread_state(py::gil_scoped_acquire& gil) {
  thread_local bool kept = false;
  if (!kept) {
    gil.inc_ref();
    kept = true;
  }
}

namespace {

log_level level_from(const std::string& name) {
  auto l = parse_log_level(name);
  if (!l) {
    throw py::value_error("unknown log level '" + name +
                          "'; use debug, info, notice, warning, error, critical, alert or "
                          "emergency");
  }
  return *l;
}

void on_cancel(const py_context& self, py::object fn) {
  held_object held(std::move(fn));
  py::gil_scoped_release release;  // the token's lock must never be waited for with the GIL
  self.state->token.on_cancel([held] {
    const python_entry entry;
    if (!entry.entered()) return;
    py::gil_scoped_acquire gil;
    try {
      held.get()();
    } catch (py::error_already_set& e) {
      e.discard_as_unraisable("mcpcxx cancellation callback");
    }
  });
}

bool log(const py_context& self, const std::string& level, json payload,
         std::optional<std::string> logger) {
  const log_level l = level_from(level);
  py::gil_scoped_release release;
  return self.state->with_context(
      [&](request_context& ctx) { return ctx.log(l, std::move(payload), std::move(logger)); });
}

}  // namespace

void bind_context(py::module_& m) {
  py::class_<py_context> cls(m, "RequestContext",
                             "The engine's view of one request (valid while its handler runs).");
  cls.def_property_readonly("request_id", [](const py_context& c) { return c.state->request_id; })
      .def_property_readonly("protocol_version",
                             [](const py_context& c) { return c.state->protocol_version; })
      .def_property_readonly("modern", [](const py_context& c) { return c.state->modern; })
      .def_property_readonly("client_info",
                             [](const py_context& c) { return c.state->client_info; })
      .def_property_readonly("client_capabilities",
                             [](const py_context& c) { return c.state->client_capabilities; })
      .def_property_readonly("principal", [](const py_context& c) { return c.state->principal; })
      .def_property_readonly("request_meta",
                             [](const py_context& c) { return c.state->request_meta; })
      .def_property_readonly("http_headers",
                             [](const py_context& c) { return c.state->http_headers; })
      .def_property_readonly(
          "trace_span",
          [](const py_context& c) {
            return c.state->with_context([](request_context& ctx) { return python_span_of(ctx); });
          },
          "The request's span object from the attached tracer; None when untraced.")
      .def_property_readonly("cancelled",
                             [](const py_context& c) {
                               // Interpreter exit asks every handler still running to stop.
                               return c.state->token.cancelled() || python_closing();
                             })
      .def("on_cancel", &on_cancel, py::arg("callback"),
           "Run callback() once when the request is cancelled (at once if it already is).")
      .def(
          "report_progress",
          [](const py_context& c, double progress, std::optional<double> total,
             std::optional<std::string> message) {
            c.state->with_context([&](request_context& ctx) {
              ctx.report_progress(progress, total, std::move(message));
            });
          },
          py::arg("progress"), py::arg("total") = py::none(), py::arg("message") = py::none(),
          py::call_guard<py::gil_scoped_release>(),
          "Send notifications/progress when the client asked for it (in a task, message is also "
          "its statusMessage); progress must increase.")
      .def("log", &log, py::arg("level"), py::arg("data"), py::arg("logger") = py::none(),
           "Log to stderr, and to the client when it asked for this level; True when sent.")
      .def(
          "start_task",
          [](const py_context& c) {
            return c.state->with_context([](request_context& ctx) { return ctx.start_task(); });
          },
          py::call_guard<py::gil_scoped_release>(),
          "Answer the request now with a task and run the rest of the handler as it (tools "
          "registered with task_start='handler'); False when this call cannot become a task.");
  bind_context_ask(cls);
}

}  // namespace mcpcxx::py_bind
