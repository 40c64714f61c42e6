// Errors across the boundary: the one mapping of Python exceptions to the engine's typed errors,
// the GIL-safe object holder, and the error helpers Python calls.
#include <atomic>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <variant>

#include <pybind11/gil_safe_call_once.h>
#include <pybind11/stl.h>

#include "mcpcxx/error_codes.hpp"
#include "mcpcxx/errors.hpp"
#include "mcpcxx/json_schema.hpp"

#include "handler_bridge.hpp"
#include "json_caster.hpp"

namespace mcpcxx::py_bind {

namespace {

std::atomic<bool> closing{false};
std::atomic<std::size_t> inside{0};  // engine threads between python_entry and its end

bool interpreter_running() noexcept {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsInitialized() != 0 && Py_IsFinalizing() == 0;
#else
  return Py_IsInitialized() != 0 && _Py_IsFinalizing() == 0;
#endif
}

}  // namespace

bool python_alive() noexcept { return !closing.load() && interpreter_running(); }

bool python_closing() noexcept { return closing.load(); }

// Counted first, checked second: close_python_entries() sets `closing` before it reads `inside`,
// so a thread either sees `closing` and backs out, or is counted and waited for.
python_entry::python_entry() noexcept {
  inside.fetch_add(1);
  entered_ = python_alive();
  if (!entered_) inside.fetch_sub(1);
}

python_entry::~python_entry() {
  if (entered_) inside.fetch_sub(1);
}

std::size_t close_python_entries(std::chrono::milliseconds timeout) {
  closing.store(true);
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (inside.load() != 0 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return inside.load();
}

held_object::held_object(py::object obj)
    : ptr_(new py::object(std::move(obj)), [](py::object* p) {
        const python_entry entry;
        if (!entry.entered()) {
          p->release();  // the interpreter is closing or gone: leaking beats touching its state
          delete p;
          return;
        }
        py::gil_scoped_acquire gil;
        delete p;
      }) {}

namespace {

/// A Python exception no typed error matched. what() is the formatted traceback, so whichever
/// way the engine classifies it, the log gets the traceback under the reference id; summary()
/// ("ValueError: boom") is what expose_exception_details may put on the wire.
class python_exception final : public unexpected_error {
 public:
  using unexpected_error::unexpected_error;
  const char* what() const noexcept override { return detail().c_str(); }
};

std::string safe_str(py::handle h) {
  try {
    return py::str(h).cast<std::string>();
  } catch (py::error_already_set&) {
    return "<unprintable " + std::string(Py_TYPE(h.ptr())->tp_name) + ">";
  }
}

}  // namespace

tool_error tool_error_of(py::handle v) {
  const std::string category = safe_str(v.attr("category"));
  const std::string effect = safe_str(v.attr("effect"));
  auto c = parse_error_category(category);
  auto eff = parse_error_effect(effect);
  if (!c || !eff) {
    throw std::invalid_argument("ToolError has category '" + category + "' and effect '" + effect +
                                "'; attributes changed after construction");
  }
  auto resource = v.attr("resource").cast<std::optional<std::string>>();
  auto retry_after = v.attr("retry_after").cast<std::optional<double>>();
  return tool_error(safe_str(v.attr("message")), *c, v.attr("retryable").cast<bool>(),
                    std::move(resource), *eff, retry_after);
}

namespace {

std::exception_ptr tool_error_from(py::handle v) {
  return std::make_exception_ptr(tool_error_of(v));
}

std::exception_ptr protocol_error_from(py::handle v) {
  return std::make_exception_ptr(protocol_error(
      v.attr("code").cast<int>(), safe_str(v.attr("message")), to_json(v.attr("data"))));
}

std::exception_ptr missing_capability_from(py::handle v) {
  return std::make_exception_ptr(missing_client_capability(to_json(v.attr("required"))));
}

std::exception_ptr resource_not_found_from(py::handle v) {
  return std::make_exception_ptr(resource_not_found(safe_str(v.attr("uri"))));
}

std::exception_ptr url_elicitation_required_from(py::handle v) {
  return std::make_exception_ptr(url_elicitation_required(to_json(v.attr("elicitations"))));
}

std::exception_ptr converted_arguments_from(py::handle v) {
  return std::make_exception_ptr(invalid_arguments_error(to_json(v.attr("violations"))));
}

// The ask errors below normally carry their C++ original (carried_exception); these build one
// when a handler constructed the Python exception itself.
std::exception_ptr client_capability_from(py::handle v) {
  return std::make_exception_ptr(
      client_capability_error(safe_str(v.attr("method")), safe_str(v.attr("capability"))));
}

std::exception_ptr client_timeout_from(py::handle v) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::duration<double>(v.attr("timeout").cast<double>()));
  return std::make_exception_ptr(client_request_timeout(safe_str(v.attr("method")), ms));
}

std::exception_ptr client_request_error_from(py::handle v) {
  return std::make_exception_ptr(
      client_request_error(safe_str(v.attr("method")), v.attr("code").cast<int>(),
                           safe_str(v.attr("message")), to_json(v.attr("data"))));
}

std::exception_ptr client_answer_invalid_from(py::handle v) {
  return std::make_exception_ptr(
      client_answer_invalid(safe_str(v.attr("method")), safe_str(v.attr("reason"))));
}

/// The typed Python errors (mcpcxx._protocol.errors) and the C++ error each becomes; a subclass
/// comes before its base (ClientCapabilityError is a MissingClientCapabilityError).
struct typed_error {
  const char* python_name;
  std::exception_ptr (*translate)(py::handle value);
};
constexpr typed_error k_typed_errors[] = {
    {"ToolError", tool_error_from},
    {"ProtocolError", protocol_error_from},
    {"ClientCapabilityError", client_capability_from},
    {"MissingClientCapabilityError", missing_capability_from},
    {"UrlElicitationRequiredError", url_elicitation_required_from},
    {"ClientRequestTimeoutError", client_timeout_from},
    {"ClientRequestError", client_request_error_from},
    {"ClientAnswerInvalidError", client_answer_invalid_from},
    {"ResourceNotFoundError", resource_not_found_from},
    {"ConvertedArgumentsError", converted_arguments_from},
};

struct python_helpers {
  std::vector<py::object> typed;  ///< the classes of k_typed_errors, in order
  py::object format_exception;
};

const python_helpers& helpers() {
  PYBIND11_CONSTINIT static py::gil_safe_call_once_and_store<python_helpers> storage;
  return storage
      .call_once_and_store_result([] {
        python_helpers h;
        py::module_ errors = py::module_::import("mcpcxx._protocol.errors");
        for (const auto& t : k_typed_errors) h.typed.push_back(errors.attr(t.python_name));
        // The standard formatting minus the column markers, about twice as fast
        // (mcpcxx/_protocol/traceback.py).
        h.format_exception =
            py::module_::import("mcpcxx._protocol.traceback").attr("format_exception_text");
        return h;
      })
      .get_stored();
}

/// A Python exception as its three parts (borrowed): from a raised one (py::error_already_set)
/// or from one a tool handed back as its value.
struct exception_parts {
  py::handle type, value, trace;
};

exception_parts parts_of(py::error_already_set& e) {
  const py::handle trace = e.trace();
  return {e.type(), e.value(), trace ? trace : py::handle(Py_None)};
}

/// An unexpected failure's two texts: "ValueError: boom" and the formatted traceback.
struct unexpected_text {
  std::string summary, trace;
};

/// `refused`, when given, says why a typed error could not keep its type.
unexpected_text unexpected_of(const exception_parts& e, const std::string& refused = {}) {
  const std::string type_name = safe_str(e.type.attr("__name__"));
  const std::string text = refused.empty() ? safe_str(e.value) : refused;
  unexpected_text out{text.empty() ? type_name : type_name + ": " + text, {}};
  try {
    out.trace = helpers().format_exception(e.type, e.value, e.trace).cast<std::string>();
  } catch (const std::exception&) {
    out.trace = out.summary + " (traceback unavailable)";
  }
  if (!out.trace.empty() && out.trace.back() == '\n') out.trace.pop_back();
  if (!refused.empty()) out.trace += "\n(refused: " + refused + ")";
  return out;
}

translated_failure unexpected(const exception_parts& e, bool as_result,
                              const std::string& refused = {}) {
  auto [summary, trace] = unexpected_of(e, refused);
  if (as_result) return tool_result::failed(unexpected_error(std::move(summary), std::move(trace)));
  return std::make_exception_ptr(python_exception(std::move(summary), std::move(trace)));
}

/// The one mapping (translate_python_error). `as_result`: a ToolError and an exception no typed
/// error matches become the tool_result::failed their C++ exception would give, without a throw.
translated_failure translate(const exception_parts& e, bool as_result) {
  try {
    if (auto origin = carried_exception(e.value)) return origin;
    const auto& h = helpers();
    if (as_result && PyErr_GivenExceptionMatches(e.type.ptr(), h.typed[0].ptr()) != 0) {
      static_assert(std::string_view(k_typed_errors[0].python_name) == "ToolError");
      return tool_result::failed(tool_error_of(e.value));
    }
    for (std::size_t i = 0; i < h.typed.size(); ++i) {
      if (PyErr_GivenExceptionMatches(e.type.ptr(), h.typed[i].ptr()) != 0) {
        return k_typed_errors[i].translate(e.value);
      }
    }
  } catch (py::error_already_set& broken) {
    return unexpected(parts_of(broken), as_result);  // the exception object itself was broken
  } catch (const std::exception& refused) {
    // A typed error the C++ type refuses (a reserved code, a category changed after
    // construction): the handler is at fault, so it is reported as unexpected, saying why.
    return unexpected(e, as_result, refused.what());
  }
  return unexpected(e, as_result);
}

}  // namespace

