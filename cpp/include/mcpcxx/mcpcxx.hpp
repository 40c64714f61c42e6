// Umbrella header of the public C++ API.
#pragma once

#include "mcpcxx/apps.hpp"
#include "mcpcxx/context.hpp"
#include "mcpcxx/error_codes.hpp"
#include "mcpcxx/errors.hpp"
#include "mcpcxx/json.hpp"
#include "mcpcxx/json_schema.hpp"
#include "mcpcxx/jsonrpc.hpp"
#include "mcpcxx/middleware.hpp"
#include "mcpcxx/primitives.hpp"
#include "mcpcxx/server.hpp"
#include "mcpcxx/session.hpp"
#include "mcpcxx/skills.hpp"
#include "mcpcxx/stdio.hpp"
#include "mcpcxx/uri_template.hpp"
