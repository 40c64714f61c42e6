// server::add_skills end to end through a session: the advertised extension, skills/list paging
// and cache hints, skills/get, resources/read of skill files (and traversal attempts refused),
// resources/directory/read, and reload_skills announcing what changed.
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
using mcpcxx::skills_options;
using mcpcxx::testing::harness;
using mcpcxx::testing::modern_request;
using mcpcxx::testing::request;

class skills_dir {
 public:
  skills_dir() {
    std::string pattern = (fs::temp_directory_path() / "mcpcxx-skills-srv-XXXXXX").string();
    root_ = ::mkdtemp(pattern.data());
    write("git-workflow/SKILL.md",
          "---\nname: git-workflow\ndescription: Follow the Git conventions\n---\n# Git\n");
    write("git-workflow/templates/commit.md", "area: what\n");
    write("acme/refunds/SKILL.md", "---\nname: refunds\ndescription: Refund requests\n---\n");
    write("acme/refunds/logo.bin", std::string("\x00\xff\x10", 3));
  }
  ~skills_dir() { fs::remove_all(root_); }
  skills_dir(const skills_dir&) = delete;
  skills_dir& operator=(const skills_dir&) = delete;
  std::string root() const { return root_.string(); }
  void write(const std::string& rel, const std::string& bytes) const {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel, std::ios::binary) << bytes;
  }
  std::string sha256sum(const std::string& rel) const {
    FILE* p = ::popen(("sha256sum '" + (root_ / rel).string() + "'").c_str(), "r");
    char buf[65] = {};
    const std::size_t n = p ? std::fread(buf, 1, 64, p) : 0;
    if (p) ::pclose(p);
    return "sha256:" + std::string(buf, n);
  }

 private:
  fs::path root_;
};

mcpcxx::server_options server_opts(std::size_t page_size = 100) {
  mcpcxx::server_options o;
  o.log_writer = [](std::string_view) {};
  o.page_size = page_size;
  o.worker_threads = 2;
  return o;
}

skills_options with_directories() {
  skills_options o;
  o.directory_read = true;
  return o;
}

TEST(SkillsServer, AdvertisesTheExtensionAndResources) {
  skills_dir d;
  server srv(server_opts());
  srv.add_skills(d.root(), with_directories());
  const json caps = srv.capabilities();
  EXPECT_EQ(caps["extensions"]["io.modelcontextprotocol/skills"], json({{"directoryRead", true}}));
  EXPECT_TRUE(caps.contains("resources"));
  harness h(srv);
  const json list = h.roundtrip(modern_request(1, "resources/list"));
  EXPECT_EQ(list["result"]["resources"].size(), 4u);
  const json& skill_md = list["result"]["resources"][0];
  EXPECT_EQ(skill_md["uri"], "skill://acme/refunds/SKILL.md");
  EXPECT_EQ(skill_md["name"], "refunds");
  EXPECT_EQ(skill_md["description"], "Refund requests");
  EXPECT_EQ(skill_md["mimeType"], "text/markdown");
}

TEST(SkillsServer, WithoutSkillsTheMethodsAreNotServed) {
  server srv(server_opts());
  harness h(srv);
  const json r = h.roundtrip(modern_request(1, "skills/list"));
  EXPECT_EQ(r["error"]["code"], -32601);
}

TEST(SkillsServer, SkillsListPagesWithCursorsAndCarriesCacheHints) {
  skills_dir d;
  server srv(server_opts(1));
  skills_options o;
  o.ttl_ms = 300000;
  srv.add_skills(d.root(), o);
  harness h(srv);
  const json first = h.roundtrip(modern_request(1, "skills/list"));
  ASSERT_TRUE(first.contains("result")) << first;
  EXPECT_EQ(first["result"]["resultType"], "complete");
  EXPECT_EQ(first["result"]["ttlMs"], 300000);
  EXPECT_EQ(first["result"]["cacheScope"], "public");
  ASSERT_EQ(first["result"]["skills"].size(), 1u);
  EXPECT_EQ(first["result"]["skills"][0]["uri"], "skill://acme/refunds/SKILL.md");
  const json cursor = first["result"]["nextCursor"];
  ASSERT_TRUE(cursor.is_string());
  const json second = h.roundtrip(modern_request(2, "skills/list", {{"cursor", cursor}}));
  EXPECT_EQ(second["result"]["skills"][0]["uri"], "skill://git-workflow/SKILL.md");
  EXPECT_FALSE(second["result"].contains("nextCursor"));
  const json bad = h.roundtrip(modern_request(3, "skills/list", {{"cursor", "bogus"}}));
  EXPECT_EQ(bad["error"]["code"], -32602);
  EXPECT_NE(bad["error"]["message"].get<std::string>().find("cursor"), std::string::npos);
}

