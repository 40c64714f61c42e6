"""The mcpcxx package's import graph is acyclic, counting imports inside functions too.

Imports under `if TYPE_CHECKING:` never run, so they are not edges. `from mcpcxx import _core`
is an edge to the submodule mcpcxx._core; `from mcpcxx import Server` an edge to the package.
"""

from __future__ import annotations

import ast
import pathlib

import mcpcxx

PACKAGE = pathlib.Path(mcpcxx.__file__).parent


def module_name(path: pathlib.Path, root: pathlib.Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def runtime_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement that can run, at any depth."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def resolve(
    node: ast.Import | ast.ImportFrom, here: str, is_package: bool, modules: set[str]
) -> list[str]:
    """The package modules an import statement loads."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name in modules]
    base = node.module or ""
    if node.level:
        anchor = here.split(".") if is_package else here.split(".")[:-1]
        anchor = anchor[: len(anchor) - (node.level - 1)]
        base = ".".join([*anchor, base] if base else anchor)
    targets = []
    for alias in node.names:
        sub = f"{base}.{alias.name}"
        if sub in modules:
            targets.append(sub)
        elif base in modules:
            targets.append(base)
    return targets


def import_graph(root: pathlib.Path) -> dict[str, set[str]]:
    files = {module_name(p, root): p for p in root.rglob("*.py")}
    # Compiled modules (mcpcxx._core, known by its stub) are leaves: they import nothing here.
    leaves = {module_name(p, root) for p in root.rglob("*.pyi")}
    modules = set(files) | leaves
    graph: dict[str, set[str]] = {name: set() for name in leaves}
    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        edges = set()
        for node in runtime_imports(tree):
            edges.update(resolve(node, name, is_package, modules))
        edges.discard(name)
        graph[name] = edges
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle as [a, b, ..., a], or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: finished
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (cycle := visit(start)):
            return cycle
    return None


def test_the_package_import_graph_is_acyclic() -> None:
    graph = import_graph(PACKAGE)
    assert "mcpcxx._inspect" in graph and "mcpcxx._core" in graph["mcpcxx._errors"]
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])


def test_the_checker_sees_function_level_cycles(tmp_path: pathlib.Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg.b import x\n")
    (pkg / "b.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from pkg import c\n"
        "def x():\n    from pkg import a\n"
    )
    (pkg / "c.py").write_text("from pkg import a\n")
    graph = import_graph(pkg)
    assert graph["pkg.b"] == {"pkg.a"}  # the TYPE_CHECKING import is no edge
    assert find_cycle(graph) == ["pkg.a", "pkg.b", "pkg.a"]
    (pkg / "b.py").write_text("def x():\n    pass\n")
    assert find_cycle(import_graph(pkg)) is None
