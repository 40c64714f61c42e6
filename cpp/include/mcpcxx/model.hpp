// Every model type's JSON form (nlohmann ADL hooks), for code that passes them as JSON objects
// (the Python bindings, config files): the primitives as their MCP wire objects
// (mcpcxx/primitives.hpp) and the configuration structs and counters of each layer by member
// name (server_json.hpp, stdio_json.hpp, http_json.hpp). Members with no JSON form
// (server_options::log_writer, http_options::auth) are left untouched.
#pragma once

#include "mcpcxx/http_json.hpp"
#include "mcpcxx/primitives.hpp"
#include "mcpcxx/server_json.hpp"
#include "mcpcxx/stdio_json.hpp"