TEST(SkillsServer, SkillsGetReturnsTheManifestOrP61) {
  skills_dir d;
  server srv(server_opts());
  srv.add_skills(d.root());
  harness h(srv);
  const json r =
      h.roundtrip(modern_request(1, "skills/get", {{"uri", "skill://git-workflow/SKILL.md"}}));
  const json& skill = r["result"]["skill"];
  EXPECT_EQ(skill["frontmatter"]["name"], "git-workflow");
  ASSERT_EQ(skill["resources"].size(), 2u);
  EXPECT_EQ(skill["resources"][1]["uri"], "skill://git-workflow/templates/commit.md");
  EXPECT_EQ(skill["resources"][1]["digest"], d.sha256sum("git-workflow/templates/commit.md"));
  EXPECT_EQ(skill["resources"][1]["size"], 11);
  EXPECT_TRUE(r["result"].contains("ttlMs"));
  const json unknown = h.roundtrip(
      modern_request(2, "skills/get", {{"uri", "skill://git-workflow/templates/commit.md"}}));
  EXPECT_EQ(unknown["error"]["code"], -32602);
  EXPECT_EQ(unknown["error"]["message"],
            "Invalid params: no skill is served at skill://git-workflow/templates/commit.md; "
            "skills/get takes the URI of a skill's SKILL.md as skills/list gives it "
            "(skill://<skill-path>/SKILL.md)");
  const json missing = h.roundtrip(modern_request(3, "skills/get"));
  EXPECT_EQ(missing["error"]["code"], -32602);
}

TEST(SkillsServer, ResourcesReadServesTextAndBlobsAndRefusesTraversal) {
  skills_dir d;
  server srv(server_opts());
  srv.add_skills(d.root());
  harness h(srv);
  const json md =
      h.roundtrip(modern_request(1, "resources/read", {{"uri", "skill://git-workflow/SKILL.md"}}));
  EXPECT_EQ(md["result"]["contents"][0]["mimeType"], "text/markdown");
  EXPECT_EQ(md["result"]["contents"][0]["text"],
            "---\nname: git-workflow\ndescription: Follow the Git conventions\n---\n# Git\n");
  const json bin =
      h.roundtrip(modern_request(2, "resources/read", {{"uri", "skill://acme/refunds/logo.bin"}}));
  EXPECT_EQ(bin["result"]["contents"][0]["blob"], "AP8Q");
  int id = 10;
  for (const char* uri :
       {"skill://git-workflow/../acme/refunds/SKILL.md",
        "skill://git-workflow/%2e%2e/acme/refunds/SKILL.md",
        "skill://git-workflow/%2E%2E%2Facme%2Frefunds%2FSKILL.md", "skill:///etc/passwd",
        "skill://git-workflow/SKILL.md/../../../../etc/passwd", "skill://./git-workflow/SKILL.md",
        "skill://git-workflow//SKILL.md"}) {
    const json r = h.roundtrip(modern_request(id++, "resources/read", {{"uri", uri}}));
    EXPECT_EQ(r["error"]["code"], -32602) << uri;
    EXPECT_EQ(r["error"]["message"],
              std::string("Resource not found: ") + uri + ". List resources to see what exists");
  }
}

