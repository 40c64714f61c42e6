// Careless and hostile clients under load: descriptor exhaustion at accept (back off, keep
// serving), the connection cap filled with silent connections (a real client is still served),
// slow readers versus clients that stop reading, and clients that half-close after sending.
#include <cerrno>
#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "http/fixture.hpp"

namespace mcpcxx::http_test {
namespace {

std::size_t open_descriptors() {
  std::size_t n = 0;
  if (DIR* d = ::opendir("/proc/self/fd")) {
    while (::readdir(d) != nullptr) ++n;
    ::closedir(d);
  }
  return n - 3;  // ".", ".." and the directory's own descriptor
}

std::size_t log_count(const tool_probe& p, const std::string& event) {
  auto& probe = const_cast<tool_probe&>(p);
  std::lock_guard g(probe.lock);
  return static_cast<std::size_t>(std::count_if(
      probe.log_lines.begin(), probe.log_lines.end(),
      [&](const std::string& l) { return l.find("\"" + event + "\"") != std::string::npos; }));
}

/// For the scope, leaves exactly `room` descriptor numbers free below RLIMIT_NOFILE: it lowers
/// the limit, takes every free number below it with /dev/null, then gives `room` of them back.
/// Counting open descriptors instead would miss holes and inherited descriptors numbered above
/// the limit, each of which leaves accept() room it must not have.
class descriptor_squeeze {
 public:
  explicit descriptor_squeeze(std::size_t room) {
    ::getrlimit(RLIMIT_NOFILE, &saved_);
    rlimit l = saved_;
    l.rlim_cur = std::min<rlim_t>(saved_.rlim_cur, open_descriptors() + room + 32);
    ::setrlimit(RLIMIT_NOFILE, &l);
    for (int fd; (fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;) taken_.push_back(fd);
    full_errno_ = errno;
    for (std::size_t i = 0; i < room && !taken_.empty(); ++i) {
      ::close(taken_.back());
      taken_.pop_back();
    }
  }
  ~descriptor_squeeze() {
    for (int fd : taken_) ::close(fd);
    ::setrlimit(RLIMIT_NOFILE, &saved_);
  }
  descriptor_squeeze(const descriptor_squeeze&) = delete;
  descriptor_squeeze& operator=(const descriptor_squeeze&) = delete;

  /// errno of the open() that found no free number (EMFILE when the squeeze worked).
  int full_errno() const { return full_errno_; }
  /// How many numbers the squeeze holds.
  std::size_t held() const { return taken_.size(); }

 private:
  rlimit saved_{};
  std::vector<int> taken_;
  int full_errno_ = 0;
};

TEST(HttpFaults, OutOfDescriptorsBacksOffAndKeepsServing) {
  http_fixture f;
  client open(f.port());  // connected before the limit: must keep being served
  auto r = modern_call(1, "echo", {{"text", "a"}});
  ASSERT_EQ(open.post(r.body, r.headers).status, 200);
  // Read the stats once with descriptors to spare: their first virtual call into the session
  // store makes UBSan check the vptr, which it does through a pipe(2); with none left it reports
  // a false "invalid vptr" (the -fsanitize=undefined build of this suite).
  ASSERT_EQ(f.http->stats().accept_failures, 0u);
  std::unique_ptr<client> waiting;
  {
    // Room for the client (its socket and its io_context's epoll, eventfd and timerfd), none for
    // accept.
    descriptor_squeeze squeeze(4);
    ASSERT_EQ(squeeze.full_errno(), EMFILE) << "the squeeze must end at the descriptor limit";
    ASSERT_GE(squeeze.held(), 1u) << "nothing was squeezed: accept would have room";
    waiting = std::make_unique<client>(f.port(), 3000);
    waiting->send_raw(client::request("POST", "/mcp", r.headers, r.body));
    ASSERT_TRUE(eventually([&] { return f.http->stats().accept_failures >= 1; }));
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    // Retrying at once fails thousands of times a second; backing off (50 ms doubling) a few.
    EXPECT_LE(f.http->stats().accept_failures, 10u);
    EXPECT_EQ(log_count(*f.probe, "http_accept_backoff"), 1u) << "logged once per episode";
    auto again = modern_call(2, "echo", {{"text", "b"}});
    EXPECT_EQ(open.post(again.body, again.headers).status, 200) << "open connections served";
  }
  reply late = waiting->read_reply();  // the limit is back: the waiting client is accepted
  EXPECT_EQ(late.status, 200) << late.body;
}

TEST(HttpFaults, SilentConnectionsGetTheHeaderTimeoutNotTheIdleTimeout) {
  http_options o;
  o.header_timeout = std::chrono::milliseconds(200);
  o.idle_timeout = std::chrono::milliseconds(60000);
  http_fixture f(o);
  client silent(f.port(), 3000);
  EXPECT_TRUE(silent.peer_closed()) << "closed after header_timeout (not after idle_timeout)";
  EXPECT_TRUE(eventually([&] { return f.http->stats().connections == 0; }));
}

TEST(HttpFaults, AtTheCapIdleConnectionsMakeRoomForANewClient) {
  http_options o;
  o.max_connections = 16;
  http_fixture f(o);  // default timeouts: nothing expires during the test
  std::vector<std::unique_ptr<client>> silent;
  silent.reserve(15);
  for (int i = 0; i < 15; ++i) silent.push_back(std::make_unique<client>(f.port(), 3000));
  client keep_alive(f.port(), 3000);  // served once, now idle between requests
  auto r = modern_call(1, "echo", {{"text", "a"}});
  ASSERT_EQ(keep_alive.post(r.body, r.headers).status, 200);
  ASSERT_TRUE(eventually([&] { return f.http->stats().connections == 16; }));
  for (int i = 0; i < 3; ++i) {  // each new client takes an idle connection's place
    client fresh(f.port(), 3000);
    auto call = modern_call(10 + i, "echo", {{"text", "new"}});
    reply a = fresh.post(call.body, call.headers);
    EXPECT_EQ(a.status, 200) << "client " << i << " refused at the cap";
  }
  EXPECT_GE(f.http->stats().evicted_connections, 1u);
  EXPECT_TRUE(keep_alive.peer_closed()) << "the idle keep-alive connection goes first";
  EXPECT_EQ(f.http->stats().rejected_connections, 0u);
}

TEST(HttpFaults, ConnectionCapStaysBelowTheDescriptorLimit) {
  http_options o;
  o.max_connections = 100000;
  http_fixture f(o);
  rlimit l{};
  ::getrlimit(RLIMIT_NOFILE, &l);
  EXPECT_LE(f.http->stats().connection_cap, static_cast<std::size_t>(l.rlim_cur) - 64);
}

std::unique_ptr<client> small_window_client(std::uint16_t port) {
  return std::make_unique<client>(port, 3000);
}

TEST(HttpFaults, SlowReaderIsServedAndAStoppedReaderIsCut) {
  http_options o;
  // A generous cut-off: on a loaded 2-core CI machine one 100 ms sleep can stretch past 300 ms,
  // and the test is about progress, not about how short the timeout may be.
  o.write_timeout = std::chrono::milliseconds(1500);
  o.idle_timeout = std::chrono::milliseconds(1500);
  http_fixture f(o);
  // 6 MB of text: more than the socket buffers hold (4 MiB send + the client's receive window).
  auto r = modern_call(1, "big", {{"bytes", std::size_t{6} * 1024u * 1024u}});
  {
    auto slow = small_window_client(f.port());
    slow->send_raw(client::request("POST", "/mcp", r.headers, r.body));
    reply head = slow->read_head();
    ASSERT_EQ(head.status, 200);
    std::size_t want = std::stoul(head.header("content-length"));
    std::string body;
    while (body.size() < want) {  // 512 KiB every 100 ms: slow, but never paused 1.5 s
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      std::string part;
      if (!slow->read_some(std::size_t{512} * 1024u, part)) break;
      body += part;
    }
    EXPECT_EQ(body.size(), want) << "a slow reader that keeps reading gets the whole reply";
  }
  EXPECT_EQ(f.http->stats().write_timeouts, 0u);
  {
    auto stopped = small_window_client(f.port());
    stopped->send_raw(client::request("POST", "/mcp", r.headers, r.body));
    ASSERT_TRUE(eventually([&] { return f.http->stats().write_timeouts == 1; }));
    EXPECT_TRUE(eventually([&] { return log_count(*f.probe, "http_write_timeout") == 1; }));
  }
}

TEST(HttpFaults, HalfClosedClientStillGetsItsResponse) {
  http_fixture f;
  client c(f.port());
  auto r = modern_call(1, "slow_short");
  c.send_raw(client::request("POST", "/mcp", r.headers, r.body));
  c.shutdown_send();
  reply a = c.read_reply();
  EXPECT_EQ(a.status, 200) << a.body;
  EXPECT_NE(a.body.find("finished"), std::string::npos) << a.body;
  // A client that really left is still noticed: its call is cancelled.
  {
    client gone(f.port());
    auto s = modern_call(2, "slow");
    gone.send_raw(client::request("POST", "/mcp", s.headers, s.body));
    ASSERT_TRUE(eventually([&] { return f.probe->slow_started.load() == 1; }));
    gone.close();
  }
  EXPECT_TRUE(eventually([&] { return f.probe->slow_cancelled.load() == 1; }));
}

TEST(HttpFaults, DrainAnswersCallsStillRunningWith503) {
  http_fixture f;
  client legacy(f.port(), 5000);
  std::string sid = open_legacy_session(legacy);
  client modern_client(f.port(), 5000);
  auto m = modern_call(1, "stubborn");  // ignores cancellation, like a blocking Python tool
  modern_client.send_raw(client::request("POST", "/mcp", m.headers, m.body));
  legacy.send_raw(client::request("POST", "/mcp", legacy_headers(sid), legacy_call(2, "stubborn")));
  ASSERT_TRUE(eventually([&] { return f.http->stats().exchanges == 2; }));
  std::thread stopper([&] { f.http->stop(std::chrono::milliseconds(100)); });
  reply a = modern_client.read_reply();
  reply b = legacy.read_reply();
  stopper.join();
  EXPECT_EQ(a.status, 503) << a.body;
  EXPECT_EQ(a.json_body()["id"], 1) << a.body;
  EXPECT_EQ(b.status, 503) << b.body;
  EXPECT_EQ(b.json_body()["id"], 2) << b.body;
}

TEST(HttpFaults, ClientDisconnectMidCallDropsTheReplyWithoutLeaks) {
  http_fixture f;
  {
    client c(f.port());
    std::string sid = open_legacy_session(c);
    c.send_raw(client::request("POST", "/mcp", legacy_headers(sid), legacy_call(3, "slow_short")));
    ASSERT_TRUE(eventually([&] { return f.http->stats().exchanges == 1; }));
    c.close();
  }
  EXPECT_TRUE(eventually([&] { return log_count(*f.probe, "http_reply_dropped") == 1; }));
  EXPECT_TRUE(eventually([&] { return f.http->stats().exchanges == 0; }));
  EXPECT_TRUE(eventually([&] { return f.http->stats().connections == 0; }));
  client ok(f.port());
  auto r = modern_call(4, "echo", {{"text", "x"}});
  EXPECT_EQ(ok.post(r.body, r.headers).status, 200);
}

TEST(HttpFaults, ResumingACancelledStreamEndsWithItsRow) {
  http_fixture f;
  client c(f.port(), 5000);
  std::string sid = open_legacy_session(c);
  c.send_raw(
      client::request("POST", "/mcp", legacy_headers(sid),
                      legacy_call(9, "notify_slow", json::object(), {{"progressToken", "t"}})));
  ASSERT_EQ(c.read_head().status, 200);
  auto first = c.next_chunk();  // the priming event
  ASSERT_TRUE(first.has_value());
  std::string id = first->substr(4, first->find('\n') - 4);
  client other(f.port(), 5000);
  EXPECT_EQ(
      other
          .post(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}})",
                legacy_headers(sid))
          .status,
      202);
  while (c.next_chunk()) {
  }
  auto h = legacy_headers(sid);
  h.push_back("Last-Event-ID: " + id);
  other.send_raw(client::request("GET", "/mcp", h, ""));
  reply resumed = other.read_reply();
  ASSERT_TRUE(resumed.ok) << "the resumed stream must end, not hang";
  auto events = resumed.events();
  ASSERT_FALSE(events.empty()) << resumed.body;
  json last = json::parse(events.back());
  EXPECT_EQ(last["id"], 9) << events.back();
  EXPECT_NE(last["error"]["message"].get<std::string>().find("Request cancelled"),
            std::string::npos);
}

}  // namespace
}  // namespace mcpcxx::http_test
