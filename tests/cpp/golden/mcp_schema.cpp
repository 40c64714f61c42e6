// MCP schema checks for golden replies.
#include "mcp_schema.hpp"

#include <fstream>
#include <stdexcept>

namespace mcpcxx::golden {

namespace {

const std::map<std::string, std::string>& result_defs() {
  static const std::map<std::string, std::string> m = {
      {"initialize", "InitializeResult"},
      {"ping", "EmptyResult"},
      {"server/discover", "DiscoverResult"},
      {"logging/setLevel", "EmptyResult"},
      {"tools/list", "ListToolsResult"},
      {"tools/call", "CallToolResult"},
      {"resources/list", "ListResourcesResult"},
      {"resources/templates/list", "ListResourceTemplatesResult"},
      {"resources/read", "ReadResourceResult"},
      {"resources/subscribe", "EmptyResult"},
      {"resources/unsubscribe", "EmptyResult"},
      {"prompts/list", "ListPromptsResult"},
      {"prompts/get", "GetPromptResult"},
      {"completion/complete", "CompleteResult"}};
  return m;
}

const std::map<std::string, std::string>& notification_defs() {
  static const std::map<std::string, std::string> m = {
      {"notifications/progress", "ProgressNotification"},
      {"notifications/message", "LoggingMessageNotification"},
      {"notifications/tools/list_changed", "ToolListChangedNotification"},
      {"notifications/resources/list_changed", "ResourceListChangedNotification"},
      {"notifications/resources/updated", "ResourceUpdatedNotification"},
      {"notifications/prompts/list_changed", "PromptListChangedNotification"},
      {"notifications/cancelled", "CancelledNotification"}};
  return m;
}

// Requests the server sends the client (lockstep transcripts).
const std::map<std::string, std::string>& server_request_defs() {
  static const std::map<std::string, std::string> m = {
      {"elicitation/create", "ElicitRequest"},
      {"sampling/createMessage", "CreateMessageRequest"},
      {"roots/list", "ListRootsRequest"}};
  return m;
}

bool draft07(const std::string& rev) { return rev < "2025-11-25"; }

}  // namespace

std::string mcp_schema::schema_revision(const std::string& revision) {
  return revision == "2024-11-05" ? "2025-03-26" : revision;
}

std::string mcp_schema::validate(const std::string& rev, const std::string& def,
                                 const json& value) {
  const std::string key = rev + "#" + def;
  auto it = compiled_.find(key);
  if (it == compiled_.end()) {
    if (!docs_.count(rev)) {
      std::ifstream in(dir_ + "/" + rev + "/schema.json");
      if (!in) throw std::runtime_error("missing MCP schema for " + rev + " under " + dir_);
      docs_[rev] = json::parse(in);
    }
    json doc = docs_[rev];
    const char* defs = draft07(rev) ? "definitions" : "$defs";
    if (!doc[defs].contains(def)) return "schema " + rev + " has no definition " + def;
    doc["$ref"] = std::string("#/") + defs + "/" + def;
    it = compiled_.emplace(key, schema::compile(doc)).first;
  }
  auto r = it->second->validate(value);
  if (r.valid) return "";
  return def + " (" + rev + "): " + schema::format_violations(r, value);
}

std::string mcp_schema::check(const std::string& revision, const std::string& method,
                              const json& message) {
  const std::string rev = schema_revision(revision);
  if (message.is_array()) {
    std::string all;
    for (const auto& m : message) all += check(revision, "", m);  // batch members: envelopes only
    return all;
  }
  if (message.contains("error")) {
    // JSON-RPC 2.0 §5 requires "id": null when the request id could not be read; the MCP schemas
    // type id as RequestId (and 2025-11-25+ make it optional), so such replies are checked with
    // the null id omitted. docs/error-model.md records this deviation.
    json checked = message;
    if (checked.contains("id") && checked["id"].is_null()) checked.erase("id");
    if (rev == "2025-03-26" || rev == "2025-06-18") {
      if (!checked.contains("id")) checked["id"] = 0;  // these revisions require an id
    }
    return validate(rev, draft07(rev) ? "JSONRPCError" : "JSONRPCErrorResponse", checked);
  }
  if (message.contains("method") && message.contains("id")) {
    auto r = server_request_defs().find(message["method"].get<std::string>());
    const std::string envelope = validate(rev, "JSONRPCRequest", message);
    if (r == server_request_defs().end())
      return envelope + "not a server request: " + message.dump();
    return envelope + validate(rev, r->second, message);
  }
  if (message.contains("method")) {
    auto n = notification_defs().find(message["method"].get<std::string>());
    return validate(rev, n != notification_defs().end() ? n->second : "JSONRPCNotification",
                    message);
  }
  std::string out =
      validate(rev, draft07(rev) ? "JSONRPCResponse" : "JSONRPCResultResponse", message);
  auto d = result_defs().find(method);
  if (d != result_defs().end() && message.contains("result")) {
    std::string def = (d->second == "DiscoverResult" && rev != "2026-07-28") ? "" : d->second;
    // 2026-07-28: a call whose handler asked the client ends with the questions, not its result.
    const json& result = message["result"];
    if (result.is_object() && result.value("resultType", "") == "input_required") {
      def = "InputRequiredResult";
    }
    // A call that became a task: 2025-11-25 CreateTaskResult; 2026-07-28 resultType "task" is the
    // tasks extension's (not in the core schema: the envelope check above is all there is).
    if (method == "tools/call" && result.is_object() && result.contains("task")) {
      def = "CreateTaskResult";
    }
    if (result.is_object() && result.value("resultType", "") == "task") def.clear();
    if (!def.empty()) out += validate(rev, def, result);
  }
  return out;
}

}  // namespace mcpcxx::golden