TEST(SkillsServer, DirectoryReadListsChildrenOnlyWhenEnabled) {
  skills_dir d;
  {
    server srv(server_opts());
    srv.add_skills(d.root());
    harness h(srv);
    const json r = h.roundtrip(
        modern_request(1, "resources/directory/read", {{"uri", "skill://git-workflow"}}));
    EXPECT_EQ(r["error"]["code"], -32601);
  }
  server srv(server_opts(1));
  srv.add_skills(d.root(), with_directories());
  harness h(srv);
  const json r =
      h.roundtrip(modern_request(1, "resources/directory/read", {{"uri", "skill://git-workflow"}}));
  ASSERT_TRUE(r.contains("result")) << r;
  EXPECT_EQ(r["result"]["resources"][0], json({{"uri", "skill://git-workflow/SKILL.md"},
                                               {"name", "SKILL.md"},
                                               {"mimeType", "text/markdown"},
                                               {"size", 73}}));
  const json next = h.roundtrip(
      modern_request(2, "resources/directory/read",
                     {{"uri", "skill://git-workflow"}, {"cursor", r["result"]["nextCursor"]}}));
  EXPECT_EQ(next["result"]["resources"][0], json({{"uri", "skill://git-workflow/templates"},
                                                  {"name", "templates"},
                                                  {"mimeType", "inode/directory"}}));
  const json file = h.roundtrip(
      modern_request(3, "resources/directory/read", {{"uri", "skill://git-workflow/SKILL.md"}}));
  EXPECT_EQ(file["error"]["code"], -32602);
  EXPECT_EQ(file["error"]["message"].get<std::string>().rfind(
                "Invalid params: skill://git-workflow/SKILL.md is not a directory resource", 0),
            0u);
  const json slash = h.roundtrip(
      modern_request(4, "resources/directory/read", {{"uri", "skill://git-workflow/"}}));
  EXPECT_EQ(slash["error"]["code"], -32602);
}

TEST(SkillsServer, LegacySessionsGetTheMethodsAfterInitialize) {
  skills_dir d;
  server srv(server_opts());
  srv.add_skills(d.root());
  harness h(srv);
  EXPECT_EQ(h.roundtrip(request(1, "skills/list"))["error"]["code"], -32602);  // P14
  const json init = h.initialize();
  EXPECT_EQ(init["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/skills"],
            json::object());
  const json r = h.roundtrip(request(2, "skills/list"));
  EXPECT_FALSE(r["result"].contains("resultType"));
  EXPECT_EQ(r["result"]["skills"].size(), 2u);
  const json unknown = h.roundtrip(request(3, "skills/get", {{"uri", "skill://nope/SKILL.md"}}));
  EXPECT_EQ(unknown["error"]["code"], -32602);
  const json read = h.roundtrip(request(4, "resources/read", {{"uri", "skill://x/../y"}}));
  EXPECT_EQ(read["error"]["code"], -32002);
}

TEST(SkillsServer, AddSkillsRefusesBadInputAndChangesNothing) {
  skills_dir d;
  server srv(server_opts());
  skills_options zero;
  zero.max_file_bytes = 0;
  EXPECT_THROW(srv.add_skills(d.root(), zero), std::invalid_argument);
  skills_options scope;
  scope.cache_scope = "everyone";
  EXPECT_THROW(srv.add_skills(d.root(), scope), std::invalid_argument);
  d.write("broken/SKILL.md", "---\nname: other\ndescription: d\n---\n");
  EXPECT_THROW(srv.add_skills(d.root()), std::invalid_argument);
  EXPECT_FALSE(srv.capabilities().contains("extensions"));
  EXPECT_FALSE(srv.capabilities().contains("resources"));
  fs::remove_all(fs::path(d.root()) / "broken");
  srv.add_skills(d.root());
  EXPECT_THROW(srv.add_skills(d.root()), std::invalid_argument);
  const auto empty = fs::temp_directory_path() / "mcpcxx-skills-empty";
  fs::create_directories(empty / "notes");
  server other(server_opts());
  try {
    other.add_skills(empty.string());
    ADD_FAILURE() << "a tree without skills was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("no skill found"), std::string::npos) << e.what();
  }
  fs::remove_all(empty);
}

TEST(SkillsServer, AUriTakenByAnotherResourceRollsTheAddBack) {
  skills_dir d;
  server srv(server_opts());
  mcpcxx::resource_spec spec;
  spec.uri = "skill://git-workflow/templates/commit.md";
  spec.name = "mine";
  srv.add_resource(spec, [](const std::string&, mcpcxx::request_context&) {
    return std::vector<mcpcxx::resource_contents>{};
  });
  EXPECT_THROW(srv.add_skills(d.root()), std::invalid_argument);
  EXPECT_FALSE(srv.capabilities().contains("extensions"));
  harness h(srv);
  EXPECT_EQ(h.roundtrip(modern_request(1, "resources/list"))["result"]["resources"].size(), 1u);
}

}  // namespace
