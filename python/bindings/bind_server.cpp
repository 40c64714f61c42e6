// _core.Server: the engine, its registries and its sessions.
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include <pybind11/stl.h>

#include "mcpcxx/server.hpp"

#include "bindings.hpp"
#include "handler_bridge.hpp"
#include "json_caster.hpp"

namespace mcpcxx::py_bind {

namespace {

std::optional<std::string> opt_str(const py::dict& d, const char* key) {
  if (!d.contains(key) || d[key].is_none()) return std::nullopt;
  return d[key].cast<std::string>();
}

json opt_json(const py::dict& d, const char* key) {
  if (!d.contains(key)) return nullptr;
  return to_json(d[key]);
}

std::string req_str(const py::dict& d, const char* key) {
  if (!d.contains(key)) throw py::key_error(std::string("missing '") + key + "'");
  return d[key].cast<std::string>();
}

tool_spec tool_spec_from(const py::dict& d) {
  tool_spec s;
  s.name = req_str(d, "name");
  s.title = opt_str(d, "title");
  s.description = opt_str(d, "description");
  if (d.contains("inputSchema")) s.input_schema = to_json(d["inputSchema"]);
  if (d.contains("outputSchema") && !d["outputSchema"].is_none()) {
    s.output_schema = to_json(d["outputSchema"]);
  }
  s.annotations = opt_json(d, "annotations");
  s.icons = opt_json(d, "icons");
  s.meta = opt_json(d, "_meta");
  if (d.contains("timeout") && !d["timeout"].is_none()) {
    const double seconds = d["timeout"].cast<double>();
    s.timeout = std::chrono::milliseconds(static_cast<long long>(seconds * 1000.0));
  }
  return s;
}

resource_spec resource_spec_from(const py::dict& d) {
  resource_spec s;
  s.uri = req_str(d, "uri");
  s.name = req_str(d, "name");
  s.title = opt_str(d, "title");
  s.description = opt_str(d, "description");
  s.mime_type = opt_str(d, "mimeType");
  if (d.contains("size") && !d["size"].is_none()) s.size = d["size"].cast<std::int64_t>();
  s.icons = opt_json(d, "icons");
  s.annotations = opt_json(d, "annotations");
  s.meta = opt_json(d, "_meta");
  return s;
}

resource_template_spec template_spec_from(const py::dict& d) {
  resource_template_spec s;
  s.uri_template = req_str(d, "uriTemplate");
  s.name = req_str(d, "name");
  s.title = opt_str(d, "title");
  s.description = opt_str(d, "description");
  s.mime_type = opt_str(d, "mimeType");
  s.icons = opt_json(d, "icons");
  s.annotations = opt_json(d, "annotations");
  s.meta = opt_json(d, "_meta");
  return s;
}

prompt_spec prompt_spec_from(const py::dict& d) {
  prompt_spec s;
  s.name = req_str(d, "name");
  s.title = opt_str(d, "title");
  s.description = opt_str(d, "description");
  if (d.contains("arguments")) {
    for (auto a : d["arguments"].cast<py::list>()) {
      auto ad = a.cast<py::dict>();
      s.arguments.push_back({req_str(ad, "name"), opt_str(ad, "title"), opt_str(ad, "description"),
                             ad.contains("required") && ad["required"].cast<bool>()});
    }
  }
  s.icons = opt_json(d, "icons");
  s.meta = opt_json(d, "_meta");
  return s;
}

std::function<void(std::string_view)> log_writer_from(py::object fn) {
  if (fn.is_none()) return {};
  return [held = held_object(std::move(fn))](std::string_view line) {
    if (!python_alive()) return;
    py::gil_scoped_acquire gil;
    try {
      held.get()(py::str(line.data(), line.size()));
    } catch (py::error_already_set& e) {
      e.discard_as_unraisable("mcpcxx log writer");
    }
  };
}

std::unique_ptr<server_handle> make_server(const py::dict& o, py::object log_writer) {
  server_options opts;
  opts.info.name = req_str(o, "name");
  opts.info.version = req_str(o, "version");
  opts.info.title = opt_str(o, "title");
  opts.info.description = opt_str(o, "description");
  opts.info.icons = opt_json(o, "icons");
  opts.info.website_url = opt_str(o, "website_url");
  opts.instructions = opt_str(o, "instructions");
  if (o.contains("expose_exception_details")) {
    opts.expose_exception_details = o["expose_exception_details"].cast<bool>();
  }
  if (o.contains("workers")) opts.worker_threads = o["workers"].cast<std::size_t>();
  if (o.contains("logging")) opts.logging = o["logging"].cast<bool>();
  if (o.contains("page_size")) opts.page_size = o["page_size"].cast<std::size_t>();
  if (o.contains("max_message_bytes")) {
    opts.limits.max_message_bytes = o["max_message_bytes"].cast<std::size_t>();
  }
  opts.log_writer = log_writer_from(std::move(log_writer));
  auto h = std::make_unique<server_handle>();
  py::gil_scoped_release release;
  h->srv = std::make_unique<server>(std::move(opts));
  return h;
}

template <typename Spec, typename Handler, typename Add>
void register_with(server_handle& h, Spec spec, Handler handler, Add add) {
  py::gil_scoped_release release;  // registration may notify sessions, whose sinks take the GIL
  add(*h.srv, std::move(spec), std::move(handler));
}

void bind_registration(py::class_<server_handle>& cls) {
  cls.def(
         "add_tool",
         [](server_handle& h, const py::dict& spec, py::object fn) {
           register_with(h, tool_spec_from(spec), make_tool_handler(std::move(fn)),
                         [](server& s, tool_spec sp, tool_handler fh) {
                           s.add_tool(std::move(sp), std::move(fh));
                         });
         },
         py::arg("spec"), py::arg("handler"))
      .def(
          "remove_tool",
          [](server_handle& h, const std::string& name) { return h.srv->remove_tool(name); },
          py::arg("name"), py::call_guard<py::gil_scoped_release>())
      .def(
          "add_resource",
          [](server_handle& h, const py::dict& spec, py::object fn) {
            register_with(h, resource_spec_from(spec), make_resource_reader(std::move(fn)),
                          [](server& s, resource_spec sp, resource_reader fr) {
                            s.add_resource(std::move(sp), std::move(fr));
                          });
          },
          py::arg("spec"), py::arg("reader"))
      .def(
          "add_resource_template",
          [](server_handle& h, const py::dict& spec, py::object fn) {
            register_with(h, template_spec_from(spec), make_resource_template_reader(std::move(fn)),
                          [](server& s, resource_template_spec sp, resource_template_reader fr) {
                            s.add_resource_template(std::move(sp), std::move(fr));
                          });
          },
          py::arg("spec"), py::arg("reader"))
      .def(
          "add_prompt",
          [](server_handle& h, const py::dict& spec, py::object fn) {
            register_with(h, prompt_spec_from(spec), make_prompt_handler(std::move(fn)),
                          [](server& s, prompt_spec sp, prompt_handler fp) {
                            s.add_prompt(std::move(sp), std::move(fp));
                          });
          },
          py::arg("spec"), py::arg("handler"))
      .def(
          "set_completion_handler",
          [](server_handle& h, py::object fn) {
            auto handler = make_completion_handler(std::move(fn));
            py::gil_scoped_release release;
            h.srv->set_completion_handler(std::move(handler));
          },
          py::arg("handler"));
}

py::dict metrics_dict(const server_metrics& m) {
  py::dict d;
  d["requests"] = m.requests;
  d["notifications"] = m.notifications;
  d["protocol_errors"] = m.protocol_errors;
  d["tool_errors"] = m.tool_errors;
  d["by_category"] = py::cast(m.by_category);
  return d;
}

}  // namespace

void bind_server(py::module_& m) {
  py::class_<server_handle> cls(m, "Server", "The C++ MCP engine: registries and sessions.");
  cls.def(py::init(&make_server), py::arg("options"), py::arg("log_writer") = py::none());
  bind_registration(cls);
  cls.def(
         "open_session",
         [](server_handle& h, py::object sink, const std::string& transport, bool inline_dispatch) {
           session_options o;
           if (transport != "in_process" && transport != "stdio" && transport != "http") {
             throw py::value_error("transport must be 'in_process', 'stdio' or 'http', not '" +
                                   transport + "'");
           }
           o.inline_dispatch = inline_dispatch;
           auto s = make_python_sink(std::move(sink));
           py::gil_scoped_release release;
           return h.srv->open_session(std::move(s), o);
         },
         py::arg("sink"), py::arg("transport") = "in_process", py::arg("inline_dispatch") = true,
         py::keep_alive<0, 1>(), "Open a session whose outbound frames go to sink(frame, kind).")
      .def("capabilities",
           [](server_handle& h) {
             json caps;
             {
               py::gil_scoped_release release;
               caps = h.srv->capabilities();
             }
             return to_python(caps);
           })
      .def("metrics", [](server_handle& h) {
        server_metrics snapshot;
        {
          py::gil_scoped_release release;
          snapshot = h.srv->metrics();
        }
        return metrics_dict(snapshot);
      });
}

}  // namespace mcpcxx::py_bind
