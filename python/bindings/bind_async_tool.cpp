// Async Python tools: the engine starts the call with start(arguments, ctx, done) and returns at
// once; `done` (a _core.ToolCompletion) is called later, on the server's event loop, with the
// CallToolResult dict or the exception the coroutine raised. No worker thread waits meanwhile.
#include <memory>
#include <stdexcept>
#include <utility>

#include "mcpcxx/primitives.hpp"

#include "bindings.hpp"
#include "handler_bridge.hpp"
#include "json_caster.hpp"

namespace mcpcxx::py_bind {

namespace {

/// The Python handle on one call's completion (bound as _core.ToolCompletion).
struct py_completion {
  std::shared_ptr<context_state> state;
  tool_completion done;
};

/// What a value handed to done() becomes: the result, or the failure to answer with (GIL held).
translated_failure outcome_of(py::handle value) {
  if (PyExceptionInstance_Check(value.ptr()) != 0) return returned_failure(value);
  try {
    return value.cast<tool_result>();
  } catch (py::error_already_set& e) {
    return translate_python_error(e);
  } catch (const py::builtin_exception& e) {  // a conversion refused the value
    e.set_error();
    py::error_already_set pending;
    return translate_python_error(pending);
  }
}

// Called with the GIL; answers the call without it (the context waits for calls in progress,
// which may need the GIL, and the reply's sink may take it itself).
void complete(const py_completion& self, const py::handle& value) {
  translated_failure out = outcome_of(value);
  py::gil_scoped_release release;
  self.state->invalidate();
  if (auto* result = std::get_if<tool_result>(&out)) {
    self.done.complete(std::move(*result));
  } else {
    self.done.fail(std::get<std::exception_ptr>(std::move(out)));
  }
}

}  // namespace

async_tool_handler async_bridge(py::object start) {
  return [start = held_object(std::move(start))](const json& arguments, request_context& ctx,
                                                 tool_completion done) {
    auto state = std::make_shared<context_state>(ctx);
    std::exception_ptr failure;
    {
      const python_entry entry;
      if (!entry.entered()) throw std::runtime_error("the Python interpreter is shutting down");
      py::gil_scoped_acquire gil;
      keep_thread_state(gil);
      try {
        start.get()(arguments, py_context{state}, py_completion{state, std::move(done)});
        return;
      } catch (py::error_already_set& e) {
        failure = translate_python_error(e);
      }
    }
    state->invalidate();
    std::rethrow_exception(failure);
  };
}

void bind_async_tool(py::module_& m) {
  py::class_<py_completion>(m, "ToolCompletion",
                            "Answers one call of an async tool (complete() once).")
      .def("complete", &complete, py::arg("value"),
           "Answer the call with a CallToolResult dict or the exception raised (once).");
}

}  // namespace mcpcxx::py_bind
