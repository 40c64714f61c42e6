// serve_http: a refused option or a failed start throws, and leaves the calling thread's signal
// mask as it was. (It blocks SIGINT and SIGTERM while serving; a thread left blocking them never
// stops on Ctrl-C again, and every process it spawns inherits the block.)
#include <chrono>
#include <pthread.h>
#include <signal.h>
#include <stdexcept>
#include <sys/socket.h>
#include <system_error>

#include <gtest/gtest.h>

#include "mcpcxx/http.hpp"
#include "mcpcxx/server.hpp"

namespace mcpcxx {
namespace {

bool blocked(int signo) {
  sigset_t now;
  pthread_sigmask(SIG_BLOCK, nullptr, &now);
  return sigismember(&now, signo) == 1;
}

TEST(ServeHttp, ARefusedOptionLeavesTheSignalMaskAsItWas) {
  ASSERT_FALSE(blocked(SIGTERM));
  ASSERT_FALSE(blocked(SIGINT));
  server srv;
  http_options o;
  o.port = 0;
  o.reply_poll = std::chrono::milliseconds(20);  // over the 10 ms cap: the constructor refuses
  EXPECT_THROW(serve_http(srv, o), std::invalid_argument);
  EXPECT_FALSE(blocked(SIGTERM)) << "serve_http left SIGTERM blocked after a refused option";
  EXPECT_FALSE(blocked(SIGINT)) << "serve_http left SIGINT blocked after a refused option";
}

TEST(ServeHttp, AFailedStartLeavesTheSignalMaskAsItWas) {
  server srv;
  http_server holder(srv, http_options{.port = 0});
  holder.start();
  http_options o;
  o.port = holder.port();  // in use: start() throws
  EXPECT_THROW(serve_http(srv, o), std::system_error);
  EXPECT_FALSE(blocked(SIGTERM));
  EXPECT_FALSE(blocked(SIGINT));
  holder.stop(std::chrono::milliseconds(0));
}

// A mask the caller chose itself stays chosen: serve_http restores it, it does not clear it.
TEST(ServeHttp, TheCallersOwnBlockedSignalsStayBlocked) {
  sigset_t mine;
  sigemptyset(&mine);
  sigaddset(&mine, SIGTERM);
  sigset_t before;
  pthread_sigmask(SIG_BLOCK, &mine, &before);
  server srv;
  http_options o;
  o.reply_poll = std::chrono::milliseconds(20);
  EXPECT_THROW(serve_http(srv, o), std::invalid_argument);
  EXPECT_TRUE(blocked(SIGTERM));
  EXPECT_FALSE(blocked(SIGINT));
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
}

}  // namespace
}  // namespace mcpcxx
