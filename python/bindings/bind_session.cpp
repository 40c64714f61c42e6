// _core.Session: in-process sessions whose outbound frames go to a Python callable.
#include <chrono>
#include <string>
#include <variant>

#include <pybind11/stl.h>

#include "mcpcxx/session.hpp"

#include "bindings.hpp"
#include "json_caster.hpp"

namespace mcpcxx::py_bind {

namespace {

/// Forwards frames to sink(frame: str, kind: "response" | "notification") with the GIL held.
class python_sink final : public frame_sink {
 public:
  explicit python_sink(py::object fn) : fn_(std::move(fn)) {}
  void send(std::string frame, frame_kind kind) override {
    if (!python_alive()) return;
    py::gil_scoped_acquire gil;
    try {
      fn_.get()(py::str(frame), kind == frame_kind::response ? "response" : "notification");
    } catch (py::error_already_set& e) {
      e.discard_as_unraisable("mcpcxx frame sink");
    }
  }

 private:
  held_object fn_;
};

jsonrpc::request_id id_from(const std::variant<std::int64_t, std::string>& id) {
  if (std::holds_alternative<std::int64_t>(id)) return std::get<std::int64_t>(id);
  return std::get<std::string>(id);
}

}  // namespace

std::shared_ptr<frame_sink> make_python_sink(py::object fn) {
  return std::make_shared<python_sink>(std::move(fn));
}

void bind_session(py::module_& m) {
  py::class_<session>(m, "Session", "One logical peer of a Server; frames in, frames out.")
      .def(
          "receive", [](session& s, const std::string& frame) { s.receive(frame); },
          py::arg("frame"), py::call_guard<py::gil_scoped_release>(),
          "Process one inbound JSON-RPC frame (inline dispatch answers before returning).")
      .def(
          "cancel",
          [](session& s, const std::variant<std::int64_t, std::string>& id,
             const std::string& reason) { s.cancel(id_from(id), reason); },
          py::arg("request_id"), py::arg("reason") = "cancelled",
          py::call_guard<py::gil_scoped_release>(),
          "Cancel one in-flight request; no reply is sent.")
      .def(
          "shutdown",
          [](session& s, double grace_seconds) {
            return s.shutdown(
                std::chrono::milliseconds(static_cast<long long>(grace_seconds * 1000)));
          },
          py::arg("grace_seconds") = 5.0, py::call_guard<py::gil_scoped_release>(),
          "Cancel all in-flight requests; True when every handler returned within the grace.")
      .def("wait_idle", &session::wait_idle, py::call_guard<py::gil_scoped_release>(),
           "Block until no request is in flight.")
      .def_property_readonly("in_flight", &session::in_flight)
      .def_property_readonly("negotiated_version", &session::negotiated_version)
      .def_property_readonly("legacy_initialized", &session::legacy_initialized)
      .def(
          "notify",
          [](session& s, const std::string& method, py::handle params) {
            json p = to_json(params);
            py::gil_scoped_release release;
            s.notify(method, p);
          },
          py::arg("method"), py::arg("params") = py::none(),
          "Send a server-initiated notification on this session's sink.");
}

}  // namespace mcpcxx::py_bind
