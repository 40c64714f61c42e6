// Python middleware as engine middleware (mcpcxx/middleware.hpp; the Python side is
// mcpcxx/_components/middleware.py). The hooks the Python side hands over are plain callables:
// before(request: dict) and after(request: dict, reply: ReplyView) return None or a tagged dict
// ({"result": ...}, {"tool_error": ToolError}, {"forbidden": reason}, {"rate_limited": {...}},
// {"too_large": {...}}); coroutines were already run by the Python side. request["state"] is
// written back after `before`, so `after` sees what `before` left there.
// Thread-safety: the engine runs the hooks on workers only (middleware::may_block), each call
// taking the GIL itself.
#include <chrono>
#include <optional>
#include <string>
#include <utility>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "mcpcxx/middleware.hpp"

#include "bindings.hpp"
#include "handler_bridge.hpp"
#include "json_caster.hpp"

namespace mcpcxx::py_bind {

namespace {

/// The reply an after hook looks at; valid only during that call.
struct reply_view {
  const middleware_reply* reply = nullptr;
  const middleware_reply& get() const {
    if (reply == nullptr) {
      throw std::runtime_error("this reply view belongs to an after hook that already returned");
    }
    return *reply;
  }
};

py::dict request_dict(const middleware_request& r) {
  py::dict d;
  d["method"] = std::string(r.method());
  d["name"] = std::string(r.name());
  d["arguments"] = to_python(r.arguments());
  d["meta"] = to_python(r.meta());
  d["principal"] = to_python(r.principal());
  d["http_headers"] = to_python(r.http_headers());
  d["modern"] = r.modern();
  d["protocol_version"] = r.protocol_version();
  d["tool_annotations"] = to_python(r.tool_annotations());
  d["state"] = to_python(r.state());
  d["elapsed_us"] = r.elapsed().count();
  return d;
}

template <typename T>
T member(const py::dict& d, const char* key) {
  return d[key].cast<T>();
}

// The tagged dict a Python hook answered with, as a middleware_reply (GIL held).
std::optional<middleware_reply> reply_from(const py::object& answer) {
  if (answer.is_none()) return std::nullopt;
  const auto d = answer.cast<py::dict>();
  if (d.contains("result")) return middleware_reply::with_result(to_json(d["result"]));
  if (d.contains("tool_error"))
    return middleware_reply::with_tool_error(tool_error_of(d["tool_error"]));
  if (d.contains("forbidden")) {
    return middleware_reply::with_refusal(refusal::forbidden(d["forbidden"].cast<std::string>()));
  }
  if (d.contains("rate_limited")) {
    const auto r = d["rate_limited"].cast<py::dict>();
    return middleware_reply::with_refusal(refusal::rate_limited(
        member<std::string>(r, "limit"),
        std::chrono::milliseconds(member<std::int64_t>(r, "retry_after_ms"))));
  }
  if (d.contains("too_large")) {
    const auto r = d["too_large"].cast<py::dict>();
    return middleware_reply::with_refusal(refusal::too_large(member<std::size_t>(r, "bytes"),
                                                             member<std::size_t>(r, "limit"),
                                                             member<std::string>(r, "ask_less")));
  }
  throw std::invalid_argument("a middleware hook answered with an unknown reply: " +
                              py::repr(answer).cast<std::string>());
}

// Calls `fn` with the GIL; Python failures become the engine's exceptions (rethrown without it).
template <typename Call>
std::optional<middleware_reply> with_python(Call&& call) {
  std::exception_ptr failure;
  {
    const python_entry entry;
    if (!entry.entered()) throw std::runtime_error("the Python interpreter is shutting down");
    py::gil_scoped_acquire gil;
    keep_thread_state(gil);
    try {
      return call();
    } catch (py::error_already_set& e) {
      failure = translate_python_error(e);
    }
  }
  std::rethrow_exception(failure);
}

// A Python on_notification hook: called with the GIL on the thread that read the notification;
// a falsy answer other than None drops it, and Python failures become the engine's exceptions.
std::function<bool(const middleware_notification&)> notification_hook(py::object fn) {
  if (fn.is_none()) return {};
  return [f = held_object(std::move(fn))](const middleware_notification& n) {
    std::exception_ptr failure;
    {
      const python_entry entry;
      if (!entry.entered()) throw std::runtime_error("the Python interpreter is shutting down");
      py::gil_scoped_acquire gil;
      keep_thread_state(gil);
      try {
        py::dict d;
        d["method"] = std::string(n.method());
        d["params"] = to_python(n.params());
        d["principal"] = to_python(n.principal());
        d["protocol_version"] = n.protocol_version();
        const py::object answer = f.get()(d);
        return answer.is_none() || answer.cast<bool>();
      } catch (py::error_already_set& e) {
        failure = translate_python_error(e);
      }
    }
    std::rethrow_exception(failure);
  };
}

middleware make_middleware(std::string name, std::vector<std::string> methods,
                           std::vector<std::string> tools, py::object before, py::object after,
                           py::object on_notification) {
  middleware m{.name = std::move(name), .methods = std::move(methods), .tools = std::move(tools)};
  m.may_block = true;
  m.on_notification = notification_hook(std::move(on_notification));
  if (!before.is_none()) {
    m.before = [fn = held_object(std::move(before))](const middleware_request& r) {
      return with_python([&] {
        py::dict req = request_dict(r);
        auto answer = reply_from(fn.get()(req));
        r.state() = to_json(req["state"]);
        return answer;
      });
    };
  }
  if (!after.is_none()) {
    m.after = [fn = held_object(std::move(after))](const middleware_request& r,
                                                   const middleware_reply& reply) {
      return with_python([&] {
        auto view = std::make_shared<reply_view>(reply_view{&reply});
        py::object answer;
        try {
          answer = fn.get()(request_dict(r), view);
        } catch (...) {
          view->reply = nullptr;
          throw;
        }
        view->reply = nullptr;
        return reply_from(answer);
      });
    };
  }
  return m;
}

// A Python callable as a C++ function of the request (GIL taken per call; failures translated).
template <typename R>
std::function<R(const middleware_request&)> request_fn(py::object fn,
                                                       R (*convert)(const py::object&)) {
  if (fn.is_none()) return {};
  return [f = held_object(std::move(fn)), convert](const middleware_request& r) -> R {
    std::exception_ptr failure;
    {
      const python_entry entry;
      if (!entry.entered()) throw std::runtime_error("the Python interpreter is shutting down");
      py::gil_scoped_acquire gil;
      try {
        return convert(f.get()(request_dict(r)));
      } catch (py::error_already_set& e) {
        failure = translate_python_error(e);
      }
    }
    std::rethrow_exception(failure);
  };
}

std::string key_of(const py::object& v) {
  return v.is_none() ? std::string() : v.cast<std::string>();
}

std::optional<std::string> denial_of(const py::object& v) {
  if (v.is_none()) return std::nullopt;
  return v.cast<std::string>();
}

rate_key rate_key_named(const std::string& per) {
  if (per == "principal") return rate_key::principal;
  if (per == "tool") return rate_key::tool;
  if (per == "principal_and_tool") return rate_key::principal_and_tool;
  throw py::value_error("RateLimit per must be 'principal', 'tool' or 'principal_and_tool', got '" +
                        per + "'");
}

// ResponseCache(clock=...): a Python function of no arguments returning monotonic seconds.
std::function<std::chrono::steady_clock::time_point()> clock_fn(py::object fn) {
  if (fn.is_none()) return {};
  return [f = held_object(std::move(fn))] {
    double seconds = 0;
    std::exception_ptr failure;
    {
      const python_entry entry;
      if (!entry.entered()) throw std::runtime_error("the Python interpreter is shutting down");
      py::gil_scoped_acquire gil;
      try {
        seconds = f.get()().cast<double>();
      } catch (py::error_already_set& e) {
        failure = translate_python_error(e);
      }
    }
    if (failure) std::rethrow_exception(failure);
    return std::chrono::steady_clock::time_point(
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double>(seconds)));
  };
}

// ResponseCache's options; `fn` is its vary function (or None).
middleware response_cache_from(const py::dict& o, const std::vector<std::string>& methods,
                               const std::vector<std::string>& tools, py::object fn) {
  return response_cache({.name = o["name"].cast<std::string>(),
                         .ttl = std::chrono::milliseconds(o["ttl_ms"].cast<std::int64_t>()),
                         .scope = o["scope"].cast<std::string>(),
                         .methods = methods,
                         .tools = tools,
                         .vary = request_fn<std::string>(std::move(fn), &key_of),
                         .max_entries = o["max_entries"].cast<std::size_t>(),
                         .max_bytes = o["max_bytes"].cast<std::size_t>(),
                         .clock = clock_fn(o["clock"])});
}

// Audit's options; `fn` is its sink, called with the GIL for each line.
middleware audit_from(const py::dict& o, const std::vector<std::string>& tools, py::object fn) {
  auto sink = [f = held_object(std::move(fn))](const json& line) {
    const python_entry entry;
    if (!entry.entered()) return;
    py::gil_scoped_acquire gil;
    try {
      f.get()(to_python(line));
    } catch (py::error_already_set& e) {
      std::rethrow_exception(translate_python_error(e));
    }
  };
  return audit(
      {.sink = std::move(sink), .read_only_too = o["read_only_too"].cast<bool>(), .tools = tools});
}

// The built-ins (mcpcxx/_components/middleware_builtins.py), C++ middleware with Python callables.
middleware builtin(const std::string& kind, const py::dict& o, py::object fn) {
  const auto methods = o["methods"].cast<std::vector<std::string>>();
  const auto tools = o["tools"].cast<std::vector<std::string>>();
  if (kind == "rate_limit") {
    return rate_limit({.name = o["name"].cast<std::string>(),
                       .burst = o["burst"].cast<double>(),
                       .per_second = o["per_second"].cast<double>(),
                       .per = rate_key_named(o["per"].cast<std::string>()),
                       .key = request_fn<std::string>(std::move(fn), &key_of),
                       .description = o["description"].cast<std::string>(),
                       .methods = methods,
                       .tools = tools});
  }
  if (kind == "size_limit") {
    return size_limit({.max_bytes = o["max_bytes"].cast<std::size_t>(),
                       .ask_less = o["ask_less"].cast<std::string>(),
                       .methods = methods,
                       .tools = tools});
  }
  if (kind == "authorize") {
    return authorize({.name = o["name"].cast<std::string>(),
                      .deny = request_fn<std::optional<std::string>>(std::move(fn), &denial_of),
                      .methods = methods,
                      .tools = tools});
  }
  if (kind == "response_cache") return response_cache_from(o, methods, tools, std::move(fn));
  if (kind == "audit") return audit_from(o, tools, std::move(fn));
  throw py::value_error("unknown built-in middleware " + kind);
}

}  // namespace

