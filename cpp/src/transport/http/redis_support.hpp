// What the Redis stores of legacy sessions share: the outage translation (store/store_call.hpp),
// pipelined scripts, and reply checks.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "redis/client.hpp"
#include "store/store_call.hpp"

namespace mcpcxx::http {

using detail::store_call;

/// An EVAL command of `script` for a pipeline (EVALSHA needs the script loaded on that server;
/// EVAL caches it there by itself).
redis::command eval_command(const std::string& script, const std::vector<std::string>& keys,
                            const std::vector<std::string>& args);

/// `r`, or redis::command_error when it is an error reply (a bug, not an outage).
const redis::reply& checked(const redis::reply& r);

/// HGETALL's flat [field, value, ...] reply: the value of `field`, "" when absent.
std::string hash_field(const redis::reply& flat, std::string_view field);

/// Lua: cmp(a, b) of two decimal integers as strings (-1, 0, 1), exact beyond 2^53 where Lua's
/// numbers are not. Prepended to the scripts that compare nanosecond times.
inline constexpr const char* k_lua_cmp = R"lua(
local function cmp(a, b)
  local na, nb = string.sub(a, 1, 1) == '-', string.sub(b, 1, 1) == '-'
  if na ~= nb then return na and -1 or 1 end
  local r = 0
  if #a ~= #b then r = (#a < #b) and -1 or 1
  elseif a ~= b then r = (a < b) and -1 or 1 end
  if na then r = -r end
  return r
end
)lua";

}  // namespace mcpcxx::http
