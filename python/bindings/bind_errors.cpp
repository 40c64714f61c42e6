// Errors across the boundary: Python exceptions -> engine error types, and the error helpers.
#include <optional>
#include <stdexcept>
#include <string>

#include <pybind11/gil_safe_call_once.h>
#include <pybind11/stl.h>

#include "mcpcxx/error_codes.hpp"
#include "mcpcxx/errors.hpp"
#include "mcpcxx/json_schema.hpp"

#include "handler_bridge.hpp"
#include "json_caster.hpp"

namespace mcpcxx::py_bind {

bool python_alive() noexcept {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsInitialized() != 0 && Py_IsFinalizing() == 0;
#else
  return Py_IsInitialized() != 0 && _Py_IsFinalizing() == 0;
#endif
}

held_object::held_object(py::object obj)
    : ptr_(new py::object(std::move(obj)), [](py::object* p) {
        if (!python_alive()) {
          p->release();  // the interpreter is gone: leaking beats touching freed state
          delete p;
          return;
        }
        py::gil_scoped_acquire gil;
        delete p;
      }) {}

namespace {

struct error_classes {
  py::object tool_error;
  py::object protocol_error;
  py::object resource_not_found;
  py::object missing_capability;
  py::object format_exception;
};

const error_classes& classes() {
  PYBIND11_CONSTINIT static py::gil_safe_call_once_and_store<error_classes> storage;
  return storage
      .call_once_and_store_result([] {
        py::module_ errors = py::module_::import("mcpcxx._errors");
        return error_classes{errors.attr("ToolError"), errors.attr("ProtocolError"),
                             errors.attr("ResourceNotFound"),
                             errors.attr("MissingClientCapability"),
                             py::module_::import("traceback").attr("format_exception")};
      })
      .get_stored();
}

std::string safe_str(py::handle h) {
  try {
    return py::str(h).cast<std::string>();
  } catch (py::error_already_set& e) {
    return "<unprintable " + std::string(Py_TYPE(h.ptr())->tp_name) + ">";
  }
}

std::optional<std::string> optional_str(py::handle h) {
  if (h.is_none()) return std::nullopt;
  return safe_str(h);
}

std::exception_ptr tool_error_from(py::handle v) {
  const std::string category = safe_str(v.attr("category"));
  const std::string effect = safe_str(v.attr("effect"));
  auto c = parse_error_category(category);
  auto eff = parse_error_effect(effect);
  if (!c || !eff) {
    return std::make_exception_ptr(unexpected_error(
        "ToolError: invalid category '" + category + "' or effect '" + effect + "'",
        "ToolError attributes were changed after construction to invalid values"));
  }
  std::optional<double> retry_after;
  if (!v.attr("retry_after").is_none()) retry_after = v.attr("retry_after").cast<double>();
  return std::make_exception_ptr(tool_error(safe_str(v.attr("message")), *c,
                                            v.attr("retryable").cast<bool>(),
                                            optional_str(v.attr("resource")), *eff, retry_after));
}

std::exception_ptr protocol_error_from(py::handle v) {
  const int code = v.attr("code").cast<int>();
  const std::string message = safe_str(v.attr("message"));
  try {
    return std::make_exception_ptr(protocol_error(code, message, to_json(v.attr("data"))));
  } catch (const std::invalid_argument& e) {
    return std::make_exception_ptr(unexpected_error(
        "ProtocolError: " + std::string(e.what()),
        "ProtocolError(" + std::to_string(code) + ", " + message + ") was refused"));
  }
}

std::exception_ptr unexpected_from(py::error_already_set& e) {
  const std::string type_name = safe_str(e.type().attr("__name__"));
  const std::string text = safe_str(e.value());
  std::string detail;
  try {
    py::object trace = e.trace() ? py::reinterpret_borrow<py::object>(e.trace()) : py::none();
    for (auto line : classes().format_exception(e.type(), e.value(), trace)) {
      detail += line.cast<std::string>();
    }
  } catch (const std::exception&) {
    detail = type_name + ": " + text + " (traceback unavailable)";
  }
  if (!detail.empty() && detail.back() == '\n') detail.pop_back();
  return std::make_exception_ptr(
      unexpected_error(text.empty() ? type_name : type_name + ": " + text, detail));
}

}  // namespace

std::exception_ptr translate_python_error(py::error_already_set& e) {
  try {
    const auto& c = classes();
    if (e.matches(c.tool_error)) return tool_error_from(e.value());
    if (e.matches(c.protocol_error)) return protocol_error_from(e.value());
    if (e.matches(c.missing_capability)) {
      return std::make_exception_ptr(
          missing_client_capability(to_json(e.value().attr("required"))));
    }
    if (e.matches(c.resource_not_found)) {
      return std::make_exception_ptr(resource_not_found(safe_str(e.value().attr("uri"))));
    }
  } catch (py::error_already_set& inner) {
    return unexpected_from(inner);  // the exception object itself was broken
  } catch (const std::exception& inner) {
    return std::make_exception_ptr(unexpected_error(
        "error while translating an exception: " + std::string(inner.what()), inner.what()));
  }
  return unexpected_from(e);
}

void bind_errors(py::module_& m) {
  py::register_exception<schema::schema_error>(m, "SchemaError", PyExc_ValueError);
  m.def(
      "compose_tool_error_message",
      [](std::string operation, std::string resource, std::string reason, std::string next_step,
         std::string retry_guidance) {
        return compose_tool_error_message({std::move(operation), std::move(resource),
                                           std::move(reason), std::move(next_step),
                                           std::move(retry_guidance)});
      },
      py::arg("operation") = "", py::arg("resource") = "", py::arg("reason") = "",
      py::arg("next_step") = "", py::arg("retry_guidance") = "",
      "Compose '<operation> failed: <resource>. <reason>. <next step>. <retry guidance>.'");
  m.def(
      "is_reserved_code", [](int code) { return error_code::is_reserved_for_spec(code); },
      py::arg("code"), "True for JSON-RPC/MCP codes that tool code must not raise directly.");
  m.def(
      "error_categories",
      [] {
        std::vector<std::string> out;
        for (int i = 0; i <= static_cast<int>(error_category::internal); ++i) {
          out.emplace_back(to_string(static_cast<error_category>(i)));
        }
        return out;
      },
      "The tool error category names, in declaration order.");
  m.def(
      "error_effects",
      [] {
        std::vector<std::string> out;
        for (int i = 0; i <= static_cast<int>(error_effect::applied); ++i) {
          out.emplace_back(to_string(static_cast<error_effect>(i)));
        }
        return out;
      },
      "The tool error effect names, in declaration order.");
}

}  // namespace mcpcxx::py_bind
