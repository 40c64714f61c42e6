// serve_http: run an http_server until SIGINT or SIGTERM, then stop gracefully.
#include <cstdio>
#include <cstdlib>
#include <pthread.h>
#include <signal.h>

#include "mcpcxx/http.hpp"

namespace mcpcxx {

namespace {

/// Blocks SIGINT and SIGTERM in the calling thread for its lifetime, so that the I/O threads
/// started meanwhile inherit the mask and sigwait() sees the signal; restores the caller's mask
/// on every path out, a refused option included (a thread left blocking them would never again
/// stop on Ctrl-C, nor would the processes it spawns).
class stop_signals_blocked {
 public:
  stop_signals_blocked() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set_, &old_);
  }
  ~stop_signals_blocked() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  stop_signals_blocked(const stop_signals_blocked&) = delete;
  stop_signals_blocked& operator=(const stop_signals_blocked&) = delete;

  /// Waits for one of the two signals; returns it.
  int wait() const {
    int sig = 0;
    sigwait(&set_, &sig);
    return sig;
  }

 private:
  sigset_t set_{};
  sigset_t old_{};
};

// http_options::store, else MCPCXX_STORE_URL (a deployment sets it per replica).
http_options with_store_from_env(http_options o) {
  if (o.store.empty()) {
    if (const char* url = std::getenv("MCPCXX_STORE_URL"); url != nullptr) o.store = url;
  }
  return o;
}

}  // namespace

int serve_http(server& srv, const http_options& given) {
  const http_options options = with_store_from_env(given);
  const stop_signals_blocked blocked;  // before the server: its threads inherit the mask
  http_server http(srv, options);
  http.start();
  std::fprintf(stderr, "mcpcxx: serving MCP over HTTP at http://%s:%u%s\n", options.host.c_str(),
               static_cast<unsigned>(http.port()), options.path.c_str());
  blocked.wait();
  http.drain();
  return 0;
}

}  // namespace mcpcxx
