// The disk walk of a skills tree (tree_walk.hpp).
#include "skills/tree_walk.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <set>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace mcpcxx::skills {

void refuse(const std::string& path, const std::string& problem) {
  throw std::invalid_argument("skills: " + path + ": " + problem);
}

namespace {

// Closes a descriptor on every path out.
class owned_fd {
 public:
  explicit owned_fd(int fd) noexcept : fd_(fd) {}
  ~owned_fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  owned_fd(const owned_fd&) = delete;
  owned_fd& operator=(const owned_fd&) = delete;
  int get() const noexcept { return fd_; }

 private:
  int fd_;
};

[[noreturn]] void io_failure(const std::string& path, const char* what) {
  throw std::runtime_error("skills: " + path + ": cannot " + what + ": " + std::strerror(errno));
}

std::string child_path(const std::string& rel, const std::string& name) {
  return rel.empty() ? name : rel + "/" + name;
}

// The real path of an open descriptor (Linux /proc), "" when it cannot be read.
std::string fd_path(int fd) {
  char buf[PATH_MAX + 1];
  const std::string link = "/proc/self/fd/" + std::to_string(fd);
  const ssize_t n = ::readlink(link.c_str(), buf, PATH_MAX);
  return n <= 0 ? std::string() : std::string(buf, static_cast<std::size_t>(n));
}

class walker {
 public:
  walker(std::string root, const skills_options& o) : o_(o) { out_.root = std::move(root); }

