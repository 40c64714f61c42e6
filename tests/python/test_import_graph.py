"""The mcpcxx package's import graph is acyclic, and no module reads another's private names.

Every import statement counts, at any depth: inside functions, and under `if TYPE_CHECKING:`
(such an import never runs, but it is a dependency all the same: a type-level cycle is a design
cycle). `from mcpcxx import _core` is an edge to the submodule mcpcxx._core; importing a module
also runs the `__init__` of each of its packages the importer is not already inside, so those are
edges too.
"""

from __future__ import annotations

import ast
import functools
import pathlib

import mcpcxx

PACKAGE = pathlib.Path(mcpcxx.__file__).parent


def module_name(path: pathlib.Path, root: pathlib.Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def all_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement, at any depth, TYPE_CHECKING blocks included."""
    return [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]


def resolve(
    node: ast.Import | ast.ImportFrom, here: str, is_package: bool, modules: set[str]
) -> list[str]:
    """The package modules an import statement names."""
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


def packages_run(target: str, importer: str, modules: set[str]) -> set[str]:
    """The packages whose `__init__` importing `target` runs, seen from inside `importer`."""
    parts = target.split(".")
    inside = {".".join(importer.split(".")[:i]) for i in range(1, importer.count(".") + 2)}
    ancestors = {".".join(parts[:i]) for i in range(1, len(parts))}
    return {p for p in ancestors - inside if p in modules}


def import_graph(root: pathlib.Path) -> dict[str, set[str]]:
    files = {module_name(p, root): p for p in root.rglob("*.py")}
    # Compiled modules (mcpcxx._core, known by its stub) are leaves: they import nothing here.
    leaves = {module_name(p, root) for p in root.rglob("*.pyi")}
    modules = set(files) | leaves
    graph: dict[str, set[str]] = {name: set() for name in leaves}
    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        edges: set[str] = set()
        for node in all_imports(tree):
            for target in resolve(node, name, is_package, modules):
                edges |= {target} | packages_run(target, name, modules)
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
    assert "mcpcxx._core" in graph["mcpcxx._protocol.errors"]
    # A TYPE_CHECKING-only import is an edge: mcpcxx.Context names the Server type.
    assert "mcpcxx._api.server" in graph["mcpcxx._api.context"]
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_checker_sees_function_level_and_type_checking_cycles(tmp_path: pathlib.Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg.b import x\n")
    (pkg / "b.py").write_text("def x():\n    from pkg import a\n")
    graph = import_graph(pkg)
    assert graph["pkg.b"] == {"pkg.a"}
    assert find_cycle(graph) == ["pkg.a", "pkg.b", "pkg.a"]
    (pkg / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import y\n"
    )
    assert find_cycle(import_graph(pkg)) == ["pkg.a", "pkg.b", "pkg.a"]
    (pkg / "b.py").write_text("def x():\n    pass\n")
    assert find_cycle(import_graph(pkg)) is None


def test_the_checker_sees_cycles_through_a_package_init(tmp_path: pathlib.Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from pkg import top\n")
    (pkg / "sub" / "leaf.py").write_text("from pkg.sub import helper\n")
    (pkg / "sub" / "helper.py").write_text("")
    (pkg / "top.py").write_text("from pkg.sub.leaf import y\n")
    graph = import_graph(pkg)
    # Importing pkg.sub.leaf from pkg.top runs pkg/sub/__init__.py, which imports pkg.top.
    assert graph["pkg.top"] == {"pkg.sub.leaf", "pkg.sub"}
    assert graph["pkg.sub.leaf"] == {"pkg.sub.helper"}  # inside pkg.sub: its __init__ ran
    assert find_cycle(graph) == ["pkg.sub", "pkg.top", "pkg.sub"]


# ----- private names ------------------------------------------------------------------------

# CPython's documented underscore names of the standard library.
STDLIB_PRIVATE = {"sys._getframe", "sys._current_frames", "os._exit"}


def defined_names(tree: ast.AST) -> set[str]:
    """The names a module defines: functions, classes, assigned names and attributes, slots."""
    own: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            own.add(node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            own.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            own.add(node.target.id)
        elif isinstance(node, ast.Assign):
            own |= {t.id for t in node.targets if isinstance(t, ast.Name)}
            for t in node.targets:  # __slots__ = ("_a", "_b")
                if isinstance(t, ast.Name) and t.id == "__slots__":
                    own |= {
                        e.value
                        for e in ast.walk(node.value)
                        if isinstance(e, ast.Constant) and isinstance(e.value, str)
                    }
    return own


@functools.cache
def _defined_in(path: pathlib.Path) -> frozenset[str]:
    return frozenset(defined_names(ast.parse(path.read_text(encoding="utf-8"))))


def private_reads(path: pathlib.Path, root: pathlib.Path) -> list[str]:
    """Where the module at `path` reads a private name another module defines.

    Flagged: `from m import _name` unless `_name` is a module of the package; `x._name` (also
    `getattr(x, "_name")`) where `x` is not `self` or `cls`, unless `_name` is defined in this
    module and in no other module of the package (so a module's own classes may read each
    other's private members, but `self._server._lifespan` is flagged even when this module has a
    `_lifespan` of its own); both spare dunder names.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    here = module_name(path, root)
    modules = {module_name(p, root) for p in root.rglob("*.py*")}
    own = defined_names(tree)
    elsewhere = set().union(*(_defined_in(o) for o in root.rglob("*.py") if o != path))

    def private(name: str) -> bool:
        return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))

    found = []
    for node in ast.walk(tree):
        where = f"{here}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.ImportFrom):
            base = resolve(node, here, path.name == "__init__.py", modules | {here})
            source = node.module or ""
            for alias in node.names:
                is_module = f"{source}.{alias.name}" in modules or any(
                    t.endswith(f".{alias.name}") for t in base
                )
                if private(alias.name) and not is_module:
                    found.append(f"{where} from {source} import {alias.name}")
        attr, owner = None, None
        if isinstance(node, ast.Attribute):
            attr, owner = node.attr, node.value
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr", "setattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
        ):
            attr, owner = node.args[1].value, node.args[0]
        if attr is None or owner is None or not private(attr):
            continue
        if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
            continue
        if ast.unparse(owner) + "." + attr in STDLIB_PRIVATE:
            continue
        if isinstance(owner, ast.Name) and f"{owner.id}.{attr}" in STDLIB_PRIVATE:
            continue
        if attr in own and attr not in elsewhere:
            continue
        found.append(f"{where} {ast.unparse(owner)}.{attr}")
    return found


