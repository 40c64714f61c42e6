// Locating and probing the golden fixture servers.
#include "fixtures.hpp"

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <system_error>

namespace mcpcxx::golden {

namespace {

namespace fs = std::filesystem;

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::string(v) : fallback;
}

// The developer build (-DMCPCXX_BUILD_PYTHON=ON) puts only the compiled mcpcxx/_core beside
// nothing else (python/bindings/pkg/mcpcxx). A directory of symlinks to the source package plus
// that module makes `import mcpcxx` work without installing anything. Returns the directory to
// put on PYTHONPATH, or "" when this build has no extension. Safe to run from several test
// processes at once: it only ever adds missing links.
std::string stage_dev_package() {
  const fs::path build = MCPCXX_BINARY_DIR;
  const fs::path ext_dir = build / "python" / "bindings" / "pkg" / "mcpcxx";
  const fs::path sources = fs::path(MCPCXX_SOURCE_DIR) / "python" / "mcpcxx";
  std::error_code ec;
  fs::path ext;
  for (const auto& e : fs::directory_iterator(ext_dir, ec)) {
    const std::string n = e.path().filename().string();
    if (n.rfind("_core", 0) == 0 && e.path().extension() == ".so") ext = e.path();
  }
  if (ext.empty() || !fs::is_directory(sources)) return "";
  const fs::path stage = build / "golden-python";
  fs::create_directories(stage / "mcpcxx", ec);
  auto link = [&](const fs::path& target) {
    const fs::path at = stage / "mcpcxx" / target.filename();
    if (!fs::exists(fs::symlink_status(at))) fs::create_symlink(target, at, ec);
  };
  for (const auto& e : fs::directory_iterator(sources, ec)) {
    if (e.path().filename() != "__pycache__") link(e.path());
  }
  link(ext);
  return stage.string();
}

// "" when `cmd` can import mcpcxx, otherwise what went wrong.
std::string probe_python(const command& cmd) {
  transcript none;
  command probe = cmd;
  probe.argv = {cmd.argv[0], "-c", "import mcpcxx"};
  std::string err;
  int exit_code = -1;
  try {
    run(probe, none, err, exit_code);
  } catch (const std::exception& e) {
    return e.what();
  }
  if (exit_code == 0) return "";
  return "`" + cmd.argv[0] + " -c 'import mcpcxx'` failed (exit " + std::to_string(exit_code) +
         "): " + err.substr(err.size() > 600 ? err.size() - 600 : 0);
}

fixture python_fixture() {
  fixture f;
#ifdef MCPCXX_PYTHON_EXECUTABLE  // the interpreter CMake built the extension for, when defined
  const std::string interpreter = env_or("MCPCXX_GOLDEN_PYTHON", MCPCXX_PYTHON_EXECUTABLE);
#else
  const std::string interpreter = env_or("MCPCXX_GOLDEN_PYTHON", "python3");
#endif
  const fs::path script =
      fs::path(MCPCXX_SOURCE_DIR) / "tests" / "fixtures" / "python" / "fixture_server.py";
  f.cmd.argv = {interpreter, script.string()};
  const std::string path = env_or("MCPCXX_GOLDEN_PYTHONPATH", stage_dev_package());
  if (!path.empty()) {
    const std::string inherited = env_or("PYTHONPATH", "");
    f.cmd.env.push_back("PYTHONPATH=" + path + (inherited.empty() ? "" : ":" + inherited));
  }
  f.unavailable = probe_python(f.cmd);
  if (!f.unavailable.empty()) {
    f.unavailable +=
        "\nSet MCPCXX_GOLDEN_PYTHON (an interpreter that can import mcpcxx) and/or "
        "MCPCXX_GOLDEN_PYTHONPATH, or configure with -DMCPCXX_BUILD_PYTHON=ON.";
  }
  return f;
}

fixture cpp_fixture() {
  fixture f;
  f.cmd.argv = {MCPCXX_EXAMPLE_SERVER};
  if (!fs::exists(MCPCXX_EXAMPLE_SERVER)) {
    f.unavailable = std::string(MCPCXX_EXAMPLE_SERVER) +
                    " does not exist; build the "
                    "mcpcxx_example_server target";
  }
  return f;
}

}  // namespace

const fixture& find_fixture(const std::string& name) {
  static const fixture cpp = cpp_fixture();
  if (name == "cpp") return cpp;
  static const fixture python = python_fixture();
  return python;
}

bool in_ci() { return env_or("CI", "") == "true"; }

bool selected(const std::string& name) {
  std::string list = env_or("MCPCXX_GOLDEN_FIXTURES", "cpp python");
  for (char& c : list) {
    if (c == ',') c = ' ';
  }
  std::istringstream ss(list);
  for (std::string w; ss >> w;) {
    if (w == name) return true;
  }
  return false;
}

}  // namespace mcpcxx::golden
