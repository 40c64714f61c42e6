// The Python tracer bridge (tracing_bridge.hpp).
#include "tracing_bridge.hpp"

#include <string>

#include "bindings.hpp"

namespace mcpcxx::py_bind {

namespace {

py::dict start_dict(const span_start_info& i) {
  py::dict d;
  d["name"] = std::string(i.name);
  d["method"] = std::string(i.method);
  d["target"] = std::string(i.target);
  d["request_id"] = std::string(i.request_id);
  d["session_id"] = std::string(i.session_id);
  d["protocol_version"] = std::string(i.protocol_version);
  if (i.parent != nullptr) {
    d["trace_id"] = i.parent->trace_id;
    d["parent_span_id"] = i.parent->span_id;
    d["trace_flags"] = i.parent->flags;
    d["tracestate"] = i.parent->tracestate;
  }
  return d;
}

py::dict end_dict(const span_end_info& i) {
  py::dict d;
  d["outcome"] = std::string(i.outcome);
  d["error_type"] = std::string(i.error_type);
  d["category"] = std::string(i.category);
  d["reference"] = std::string(i.reference);
  if (i.rpc_code) d["rpc_code"] = *i.rpc_code;
  return d;
}

class python_span final : public span {
 public:
  python_span(held_object obj, held_object end) : obj_(std::move(obj)), end_(std::move(end)) {}
  void end(const span_end_info& info) noexcept override {
    const python_entry entry;
    if (!entry.entered()) return;
    py::gil_scoped_acquire gil;
    try {
      end_.get()(obj_.get(), end_dict(info));
    } catch (py::error_already_set& e) {
      e.discard_as_unraisable("mcpcxx tracer end");
    } catch (...) {  // a C++ exception out of a cast: the span is lost, never the reply
    }
  }
  const held_object& object() const noexcept { return obj_; }

 private:
  held_object obj_, end_;
};

class python_tracer final : public tracer {
 public:
  python_tracer(held_object start, held_object end)
      : start_(std::move(start)), end_(std::move(end)) {}
  std::unique_ptr<span> start_span(const span_start_info& info) override {
    const python_entry entry;
    if (!entry.entered()) return nullptr;
    py::gil_scoped_acquire gil;
    try {
      py::object s = start_.get()(start_dict(info));
      if (s.is_none()) return nullptr;
      return std::make_unique<python_span>(held_object(std::move(s)), end_);
    } catch (py::error_already_set& e) {
      e.discard_as_unraisable("mcpcxx tracer start");
      return nullptr;
    }
  }

 private:
  held_object start_, end_;
};

}  // namespace

void set_python_tracer(server& s, py::object start, py::object end) {
  if (start.is_none() && end.is_none()) {
    s.set_tracer(nullptr);
    return;
  }
  auto t =
      std::make_shared<python_tracer>(held_object(std::move(start)), held_object(std::move(end)));
  py::gil_scoped_release release;
  s.set_tracer(std::move(t));
}

py::object python_span_of(const request_context& ctx) {
  const auto* s = dynamic_cast<const python_span*>(ctx.trace_span());
  return s != nullptr ? s->object().get() : py::object(py::none());
}

}  // namespace mcpcxx::py_bind
