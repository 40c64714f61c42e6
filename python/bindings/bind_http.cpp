// Streamable HTTP from Python: serve_http (blocking, GIL released) and HttpEndpoint, the engine's
// HTTP endpoint driven by an ASGI server (mcpcxx.asgi). The protocol logic stays in C++.
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include "mcpcxx/http.hpp"

#include "bindings.hpp"

namespace mcpcxx::py_bind {

namespace {

using header_pairs = std::vector<std::pair<std::string, std::string>>;

std::chrono::milliseconds ms(double seconds) {
  return std::chrono::milliseconds(static_cast<long long>(seconds * 1000.0));
}

http_options options_from(const py::dict& d) {
  http_options o;
  auto get = [&](const char* k) { return d.contains(k) && !d[k].is_none(); };
  if (get("host")) o.host = d["host"].cast<std::string>();
  if (get("port")) o.port = d["port"].cast<std::uint16_t>();
  if (get("path")) o.path = d["path"].cast<std::string>();
  if (get("io_threads")) o.io_threads = d["io_threads"].cast<std::size_t>();
  if (get("legacy")) o.legacy = d["legacy"].cast<bool>();
  if (get("max_body_bytes")) o.max_body_bytes = d["max_body_bytes"].cast<std::size_t>();
  if (get("max_connections")) o.max_connections = d["max_connections"].cast<std::size_t>();
  if (get("allowed_hosts")) o.allowed_hosts = d["allowed_hosts"].cast<std::vector<std::string>>();
  if (get("allowed_origins")) {
    o.allowed_origins = d["allowed_origins"].cast<std::vector<std::string>>();
  }
  if (get("session_idle_timeout")) {
    o.session_idle_timeout = ms(d["session_idle_timeout"].cast<double>());
  }
  return o;
}

/// Calls on_start(status, headers), on_data(bytes), on_end() with the GIL, from any thread.
class python_response_sink final : public http_response_sink {
 public:
  python_response_sink(py::object on_start, py::object on_data, py::object on_end)
      : on_start_(std::move(on_start)), on_data_(std::move(on_data)), on_end_(std::move(on_end)) {}

  void start(int status, header_pairs headers) override {
    call([&] { on_start_.get()(status, headers); });
  }
  void write(std::string data) override {
    call([&] { on_data_.get()(py::bytes(data)); });
  }
  void end() override {
    call([&] { on_end_.get()(); });
  }

 private:
  held_object on_start_, on_data_, on_end_;

  template <class F>
  void call(F&& f) {
    if (!python_alive()) return;
    py::gil_scoped_acquire gil;
    try {
      f();
    } catch (py::error_already_set& e) {
      e.discard_as_unraisable("mcpcxx HTTP response sink");
    }
  }
};

/// Keeps the engine alive as long as the endpoint.
struct endpoint_handle {
  std::unique_ptr<http_endpoint> ep;
};

}  // namespace

void bind_http(py::module_& m) {
  m.def(
      "serve_http",
      [](server_handle& h, const py::dict& options) {
        http_options o = options_from(options);
        py::gil_scoped_release release;
        return serve_http(*h.srv, o);
      },
      py::arg("server"), py::arg("options"),
      "Serve Streamable HTTP until SIGINT/SIGTERM; returns 0 after a graceful stop.");
  py::class_<http_exchange, std::shared_ptr<http_exchange>>(m, "HttpExchange")
      .def("disconnected", &http_exchange::disconnected, py::call_guard<py::gil_scoped_release>(),
           "Tell the engine the client went away (cancels a 2026-07-28 request).");
  py::class_<endpoint_handle>(m, "HttpEndpoint", "The MCP HTTP endpoint without sockets.")
      .def(py::init([](server_handle& h, const py::dict& options) {
             return endpoint_handle{std::make_unique<http_endpoint>(*h.srv, options_from(options))};
           }),
           py::arg("server"), py::arg("options"), py::keep_alive<1, 2>())
      .def(
          "handle",
          [](endpoint_handle& e, std::string method, std::string target, header_pairs headers,
             const py::bytes& body, py::object on_start, py::object on_data, py::object on_end) {
            http_request_data d{std::move(method), std::move(target), std::move(headers),
                                std::string(body)};
            auto sink = std::make_shared<python_response_sink>(
                std::move(on_start), std::move(on_data), std::move(on_end));
            py::gil_scoped_release release;
            return e.ep->handle(std::move(d), std::move(sink));
          },
          py::arg("method"), py::arg("target"), py::arg("headers"), py::arg("body"),
          py::arg("on_start"), py::arg("on_data"), py::arg("on_end"),
          "Handle one request; the callbacks run on engine threads with the GIL held.")
      .def(
          "close", [](endpoint_handle& e, double grace) { e.ep->close(ms(grace)); },
          py::arg("grace_seconds") = 5.0, py::call_guard<py::gil_scoped_release>(),
          "Refuse new requests, wait for in-flight ones, end all sessions.")
      .def(
          "stats",
          [](endpoint_handle& e) {
            http_stats s = e.ep->stats();
            py::dict d;
            d["sessions"] = s.sessions;
            d["requests"] = s.requests;
            d["sessions_expired"] = s.sessions_expired;
            return d;
          },
          "Counters: sessions, requests, sessions_expired.");
}

}  // namespace mcpcxx::py_bind
