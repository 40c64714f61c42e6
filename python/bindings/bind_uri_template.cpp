// UriTemplate: the engine's RFC 6570 templates, so Python checks a resource template's variables
// with the same parser the engine registers it with. Immutable; any thread, GIL held.
#include <map>
#include <stdexcept>
#include <string>

#include <pybind11/stl.h>

#include "mcpcxx/uri_template.hpp"

#include "bindings.hpp"

namespace mcpcxx::py_bind {

void bind_uri_template(py::module_& m) {
  py::class_<uri_template>(m, "UriTemplate")
      .def(py::init([](const std::string& text) {
             try {
               return uri_template(text);
             } catch (const std::invalid_argument& e) {
               throw py::value_error(e.what());
             }
           }),
           py::arg("template"), "Parse an RFC 6570 template; ValueError says what is wrong.")
      .def_property_readonly("template", &uri_template::text)
      .def_property_readonly("variables", &uri_template::variable_names,
                             "Variable names in order of first appearance.")
      .def_property_readonly("required_variables", &uri_template::required_variable_names,
                             "The variables every match defines (the others may be absent).")
      .def("match", &uri_template::match, py::arg("uri"),
           "The variables `uri` defines (percent-decoded), or None when it does not match.")
      .def("expand", &uri_template::expand, py::arg("values"),
           "The URI for `values` (a missing name is undefined).");
}

}  // namespace mcpcxx::py_bind
