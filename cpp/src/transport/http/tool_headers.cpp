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

// Keeps the last response of the probe session; a list_changed marks the cache stale.
class tool_header_cache::probe_sink : public frame_sink {
 public:
  void send(std::string frame, frame_kind kind) override {
    std::lock_guard g(lock_);
    if (kind == frame_kind::response) {
      last_ = std::move(frame);
    } else if (frame.find("notifications/tools/list_changed") != std::string::npos) {
      stale_.store(true);
    }
  }
  std::string take() {
    std::lock_guard g(lock_);
    return std::move(last_);
  }
  std::atomic<bool> stale_{true};

 private:
  std::mutex lock_;
  std::string last_;
};

tool_header_cache::tool_header_cache(server& srv)
    : srv_(srv), sink_(std::make_shared<probe_sink>()) {}

tool_header_cache::~tool_header_cache() {
  if (probe_) probe_->shutdown(std::chrono::milliseconds(0));
}

json tool_header_cache::call_locked(int id, const std::string& method, json params) {
  json req = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
  probe_->receive(req.dump());
  probe_->wait_idle();
  std::string frame = sink_->take();
  if (frame.empty()) return nullptr;
  json reply = json::parse(frame, nullptr, false);
  return reply.is_object() && reply.contains("result") ? reply["result"] : json(nullptr);
}

void tool_header_cache::rebuild_locked() {
  if (!probe_) {
    session_options so;
    so.transport = transport_kind::in_process;
    so.inline_dispatch = true;
    probe_.emplace(srv_.open_session(sink_, so));
    call_locked(1, "initialize",
                {{"protocolVersion", std::string(k_latest_legacy_version)},
                 {"capabilities", json::object()},
                 {"clientInfo", {{"name", "mcpcxx-http-header-probe"}, {"version", "1"}}}});
    probe_->receive(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  }
  sink_->stale_.store(false);
  tools_.clear();
  json params = json::object();
  for (int id = 2; id < 10000; ++id) {
    json result = call_locked(id, "tools/list", params);
    if (!result.is_object() || !result.contains("tools")) break;
    for (const auto& t : result["tools"]) {
      if (!t.is_object() || !t.contains("name") || !t["name"].is_string()) continue;
      tools_[t["name"].get<std::string>()] =
          collect_param_headers(t.value("inputSchema", json::object()));
    }
    if (!result.contains("nextCursor") || !result["nextCursor"].is_string()) break;
    params = {{"cursor", result["nextCursor"]}};
  }
  built_ = true;
}

std::vector<param_header> tool_header_cache::lookup(const std::string& tool) {
  std::lock_guard g(lock_);
  if (!built_ || sink_->stale_.load()) rebuild_locked();
  auto it = tools_.find(tool);
  if (it != tools_.end()) return it->second;
  // A tool added without a list_changed reaching us: re-list, at most once a second.
  auto now = std::chrono::steady_clock::now();
  if (now - last_miss_rebuild_ > std::chrono::seconds(1)) {
    last_miss_rebuild_ = now;
    rebuild_locked();
    it = tools_.find(tool);
    if (it != tools_.end()) return it->second;
  }
  return {};
}

}  // namespace mcpcxx::http
