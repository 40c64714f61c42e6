// server::reload_skills: an edited tree is served with its new digests, and clients hear of it
// (resources/updated for a changed file, resources list_changed when the listing changed); a
// tree that no longer loads leaves the old one served.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <stdlib.h>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "support/collecting_sink.hpp"

namespace {

namespace fs = std::filesystem;
using mcpcxx::json;
using mcpcxx::server;
using mcpcxx::testing::harness;
using mcpcxx::testing::modern_request;
using mcpcxx::testing::request;

struct reload_tree {
  fs::path root;
  reload_tree() {
    std::string pattern = (fs::temp_directory_path() / "mcpcxx-skills-reload-XXXXXX").string();
    root = ::mkdtemp(pattern.data());
    write("notes/SKILL.md", "---\nname: notes\ndescription: Take notes\n---\n");
    write("notes/guide.md", "version one\n");
  }
  ~reload_tree() { fs::remove_all(root); }
  reload_tree(const reload_tree&) = delete;
  reload_tree& operator=(const reload_tree&) = delete;
  void write(const std::string& rel, const std::string& bytes) const {
    fs::create_directories((root / rel).parent_path());
    std::ofstream(root / rel, std::ios::binary | std::ios::trunc) << bytes;
  }
  std::string sha256sum(const std::string& rel) const {
    FILE* p = ::popen(("sha256sum '" + (root / rel).string() + "'").c_str(), "r");
    char buf[65] = {};
    const std::size_t n = p ? std::fread(buf, 1, 64, p) : 0;
    if (p) ::pclose(p);
    return "sha256:" + std::string(buf, n);
  }
};

// Waits up to 5 s for a notification `method` among the frames the session received.
json wait_for_notification(harness& h, const std::string& method) {
  for (int i = 0; i < 500; ++i) {
    for (const auto& f : h.sink->frames()) {
      if (f.frame.value("method", "") == method) return f.frame;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return nullptr;
}

mcpcxx::server_options reload_opts() {
  mcpcxx::server_options o;
  o.log_writer = [](std::string_view) {};
  o.worker_threads = 2;
  return o;
}

json guide_digest(harness& h, int id) {
  const json r = h.roundtrip(modern_request(id, "skills/get", {{"uri", "skill://notes/SKILL.md"}}));
  return r["result"]["skill"]["resources"][1]["digest"];
}

TEST(SkillsReload, AnEditedFileGetsANewDigestAndIsAnnounced) {
  reload_tree t;
  server srv(reload_opts());
  srv.add_skills(t.root.string());
  harness h(srv);
  h.initialize();
  const std::string guide = "skill://notes/guide.md";
  ASSERT_TRUE(h.roundtrip(request(1, "resources/subscribe", {{"uri", guide}})).contains("result"));
  const json before = guide_digest(h, 2);
  EXPECT_EQ(before, t.sha256sum("notes/guide.md"));
  h.sink->clear();

  t.write("notes/guide.md", "version two, longer\n");
  const mcpcxx::skills_changes changes = srv.reload_skills();
  EXPECT_EQ(changes.changed, std::vector<std::string>{guide});
  EXPECT_TRUE(changes.added.empty());
  EXPECT_TRUE(changes.removed.empty());
  EXPECT_EQ(changes.skills, 1u);
  const json updated = wait_for_notification(h, "notifications/resources/updated");
  ASSERT_FALSE(updated.is_null());
  EXPECT_EQ(updated["params"]["uri"], guide);
  // The size changed, so the resources/list entry did too.
  EXPECT_FALSE(wait_for_notification(h, "notifications/resources/list_changed").is_null());
  const json after = guide_digest(h, 3);
  EXPECT_NE(after, before);
  EXPECT_EQ(after, t.sha256sum("notes/guide.md"));
  const json read = h.roundtrip(request(4, "resources/read", {{"uri", guide}}));
  EXPECT_EQ(read["result"]["contents"][0]["text"], "version two, longer\n");
}

TEST(SkillsReload, AddedAndRemovedFilesChangeTheListing) {
  reload_tree t;
  server srv(reload_opts());
  srv.add_skills(t.root.string());
  harness h(srv);
  h.initialize();
  t.write("todo/SKILL.md", "---\nname: todo\ndescription: Track work\n---\n");
  fs::remove(t.root / "notes/guide.md");
  const auto changes = srv.reload_skills();
  EXPECT_EQ(changes.added, std::vector<std::string>{"skill://todo/SKILL.md"});
  EXPECT_EQ(changes.removed, std::vector<std::string>{"skill://notes/guide.md"});
  EXPECT_EQ(changes.skills, 2u);
  EXPECT_FALSE(wait_for_notification(h, "notifications/resources/list_changed").is_null());
  const json list = h.roundtrip(request(5, "skills/list"));
  ASSERT_EQ(list["result"]["skills"].size(), 2u);
  EXPECT_EQ(list["result"]["skills"][1]["uri"], "skill://todo/SKILL.md");
  EXPECT_EQ(h.roundtrip(
                request(6, "resources/read", {{"uri", "skill://notes/guide.md"}}))["error"]["code"],
            -32002);
}

TEST(SkillsReload, ATreeThatNoLongerLoadsKeepsTheOldOneServed) {
  reload_tree t;
  server srv(reload_opts());
  srv.add_skills(t.root.string());
  t.write("notes/SKILL.md", "---\nname: notes\n---\n");
  try {
    srv.reload_skills();
    ADD_FAILURE() << "a SKILL.md without description was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("/notes/SKILL.md: the frontmatter needs a non-empty "
                                         "'description'"),
              std::string::npos)
        << e.what();
  }
  harness h(srv);
  const json r =
      h.roundtrip(modern_request(1, "resources/read", {{"uri", "skill://notes/SKILL.md"}}));
  EXPECT_EQ(r["result"]["contents"][0]["text"], "---\nname: notes\ndescription: Take notes\n---\n");
  server fresh(reload_opts());
  EXPECT_THROW(fresh.reload_skills(), std::invalid_argument);
}

TEST(SkillsReload, UnchangedTreeAnnouncesNothing) {
  reload_tree t;
  server srv(reload_opts());
  srv.add_skills(t.root.string());
  const auto changes = srv.reload_skills();
  EXPECT_FALSE(changes.any());
  EXPECT_EQ(changes.skills, 1u);
}

}  // namespace
