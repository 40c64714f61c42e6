// http_options::reply_poll: an idle I/O thread polls for an awaited reply before it sleeps. The
// wire is the same with polling on or off; the loop never outlives stop() and never polls
// without bound when a reply does not come.
#include <ctime>
#include <functional>
#include <future>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>

#include "mcpcxx/http_json.hpp"

#include "http/fixture.hpp"
#include "transport/http/io_loop.hpp"

namespace mcpcxx::http_test {
namespace {

using std::chrono::microseconds;
using ::testing::HasSubstr;

http_options polling(microseconds poll, std::size_t io_threads = 1) {
  http_options o;
  o.reply_poll = poll;
  o.io_threads = io_threads;
  return o;
}

std::string call_text(client& c, int id, const std::string& tool, json args = json::object()) {
  auto call = modern_call(id, tool, std::move(args));
  const reply r = c.post(call.body, call.headers);
  EXPECT_EQ(r.status, 200) << r.body;
  return r.json_body()["result"]["content"][0]["text"].get<std::string>();
}

TEST(HttpReplyPoll, OutOfRangeDurationsAreRefusedWithTheRange) {
  server s(server_options{});
  for (auto bad : {microseconds(-1), microseconds(10001), microseconds(1000000)}) {
    try {
      http_server h(s, polling(bad));
      ADD_FAILURE() << "reply_poll " << bad.count() << " us was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_THAT(e.what(), HasSubstr("reply_poll must be between 0 and 10 ms")) << e.what();
    }
  }
  for (auto good : {microseconds(0), microseconds(50), microseconds(10000)}) {
    EXPECT_NO_THROW(http_server(s, polling(good))) << good.count() << " us";
  }
}

TEST(HttpReplyPoll, JsonFormIsSecondsAndRoundTrips) {
  const auto o = json{{"reply_poll", 0.000125}}.get<http_options>();
  EXPECT_EQ(o.reply_poll, microseconds(125));
  EXPECT_EQ(json(http_options{})["reply_poll"], 0.00005);
  EXPECT_EQ(json(o).get<http_options>().reply_poll, microseconds(125));
  try {
    (void)json{{"reply_poll", -0.001}}.get<http_options>();
    ADD_FAILURE() << "a negative reply_poll was accepted";
  } catch (const std::exception& e) {
    EXPECT_THAT(e.what(), HasSubstr("'reply_poll' must be a number of seconds >= 0"));
  }
}

// Sequential quick calls (the polled path), a call slower than the longest poll (the poll gives
// up and the thread sleeps until the reply wakes it), with polling off, default and at its cap,
// on one and two I/O threads.
TEST(HttpReplyPoll, CallsAreAnsweredWithPollingOffDefaultAndAtItsCap) {
  for (auto poll : {microseconds(0), http_options{}.reply_poll, microseconds(10000)}) {
    for (std::size_t threads : {1U, 2U}) {
      SCOPED_TRACE(std::to_string(poll.count()) + " us, " + std::to_string(threads) + " threads");
      http_fixture f(polling(poll, threads));
      client c(f.port());
      for (int i = 0; i < 20; ++i) {
        EXPECT_EQ(call_text(c, i, "echo", {{"text", "n" + std::to_string(i)}}),
                  "n" + std::to_string(i));
      }
      EXPECT_EQ(call_text(c, 99, "slow_short"), "finished");
      EXPECT_EQ(call_text(c, 100, "echo", {{"text", "after"}}), "after");
    }
  }
}

// More replies awaited than spare CPUs: no thread polls, every call is still answered.
TEST(HttpReplyPoll, ManyConcurrentCallsAreAllAnswered) {
  http_fixture f(polling(http_options{}.reply_poll, 2));
  constexpr int k_clients = 12;
  std::vector<std::future<int>> clients;
  clients.reserve(k_clients);
  for (int k = 0; k < k_clients; ++k) {
    clients.push_back(std::async(std::launch::async, [&f, k] {
      client c(f.port());
      int right = 0;
      for (int i = 0; i < 25; ++i) {
        const std::string text = std::to_string(k) + "/" + std::to_string(i);
        right += call_text(c, i, "echo", {{"text", text}}) == text ? 1 : 0;
      }
      return right;
    }));
  }
  for (auto& c : clients) EXPECT_EQ(c.get(), 25);
}

double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// The loop itself, without sockets: a reply is awaited for the whole test and never comes.
struct loop_rig {
  asio::io_context io;
  asio::executor_work_guard<asio::io_context::executor_type> work{io.get_executor()};
  std::atomic<std::size_t> awaited{1};
  std::atomic<std::uint64_t> posted{0};
  std::atomic<bool> polling{false};

