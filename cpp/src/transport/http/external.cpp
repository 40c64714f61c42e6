// http_endpoint: the endpoint for requests parsed by another HTTP server (the ASGI adapter).
// The replies come out of the same reply_channel as on a socket; this target turns the
// serialized HTTP/1.1 bytes back into status, headers and body pieces for the foreign server.
#include <algorithm>
#include <cctype>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "mcpcxx/http.hpp"

#include "transport/http/context.hpp"
#include "transport/http/endpoint.hpp"
#include "transport/http/request_parser.hpp"

namespace mcpcxx {

namespace {

using header_pairs = std::vector<std::pair<std::string, std::string>>;

// Splits "HTTP/1.1 200 OK\r\nK: V\r\n...\r\n\r\nBODY"; drops the framing headers.
int parse_head(std::string_view bytes, header_pairs& headers, std::string_view& body) {
  std::size_t end = bytes.find("\r\n\r\n");
  std::string_view head = bytes.substr(0, end);
  body = end == std::string_view::npos ? std::string_view{} : bytes.substr(end + 4);
  int status = std::stoi(std::string(head.substr(9, 3)));
  std::size_t pos = head.find("\r\n");
  while (pos != std::string_view::npos && pos + 2 < head.size()) {
    std::size_t next = head.find("\r\n", pos + 2);
    std::string_view line =
        head.substr(pos + 2, next == std::string_view::npos ? next : next - pos - 2);
    pos = next;
    std::size_t colon = line.find(": ");
    if (colon == std::string_view::npos) continue;
    std::string name = http::lower_ascii(line.substr(0, colon));
    if (name == "content-length" || name == "transfer-encoding" || name == "connection") continue;
    headers.emplace_back(std::move(name), std::string(line.substr(colon + 2)));
  }
  return status;
}

// "hex\r\nPAYLOAD\r\n" -> PAYLOAD.
std::string unwrap_chunk(std::string_view c) {
  std::size_t eol = c.find("\r\n");
  if (eol == std::string_view::npos || c.size() < eol + 4) return {};
  return std::string(c.substr(eol + 2, c.size() - eol - 4));
}

class external_target : public http::reply_target, public http_exchange {
 public:
  explicit external_target(std::shared_ptr<http_response_sink> sink) : sink_(std::move(sink)) {}

  void deliver(std::uint64_t, std::string bytes, http::delivery kind, bool) override {
    std::lock_guard g(lock_);
    if (ended_) return;
    if (kind == http::delivery::head_of_stream) {
      header_pairs h;
      std::string_view body;
      int status = parse_head(bytes, h, body);
      streaming_ = true;
      sink_->start(status, std::move(h));
    } else if (kind == http::delivery::data) {
      sink_->write(unwrap_chunk(bytes));
    } else {
      ended_ = true;
      if (!streaming_) {
        header_pairs h;
        std::string_view body;
        int status = parse_head(bytes, h, body);
        sink_->start(status, std::move(h));
        if (!body.empty()) sink_->write(std::string(body));
      }
      sink_->end();
    }
  }

  void disconnected() override {
    std::shared_ptr<http::reply_channel> ch = channel_.lock();
    if (ch) ch->disconnected();
  }

  std::weak_ptr<http::reply_channel> channel_;

 private:
  std::mutex lock_;
  std::shared_ptr<http_response_sink> sink_;
  bool streaming_ = false;
  bool ended_ = false;
};

}  // namespace

struct http_endpoint::impl {
  std::shared_ptr<http::transport_context> ctx;
  http::endpoint ep;
  std::mutex lock;
  std::condition_variable cv;
  bool stopping = false;
  std::thread reaper;

  explicit impl(std::shared_ptr<http::transport_context> c) : ctx(c), ep(std::move(c)) {}
  ~impl() { stop_reaper(); }

