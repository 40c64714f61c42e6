#include "transport/http/redis_support.hpp"

#include <algorithm>
#include <stdexcept>

#include "transport/http/redis_keys.hpp"

namespace mcpcxx::http {

redis::command eval_command(const std::string& script, const std::vector<std::string>& keys,
                            const std::vector<std::string>& args) {
  redis::command c;
  c.reserve(3 + keys.size() + args.size());
  c.emplace_back("EVAL");
  c.push_back(script);
  c.push_back(std::to_string(keys.size()));
  c.insert(c.end(), keys.begin(), keys.end());
  c.insert(c.end(), args.begin(), args.end());
  return c;
}

const redis::reply& checked(const redis::reply& r) {
  if (r.is_error()) throw redis::command_error("Redis refused a session store command: " + r.str);
  return r;
}

std::string hash_field(const redis::reply& flat, std::string_view field) {
  for (std::size_t i = 0; i + 1 < flat.elements.size(); i += 2) {
    if (flat.elements[i].str == field) return flat.elements[i + 1].str;
  }
  return {};
}

void check_redis_key_prefix(const std::string& prefix) {
  if (prefix.find_first_of("{}") != std::string::npos) {
    throw std::invalid_argument(
        "the store key prefix '" + prefix +
        "' holds '{' or '}': the session keys use hash tags of their own (docs/scale-out.md); "
        "choose a prefix without braces");
  }
}

std::chrono::milliseconds redis_session_ttl(std::chrono::milliseconds idle_timeout) {
  // The reaper runs every idle/4 (at most 60 s): half the timeout, and at least a minute, covers
  // one period and the clock skew between replicas.
  return idle_timeout + std::max(idle_timeout / 2, std::chrono::milliseconds(60000));
}

}  // namespace mcpcxx::http
