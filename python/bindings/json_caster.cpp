// Python <-> JSON conversion with exact integers and floats.
#include "json_caster.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace mcpcxx::py_bind {

namespace {

std::string type_name(py::handle value) {
  return py::str(py::type::handle_of(value).attr("__qualname__")).cast<std::string>();
}

json int_to_json(py::handle value) {
  int overflow = 0;
  const long long as_signed = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
  if (overflow == 0) {
    if (as_signed == -1 && PyErr_Occurred()) throw py::error_already_set();
    return json(static_cast<std::int64_t>(as_signed));
  }
  if (overflow > 0) {
    const unsigned long long as_unsigned = PyLong_AsUnsignedLongLong(value.ptr());
    if (!PyErr_Occurred()) return json(static_cast<std::uint64_t>(as_unsigned));
    PyErr_Clear();
  }
  const std::string text = "integer " + py::repr(value).cast<std::string>() +
                           " is outside the 64-bit range JSON numbers are exchanged in "
                           "([-2**63, 2**64)); send it as a string";
  PyErr_SetString(PyExc_OverflowError, text.c_str());
  throw py::error_already_set();
}

json float_to_json(py::handle value) {
  const double d = PyFloat_AsDouble(value.ptr());
  if (!std::isfinite(d)) {
    throw py::value_error("JSON cannot represent " + py::repr(value).cast<std::string>() +
                          "; return a finite float, None, or a string instead");
  }
  return json(d);
}

json to_json_at(py::handle value, std::size_t depth);

json dict_to_json(py::handle value, std::size_t depth) {
  json out = json::object();
  for (auto item : py::reinterpret_borrow<py::dict>(value)) {
    if (!PyUnicode_Check(item.first.ptr())) {
      throw py::type_error("JSON object keys must be str, got " + type_name(item.first) + " key " +
                           py::repr(item.first).cast<std::string>() +
                           "; convert the key with str() first");
    }
    out[item.first.cast<std::string>()] = to_json_at(item.second, depth + 1);
  }
  return out;
}

json sequence_to_json(py::handle value, std::size_t depth) {
  json out = json::array();
  const auto seq = py::reinterpret_borrow<py::sequence>(value);
  out.get_ref<json::array_t&>().reserve(seq.size());
  for (auto item : seq) out.push_back(to_json_at(item, depth + 1));
  return out;
}

json to_json_at(py::handle value, std::size_t depth) {
  if (depth > k_max_json_depth) {
    throw py::value_error("value nests deeper than " + std::to_string(k_max_json_depth) +
                          " levels (or contains itself); JSON needs a finite, acyclic value");
  }
  PyObject* p = value.ptr();
  if (p == Py_None) return json(nullptr);
  if (PyBool_Check(p)) return json(p == Py_True);  // bool is a subclass of int: test it first
  if (PyLong_Check(p)) return int_to_json(value);
  if (PyFloat_Check(p)) return float_to_json(value);
  if (PyUnicode_Check(p)) return json(value.cast<std::string>());
  if (PyDict_Check(p)) return dict_to_json(value, depth);
  if (PyList_Check(p) || PyTuple_Check(p)) return sequence_to_json(value, depth);
  throw py::type_error("a " + type_name(value) +
                       " is not JSON-compatible; use None, bool, int, float, str, list, tuple "
                       "or dict with str keys");
}

py::object to_python_at(const json& value, std::size_t depth) {
  if (depth > k_max_json_depth) {
    throw py::value_error("JSON nests deeper than " + std::to_string(k_max_json_depth) + " levels");
  }
  switch (value.type()) {
    case json::value_t::null:
    case json::value_t::discarded:
      return py::none();
    case json::value_t::boolean:
      return py::bool_(value.get<bool>());
    case json::value_t::number_integer:
      return py::int_(value.get<std::int64_t>());
    case json::value_t::number_unsigned:
      return py::int_(value.get<std::uint64_t>());
    case json::value_t::number_float:
      return py::float_(value.get<double>());
    case json::value_t::string:
      return py::str(value.get_ref<const std::string&>());
    case json::value_t::binary: {
      const auto& bin = value.get_binary();
      return py::bytes(reinterpret_cast<const char*>(bin.data()), bin.size());
    }
    case json::value_t::array: {
      py::list out(value.size());
      std::size_t i = 0;
      for (const auto& item : value) out[i++] = to_python_at(item, depth + 1);
      return out;
    }
    case json::value_t::object: {
      py::dict out;
      for (const auto& [k, v] : value.items()) out[py::str(k)] = to_python_at(v, depth + 1);
      return out;
    }
  }
  return py::none();
}

}  // namespace

json to_json(py::handle value) { return to_json_at(value, 0); }

py::object to_python(const json& value) { return to_python_at(value, 0); }

}  // namespace mcpcxx::py_bind
