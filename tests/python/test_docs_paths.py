"""scripts/check_docs_paths.py: every path and CMake target the docs name exists (lint runs it)."""

from __future__ import annotations

import pathlib
import subprocess
import sys

from conftest import SOURCE_DIR

CHECKER = SOURCE_DIR / "scripts" / "check_docs_paths.py"


def run_checker(*files: pathlib.Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(CHECKER), "--root", str(SOURCE_DIR), *map(str, files)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_repository_docs_name_only_existing_paths_and_targets() -> None:
    result = run_checker()
    assert result.returncode == 0, result.stderr


def test_missing_paths_and_targets_fail_with_file_and_line(tmp_path: pathlib.Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text(
        "# A doc\n"
        "Real: `cpp/src/schema/values.hpp`, `schema/kw_*.cpp`, `mcpcxx/version.hpp`,\n"
        "`mcpcxx_requests_total` (a metric), `mcpcxx::server` (a C++ class), `tools/call`.\n"
        "Moved: `cpp/src/schema/no_such_file.cpp` and `engine/no_such_header.hpp`.\n"
        "Stale binary: `build/ci/examples/cpp/mcpcxx_example_server`.\n"
        "See [the guide](no_such_guide.md).\n"
        "```bash\n"
        "cmake --build build/dev --target mcpcxx_demo_server mcpcxx_no_such_target\n"
        "```\n"
        "```cmake\n"
        "target_link_libraries(app PRIVATE mcpcxx::mcpcxx mcpcxx::no_such_layer)\n"
        "```\n"
    )
    result = run_checker(doc)
    assert result.returncode == 1
    problems = [line for line in result.stderr.splitlines() if line.startswith(str(doc))]
    expected = [
        (4, "`cpp/src/schema/no_such_file.cpp` does not exist"),
        (4, "`engine/no_such_header.hpp` does not exist"),
        (5, "`mcpcxx_example_server` is built in `tests/fixtures/cpp`, not `examples/cpp`"),
        (6, "link target `no_such_guide.md` does not exist"),
        (8, "CMake target `mcpcxx_no_such_target` is not defined"),
        (11, "CMake target `mcpcxx::no_such_layer` is not defined"),
    ]
    for line, text in expected:
        assert any(p.startswith(f"{doc}:{line}: {text}") for p in problems), (line, text, problems)
    assert len(problems) == len(expected), problems


def test_a_snippet_must_equal_its_file(tmp_path: pathlib.Path) -> None:
    hello = (SOURCE_DIR / "examples" / "cpp" / "hello.cpp").read_text()
    same = tmp_path / "same.md"
    same.write_text(f"<!-- snippet: examples/cpp/hello.cpp -->\n```cpp\n{hello}```\n")
    assert run_checker(same).returncode == 0
    drifted = tmp_path / "drifted.md"
    drifted.write_text(
        "<!-- snippet: examples/cpp/hello.cpp -->\n```cpp\n"
        + hello.replace('"Echo text"', '"Echoes text"')
        + "```\n"
    )
    result = run_checker(drifted)
    assert result.returncode == 1
    assert f"{drifted}:2: this code block differs from `examples/cpp/hello.cpp`" in result.stderr


def test_the_readme_shows_hello_cpp_verbatim() -> None:
    readme = (SOURCE_DIR / "README.md").read_text()
    hello = (SOURCE_DIR / "examples" / "cpp" / "hello.cpp").read_text()
    assert f"<!-- snippet: examples/cpp/hello.cpp -->\n```cpp\n{hello}```\n" in readme
