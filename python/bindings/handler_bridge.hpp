// Turns Python callables into engine handlers: GIL only around conversion and the call, Python
// exceptions translated into the engine's error types before the GIL is released.
// Arguments and results cross as the JSON forms of the model types (json_caster.hpp):
// tools get (arguments, ctx) and return a CallToolResult dict; resources (uri, ctx) and
// templates (uri, variables, ctx) a list of ResourceContents dicts; prompts (arguments, ctx) a
// GetPromptResult dict; completion (CompleteRequest params, ctx) a Completion dict.
// Thread-safety: the handlers run on any engine thread, concurrently; each call takes the GIL
// itself and is entered without it.
#pragma once

#include <cxxabi.h>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "mcpcxx/context.hpp"
#include "mcpcxx/primitives.hpp"

#include "bindings.hpp"
#include "json_caster.hpp"

namespace mcpcxx::py_bind {

/// The one mapping of Python failures to C++ (GIL held), for every handler kind: ToolError ->
/// tool_error, ProtocolError -> protocol_error, ResourceNotFoundError -> resource_not_found,
/// MissingClientCapabilityError -> missing_client_capability, UrlElicitationRequiredError ->
/// url_elicitation_required, the ask errors -> theirs; an exception raised by a RequestContext
/// ask (it carries the C++ original, see carried_exception) -> that original; anything else ->
/// an unexpected_error whose what() and detail() are the formatted traceback. The result holds
/// no Python objects.
std::exception_ptr translate_python_error(py::error_already_set& e);

/// The C++ tool_error of a Python ToolError instance `v` (GIL held); std::invalid_argument when
/// its category or effect was changed to an unknown name.
tool_error tool_error_of(py::handle v);

/// What a Python failure becomes: a tool result or the C++ exception to rethrow.
using translated_failure = std::variant<tool_result, std::exception_ptr>;

/// A tool's exception handed back as its return value (mcpcxx/_components/tools.py returns what the
/// function raised instead of letting it propagate), translated as translate_python_error
/// translates a raised one, except that a ToolError and an exception no typed error matches
/// become the tool_result::failed their C++ exceptions would give: the same reply without the
/// two C++ exception unwinds of the raised path. GIL held.
translated_failure returned_failure(py::handle exception);

/// The C++ exception a RequestContext ask attached to the Python exception `value` when it
/// raised it (null when none): re-raising it hands the engine exactly what request_context threw.
std::exception_ptr carried_exception(py::handle value);

/// The request context as Python sees it. The engine's request_context lives only while the
/// handler runs; afterwards every method that needs it raises RuntimeError.
class context_state {
 public:
  explicit context_state(request_context& ctx);
  /// Called (without the GIL) once the handler returned; waits for calls in progress.
  void invalidate();
  /// Runs `fn(ctx)` under the lifetime lock; throws std::runtime_error after invalidate().
  /// Calls run concurrently (an ask may block for minutes while other threads log).
  template <typename Fn>
  auto with_context(Fn&& fn) {
    std::shared_lock<std::shared_mutex> lock(mutex_);
    if (ctx_ == nullptr) {
      throw std::runtime_error(
          "this Context belongs to a request that already finished; use it only inside the "
          "handler call that received it");
    }
    return fn(*ctx_);
  }

  const json request_id;
  const std::string protocol_version;
  const bool modern;
  const json client_info;
  const json client_capabilities;
  const json principal;
  const json request_meta;
  const json http_headers;  ///< null when not served over HTTP
  const cancellation_token token;

 private:
  std::shared_mutex mutex_;
  request_context* ctx_;
};

/// Python handle on a context_state (bound as _core.RequestContext).
struct py_context {
  std::shared_ptr<context_state> state;
};

/// Adds elicit, elicit_url, sample and list_roots to RequestContext (bind_context_ask.cpp).
void bind_context_ask(py::class_<py_context>& cls);

/// Keeps this engine thread's Python thread state between calls instead of creating and
/// destroying one per call (a measurable share of a small tool's cost); once per thread.
void keep_thread_state(py::gil_scoped_acquire& gil);

/// Calls fn(args..., ctx) with the GIL and converts its result to `Result`, translating Python
/// failures; the context handle is invalidated before returning either way.
template <typename Result, typename... Args>
Result call_python(const held_object& fn, request_context& ctx, const Args&... args) {
  auto state = std::make_shared<context_state>(ctx);
  std::exception_ptr failure;
  std::optional<Result> out;
  {
    const python_entry entry;  // interpreter exit waits for this call instead of cutting it off
    if (!entry.entered()) throw std::runtime_error("the Python interpreter is shutting down");
    py::gil_scoped_acquire gil;
    keep_thread_state(gil);
    try {
      py::object returned = fn.get()(args..., py_context{state});
      if constexpr (std::is_same_v<Result, tool_result>) {
        if (PyExceptionInstance_Check(returned.ptr()) != 0) {
          auto failed = returned_failure(returned);
          if (auto* result = std::get_if<tool_result>(&failed)) {
            out.emplace(std::move(*result));
          } else {
            failure = std::get<std::exception_ptr>(std::move(failed));
          }
        } else {
          out.emplace(returned.template cast<Result>());
        }
      } else {
        out.emplace(returned.template cast<Result>());
      }
    } catch (abi::__forced_unwind&) {
      throw;  // thread cancellation must unwind the whole thread, never be swallowed below
    } catch (py::error_already_set& e) {
      failure = translate_python_error(e);
    } catch (const py::builtin_exception& e) {  // a conversion refused the value
      e.set_error();
      py::error_already_set pending;
      failure = translate_python_error(pending);
    } catch (...) {
      failure = std::current_exception();
    }
  }
  state->invalidate();
  if (failure) std::rethrow_exception(failure);
  return std::move(*out);
}

/// Wraps the Python callable start(arguments, ctx, done) of an async tool (bind_async_tool.cpp):
/// it schedules the work and returns; done(result dict | exception) answers the call later.
async_tool_handler async_bridge(py::object start);

/// Wraps the Python callable fn(payload..., ctx) -> the JSON form of R as an engine handler,
/// std::function<R(const Payload&..., request_context&)>.
template <typename R, typename... Payload>
std::function<R(const Payload&..., request_context&)> bridge(py::object fn) {
  return [fn = held_object(std::move(fn))](const Payload&... payload, request_context& ctx) {
    return call_python<R>(fn, ctx, payload...);
  };
}

}  // namespace mcpcxx::py_bind
