// The x-mcp-header declarations of each tool's inputSchema (SEP-2243), learned through the public
// engine API: an in-process legacy session lists the tools and is told about list changes.
// Thread-safety: lookup() may be called from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "mcpcxx/server.hpp"

namespace mcpcxx::http {

/// One argument mirrored into an Mcp-Param-<name> header.
struct param_header {
  std::string name;               ///< the x-mcp-header value (header suffix)
  std::vector<std::string> path;  ///< property names from the arguments object down
  std::string type;               ///< "string", "integer" or "boolean"
};

/// Finds x-mcp-header properties reachable through `properties` chains of `schema`.
std::vector<param_header> collect_param_headers(const json& schema);

/// Caches the param headers of every tool.
class tool_header_cache {
 public:
  explicit tool_header_cache(server& srv);
  ~tool_header_cache();
  tool_header_cache(const tool_header_cache&) = delete;
  tool_header_cache& operator=(const tool_header_cache&) = delete;

  /// The param headers of `tool`; empty when it has none or does not exist.
  std::vector<param_header> lookup(const std::string& tool);

 private:
  class probe_sink;
  server& srv_;
  std::shared_ptr<probe_sink> sink_;
  std::mutex lock_;
  std::optional<session> probe_;
  std::map<std::string, std::vector<param_header>> tools_;
  bool built_ = false;
  std::chrono::steady_clock::time_point last_miss_rebuild_{};

  void rebuild_locked();
  json call_locked(int id, const std::string& method, json params);
};

}  // namespace mcpcxx::http
