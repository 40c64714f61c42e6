// The fixture servers every golden transcript runs against: the C++ example server
// (tests/fixtures/cpp/example_server.cpp) and its Python twin
// (tests/fixtures/python/fixture_server.py).
//
// Environment (all optional):
//   MCPCXX_GOLDEN_FIXTURES    space- or comma-separated fixtures to run (default: "cpp python");
//                             a transcript's other fixtures are skipped, by explicit choice.
//   MCPCXX_GOLDEN_PYTHON      the interpreter for the Python fixture (default: the compile
//                             definition MCPCXX_PYTHON_EXECUTABLE when CMake sets it, else
//                             python3 in PATH).
//   MCPCXX_GOLDEN_PYTHONPATH  where `import mcpcxx` is found (default: the developer build's
//                             extension, staged with the package sources, see python_fixture()).
//   CI=true                   a fixture that cannot be started fails the test instead of skipping.
// Thread-safety: fixtures are resolved once, on first use, behind a function-local static.
#pragma once

#include <string>

#include "transcript.hpp"

namespace mcpcxx::golden {

/// A fixture server the golden tests can start, or why it cannot be started.
struct fixture {
  command cmd;
  std::string unavailable;  ///< "" when the server can be started
};

/// The fixture named `name` ("cpp" or "python").
const fixture& find_fixture(const std::string& name);

/// True when the environment says CI=true: missing fixtures fail instead of skipping.
bool in_ci();

/// False when MCPCXX_GOLDEN_FIXTURES is set and does not list `name`.
bool selected(const std::string& name);

}  // namespace mcpcxx::golden
