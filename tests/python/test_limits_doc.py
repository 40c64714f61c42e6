"""docs/limits.md names only settings and tests that exist.

Every C++ member in the table's "C++" column must be a member of that struct in the public
headers (cpp/include/mcpcxx), every Python keyword must be accepted by the API it names, and every
test in "Covered by" must exist under tests/. A renamed option or test fails here instead of
leaving the document wrong.
"""

from __future__ import annotations

import inspect
import os
import pathlib
import re

import pytest

import mcpcxx

SOURCE_DIR = pathlib.Path(os.environ.get("MCPCXX_SOURCE_DIR", pathlib.Path(__file__).parents[2]))
DOC = SOURCE_DIR / "docs" / "limits.md"
HEADERS = SOURCE_DIR / "cpp" / "include" / "mcpcxx"
COLUMNS = ("limit", "default", "row", "cpp", "python", "tests")


def table_rows() -> list[dict[str, str]]:
    rows = []
    for line in DOC.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if not line.startswith("| ") or len(cells) != len(COLUMNS) or cells[0] == "Limit":
            continue
        rows.append(dict(zip(COLUMNS, cells, strict=True)))
    return rows


def code_spans(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def struct_body(name: str) -> str:
    """The text of `struct name { ... }` in the public headers ("" when there is none)."""
    for header in sorted(HEADERS.glob("*.hpp")):
        text = header.read_text()
        m = re.search(r"\bstruct\s+" + re.escape(name) + r"\s*\{", text)
        if m is None:
            continue
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        return text[m.end() : i]
    return ""


def has_member(struct: str, member: str) -> bool:
    return re.search(r"\b" + re.escape(member) + r"\s*(=|\{|;)", struct_body(struct)) is not None


def cpp_members() -> list[str]:
    found = []
    for row in table_rows():
        found += [s for s in code_spans(row["cpp"]) if "::" in s]
    found += [s for s in code_spans(DOC.read_text()) if s.endswith("::bounds")]
    return found


def test_the_document_has_its_tables() -> None:
    rows = table_rows()
    assert len(rows) >= 20, f"{DOC} lost its tables ({len(rows)} rows parsed)"
    assert len(cpp_members()) >= 20


@pytest.mark.parametrize("ref", cpp_members())
def test_each_cpp_member_exists_in_the_public_headers(ref: str) -> None:
    *_, struct, member = ref.split("::")
    assert struct_body(struct), f"{DOC.name} names `{ref}`: no struct {struct} in {HEADERS}"
    assert has_member(struct, member), f"{DOC.name} names `{ref}`: struct {struct} has no {member}"


def python_keywords() -> list[str]:
    return [s for row in table_rows() for s in code_spans(row["python"]) if "=" in s]


@pytest.mark.parametrize("spelling", python_keywords())
def test_each_python_keyword_is_accepted(spelling: str) -> None:
    m = re.fullmatch(r'(Server|@server\.tool|run)\((?:"(\w+)", )?(\w+)=\)', spelling)
    assert m, f"unrecognized Python spelling `{spelling}` in {DOC.name}"
    api, transport, keyword = m.groups()
    if api == "Server":
        assert keyword in inspect.signature(mcpcxx.Server).parameters
    elif api == "@server.tool":
        # The decorator's keywords are typed by the ToolOptions TypedDict.
        from mcpcxx._components.tools import ToolOptions

        assert keyword in ToolOptions.__annotations__
    elif transport == "http":
        # run("http") and MCPApp forward their keywords to the engine's http_options JSON form
        # under the C++ member names: the engine must accept the keyword, not just the header.
        assert has_member("http_options", keyword), f"http_options has no {keyword}"
        from mcpcxx.asgi import MCPApp

        MCPApp(mcpcxx.Server("limits-doc"), **{keyword: 1}).close()
    else:
        assert transport == "stdio"
        assert f'"{keyword}"' in inspect.getsource(mcpcxx.Server.run)


def covering_tests() -> list[str]:
    names = []
    for row in table_rows():
        names += [s for s in code_spans(row["tests"]) if not s.startswith("MCPCXX_")]
    return names


def cited_test_exists(name: str) -> bool:
    tests = SOURCE_DIR / "tests"
    if name.endswith(".txtar"):
        return (tests / "golden" / name).is_file()
    if "::" in name:
        file, func = name.split("::")
        path = tests / "python" / file
        return path.is_file() and re.search(rf"def {func}\(", path.read_text()) is not None
    suite, case = name.split(".")
    pattern = re.compile(rf"TEST(_F|_P)?\({suite},\s*{case}\)")
    return any(pattern.search(p.read_text()) for p in (tests / "cpp").rglob("*.cpp"))


@pytest.mark.parametrize("name", covering_tests())
def test_each_covering_test_exists(name: str) -> None:
    assert cited_test_exists(name), f"{DOC.name} cites `{name}`, which is not a test under tests/"