  // Runs the loop on a thread; the future holds that thread's CPU time in ms when it returns.
  std::future<double> run(microseconds spin) {
    return std::async(std::launch::async, [this, spin] {
      http::run_io_thread(io, {awaited, posted, polling, spin, 4});
      return thread_cpu_ms();
    });
  }
};

TEST(HttpIoLoop, StopEndsTheLoopWhileRepliesAreStillAwaited) {
  loop_rig rig;
  auto done = rig.run(microseconds(10000));
  std::promise<void> ran;
  asio::post(rig.io, [&ran] { ran.set_value(); });
  ASSERT_EQ(ran.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);
  rig.io.stop();
  ASSERT_EQ(done.wait_for(std::chrono::seconds(10)), std::future_status::ready)
      << "the loop kept running after stop()";
  EXPECT_FALSE(rig.polling.load()) << "the polling claim was not given back";
}

// A reply that never comes costs at most one poll of `spin` per idle spell: over half a second
// of waiting, the thread sleeps, it does not poll throughout (that would use ~500 ms of CPU).
TEST(HttpIoLoop, PollingForAReplyThatNeverComesIsBounded) {
  loop_rig rig;
  auto done = rig.run(microseconds(10000));
  for (int i = 0; i < 5; ++i) {  // five idle spells, each started by a handler
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    asio::post(rig.io, [] {});
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  rig.io.stop();
  ASSERT_EQ(done.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_LT(done.get(), 250.0) << "ms of CPU over 600 ms of waiting for a reply";
}

// With nothing awaited, or more awaited than the spare CPUs, the loop never polls: an idle
// spell costs no CPU even with the longest poll.
TEST(HttpIoLoop, NothingAwaitedOrTooManyAwaitedMeansNoPolling) {
  for (std::size_t awaited : {0U, 5U}) {
    SCOPED_TRACE(std::to_string(awaited) + " awaited (4 spare CPUs)");
    loop_rig rig;
    rig.awaited = awaited;
    auto done = rig.run(microseconds(10000));
    for (int i = 0; i < 20; ++i) {  // twenty idle spells; polling each would cost 200 ms
      std::this_thread::sleep_for(std::chrono::milliseconds(15));
      asio::post(rig.io, [] {});
    }
    rig.io.stop();
    ASSERT_EQ(done.wait_for(std::chrono::seconds(10)), std::future_status::ready);
    EXPECT_LT(done.get(), 100.0) << "ms of CPU over 300 ms of idle spells";
  }
}

// Whether the loop is seen polling within about `window` after `handler` ran on it; several
// idle spells are tried, so a test thread descheduled for one spell cannot miss it.
bool seen_polling_after(loop_rig& rig, const std::function<void()>& handler,
                        std::chrono::milliseconds window) {
  for (int spell = 0; spell < 20; ++spell) {
    std::promise<void> ran;
    asio::post(rig.io, [&] {
      handler();
      ran.set_value();
    });
    ran.get_future().wait();
    const auto until = std::chrono::steady_clock::now() + window;
    while (std::chrono::steady_clock::now() < until) {
      if (rig.polling.load()) return true;
    }
  }
  return false;
}

// After a handler replied on the I/O thread itself (inline dispatch), the thread polls for the
// next request with nothing awaited; after any other handler, or a reply noted on another
// thread, it sleeps.
TEST(HttpIoLoop, AReplyMadeOnTheIoThreadIsFollowedByAPollForTheNextRequest) {
  loop_rig rig;
  rig.awaited = 0;
  auto done = rig.run(microseconds(10000));
  EXPECT_FALSE(seen_polling_after(
      rig, [] {}, std::chrono::milliseconds(10)));
  http::note_reply_here();  // this test's thread is no I/O thread: nothing changes
  EXPECT_FALSE(seen_polling_after(
      rig, [] {}, std::chrono::milliseconds(10)));
  EXPECT_TRUE(seen_polling_after(
      rig, [] { http::note_reply_here(); }, std::chrono::milliseconds(10)));
  rig.io.stop();
  ASSERT_EQ(done.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_FALSE(rig.polling.load()) << "the polling claim was not given back";
}

// That poll lasts one spell of `spin` per reply, not until the next request: five replies made
// on the I/O thread 100 ms apart cost about 50 ms of CPU, not 500.
TEST(HttpIoLoop, ThePollForTheNextRequestIsBounded) {
  loop_rig rig;
  rig.awaited = 0;
  auto done = rig.run(microseconds(10000));
  for (int i = 0; i < 5; ++i) {
    asio::post(rig.io, [] { http::note_reply_here(); });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  rig.io.stop();
  ASSERT_EQ(done.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_LT(done.get(), 250.0) << "ms of CPU over 500 ms after five replies";
}

}  // namespace
}  // namespace mcpcxx::http_test
