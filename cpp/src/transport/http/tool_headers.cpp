#include "transport/http/tool_headers.hpp"

namespace mcpcxx::http {

namespace {

void collect(const json& schema, std::vector<std::string>& path, std::vector<param_header>& out) {
  if (!schema.is_object()) return;
  auto props = schema.find("properties");
  if (props == schema.end() || !props->is_object()) return;
  for (const auto& [key, sub] : props->items()) {
    if (!sub.is_object()) continue;
    path.push_back(key);
    auto h = sub.find("x-mcp-header");
    if (h != sub.end() && h->is_string() && !h->get_ref<const std::string&>().empty()) {
      std::string type = sub.contains("type") && sub["type"].is_string()
                             ? sub["type"].get<std::string>()
                             : std::string("string");
      out.push_back({h->get<std::string>(), path, type});
    }
    collect(sub, path, out);
    path.pop_back();
  }
}

}  // namespace

std::vector<param_header> collect_param_headers(const json& schema) {
  std::vector<param_header> out;
  std::vector<std::string> path;
  collect(schema, path, out);
  return out;
}

}  // namespace mcpcxx::http
