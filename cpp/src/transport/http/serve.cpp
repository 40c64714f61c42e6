// serve_http: run an http_server until SIGINT or SIGTERM, then stop gracefully.
#include <cstdio>
#include <pthread.h>
#include <signal.h>

#include "mcpcxx/http.hpp"

namespace mcpcxx {

int serve_http(server& srv, const http_options& options) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigset_t old;
  // Block before start() so the I/O threads inherit the mask and sigwait() sees the signal.
  pthread_sigmask(SIG_BLOCK, &set, &old);
  http_server http(srv, options);
  try {
    http.start();
  } catch (...) {
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    throw;
  }
  std::fprintf(stderr, "mcpcxx: serving MCP over HTTP at http://%s:%u%s\n", options.host.c_str(),
               static_cast<unsigned>(http.port()), options.path.c_str());
  int sig = 0;
  sigwait(&set, &sig);
  http.drain();
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return 0;
}

}  // namespace mcpcxx
