// Turns Python callables into engine handlers: GIL only around conversion and the call, Python
// exceptions translated into the engine's error types before the GIL is released.
// Arguments and results cross as the JSON forms of the model types (json_caster.hpp).
#pragma once

#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include <pybind11/pybind11.h>

#include "mcpcxx/context.hpp"
#include "mcpcxx/primitives.hpp"

#include "bindings.hpp"

namespace mcpcxx::py_bind {

/// The one mapping of Python failures to C++ (GIL held), for every handler kind: ToolError ->
/// tool_error, ProtocolError -> protocol_error, ResourceNotFoundError -> resource_not_found,
/// MissingClientCapabilityError -> missing_client_capability; anything else -> an
/// unexpected_error whose what() and detail() are the formatted traceback. The result holds no
/// Python objects.
std::exception_ptr translate_python_error(py::error_already_set& e);

/// The request context as Python sees it. The engine's request_context lives only while the
/// handler runs; afterwards every method that needs it raises RuntimeError.
class context_state {
 public:
  explicit context_state(request_context& ctx);
  /// Called (without the GIL) once the handler returned; waits for calls in progress.
  void invalidate();
  /// Runs `fn(ctx)` under the lifetime lock; throws std::runtime_error after invalidate().
  template <typename Fn>
  auto with_context(Fn&& fn) {
    std::lock_guard<std::mutex> lock(mutex_);
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
  const cancellation_token token;

 private:
  std::mutex mutex_;
  request_context* ctx_;
};

/// Python handle on a context_state (bound as _core.RequestContext).
struct py_context {
  std::shared_ptr<context_state> state;
};

/// fn(arguments: dict, ctx) -> CallToolResult dict.
tool_handler make_tool_handler(py::object fn);
/// fn(uri, None, ctx) -> list of ResourceContents dicts.
resource_reader make_resource_reader(py::object fn);
/// fn(uri, variables: dict[str, str], ctx) -> list of ResourceContents dicts.
resource_template_reader make_resource_template_reader(py::object fn);
/// fn(arguments: dict[str, str], ctx) -> GetPromptResult dict.
prompt_handler make_prompt_handler(py::object fn);
/// fn(request: CompleteRequest params dict, ctx) -> Completion dict.
completion_handler make_completion_handler(py::object fn);

}  // namespace mcpcxx::py_bind
