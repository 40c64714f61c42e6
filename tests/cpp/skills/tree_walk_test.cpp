// The disk walk of a skills tree at the edges of its size limits: a file or a tree exactly at
// its limit is read whole, one byte more is refused with the sizes named.
#include "skills/tree_walk.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

namespace {

namespace fs = std::filesystem;
using mcpcxx::skills_options;
using mcpcxx::skills::walk_skill_tree;

// A skill directory "s" under a fresh temp root, removed at the end of the test.
class walk_root {
 public:
  walk_root() {
    std::string pattern = (fs::temp_directory_path() / "mcpcxx-walk-XXXXXX").string();
    root_ = ::mkdtemp(pattern.data());
    put("s/SKILL.md", "skill");
  }
  ~walk_root() { fs::remove_all(root_); }
  walk_root(const walk_root&) = delete;
  walk_root& operator=(const walk_root&) = delete;
  std::string path() const { return fs::canonical(root_).string(); }
  void put(const std::string& rel, const std::string& bytes) const {
    const fs::path p = root_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << bytes;
  }

 private:
  fs::path root_;
};

std::string walk_refusal(const walk_root& r, const skills_options& o) {
  try {
    walk_skill_tree(r.path(), o);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(TreeWalk, FilesAreReadWholeIncludingEmptyOnes) {
  walk_root r;
  r.put("s/empty.txt", "");
  r.put("s/big.bin", std::string(70000, 'b'));
  r.put("loose.txt", "outside every skill");
  const auto t = walk_skill_tree(r.path(), {});
  ASSERT_EQ(t.files.size(), 3u);
  EXPECT_EQ(t.files.at("s/empty.txt"), "");
  EXPECT_EQ(t.files.at("s/big.bin"), std::string(70000, 'b'));
  EXPECT_EQ(t.files.at("s/SKILL.md"), "skill");
}

TEST(TreeWalk, AFileAtMaxFileBytesIsReadOneByteMoreIsRefused) {
  walk_root r;
  r.put("s/a.txt", std::string(100, 'a'));
  skills_options o;
  o.max_file_bytes = 100;
  EXPECT_EQ(walk_skill_tree(r.path(), o).files.at("s/a.txt").size(), 100u);
  o.max_file_bytes = 99;
  EXPECT_EQ(walk_refusal(r, o), "skills: " + r.path() +
                                    "/s/a.txt: is 100 bytes, over max_file_bytes (99); shrink it, "
                                    "or raise the limit");
}

TEST(TreeWalk, ATreeAtMaxTotalBytesIsReadOneByteMoreIsRefused) {
  walk_root r;
  r.put("s/a.txt", std::string(10, 'a'));
  skills_options o;
  o.max_total_bytes = 15;  // SKILL.md (5 bytes) and a.txt (10 bytes)
  EXPECT_EQ(walk_skill_tree(r.path(), o).files.size(), 2u);
  o.max_total_bytes = 14;
  EXPECT_EQ(walk_refusal(r, o), "skills: " + r.path() +
                                    "/s/a.txt: brings the skills to 15 bytes, over max_total_bytes "
                                    "(14); serve fewer or smaller files, or raise the limit");
}

}  // namespace
