// Async tools (server::add_async_tool): the blocking form a task thread runs. The request path
// of an async call (no worker held while it waits) is in tools_call.cpp.
// Thread-safety: the blocking form may run on any number of threads at once.
#pragma once

#include "mcpcxx/primitives.hpp"

namespace mcpcxx::detail {

/// A tool_handler that starts `async` and waits on the calling thread until it completes:
/// the result it completed with, or its failure rethrown.
tool_handler blocking_form(async_tool_handler async);

}  // namespace mcpcxx::detail
