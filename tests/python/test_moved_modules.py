"""Modules that moved into sub-packages: the old import paths still work and warn once each.

mcpcxx.prometheus is now mcpcxx.observability.prometheus; the inspector (mcpcxx._inspect,
mcpcxx._inspect_peer, and the envelope constants of mcpcxx._envelope that scripts used with it)
is now mcpcxx.inspect.
"""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

MOVED = [
    ("mcpcxx.prometheus", "mcpcxx.observability.prometheus", ["MetricsCollector", "register"]),
    ("mcpcxx._inspect", "mcpcxx.inspect", ["StdioPeer", "main"]),
    ("mcpcxx._inspect_peer", "mcpcxx.inspect", ["CLIENT_INFO", "InspectError", "Peer", "dumps"]),
    ("mcpcxx._envelope", "mcpcxx.inspect", ["CLIENT_CAPABILITIES_KEY", "LEGACY", "MODERN"]),
]


@pytest.mark.parametrize(("old", "new", "names"), MOVED, ids=[m[0] for m in MOVED])
def test_the_old_path_warns_and_gives_the_same_objects(
    old: str, new: str, names: list[str]
) -> None:
    sys.modules.pop(old, None)
    namespace: dict[str, object] = {}
    with pytest.warns(DeprecationWarning, match=rf"{old} moved to {new}") as caught:
        exec(compile(f"import {old}", "<the importing script>", "exec"), namespace)
    # Attributed to the import statement, so the default filters show it to a script's author.
    assert [w.filename for w in caught] == ["<the importing script>"]
    module = sys.modules[old]
    current = importlib.import_module(new)
    for name in names:
        assert getattr(module, name) is getattr(current, name), name


def test_the_new_paths_do_not_warn() -> None:
    code = (
        "import warnings; warnings.simplefilter('error')\n"
        "import mcpcxx, mcpcxx.asgi, mcpcxx.inspect, mcpcxx.observability.prometheus\n"
        "from mcpcxx.inspect import StdioPeer, InspectError, dumps, LEGACY, MODERN\n"
        "from mcpcxx.asgi import MCPApp, MetricsApp\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_a_script_importing_an_old_path_sees_the_warning() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", "import mcpcxx.prometheus"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "DeprecationWarning: mcpcxx.prometheus moved to mcpcxx.observability.prometheus" in (
        proc.stderr
    )


def test_the_shims_are_the_only_modules_left_at_the_package_root() -> None:
    import pathlib

    import mcpcxx

    root = pathlib.Path(mcpcxx.__file__).parent
    flat = sorted(p.stem for p in root.glob("_*.py") if not p.stem.startswith("__"))
    assert flat == ["_envelope", "_inspect", "_inspect_peer"]
    for stem in [*flat, "prometheus"]:
        assert "warn_moved(__name__" in (root / f"{stem}.py").read_text(), stem
