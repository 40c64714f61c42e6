// SEP-2243 header validation for 2026-07-28 POSTs: MCP-Protocol-Version, Mcp-Method, Mcp-Name
// and Mcp-Param-* must be present where required and equal the body after base64 decoding.
#include <algorithm>
#include <cctype>
#include <charconv>

#include "transport/http/endpoint.hpp"
#include "transport/http/security.hpp"
#include "transport/http/tool_headers.hpp"

namespace mcpcxx::http {

namespace {

constexpr std::string_view k_version_key = "io.modelcontextprotocol/protocolVersion";

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// Reads one header that must appear at most once; sets `error` for duplicates or bad values.
std::optional<std::string> single(const request& req, std::string_view name,
                                  std::string_view display, std::optional<std::string>& error) {
  std::size_t n = req.header_count(name);
  if (n == 0) return std::nullopt;
  if (n > 1) {
    error = "Header mismatch: " + std::string(display) + " appears more than once";
    return std::nullopt;
  }
  auto decoded = decode_header_value(*req.header(name));
  if (!decoded) {
    error = "Header mismatch: " + std::string(display) +
            " has invalid characters or bad base64; encode non-ASCII values as =?base64?...?=";
  }
  return decoded;
}

std::optional<std::string> check_name(const request& req, const jsonrpc::message& msg) {
  const char* field = msg.method == "resources/read" ? "uri" : "name";
  if (msg.method != "tools/call" && msg.method != "resources/read" && msg.method != "prompts/get") {
    return std::nullopt;
  }
  if (!msg.params.is_object() || !msg.params.contains(field) || !msg.params[field].is_string()) {
    return std::nullopt;  // the engine reports the malformed params
  }
  std::optional<std::string> error;
  auto value = single(req, "mcp-name", "Mcp-Name", error);
  if (error) return error;
  const auto& body = msg.params[field].get_ref<const std::string&>();
  if (!value) return "Header mismatch: the Mcp-Name header is required for " + msg.method;
  if (*value != body) {
    return "Header mismatch: Mcp-Name does not match params." + std::string(field) + " in the body";
  }
  return std::nullopt;
}

bool same_value(const std::string& header, const json& v, const std::string& type) {
  if (type == "integer" && v.is_number_integer()) {
    std::int64_t n = 0;
    auto r = std::from_chars(header.data(), header.data() + header.size(), n);
    return r.ec == std::errc{} && r.ptr == header.data() + header.size() &&
           n == v.get<std::int64_t>();
  }
  if (type == "boolean" && v.is_boolean()) return header == (v.get<bool>() ? "true" : "false");
  if (v.is_string()) return header == v.get_ref<const std::string&>();
  return header == v.dump();
}

const json* argument_at(const json& args, const std::vector<std::string>& path) {
  const json* cur = &args;
  for (const auto& key : path) {
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(key);
    if (it == cur->end()) return nullptr;
    cur = &*it;
  }
  return cur->is_null() ? nullptr : cur;
}

std::optional<std::string> check_params(transport_context& ctx, const request& req,
                                        const jsonrpc::message& msg) {
  if (msg.method != "tools/call" || !msg.params.is_object() || !msg.params.contains("name") ||
      !msg.params["name"].is_string()) {
    return std::nullopt;
  }
  auto schema = ctx.srv.tool_input_schema(msg.params["name"].get_ref<const std::string&>());
  if (!schema) return std::nullopt;  // the engine answers the unknown tool
  auto headers = collect_param_headers(*schema);
  json args = msg.params.value("arguments", json::object());
  for (const auto& h : headers) {
    std::string display = "Mcp-Param-" + h.name;
    std::optional<std::string> error;
    auto value = single(req, "mcp-param-" + lower(h.name), display, error);
    if (error) return error;
    const json* arg = argument_at(args, h.path);
    if (arg == nullptr && value) {
      return "Header mismatch: " + display + " is present but the argument is not in the body";
    }
    if (arg == nullptr) continue;
    if (!value) return "Header mismatch: the " + display + " header is required for this call";
    if (!same_value(*value, *arg, h.type)) {
      return "Header mismatch: " + display + " does not match the argument in the body";
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> check_modern_headers(transport_context& ctx, const request& req,
                                                const jsonrpc::message& msg) {
  std::optional<std::string> error;
  auto version = single(req, "mcp-protocol-version", "MCP-Protocol-Version", error);
  if (error) return error;
  if (!version) return "Header mismatch: the MCP-Protocol-Version header is required";
  if (msg.params.is_object() && msg.params.contains("_meta") && msg.params["_meta"].is_object()) {
    const json& meta = msg.params["_meta"];
    auto it = meta.find(k_version_key);
    if (it != meta.end() && it->is_string() && *version != it->get_ref<const std::string&>()) {
      return "Header mismatch: MCP-Protocol-Version does not match params._meta[\"" +
             std::string(k_version_key) + "\"]";
    }
  }
  auto method = single(req, "mcp-method", "Mcp-Method", error);
  if (error) return error;
  bool is_request = msg.kind == jsonrpc::message_kind::request;
  if (!method && is_request) return "Header mismatch: the Mcp-Method header is required";
  if (method && *method != msg.method) {
    return "Header mismatch: Mcp-Method does not match the method in the body";
  }
  if (!is_request) return std::nullopt;
  if (auto e = check_name(req, msg)) return e;
  return check_params(ctx, req, msg);
}

}  // namespace mcpcxx::http