  std::size_t reap() {
    auto expired = ctx->sessions.take_expired(ctx->opts.session_idle_timeout);
    // Counted before the engines shut down: stats never show a session as neither live nor expired.
    ctx->sessions_expired += expired.size();
    for (auto& s : expired) {
      s->close_get();
      s->engine().shutdown(std::chrono::milliseconds(0));
    }
    return expired.size();
  }
  void start_reaper() {
    auto period = std::clamp(ctx->opts.session_idle_timeout / 4, std::chrono::milliseconds(10),
                             std::chrono::milliseconds(60000));
    reaper = std::thread([this, period] {
      std::unique_lock g(lock);
      while (!cv.wait_for(g, period, [&] { return stopping; })) {
        g.unlock();
        reap();
        g.lock();
      }
    });
  }
  void stop_reaper() {
    {
      std::lock_guard g(lock);
      stopping = true;
    }
    cv.notify_all();
    if (reaper.joinable()) reaper.join();
  }
};

http_endpoint::http_endpoint(server& srv, http_options options) {
  if (options.path.empty() || options.path.front() != '/') {
    throw std::invalid_argument("http_options.path must start with '/'");
  }
  if (options.inline_dispatch) {
    throw std::invalid_argument(
        "http_options.inline_dispatch is for http_server only (Python: server.run(\"http\")): the "
        "requests of an http_endpoint (Python: MCPApp) arrive on another server's threads; "
        "leave it false");
  }
  if (options.auth &&
      (!options.auth->verifier || options.auth->authorization_servers.empty() ||
       options.auth->resource.empty() || options.auth->resource_metadata_url.empty())) {
    throw std::invalid_argument(
        "http_options.auth for an http_endpoint needs a verifier, an authorization server, "
        "resource and resource_metadata_url");
  }
  if (options.auth) http::check_identity_claims(*options.auth);
  auto ctx = std::make_shared<http::transport_context>(srv, std::move(options));
  if (ctx->opts.auth) {
    ctx->resource = ctx->opts.auth->resource;
    ctx->resource_metadata_url = ctx->opts.auth->resource_metadata_url;
  }
  impl_ = std::make_unique<impl>(std::move(ctx));
  impl_->start_reaper();
}

http_endpoint::~http_endpoint() { close(std::chrono::milliseconds(0)); }

std::shared_ptr<http_exchange> http_endpoint::handle(http_request_data data,
                                                     std::shared_ptr<http_response_sink> sink) {
  auto target = std::make_shared<external_target>(std::move(sink));
  auto channel = std::make_shared<http::reply_channel>(target, 1, true);
  target->channel_ = channel;
  if (data.body.size() > impl_->ctx->opts.max_body_bytes) {
    channel->send(http::row_response(
        {wire::situation::H21a_body_too_large, {{"limit", impl_->ctx->opts.max_body_bytes}}}));
    return target;
  }
  http::request req;
  req.method = std::move(data.method);
  req.target = std::move(data.target);
  req.body = std::move(data.body);
  for (auto& [k, v] : data.headers) {
    std::string_view value = v;
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
      value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    req.headers.emplace_back(http::lower_ascii(k), std::string(value));
  }
  impl_->ep.handle(std::move(req), channel);
  return target;
}

std::size_t http_endpoint::reap_idle_sessions() { return impl_->reap(); }

void http_endpoint::close(std::chrono::milliseconds grace) {
  impl_->stop_reaper();
  auto& ctx = *impl_->ctx;
  ctx.stopping.store(true);
  bool drained = ctx.wait_exchanges(std::chrono::steady_clock::now() + grace);
  ctx.cancel_exchanges(drained ? std::chrono::milliseconds(0) : std::chrono::milliseconds(100));
  ctx.followers.stop();
  for (auto& s : ctx.sessions.take_all()) {
    s->close_get();
    s->engine().shutdown(std::chrono::milliseconds(0));
  }
}

http_stats http_endpoint::stats() const {
  http_stats s;
  s.sessions = impl_->ctx->sessions.size();
  s.session_bytes = impl_->ctx->sessions.bytes();
  s.requests = impl_->ctx->requests.load();
  s.sessions_expired = impl_->ctx->sessions_expired.load();
  return s;
}

}  // namespace mcpcxx
