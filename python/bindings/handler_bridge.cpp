// Engine handlers that call Python: the GIL is held only for conversion and the call itself.
#include "handler_bridge.hpp"

#include <optional>
#include <utility>

#include <pybind11/stl.h>

#include "json_caster.hpp"

namespace mcpcxx::py_bind {

context_state::context_state(request_context& ctx)
    : request_id(ctx.request_id()),
      protocol_version(ctx.protocol_version()),
      modern(ctx.modern()),
      client_info(ctx.client_info()),
      client_capabilities(ctx.client_capabilities()),
      principal(ctx.principal()),
      token(ctx.token()),
      ctx_(&ctx) {}

void context_state::invalidate() {
  std::lock_guard<std::mutex> lock(mutex_);
  ctx_ = nullptr;
}

namespace {

/// Calls fn(args..., ctx) with the GIL and converts its result to `Result`, translating Python
/// failures; the context handle is invalidated before returning either way.
template <typename Result, typename... Args>
Result call_python(const held_object& fn, request_context& ctx, const Args&... args) {
  if (!python_alive()) throw std::runtime_error("the Python interpreter is shutting down");
  auto state = std::make_shared<context_state>(ctx);
  std::exception_ptr failure;
  std::optional<Result> out;
  {
    py::gil_scoped_acquire gil;
    // Keep this engine thread's Python thread state between calls instead of creating and
    // destroying one per call (a measurable share of a small tool's cost); one per thread.
    thread_local bool state_kept = false;
    if (!state_kept) {
      gil.inc_ref();
      state_kept = true;
    }
    try {
      out.emplace(fn.get()(args..., py_context{state}).template cast<Result>());
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

}  // namespace

tool_handler make_tool_handler(py::object fn) {
  return [fn = held_object(std::move(fn))](const json& arguments, request_context& ctx) {
    return call_python<tool_result>(fn, ctx, arguments);
  };
}

resource_reader make_resource_reader(py::object fn) {
  return [fn = held_object(std::move(fn))](const std::string& uri, request_context& ctx) {
    return call_python<std::vector<resource_contents>>(fn, ctx, uri, py::none());
  };
}

resource_template_reader make_resource_template_reader(py::object fn) {
  return [fn = held_object(std::move(fn))](const std::string& uri,
                                           const std::map<std::string, std::string>& variables,
                                           request_context& ctx) {
    return call_python<std::vector<resource_contents>>(fn, ctx, uri, variables);
  };
}

prompt_handler make_prompt_handler(py::object fn) {
  return [fn = held_object(std::move(fn))](const std::map<std::string, std::string>& arguments,
                                           request_context& ctx) {
    return call_python<prompt_result>(fn, ctx, arguments);
  };
}

completion_handler make_completion_handler(py::object fn) {
  return [fn = held_object(std::move(fn))](const completion_request& req, request_context& ctx) {
    return call_python<completion_result>(fn, ctx, req);
  };
}

}  // namespace mcpcxx::py_bind
