// Test support: a frame sink that records frames and an in-process session harness.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "mcpcxx/mcpcxx.hpp"

namespace mcpcxx::testing {

/// Records every frame sent to it, thread-safely, and lets tests wait for a count.
class collecting_sink final : public frame_sink {
 public:
  void send(std::string frame, frame_kind kind) override {
    std::lock_guard lock(mutex_);
    frames_.push_back({json::parse(frame), kind});
    cv_.notify_all();
  }
  struct entry {
    json frame;
    frame_kind kind;
  };
  /// Waits until at least `n` frames arrived (or 10 s); returns a copy of all frames.
  std::vector<entry> wait_for(std::size_t n) {
    std::unique_lock lock(mutex_);
    cv_.wait_for(lock, std::chrono::seconds(10), [&] { return frames_.size() >= n; });
    return frames_;
  }
  std::vector<entry> frames() {
    std::lock_guard lock(mutex_);
    return frames_;
  }
  void clear() {
    std::lock_guard lock(mutex_);
    frames_.clear();
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<entry> frames_;
};

/// 2026-07-28 request _meta with empty client capabilities.
inline json modern_meta() {
  return {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
          {"io.modelcontextprotocol/clientCapabilities", json::object()}};
}

/// A modern request frame.
inline std::string modern_request(int id, const std::string& method, json params = json::object()) {
  params["_meta"] = modern_meta();
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}.dump();
}

/// A plain request frame (legacy era).
inline std::string request(int id, const std::string& method, json params = json::object()) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}.dump();
}

/// A session plus its sink, dispatching inline so replies exist when receive() returns.
struct harness {
  std::shared_ptr<collecting_sink> sink = std::make_shared<collecting_sink>();
  session s;
  explicit harness(server& srv, bool inline_dispatch = true)
      : s(srv.open_session(sink, {.inline_dispatch = inline_dispatch})) {}
  /// Sends `frame` and returns the last frame received (the reply, for inline requests).
  json roundtrip(const std::string& frame) {
    const std::size_t before = sink->frames().size();
    s.receive(frame);
    auto all = sink->wait_for(before + 1);
    return all.size() > before ? all.back().frame : json();
  }
  /// Performs a legacy initialize handshake with `version`.
  json initialize(const std::string& version = "2025-11-25") {
    json r = roundtrip(request(0, "initialize",
                               {{"protocolVersion", version},
                                {"capabilities", json::object()},
                                {"clientInfo", {{"name", "test"}, {"version", "1"}}}}));
    s.receive(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    return r;
  }
};

/// A server options object with a log writer that keeps lines for inspection.
struct captured_log {
  std::shared_ptr<std::mutex> mutex = std::make_shared<std::mutex>();
  std::shared_ptr<std::vector<std::string>> lines = std::make_shared<std::vector<std::string>>();
  server_options options() const {
    server_options o;
    auto m = mutex;
    auto l = lines;
    o.log_writer = [m, l](std::string_view line) {
      std::lock_guard lock(*m);
      l->emplace_back(line);
    };
    o.worker_threads = 2;
    return o;
  }
  std::vector<std::string> snapshot() const {
    std::lock_guard lock(*mutex);
    return *lines;
  }
};

}  // namespace mcpcxx::testing