def test_no_module_reads_another_modules_private_names() -> None:
    found = [hit for p in sorted(PACKAGE.rglob("*.py")) for hit in private_reads(p, PACKAGE)]
    assert found == []


def test_the_private_name_check_sees_each_kind(tmp_path: pathlib.Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "_core.py").write_text("")
    (pkg / "owner.py").write_text(
        "class Server:\n    def __init__(self):\n        self._loop = self._lifespan = 1\n"
        "    def same(self, other):\n        return other._loop\n"
    )
    (pkg / "user.py").write_text(
        "import sys\nfrom pkg import _core\nfrom pkg.owner import _hidden\n"
        "def f(server, runtime):\n"
        "    sys._getframe()\n"
        "    getattr(server, '_lifespan', None)\n"
        "    return server._loop, runtime.core._tracing, server.__class__\n"
        "class Client:\n    def __init__(self, server):\n"
        "        self._lifespan = server._lifespan\n"
    )
    assert private_reads(pkg / "owner.py", pkg) == []  # its own class's member
    assert private_reads(pkg / "user.py", pkg) == [
        "pkg.user:3 from pkg.owner import _hidden",
        "pkg.user:6 server._lifespan",
        "pkg.user:7 server._loop",
        "pkg.user:7 runtime.core._tracing",
        "pkg.user:10 server._lifespan",  # this module's own _lifespan is not owner.Server's
    ]
