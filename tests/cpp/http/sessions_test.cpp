// 1,000 legacy sessions created, expired and reaped, with the memory they hold bounded.
#include <fstream>
#include <set>
#include <unistd.h>

#include "http/fixture.hpp"

namespace mcpcxx::http_test {
namespace {

#if defined(__SANITIZE_ADDRESS__)
// ASan keeps freed memory in quarantine and shadows every allocation, so RSS says nothing there.
constexpr bool k_rss_meaningful = false;
#else
constexpr bool k_rss_meaningful = true;
#endif

std::size_t rss_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

TEST(HttpSessions, ThousandSessionsAreCreatedExpiredAndReaped) {
  http_options o;
  o.session_idle_timeout = std::chrono::milliseconds(200);
  http_fixture f(o);
  client c(f.port());
  const std::size_t rss_before = rss_bytes();
  std::set<std::string> ids;
  for (int i = 0; i < 1000; ++i) ids.insert(open_legacy_session(c));
  EXPECT_EQ(ids.size(), 1000u);
  http_stats full = f.http->stats();
  EXPECT_EQ(full.sessions + full.sessions_expired, 1000u);
  // Transport-side bookkeeping of an idle session: id, replay buffer, table entry.
  if (full.sessions > 0) {
    EXPECT_LT(full.session_bytes / full.sessions, 2048u) << full.session_bytes;
  }
  const std::size_t rss_full = rss_bytes();
  // Whole-process growth per idle session including the engine's state (generous bound that
  // also holds under the sanitizers).
  if (k_rss_meaningful) {
    EXPECT_LT((rss_full > rss_before ? rss_full - rss_before : 0) / 1000, 64u * 1024u);
  }

  ASSERT_TRUE(eventually([&] { return f.http->stats().sessions == 0; }));
  EXPECT_TRUE(eventually([&] { return f.http->stats().sessions_expired == 1000u; }))
      << f.http->stats().sessions_expired;
  reply gone = c.post(legacy_call(2, "echo"), legacy_headers(*ids.begin()));
  EXPECT_EQ(gone.status, 404) << "an expired session id is unknown";
  // The same amount of churn again must not keep growing the process.
  for (int i = 0; i < 1000; ++i) open_legacy_session(c);
  ASSERT_TRUE(eventually([&] { return f.http->stats().sessions == 0; }));
  const std::size_t rss_after = rss_bytes();
  if (k_rss_meaningful) {
    EXPECT_LT(rss_after > rss_full ? rss_after - rss_full : 0, 32u * 1024u * 1024u);
  }
}

TEST(HttpSessions, ActiveSessionsAreNotReaped) {
  http_options o;
  o.session_idle_timeout = std::chrono::milliseconds(100);
  http_fixture f(o);
  client c(f.port());
  std::string sid = open_legacy_session(c);
  client stream(f.port());
  stream.send_raw(client::request("GET", "/mcp", legacy_headers(sid), ""));
  ASSERT_EQ(stream.read_head().status, 200);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // longer than the idle timeout
  EXPECT_EQ(f.http->reap_idle_sessions(), 0u) << "an open GET stream keeps the session";
  EXPECT_EQ(f.http->stats().sessions, 1u);
  stream.close();
  EXPECT_TRUE(eventually([&] { return f.http->stats().sessions == 0; }));
}

}  // namespace
}  // namespace mcpcxx::http_test
