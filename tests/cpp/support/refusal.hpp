// Test support: the refusal text of a JSON form (model/*_json.cpp).
#pragma once

#include <stdexcept>
#include <string>

#include "mcpcxx/json.hpp"

namespace mcpcxx::testing {

/// The what() of the std::invalid_argument that reading `j` as T throws ("" when none).
template <class T>
std::string refusal(const json& j) {
  try {
    (void)j.get<T>();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace mcpcxx::testing
