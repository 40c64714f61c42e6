// The skills tree loader: what it serves from a tree on disk (URIs, digests checked against
// sha256sum, sizes, MIME types, directories) and every tree it refuses (frontmatter, names,
// symlinks, limits), each with the file named.
#include "skills/skill_tree.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace {

namespace fs = std::filesystem;
using mcpcxx::json;
using mcpcxx::skills_options;
using mcpcxx::skills_symlinks;
using mcpcxx::skills::load_skill_tree;

// A fresh directory under the system temp dir, removed at the end of the test.
class temp_tree {
 public:
  temp_tree() {
    std::string pattern = (fs::temp_directory_path() / "mcpcxx-skills-XXXXXX").string();
    root_ = ::mkdtemp(pattern.data());
  }
  ~temp_tree() { fs::remove_all(root_); }
  temp_tree(const temp_tree&) = delete;
  temp_tree& operator=(const temp_tree&) = delete;
  const fs::path& root() const { return root_; }
  fs::path write(const std::string& rel, const std::string& bytes) const {
    fs::path p = root_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
  void skill(const std::string& dir, const std::string& name, const std::string& extra = "") const {
    write(dir + "/SKILL.md",
          "---\nname: " + name + "\ndescription: Does " + name + "\n" + extra + "---\nBody\n");
  }

 private:
  fs::path root_;
};

std::string tree_refusal(const temp_tree& t, const skills_options& o = {}) {
  try {
    load_skill_tree(t.root().string(), o);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

bool has_text(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// sha256sum's digest of `path`, as the extension writes it.
std::string sha256sum(const fs::path& path) {
  const std::string cmd = "sha256sum '" + path.string() + "'";
  FILE* p = ::popen(cmd.c_str(), "r");
  char buf[65] = {};
  const std::size_t n = p ? std::fread(buf, 1, 64, p) : 0;
  if (p) ::pclose(p);
  return "sha256:" + std::string(buf, n);
}

TEST(SkillTree, ServesEverySkillFileWithDigestSizeAndUri) {
  temp_tree t;
  t.skill("pdf-processing", "pdf-processing", "license: MIT\nmetadata:\n  version: \"2.1\"\n");
  const auto forms = t.write("pdf-processing/references/FORMS.md", "# Forms\n");
  const auto tool = t.write("pdf-processing/scripts/extract.py", "print('x')\n");
  t.skill("acme/billing/refunds", "refunds");
  t.write("README.md", "outside every skill\n");
  const auto tree = load_skill_tree(t.root().string(), {});
  ASSERT_EQ(tree->skills.size(), 2u);
  const auto& refunds = tree->skills[0];
  EXPECT_EQ(refunds.uri, "skill://acme/billing/refunds/SKILL.md");
  const auto& pdf = tree->skills[1];
  EXPECT_EQ(pdf.uri, "skill://pdf-processing/SKILL.md");
  EXPECT_EQ(pdf.frontmatter, json::parse(R"({"name":"pdf-processing","description":
      "Does pdf-processing","license":"MIT","metadata":{"version":"2.1"}})"));
  ASSERT_EQ(pdf.files.size(), 3u);
  EXPECT_EQ(pdf.files[1]->uri, "skill://pdf-processing/references/FORMS.md");
  EXPECT_EQ(pdf.files[1]->digest, sha256sum(forms));
  EXPECT_EQ(pdf.files[1]->bytes.size(), fs::file_size(forms));
  EXPECT_EQ(pdf.files[1]->mime_type, "text/markdown");
  EXPECT_EQ(pdf.files[2]->digest, sha256sum(tool));
  EXPECT_EQ(pdf.files[2]->mime_type, "text/x-python");
  EXPECT_EQ(pdf.files[0]->digest, sha256sum(t.root() / "pdf-processing/SKILL.md"));
  EXPECT_EQ(tree->files.count("skill://README.md"), 0u);  // not below a skill: not served
  const json entry = mcpcxx::skills::skill_json(pdf);
  EXPECT_EQ(entry["resources"][1], json({{"uri", "skill://pdf-processing/references/FORMS.md"},
                                         {"digest", sha256sum(forms)},
                                         {"size", 8}}));
}

TEST(SkillTree, DirectoriesListTheirDirectChildren) {
  temp_tree t;
  t.skill("pdf", "pdf");
  t.write("pdf/templates/a.md", "a");
  t.write("pdf/templates/regional/eu.md", "eu");
  t.skill("acme/billing/refunds", "refunds");
  const auto tree = load_skill_tree(t.root().string(), {});
  const auto& templates = tree->directories.at("skill://pdf/templates");
  ASSERT_EQ(templates.size(), 2u);
  EXPECT_EQ(templates[0].uri, "skill://pdf/templates/a.md");
  EXPECT_EQ(templates[0].size, 1u);
  EXPECT_EQ(templates[1].uri, "skill://pdf/templates/regional");
  EXPECT_EQ(templates[1].mime_type, "inode/directory");
  EXPECT_FALSE(templates[1].size.has_value());
  EXPECT_EQ(tree->directories.at("skill://acme").at(0).uri, "skill://acme/billing");
  EXPECT_EQ(tree->directories.count("skill://pdf/SKILL.md"), 0u);
}

TEST(SkillTree, NestedSkillsAreListedFlatAndTheirFilesBelongToTheEnclosingSkill) {
  temp_tree t;
  t.skill("outer", "outer");
  t.skill("outer/inner", "inner");
  const auto tree = load_skill_tree(t.root().string(), {});
  ASSERT_EQ(tree->skills.size(), 2u);
  EXPECT_EQ(tree->skills[0].uri, "skill://outer/SKILL.md");
  EXPECT_EQ(tree->skills[0].files.size(), 2u);  // its own SKILL.md and inner's
  EXPECT_EQ(tree->skills[1].uri, "skill://outer/inner/SKILL.md");
  EXPECT_EQ(tree->skills[1].files.size(), 1u);
}

TEST(SkillTree, NamesAndBinaryContentAreEncodedSafely) {
  temp_tree t;
  t.skill("s", "s");
  t.write("s/my notes%.txt", "text");
  t.write("s/image.bin", std::string("\x89PNG\0\xff", 6));
  const auto tree = load_skill_tree(t.root().string(), {});
  const auto& notes = tree->files.at("skill://s/my%20notes%25.txt");
  EXPECT_TRUE(notes->text);
  EXPECT_EQ(notes->mime_type, "text/plain");
  const auto& bin = tree->files.at("skill://s/image.bin");
  EXPECT_FALSE(bin->text);
  EXPECT_EQ(bin->mime_type, "application/octet-stream");
  EXPECT_EQ(bin->bytes.size(), 6u);
}

TEST(SkillTree, HiddenFilesAreSkippedUnlessAsked) {
  temp_tree t;
  t.skill("s", "s");
  t.write("s/.git/config", "x");
  t.write("s/.env", "x");
  EXPECT_EQ(load_skill_tree(t.root().string(), {})->files.size(), 1u);
  skills_options o;
  o.include_hidden = true;
  EXPECT_EQ(load_skill_tree(t.root().string(), o)->files.size(), 3u);
}

TEST(SkillTree, FrontmatterProblemsNameTheFile) {
  temp_tree t;
  t.write("s/SKILL.md", "---\nname: s\ndescription: Use when: asked\n---\n");
  const std::string got = tree_refusal(t);
  EXPECT_EQ(got, "skills: " + fs::canonical(t.root()).string() +
                     "/s/SKILL.md: line 3: a plain value contains ': '; put the whole value in "
                     "quotes");
}

TEST(SkillTree, NameMustEqualTheDirectory) {
  temp_tree t;
  t.skill("git-workflow", "git-flow");
  EXPECT_TRUE(has_text(tree_refusal(t),
                       "/git-workflow/SKILL.md: name 'git-flow' differs from its "
                       "directory 'git-workflow'"));
}

TEST(SkillTree, NameAndDescriptionAreRequiredAndChecked) {
  {
    temp_tree t;
    t.write("s/SKILL.md", "---\ndescription: d\n---\n");
    EXPECT_TRUE(has_text(tree_refusal(t), "the frontmatter needs 'name: s'"));
  }
  {
    temp_tree t;
    t.write("s/SKILL.md", "---\nname: s\n---\n");
    EXPECT_TRUE(has_text(tree_refusal(t), "needs a non-empty 'description'"));
  }
  {
    temp_tree t;
    t.write("s/SKILL.md", "---\nname: s\ndescription: \"  \"\n---\n");
    EXPECT_TRUE(has_text(tree_refusal(t), "needs a non-empty 'description'"));
  }
  {
    temp_tree t;
    t.skill("Bad--Name", "Bad--Name");
    EXPECT_TRUE(has_text(tree_refusal(t), "name 'Bad--Name' is not a skill name"));
  }
  {
    temp_tree t;
    t.write("s/SKILL.md", "---\nname: s\ndescription: " + std::string(1025, 'x') + "\n---\n");
    EXPECT_TRUE(has_text(tree_refusal(t), "the description is over 1024 characters"));
  }
}

TEST(SkillTree, TheRootItselfCannotBeASkill) {
  temp_tree t;
  t.write("SKILL.md", "---\nname: x\ndescription: d\n---\n");
  EXPECT_TRUE(has_text(tree_refusal(t), "the root itself is a skill"));
}

TEST(SkillTree, SymlinksAreRefusedByDefault) {
  temp_tree t;
  t.skill("s", "s");
  t.write("s/real.md", "r");
  fs::create_symlink(t.root() / "s/real.md", t.root() / "s/link.md");
  const std::string got = tree_refusal(t);
  EXPECT_TRUE(has_text(got, "/s/link.md: is a symbolic link, and links are refused")) << got;
}

TEST(SkillTree, FollowInsideServesLinksInsideAndRefusesLinksOutside) {
  temp_tree t;
  temp_tree outside;
  const auto secret = outside.write("secret.txt", "top secret");
  t.skill("s", "s");
  t.write("shared/common.md", "common");
  fs::create_symlink(t.root() / "shared/common.md", t.root() / "s/common.md");
  skills_options o;
  o.symlinks = skills_symlinks::follow_inside;
  const auto tree = load_skill_tree(t.root().string(), o);
  EXPECT_EQ(tree->files.at("skill://s/common.md")->bytes, "common");
  fs::create_symlink(secret, t.root() / "s/secret.txt");
  const std::string got = tree_refusal(t, o);
  EXPECT_TRUE(has_text(got, "/s/secret.txt: is a symbolic link to " +
                                fs::canonical(secret).string() + ", outside the skills directory"))
      << got;
}

TEST(SkillTree, FollowInsideRefusesADirectoryLinkLoop) {
  temp_tree t;
  t.skill("s", "s");
  fs::create_directory_symlink(t.root() / "s", t.root() / "s/again");
  skills_options o;
  o.symlinks = skills_symlinks::follow_inside;
  EXPECT_TRUE(has_text(tree_refusal(t, o), "/s/again: leads back to a directory that contains it"));
}

TEST(SkillTree, SpecialFilesBelowASkillAreRefused) {
  temp_tree t;
  t.skill("s", "s");
  ASSERT_EQ(::mkfifo((t.root() / "s/pipe").c_str(), 0600), 0);
  EXPECT_TRUE(has_text(tree_refusal(t), "/s/pipe: is neither a regular file nor a directory"));
}

TEST(SkillTree, LimitsRefuseTheTreeNamingTheFileOrSkill) {
  temp_tree t;
  t.skill("s", "s");
  t.write("s/big.txt", std::string(2000, 'x'));
  skills_options o;
  o.max_file_bytes = 1000;
  EXPECT_TRUE(
      has_text(tree_refusal(t, o), "/s/big.txt: is 2000 bytes, over max_file_bytes (1000)"));
  o = {};
  o.max_total_bytes = 1500;
  EXPECT_TRUE(has_text(tree_refusal(t, o), "over max_total_bytes (1500)"));
  o = {};
  o.max_skill_bytes = 1500;
  EXPECT_TRUE(has_text(tree_refusal(t, o), "/s: the skill's files total"));
  o = {};
  o.max_skill_files = 1;
  EXPECT_TRUE(has_text(tree_refusal(t, o), "/s: the skill has 2 files, over max_skill_files (1"));
  t.write("s/a/b/c/d.md", "deep");
  o = {};
  o.max_depth = 2;
  EXPECT_TRUE(has_text(tree_refusal(t, o), "/s/a/b: directories nest deeper than max_depth (2)"));
}

TEST(SkillTree, AMissingRootIsAnIoError) {
  EXPECT_THROW(load_skill_tree("/nonexistent/skills", {}), std::runtime_error);
  temp_tree t;
  const auto file = t.write("file.txt", "x");
  EXPECT_THROW(load_skill_tree(file.string(), {}), std::invalid_argument);
}

}  // namespace