  walked_tree run() {
    owned_fd fd(::open(out_.root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (fd.get() < 0) io_failure(out_.root, "open the skills directory");
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) io_failure(out_.root, "stat");
    chain_.insert({st.st_dev, st.st_ino});
    walk(fd.get(), "", 0, false);
    return std::move(out_);
  }

 private:
  std::string shown(const std::string& rel) const {
    return rel.empty() ? out_.root : out_.root + "/" + rel;
  }

  std::vector<std::string> entries(int fd, const std::string& rel) const {
    const int dup = ::dup(fd);
    if (dup < 0) io_failure(shown(rel), "read the directory");
    DIR* dir = ::fdopendir(dup);
    if (dir == nullptr) {
      ::close(dup);
      io_failure(shown(rel), "read the directory");
    }
    std::vector<std::string> names;
    while (const dirent* e = ::readdir(dir)) {
      const std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      if (name.front() == '.' && !o_.include_hidden) continue;
      names.push_back(name);
    }
    ::closedir(dir);
    std::sort(names.begin(), names.end());
    return names;
  }

  void walk(int fd, const std::string& rel, std::size_t depth, bool under_skill) {
    if (depth > o_.max_depth) {
      refuse(shown(rel), "directories nest deeper than max_depth (" + std::to_string(o_.max_depth) +
                             "); flatten the tree or raise it");
    }
    const auto names = entries(fd, rel);
    if (std::binary_search(names.begin(), names.end(), std::string("SKILL.md"))) {
      if (rel.empty()) {
        refuse(shown("SKILL.md"),
               "the root itself is a skill; pass the directory that contains skill directories");
      }
      out_.skill_dirs.push_back(rel);
      under_skill = true;
    }
    for (const auto& name : names) visit(fd, rel, name, depth, under_skill);
  }

  void visit(int fd, const std::string& rel, const std::string& name, std::size_t depth,
             bool under_skill) {
    const std::string path = child_path(rel, name);
    struct stat st {};
    if (::fstatat(fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) io_failure(shown(path), "stat");
    if (S_ISLNK(st.st_mode)) return follow(fd, path, name, depth, under_skill);
    if (S_ISDIR(st.st_mode)) {
      owned_fd child(::openat(fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (child.get() < 0) io_failure(shown(path), "open the directory");
      return descend(child.get(), path, depth, under_skill);
    }
    if (!under_skill) return;  // files outside every skill are never read
    if (!S_ISREG(st.st_mode)) {
      refuse(shown(path), "is neither a regular file nor a directory; remove it from the skill");
    }
    owned_fd file(::openat(fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (file.get() < 0) io_failure(shown(path), "open");
    read_file(file.get(), path);
  }

  void descend(int fd, const std::string& path, std::size_t depth, bool under_skill) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) io_failure(shown(path), "stat");
    const std::pair<dev_t, ino_t> id{st.st_dev, st.st_ino};
    if (!chain_.insert(id).second) {
      refuse(shown(path), "leads back to a directory that contains it (a symlink loop)");
    }
    walk(fd, path, depth + 1, under_skill);
    chain_.erase(id);
  }

  // A symbolic link: refused, or opened (following it) and kept only if it lands inside.
  void follow(int fd, const std::string& path, const std::string& name, std::size_t depth,
              bool under_skill) {
    if (o_.symlinks == skills_symlinks::refuse) {
      refuse(shown(path),
             "is a symbolic link, and links are refused; replace it with the file, or set "
             "skills_options::symlinks to follow_inside (Python: symlinks=\"follow_inside\")");
    }
    owned_fd target(::openat(fd, name.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    if (target.get() < 0) io_failure(shown(path), "follow the link");
    const std::string real = fd_path(target.get());
    if (real.empty() || real.rfind(out_.root + "/", 0) != 0) {
      refuse(shown(path), "is a symbolic link to " + (real.empty() ? "?" : real) +
                              ", outside the skills directory; links must stay inside it");
    }
    struct stat st {};
    if (::fstat(target.get(), &st) != 0) io_failure(shown(path), "stat");
    if (S_ISDIR(st.st_mode)) return descend(target.get(), path, depth, under_skill);
    if (!under_skill) return;
    if (!S_ISREG(st.st_mode)) {
      refuse(shown(path), "links to something that is neither a regular file nor a directory");
    }
    read_file(target.get(), path);
  }

  void read_file(int fd, const std::string& path) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) io_failure(shown(path), "stat");
    if (!S_ISREG(st.st_mode)) refuse(shown(path), "is not a regular file");
    const auto size = static_cast<std::size_t>(st.st_size);
    if (size > o_.max_file_bytes) too_big(path, size);
    std::string bytes = read_bounded(fd, path, size);
    total_ += bytes.size();
    if (total_ > o_.max_total_bytes) {
      refuse(shown(path), "brings the skills to " + std::to_string(total_) +
                              " bytes, over max_total_bytes (" +
                              std::to_string(o_.max_total_bytes) +
                              "); serve fewer or smaller files, or raise the limit");
    }
    out_.files.emplace(path, std::move(bytes));
  }

  // The bytes of `fd`, `size` of them by fstat; refused past max_file_bytes even when the file
  // grows while being read.
  std::string read_bounded(int fd, const std::string& path, std::size_t size) const {
    const auto limit = o_.max_file_bytes;
    std::string bytes;
    bytes.resize(size + 1);
    std::size_t got = 0;
    for (;;) {
      if (got == bytes.size()) {
        if (got > limit) too_big(path, got);  // it grew while being read
        bytes.resize(std::min(bytes.size() * 2, limit + 1));
        if (got == bytes.size()) too_big(path, got);
      }
      const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) io_failure(shown(path), "read");
      if (n == 0) break;
      got += static_cast<std::size_t>(n);
    }
    if (got > limit) too_big(path, got);
    bytes.resize(got);
    return bytes;
  }

  [[noreturn]] void too_big(const std::string& path, std::size_t size) const {
    refuse(shown(path), "is " + std::to_string(size) + " bytes, over max_file_bytes (" +
                            std::to_string(o_.max_file_bytes) + "); shrink it, or raise the limit");
  }

  const skills_options& o_;
  walked_tree out_;
  std::set<std::pair<dev_t, ino_t>> chain_;  // the directories being walked, root first
  std::size_t total_ = 0;
};

}  // namespace

walked_tree walk_skill_tree(const std::string& root, const skills_options& options) {
  if (root.empty()) refuse("(empty path)", "name the directory that holds the skills");
  char* real = ::realpath(root.c_str(), nullptr);
  if (real == nullptr) io_failure(root, "find the skills directory");
  std::string resolved(real);
  std::free(real);
  struct stat st {};
  if (::stat(resolved.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    refuse(root, "is not a directory; name the directory that holds the skill directories");
  }
  return walker(std::move(resolved), options).run();
}

}  // namespace mcpcxx::skills