translated_failure returned_failure(py::handle exception) {
  const py::handle type(reinterpret_cast<PyObject*>(Py_TYPE(exception.ptr())));
  const auto trace = py::reinterpret_steal<py::object>(PyException_GetTraceback(exception.ptr()));
  return translate({type, exception, trace ? py::handle(trace) : py::handle(Py_None)}, true);
}

std::exception_ptr translate_python_error(py::error_already_set& e) {
  return std::get<std::exception_ptr>(translate(parts_of(e), false));
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
      "render_error_row",
      [](const std::string& row, const json& args) {
        try {
          return render_error_row(row, args);
        } catch (const std::invalid_argument& e) {
          throw py::value_error(e.what());
        }
      },
      py::arg("row"), py::arg("args"),
      "The JSON-RPC error object a situation-table row renders (docs/error-model.md).");
  m.def("is_reserved_code", &error_code::is_reserved_for_spec, py::arg("code"),
        "True for JSON-RPC/MCP codes that handler code must not raise directly.");
  std::vector<std::string> categories, effects;
  for (int i = 0; i <= static_cast<int>(error_category::internal); ++i) {
    categories.emplace_back(to_string(static_cast<error_category>(i)));
  }
  for (int i = 0; i <= static_cast<int>(error_effect::applied); ++i) {
    effects.emplace_back(to_string(static_cast<error_effect>(i)));
  }
  m.attr("ERROR_CATEGORIES") = py::tuple(py::cast(categories));
  m.attr("ERROR_EFFECTS") = py::tuple(py::cast(effects));
}

}  // namespace mcpcxx::py_bind
