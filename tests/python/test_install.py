"""The package under test is the installed wheel, typed, with the public names listed."""

from __future__ import annotations

import pathlib
import subprocess
import sys
import types

import mcpcxx
import mcpcxx.testing
from mcpcxx import _core


def test_imported_from_the_installed_wheel_not_the_source_tree() -> None:
    location = pathlib.Path(mcpcxx.__file__).resolve()
    assert "site-packages" in location.parts, location
    assert pathlib.Path(_core.__file__).parent == location.parent


def test_package_is_typed() -> None:
    pkg = pathlib.Path(mcpcxx.__file__).parent
    assert (pkg / "py.typed").is_file()
    assert (pkg / "_core.pyi").is_file()


def test_all_lists_exactly_the_public_names() -> None:
    for name in mcpcxx.__all__:
        assert hasattr(mcpcxx, name), name
    public = {
        n
        for n, v in vars(mcpcxx).items()
        if not n.startswith("_") and not isinstance(v, types.ModuleType)  # submodules: testing, ...
    }
    assert public - {"annotations"} == set(mcpcxx.__all__)
    for name in mcpcxx.testing.__all__:
        assert hasattr(mcpcxx.testing, name)


def test_import_does_not_load_pydantic_or_asyncio() -> None:
    code = (
        "import sys, mcpcxx; print(sorted(m for m in ('pydantic', 'asyncio') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_pydantic_loads_only_once_a_tool_needs_it() -> None:
    # Plain parameters and results get their schemas without pydantic (mcpcxx/_schema/); a
    # model parameter needs it.
    code = (
        "import sys, mcpcxx\n"
        "s = mcpcxx.Server('x')\n"
        "@s.tool\n"
        "def f(a: int) -> int:\n"
        "    return a\n"
        "print('pydantic' in sys.modules)\n"
        "import dataclasses\n"
        "@dataclasses.dataclass\n"
        "class Point:\n"
        "    x: int\n"
        "@s.tool\n"
        "def g(p: Point) -> int:\n"
        "    return p.x\n"
        "print('pydantic' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]


def test_versions_exported_by_the_engine() -> None:
    assert _core.MODERN_VERSION == "2026-07-28"
    assert _core.SUPPORTED_VERSIONS[0] == _core.MODERN_VERSION
    assert _core.LATEST_LEGACY_VERSION in _core.SUPPORTED_VERSIONS
