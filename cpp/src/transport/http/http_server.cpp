// http_server: the acceptor, the I/O threads, the connection registry, the session reaper and
// the graceful stop sequence.
#include <cerrno>
#include <condition_variable>
#include <optional>
#include <stdexcept>
#include <thread>
#include <unordered_map>

#include <asio.hpp>

#include "mcpcxx/http.hpp"

#include "core/cpu_relax.hpp"
#include "transport/http/connection.hpp"
#include "transport/http/context.hpp"
#include "transport/http/endpoint.hpp"
#include "transport/http/io_loop.hpp"

namespace mcpcxx {

http_auth_result http_auth_result::allow(json principal) {
  http_auth_result r;
  r.status = failure::none;
  r.principal = std::move(principal);
  return r;
}

http_auth_result http_auth_result::invalid(std::string description) {
  http_auth_result r;
  r.status = failure::invalid_token;
  r.description = std::move(description);
  return r;
}

http_auth_result http_auth_result::unavailable(std::string description) {
  http_auth_result r;
  r.status = failure::unavailable;
  r.description = std::move(description);
  return r;
}

http_auth_result http_auth_result::insufficient(std::vector<std::string> required,
                                                std::string description) {
  http_auth_result r;
  r.status = failure::insufficient_scope;
  r.scopes = std::move(required);
  r.description = std::move(description);
  return r;
}

namespace detail {

class http_server_impl {
 public:
  http_server_impl(server& srv, http_options opts)
      : ctx_(std::make_shared<http::transport_context>(srv, std::move(opts))),
        endpoint_(ctx_),
        acceptor_(io_),
        reaper_(io_),
        accept_backoff_(io_) {}

  void start();
  void stop(std::chrono::milliseconds grace);
  void wait();
  std::uint16_t port() const { return port_; }
  std::chrono::milliseconds drain_grace() const { return ctx_->opts.drain_grace; }
  http_stats stats() const;
  std::size_t reap();

 private:
  std::shared_ptr<http::transport_context> ctx_;
  http::endpoint endpoint_;
  asio::io_context io_;
  asio::ip::tcp::acceptor acceptor_;
  asio::steady_timer reaper_;
  asio::steady_timer accept_backoff_;
  std::chrono::milliseconds backoff_{0};  // 0: not in an out-of-descriptors episode
  std::uint64_t episode_failures_ = 0;
  std::size_t connection_cap_ = 0;
  // Keeps run() going until stop() has let every connection close.
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_;
  std::vector<std::thread> threads_;
  std::uint16_t port_ = 0;
  mutable std::mutex lock_;
  std::condition_variable stopped_cv_;
  bool started_ = false;
  bool stopped_ = false;
  bool stop_begun_ = false;
  std::unordered_map<http::connection*, std::weak_ptr<http::connection>> connections_;

