// SEP-2243 header validation for 2026-07-28 POSTs: MCP-Protocol-Version, Mcp-Method, Mcp-Name
// and Mcp-Param-* must be present where required and equal the body after base64 decoding.
#include <algorithm>
#include <cctype>
#include <charconv>

#include "registry/tool_headers.hpp"
#include "transport/http/endpoint.hpp"
#include "transport/http/request_parser.hpp"
#include "transport/http/security.hpp"
#include "wire/era.hpp"

namespace mcpcxx::http {

namespace {

using mcpcxx::detail::collect_param_headers;
using mcpcxx::detail::param_header;
using mcpcxx::wire::situation;

// Reads one header that must appear at most once; sets `error` for duplicates or bad values.
std::optional<std::string> single(const request& req, std::string_view name,
                                  std::string_view display, std::optional<problem>& error) {
  std::size_t n = req.header_count(name);
  if (n == 0) return std::nullopt;
  if (n > 1) {
    error = problem{situation::H29_header_repeated, {{"header", display}}};
    return std::nullopt;
  }
  auto decoded = decode_header_value(*req.header(name));
  if (!decoded) error = problem{situation::H30_header_bad_encoding, {{"header", display}}};
  return decoded;
}

std::optional<problem> check_name(const request& req, const jsonrpc::message& msg) {
  const bool task = msg.method == "tasks/get" || msg.method == "tasks/update" ||
                    msg.method == "tasks/cancel";  // SEP-2663: Mcp-Name is the taskId
  const char* field = msg.method == "resources/read" ? "uri" : task ? "taskId" : "name";
  if (msg.method != "tools/call" && msg.method != "resources/read" && msg.method != "prompts/get" &&
      !task) {
    return std::nullopt;
  }
  if (!msg.params.is_object() || !msg.params.contains(field) || !msg.params[field].is_string()) {
    return std::nullopt;  // the engine reports the malformed params
  }
  std::optional<problem> error;
  auto value = single(req, "mcp-name", "Mcp-Name", error);
  if (error) return error;
  const auto& body = msg.params[field].get_ref<const std::string&>();
  if (!value) return problem{situation::H35_name_header_missing, {{"method", msg.method}}};
  if (*value != body) return problem{situation::H36_name_header_mismatch, {{"field", field}}};
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

// "mcp-param-region" -> "Mcp-Param-Region" (names arrive lower-cased; they are case-insensitive).
std::string display_name(std::string_view lowered) {
  std::string out(lowered);
  bool start = true;
  for (char& c : out) {
    if (start) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    start = c == '-';
  }
  return out;
}

// An Mcp-Param-* header the tool's schema does not declare: it names no argument of the body.
std::optional<std::string> undeclared_param_header(const request& req,
                                                   const std::vector<param_header>& declared) {
  constexpr std::string_view prefix = "mcp-param-";
  for (const auto& [name, value] : req.headers) {
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    std::string_view suffix = std::string_view(name).substr(prefix.size());
    bool known = std::any_of(declared.begin(), declared.end(),
                             [&](const param_header& h) { return lower_ascii(h.name) == suffix; });
    if (!known) return display_name(name);
  }
  return std::nullopt;
}

std::optional<problem> check_params(transport_context& ctx, const request& req,
                                    const jsonrpc::message& msg) {
  if (msg.method != "tools/call" || !msg.params.is_object() || !msg.params.contains("name") ||
      !msg.params["name"].is_string()) {
    return std::nullopt;
  }
  auto schema = ctx.srv.tool_input_schema(msg.params["name"].get_ref<const std::string&>());
  if (!schema) return std::nullopt;  // the engine answers the unknown tool
  auto headers = collect_param_headers(*schema);
  static const json no_arguments = json::object();
  const auto given = msg.params.find("arguments");
  const json& args = given == msg.params.end() ? no_arguments : *given;
  if (auto stray = undeclared_param_header(req, headers)) {
    return problem{situation::H37_param_header_without_argument, {{"header", *stray}}};
  }
  for (const auto& h : headers) {
    std::string display = "Mcp-Param-" + h.name;
    std::optional<problem> error;
    auto value = single(req, "mcp-param-" + lower_ascii(h.name), display, error);
    if (error) return error;
    const json* arg = argument_at(args, h.path);
    if (arg == nullptr && value) {
      return problem{situation::H37_param_header_without_argument, {{"header", display}}};
    }
    if (arg == nullptr) continue;
    if (!value) return problem{situation::H38_param_header_missing, {{"header", display}}};
    if (!same_value(*value, *arg, h.type)) {
      return problem{situation::H39_param_header_mismatch, {{"header", display}}};
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<problem> check_modern_headers(transport_context& ctx, const request& req,
                                            const jsonrpc::message& msg) {
  std::optional<problem> error;
  auto version = single(req, "mcp-protocol-version", "MCP-Protocol-Version", error);
  if (error) return error;
  if (!version) return problem{situation::H31_version_header_missing};
  if (msg.params.is_object() && msg.params.contains("_meta") && msg.params["_meta"].is_object()) {
    const json& meta = msg.params["_meta"];
    auto it = meta.find(wire::k_version_meta_key);
    if (it != meta.end() && it->is_string() && *version != it->get_ref<const std::string&>()) {
      return problem{situation::H32_version_header_mismatch};
    }
  }
  auto method = single(req, "mcp-method", "Mcp-Method", error);
  if (error) return error;
  bool is_request = msg.kind == jsonrpc::message_kind::request;
  if (!method && is_request) return problem{situation::H33_method_header_missing};
  if (method && *method != msg.method) return problem{situation::H34_method_header_mismatch};
  if (!is_request) return std::nullopt;
  if (auto e = check_name(req, msg)) return e;
  return check_params(ctx, req, msg);
}

}  // namespace mcpcxx::http
