// Engine handlers that call Python: the GIL is held only for conversion and the call itself.
#include "handler_bridge.hpp"

#include <utility>

#include "json_caster.hpp"
#include "mcpcxx/errors.hpp"

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

/// Calls `invoke()` (which calls Python and converts its result) with the GIL, translating
/// Python failures; the context handle is invalidated before returning either way.
template <typename Result, typename Invoke>
Result call_python(request_context& ctx, Invoke&& invoke) {
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
      out.emplace(invoke(py::cast(py_context{state})));
    } catch (py::error_already_set& e) {
      failure = translate_python_error(e);
    } catch (const py::builtin_exception& e) {
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

tool_result tool_result_from(py::handle r) {
  if (!PyTuple_Check(r.ptr()) || PyTuple_GET_SIZE(r.ptr()) != 4) {
    throw py::type_error("a tool wrapper must return (content, structured, is_error, meta)");
  }
  auto t = py::reinterpret_borrow<py::tuple>(r);
  tool_result out;
  out.content = to_json(t[0]);
  if (!t[1].is_none()) out.structured_content = to_json(t[1]);
  out.is_error = t[2].cast<bool>();
  if (!t[3].is_none()) out.meta = to_json(t[3]);
  return out;
}

std::optional<std::string> opt_string(const py::dict& d, const char* key) {
  if (!d.contains(key) || d[key].is_none()) return std::nullopt;
  return d[key].cast<std::string>();
}

std::vector<resource_contents> contents_from(py::handle r) {
  std::vector<resource_contents> out;
  for (auto item : py::reinterpret_borrow<py::iterable>(r)) {
    auto d = py::reinterpret_borrow<py::dict>(item);
    resource_contents c;
    c.uri = d["uri"].cast<std::string>();
    c.mime_type = opt_string(d, "mimeType");
    c.text = opt_string(d, "text");
    c.blob_base64 = opt_string(d, "blob");
    if (d.contains("_meta")) c.meta = to_json(d["_meta"]);
    out.push_back(std::move(c));
  }
  return out;
}

py::dict string_map(const std::map<std::string, std::string>& m) {
  py::dict d;
  for (const auto& [k, v] : m) d[py::str(k)] = py::str(v);
  return d;
}

}  // namespace

tool_handler make_tool_handler(py::object fn) {
  return [fn = held_object(std::move(fn))](const json& arguments, request_context& ctx) {
    return call_python<tool_result>(ctx, [&](py::object py_ctx) {
      return tool_result_from(fn.get()(to_python(arguments), py_ctx));
    });
  };
}

resource_reader make_resource_reader(py::object fn) {
  return [fn = held_object(std::move(fn))](const std::string& uri, request_context& ctx) {
    return call_python<std::vector<resource_contents>>(ctx, [&](py::object py_ctx) {
      return contents_from(fn.get()(py::str(uri), py::none(), py_ctx));
    });
  };
}

resource_template_reader make_resource_template_reader(py::object fn) {
  return [fn = held_object(std::move(fn))](const std::string& uri,
                                           const std::map<std::string, std::string>& variables,
                                           request_context& ctx) {
    return call_python<std::vector<resource_contents>>(ctx, [&](py::object py_ctx) {
      return contents_from(fn.get()(py::str(uri), string_map(variables), py_ctx));
    });
  };
}

prompt_handler make_prompt_handler(py::object fn) {
  return [fn = held_object(std::move(fn))](const std::map<std::string, std::string>& arguments,
                                           request_context& ctx) {
    return call_python<prompt_result>(ctx, [&](py::object py_ctx) {
      auto t = py::reinterpret_borrow<py::tuple>(fn.get()(string_map(arguments), py_ctx));
      prompt_result out;
      if (!t[0].is_none()) out.description = t[0].cast<std::string>();
      out.messages = to_json(t[1]);
      return out;
    });
  };
}

completion_handler make_completion_handler(py::object fn) {
  return [fn = held_object(std::move(fn))](const completion_request& req, request_context& ctx) {
    return call_python<completion_result>(ctx, [&](py::object py_ctx) {
      auto t = py::reinterpret_borrow<py::tuple>(
          fn.get()(req.ref_type, req.ref, req.argument_name, req.argument_value,
                   string_map(req.context_arguments), py_ctx));
      completion_result out;
      for (auto v : py::reinterpret_borrow<py::iterable>(t[0])) {
        out.values.push_back(v.cast<std::string>());
      }
      if (!t[1].is_none()) out.total = t[1].cast<std::int64_t>();
      out.has_more = t[2].cast<bool>();
      return out;
    });
  };
}

}  // namespace mcpcxx::py_bind