void bind_middleware(py::module_& m) {
  auto server_cls = py::reinterpret_borrow<py::class_<server_handle>>(m.attr("Server"));
  py::class_<reply_view, std::shared_ptr<reply_view>>(m, "ReplyView")
      .def_property_readonly("kind",
                             [](const reply_view& v) { return std::string(v.get().kind_name()); })
      .def_property_readonly("row", [](const reply_view& v) { return std::string(v.get().row()); })
      .def_property_readonly("category",
                             [](const reply_view& v) { return std::string(v.get().category()); })
      .def("result", [](const reply_view& v) { return to_python(v.get().result()); })
      .def("result_bytes", [](const reply_view& v) { return v.get().result_bytes(); });
  server_cls.def(
      "add_middleware",
      [](server_handle& h, std::string name, std::vector<std::string> methods,
         std::vector<std::string> tools, py::object before, py::object after,
         py::object on_notification) {
        h.srv->add_middleware(make_middleware(std::move(name), std::move(methods), std::move(tools),
                                              std::move(before), std::move(after),
                                              std::move(on_notification)));
      },
      py::arg("name"), py::arg("methods"), py::arg("tools"), py::arg("before"), py::arg("after"),
      py::arg("on_notification") = py::none(),
      "Add a middleware whose hooks are Python callables (mcpcxx.Middleware wraps them).");
  server_cls.def(
      "add_builtin_middleware",
      [](server_handle& h, const std::string& kind, const py::dict& options, py::object fn) {
        const bool python =
            !fn.is_none() || (options.contains("clock") && !options["clock"].is_none());
        middleware mw = builtin(kind, options, std::move(fn));
        mw.may_block = python;  // its Python callable takes the GIL
        h.srv->add_middleware(std::move(mw));
      },
      py::arg("kind"), py::arg("options"), py::arg("fn"),
      "Add a built-in middleware (rate_limit, size_limit, audit, authorize, response_cache) with "
      "its options.");
}

}  // namespace mcpcxx::py_bind
