// RequestContext.elicit / elicit_url / sample / list_roots: the handler asks the client; and
// RequestContext.read_resource, which runs one of this server's readers the same way.
// Each call releases the GIL while request_context blocks (a legacy session waits for the
// client's response; 2026-07-28 answers from inputResponses or throws the engine's
// input-required signal). A failure becomes its typed Python exception (mcpcxx._protocol.errors)
// carrying the original C++ exception, so a handler that lets it propagate hands the engine exactly
// what request_context threw (translate_python_error rethrows it), the input-required signal
// included.
#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/gil_safe_call_once.h>
#include <pybind11/stl.h>

#include "mcpcxx/errors.hpp"

#include "handler_bridge.hpp"
#include "json_caster.hpp"

namespace mcpcxx::py_bind {

namespace {

constexpr const char* k_origin_attr = "_mcpcxx_origin";

py::object error_class(const char* name) {
  PYBIND11_CONSTINIT static py::gil_safe_call_once_and_store<py::object> module;
  const auto& errors =
      module
          .call_once_and_store_result([] { return py::module_::import("mcpcxx._protocol.errors"); })
          .get_stored();
  return errors.attr(name);
}

/// Raises mcpcxx._protocol.errors.<name>(*args) with `origin` attached (GIL held).
[[noreturn]] void raise_carrying(const char* name, const py::tuple& args,
                                 const std::exception_ptr& origin) {
  py::object cls = error_class(name);
  py::object value = cls(*args);
  value.attr(k_origin_attr) =
      py::capsule(new std::exception_ptr(origin), "mcpcxx.exception_ptr",
                  [](void* p) { delete static_cast<std::exception_ptr*>(p); });
  PyErr_SetObject(cls.ptr(), value.ptr());
  throw py::error_already_set();
}

/// The Python exception for what an ask threw (GIL held). std::invalid_argument (a bad schema
/// or params: the tool author's mistake) and other std::exceptions take pybind11's usual
/// mapping; anything that is not a std::exception is the engine's control flow (on 2026-07-28
/// the input-required signal) and crosses as InputRequired, a BaseException.
[[noreturn]] void raise_ask_failure(const std::exception_ptr& failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const client_capability_error& e) {
    raise_carrying("ClientCapabilityError", py::make_tuple(e.method(), e.capability()), failure);
  } catch (const client_request_timeout& e) {
    const double seconds = static_cast<double>(e.timeout().count()) / 1000.0;
    raise_carrying("ClientRequestTimeoutError", py::make_tuple(e.method(), seconds), failure);
  } catch (const client_request_error& e) {
    raise_carrying("ClientRequestError",
                   py::make_tuple(e.method(), e.code(), e.message(), to_python(e.data())), failure);
  } catch (const client_answer_invalid& e) {
    raise_carrying("ClientAnswerInvalidError", py::make_tuple(e.method(), e.reason()), failure);
  } catch (const request_cancelled& e) {
    raise_carrying("RequestCancelledError", py::make_tuple(std::string(e.what())), failure);
  } catch (const resource_not_found& e) {
    raise_carrying("ResourceNotFoundError", py::make_tuple(e.uri()), failure);
  } catch (const std::exception&) {
    throw;
  } catch (...) {
    raise_carrying("InputRequired", py::make_tuple(), failure);
  }
}

/// Runs `fn(ctx)` without the GIL and returns its result converted to Python.
template <typename Fn>
py::object ask(const py_context& self, Fn&& fn) {
  std::optional<json> out;
  std::exception_ptr failure;
  {
    py::gil_scoped_release release;
    try {
      out.emplace(self.state->with_context(fn));
    } catch (...) {
      failure = std::current_exception();
    }
  }
  if (failure) raise_ask_failure(failure);
  return to_python(*out);
}

json elicit_json(const elicit_result& r) { return {{"action", r.action}, {"content", r.content}}; }

/// [{"method", "params", "key"?}, ...] -> client_requests; ValueError naming the bad entry.
std::vector<client_request> client_requests(const json& requests) {
  if (!requests.is_array() || requests.empty()) {
    throw py::value_error("ask_all needs a non-empty list of {'method', 'params', 'key'} dicts");
  }
  std::vector<client_request> out;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const json& r = requests[i];
    const bool ok = r.is_object() && r.contains("method") && r.at("method").is_string() &&
                    (!r.contains("key") || r.at("key").is_string());
    if (!ok) {
      throw py::value_error("ask_all request " + std::to_string(i) +
                            " must be a dict with a str 'method', a 'params' dict and an optional "
                            "str 'key', got " +
                            r.dump());
    }
    out.push_back({r.at("method").get<std::string>(), r.value("params", json::object()),
                   r.value("key", std::string())});
  }
  return out;
}

}  // namespace

std::exception_ptr carried_exception(py::handle value) {
  if (!py::hasattr(value, k_origin_attr)) return nullptr;
  py::object origin = value.attr(k_origin_attr);
  if (!py::isinstance<py::capsule>(origin)) return nullptr;
  auto capsule = py::reinterpret_borrow<py::capsule>(origin);
  if (capsule.name() == nullptr || std::string(capsule.name()) != "mcpcxx.exception_ptr") {
    return nullptr;
  }
  return *capsule.get_pointer<std::exception_ptr>();
}

void bind_context_ask(py::class_<py_context>& cls) {
  cls.def(
         "elicit",
         [](const py_context& self, std::string message, json schema) {
           return ask(self, [&](request_context& ctx) {
             return elicit_json(ctx.elicit(message, schema));
           });
         },
         py::arg("message"), py::arg("requested_schema"),
         "elicitation/create (form mode): {'action', 'content'}; ValueError on a schema outside "
         "the spec's subset.")
      .def(
          "elicit_url",
          [](const py_context& self, std::string message, std::string url, std::string id) {
            return ask(self, [&](request_context& ctx) {
              return elicit_json(ctx.elicit_url(message, url, id));
            });
          },
          py::arg("message"), py::arg("url"), py::arg("elicitation_id"),
          "elicitation/create (URL mode, 2025-11-25+): {'action', 'content': None}.")
      .def(
          "sample",
          [](const py_context& self, json params) {
            return ask(self, [&](request_context& ctx) { return ctx.sample(params); });
          },
          py::arg("params"), "sampling/createMessage with params: the CreateMessageResult.")
      .def(
          "list_roots",
          [](const py_context& self) {
            return ask(self, [](request_context& ctx) { return ctx.list_roots(); });
          },
          "roots/list: the roots array.")
      .def(
          "ask_all",
          [](const py_context& self, const json& requests) {
            auto batch = client_requests(requests);
            return ask(self, [&](request_context& ctx) { return json(ctx.ask_all(batch)); });
          },
          py::arg("requests"),
          "Several client requests at once ({'method', 'params', 'key'}): their raw results.")
      .def(
          "read_resource",
          [](const py_context& self, std::string uri) {
            return ask(self, [&](request_context& ctx) { return ctx.read_resource(uri); });
          },
          py::arg("uri"),
          "This server's resource `uri` read by its reader: the ResourceContents dicts; "
          "ResourceNotFoundError when nothing matches.");
}

}  // namespace mcpcxx::py_bind