  void do_accept();
  void on_accept(const asio::error_code& ec, asio::ip::tcp::socket socket);
  void admit(asio::ip::tcp::socket socket);
  bool evict_idle_locked();
  void back_off(const asio::error_code& ec);
  void schedule_reaper();
  void resolve_auth_urls();
  std::vector<std::shared_ptr<http::connection>> live_connections();
};

void http_server_impl::start() {
  {
    std::lock_guard g(lock_);
    if (started_) throw std::logic_error("http_server::start called twice");
    started_ = true;
  }
  asio::ip::tcp::endpoint ep(asio::ip::make_address(ctx_->opts.host), ctx_->opts.port);
  acceptor_.open(ep.protocol());
  acceptor_.set_option(asio::ip::tcp::acceptor::reuse_address(true));
  acceptor_.bind(ep);
  acceptor_.listen(asio::socket_base::max_listen_connections);
  port_ = acceptor_.local_endpoint().port();
  connection_cap_ = http::effective_connection_cap(ctx_->opts.max_connections);
  resolve_auth_urls();
  do_accept();
  schedule_reaper();
  work_.emplace(io_.get_executor());
  const http::reply_watch watch{ctx_->awaited_replies, ctx_->frames_posted, ctx_->reply_polling,
                                ctx_->opts.reply_poll, detail::spare_cpus()};
  for (std::size_t i = 0; i < ctx_->opts.io_threads; ++i) {
    threads_.emplace_back([this, watch] { http::run_io_thread(io_, watch); });
  }
}

void http_server_impl::resolve_auth_urls() {
  if (!ctx_->opts.auth) return;
  std::string host = ctx_->opts.host.find(':') != std::string::npos ? "[" + ctx_->opts.host + "]"
                                                                    : ctx_->opts.host;
  std::string base = "http://" + host + ":" + std::to_string(port_);
  ctx_->resource =
      ctx_->opts.auth->resource.empty() ? base + ctx_->opts.path : ctx_->opts.auth->resource;
  ctx_->resource_metadata_url =
      ctx_->opts.auth->resource_metadata_url.empty()
          ? base + "/.well-known/oauth-protected-resource" + ctx_->opts.path
          : ctx_->opts.auth->resource_metadata_url;
}

void http_server_impl::do_accept() {
  acceptor_.async_accept(io_, [this](const asio::error_code& ec, asio::ip::tcp::socket socket) {
    on_accept(ec, std::move(socket));
  });
}

namespace {

// Per-process descriptor exhaustion: retrying at once spins (tens of thousands of failed accepts
// a second) while nothing frees a descriptor.
bool out_of_descriptors(const asio::error_code& ec) {
  int v = ec.value();
  return ec.category() == asio::error::get_system_category() &&
         (v == EMFILE || v == ENFILE || v == ENOBUFS || v == ENOMEM);
}

}  // namespace

void http_server_impl::on_accept(const asio::error_code& ec, asio::ip::tcp::socket socket) {
  if (ec == asio::error::operation_aborted || !acceptor_.is_open()) return;
  if (ec && out_of_descriptors(ec)) return back_off(ec);
  if (!ec) {
    if (backoff_.count() > 0) {
      ctx_->log_event(
          "info", "http_accept_resumed",
          {{"failed_accepts", episode_failures_}, {"connections", stats().connections}});
      backoff_ = std::chrono::milliseconds(0);
      episode_failures_ = 0;
    }
    admit(std::move(socket));
  }
  do_accept();
}

void http_server_impl::back_off(const asio::error_code& ec) {
  ++ctx_->accept_failures;
  ++episode_failures_;
  if (backoff_.count() == 0) {
    // One line per episode, not one per failed accept.
    ctx_->log_event("warning", "http_accept_backoff",
                    {{"error", ec.message()},  // wire-text: not wire (a log member)
                     {"connections", stats().connections},
                     {"retry_ms", ctx_->opts.accept_backoff_min.count()}});
    backoff_ = ctx_->opts.accept_backoff_min;
  } else {
    backoff_ = std::min(backoff_ * 2, ctx_->opts.accept_backoff_max);
  }
  accept_backoff_.expires_after(backoff_);
  accept_backoff_.async_wait([this](const asio::error_code& wec) {
    if (!wec && acceptor_.is_open()) do_accept();
  });
}

void http_server_impl::admit(asio::ip::tcp::socket socket) {
  std::shared_ptr<http::connection> conn;
  {
    std::lock_guard g(lock_);
    bool room = connections_.size() < connection_cap_ || evict_idle_locked();
    if (!room || ctx_->stopping.load()) {
      ++ctx_->rejected_connections;
      asio::error_code ignored;
      socket.close(ignored);
      return;
    }
    conn = std::make_shared<http::connection>(io_, std::move(socket), *ctx_, endpoint_,
                                              [this](http::connection* c) {
                                                std::lock_guard g2(lock_);
                                                connections_.erase(c);
                                              });
    connections_.emplace(conn.get(), conn);
  }
  conn->start();
}

// At the cap a new client takes the place of the connection that holds a slot without work:
// the longest-idle keep-alive connection first, else the oldest that never sent a byte. The
// victim closes on its strand (if it is still idle), so the count may pass the cap by the
// connections being evicted.
bool http_server_impl::evict_idle_locked() {
  std::shared_ptr<http::connection> victim;
  std::pair<int, std::int64_t> best{3, 0};
  for (auto& [p, w] : connections_) {
    auto c = w.lock();
    if (!c) continue;
    auto rank = c->eviction_rank();
    if (rank.first < best.first || (rank.first == best.first && rank.second < best.second)) {
      best = rank;
      victim = std::move(c);
    }
  }
  if (!victim || best.first > 1) return false;
  ++ctx_->evicted_connections;
  victim->evict();
  return true;
}

void http_server_impl::schedule_reaper() {
  auto period = std::clamp(ctx_->opts.session_idle_timeout / 4, std::chrono::milliseconds(10),
                           std::chrono::milliseconds(60000));
  reaper_.expires_after(period);
  reaper_.async_wait([this](const asio::error_code& ec) {
    if (ec || ctx_->stopping.load()) return;
    reap();
    schedule_reaper();
  });
}

std::size_t http_server_impl::reap() {
  auto expired = ctx_->sessions.take_expired(ctx_->opts.session_idle_timeout);
  // Counted before the engines shut down: stats never show a session as neither live nor expired.
  ctx_->sessions_expired += expired.size();
  for (auto& s : expired) {
    s->close_get();
    s->engine().shutdown(std::chrono::milliseconds(0));
  }
  return expired.size();
}

std::vector<std::shared_ptr<http::connection>> http_server_impl::live_connections() {
  std::lock_guard g(lock_);
  std::vector<std::shared_ptr<http::connection>> out;
  for (auto& [p, w] : connections_) {
    if (auto c = w.lock()) out.push_back(std::move(c));
  }
  return out;
}

void http_server_impl::stop(std::chrono::milliseconds grace) {
  {
    std::lock_guard g(lock_);
    if (!started_ || stop_begun_) return;
    stop_begun_ = true;
  }
  auto deadline = std::chrono::steady_clock::now() + grace;
  ctx_->stopping.store(true);
  asio::post(io_, [this] {
    asio::error_code ignored;
    acceptor_.close(ignored);
    reaper_.cancel();
    accept_backoff_.cancel();
  });
  for (auto& c : live_connections()) c->drain();
  ctx_->refuse_unstarted();  // at once: a request queued now must not start while we stop
  ctx_->end_listens();
  bool drained = ctx_->wait_exchanges(deadline);
  ctx_->cancel_exchanges(drained ? std::chrono::milliseconds(0) : std::chrono::milliseconds(100));
  ctx_->followers.stop();
  for (auto& s : ctx_->sessions.take_all()) {
    s->close_get();
    s->engine().shutdown(std::chrono::milliseconds(0));
  }
  // Flush what was answered (the 503s of cut-off requests), bounded by stop_flush_timeout; then
  // close the rest. Every close handler must run before the loop ends: it detaches the
  // connection from the reply channels that engine threads may still hold.
  for (auto& c : live_connections()) c->close_when_flushed();
  auto flush_deadline = std::chrono::steady_clock::now() + ctx_->opts.stop_flush_timeout;
  bool forced = false;
  auto close_deadline = flush_deadline + std::chrono::seconds(5);
  while (std::chrono::steady_clock::now() < close_deadline) {
    {
      std::lock_guard g(lock_);
      std::erase_if(connections_, [](const auto& e) { return e.second.expired(); });
      if (connections_.empty()) break;
    }
    if (!forced && std::chrono::steady_clock::now() >= flush_deadline) {
      forced = true;
      for (auto& c : live_connections()) c->force_close();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  work_.reset();
  asio::post(io_, [this] { io_.stop(); });
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  {
    std::lock_guard g(lock_);
    connections_.clear();
    stopped_ = true;
  }
  stopped_cv_.notify_all();
}

void http_server_impl::wait() {
  std::unique_lock g(lock_);
  stopped_cv_.wait(g, [&] { return stopped_ || !started_; });
}

http_stats http_server_impl::stats() const {
  http_stats s;
  {
    std::lock_guard g(lock_);
    s.connections = connections_.size();
  }
  s.sessions = ctx_->sessions.size();
  s.session_bytes = ctx_->sessions.bytes();
  s.requests = ctx_->requests.load();
  s.rejected_connections = ctx_->rejected_connections.load();
  s.sessions_expired = ctx_->sessions_expired.load();
  s.accept_failures = ctx_->accept_failures.load();
  s.write_timeouts = ctx_->write_timeouts.load();
  s.exchanges = ctx_->live_exchanges.load();
  s.evicted_connections = ctx_->evicted_connections.load();
  s.connection_cap = connection_cap_;
  return s;
}

}  // namespace detail

http_server::http_server(server& srv, http_options options) {
  if (options.path.empty() || options.path.front() != '/') {
    throw std::invalid_argument("http_options.path must start with '/'");
  }
  if (options.io_threads == 0) throw std::invalid_argument("http_options.io_threads must be >= 1");
  if (options.metrics && (options.metrics_path.empty() || options.metrics_path.front() != '/' ||
                          options.metrics_path == options.path)) {
    throw std::invalid_argument(
        "http_options.metrics_path must start with '/' and differ from http_options.path");
  }
  if (options.reply_poll < std::chrono::microseconds(0) ||
      options.reply_poll > http::k_max_reply_poll) {
    throw std::invalid_argument(
        "http_options.reply_poll must be between 0 and 10 ms: longer polling would hold a CPU "
        "for every awaited reply; 0 turns polling off");
  }
  if (options.max_connections == 0) {
    throw std::invalid_argument("http_options.max_connections must be >= 1");
  }
  if (options.accept_backoff_min.count() < 1 ||
      options.accept_backoff_max < options.accept_backoff_min) {
    throw std::invalid_argument(
        "http_options.accept_backoff_min must be >= 1 ms and <= accept_backoff_max");
  }
  if (options.auth && !options.auth->verifier) {
    throw std::invalid_argument("http_options.auth needs a verifier");
  }
  if (options.auth && options.auth->authorization_servers.empty()) {
    throw std::invalid_argument("http_options.auth needs at least one authorization server");
  }
  if (options.auth) http::check_identity_claims(*options.auth);
  srv.use_store(options.store);  // before the transport's stores are chosen from it
  impl_ = std::make_unique<detail::http_server_impl>(srv, std::move(options));
}

http_server::~http_server() { impl_->stop(std::chrono::milliseconds(0)); }

void http_server::start() { impl_->start(); }
std::uint16_t http_server::port() const { return impl_->port(); }
void http_server::stop(std::chrono::milliseconds grace) { impl_->stop(grace); }
void http_server::wait() { impl_->wait(); }
void http_server::drain() { impl_->stop(impl_->drain_grace()); }
http_stats http_server::stats() const { return impl_->stats(); }
std::size_t http_server::reap_idle_sessions() { return impl_->reap(); }

}  // namespace mcpcxx
