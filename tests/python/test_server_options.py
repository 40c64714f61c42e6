"""Server options are declared once (mcpcxx._api.options.ServerOptions) and agree with the engine.

The engine exports the keys its server_options JSON parser accepts (_core.SERVER_OPTION_KEYS,
read from the parser itself); every one is some ServerOptions field's key or listed in CORE_ONLY
with the reason, and every field's key is one the engine accepts.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
import pathlib
import re
import subprocess
import sys
from datetime import timedelta
from typing import Any

import pytest

import mcpcxx
from mcpcxx import _core
from mcpcxx._api.options import CORE_ONLY, ServerOptions, core_keys

# Server's keywords and defaults as released: a keyword may be added, none may change or go.
RELEASED = {
    "name": inspect.Parameter.empty,
    "version": "0.0.0",
    "title": None,
    "description": None,
    "instructions": None,
    "expose_exception_details": False,
    "website_url": None,
    "icons": None,
    "workers": 0,
    "max_workers": None,
    "logging": True,
    "log_writer": None,
    "log_level": None,
    "page_size": None,
    "max_message_bytes": None,
    "max_stuck_workers": None,
    "max_batch_members": None,
    "max_batch_reply_bytes": None,
    "client_request_timeout": None,
    "lifespan": None,
    "max_listeners": None,
    "max_listen_uris": None,
    "listener_queue": None,
    "list_ttl_ms": None,
    "cache_scope": None,
    "tasks": None,
}

# A value other than the default for every field, each one the engine accepts.
EVERY_OPTION: dict[str, Any] = {
    "version": "2.0",
    "title": "T",
    "description": "D",
    "instructions": "I",
    "expose_exception_details": True,
    "website_url": "https://example.com",
    "icons": [{"src": "https://example.com/i.png"}],
    "workers": 2,
    "max_workers": 3,
    "logging": False,
    "log_writer": print,
    "log_level": "warning",
    "page_size": 7,
    "max_message_bytes": 100000,
    "max_stuck_workers": 4,
    "max_batch_members": 5,
    "max_batch_reply_bytes": 100000,
    "client_request_timeout": 1.5,
    "lifespan": lambda server: None,
    "max_listeners": 6,
    "max_listen_uris": 8,
    "listener_queue": 9,
    "list_ttl_ms": 10,
    "cache_scope": "private",
    "tasks": {
        "max_tasks": 11,
        "default_ttl_ms": 12,
        "max_ttl_ms": 13,
        "poll_interval_ms": 14,
        "threads": 1,
    },
    "store": "memory:",
    "store_key_prefix": "every:",
    "store_timeout": 2.0,
    "task_lease": 3.0,
    "request_state_key": "q9Tt3n3oJ5Q0R0m1f2yYxQ0y8kTqG4sQmV1oZr7b0cA=",
    "request_state_previous_keys": ["AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="],
    "at_most_once": {
        "max_result_bytes": 100,
        "max_records": 10,
        "lease": timedelta(seconds=2),
        "warn_destructive": False,
    },
}


def test_the_engine_exports_its_parsers_keys() -> None:
    keys = _core.SERVER_OPTION_KEYS
    assert isinstance(keys, tuple) and len(keys) == len(set(keys))
    assert {"info", "worker_threads", "max_tasks", "request_state_key"} <= set(keys)
    # The very list the parser names when it refuses a key.
    with pytest.raises(TypeError, match="unexpected server option 'nope'") as refused:
        _core.Server({"nope": 1})
    listed = re.search(r"known options: (.*)$", str(refused.value))
    assert listed is not None and tuple(listed.group(1).split(", ")) == keys


def test_options_and_engine_keys_agree_both_ways() -> None:
    engine = set(_core.SERVER_OPTION_KEYS)
    assert sorted(core_keys() - engine) == [], "fields naming a key the engine does not accept"
    assert sorted(engine - core_keys() - set(CORE_ONLY)) == [], (
        "engine keys no Server keyword sets: add a ServerOptions field or a CORE_ONLY reason"
    )
    assert sorted(core_keys() & set(CORE_ONLY)) == [], "keys both set and listed as core-only"
    assert sorted(set(CORE_ONLY) - engine) == [], "CORE_ONLY names a key the engine dropped"


def test_every_field_reaches_the_engine_under_its_key() -> None:
    options = ServerOptions("every", **EVERY_OPTION)
    sent = options.to_core()
    for f in dataclasses.fields(ServerOptions):
        key = f.metadata["core"]
        if key is None:
            continue
        for k in key if isinstance(key, tuple) else [key]:
            outer, _, inner = k.partition(".")
            assert outer in sent and (not inner or inner in sent[outer]), f"{f.name} -> {k}"
    assert sent["info"]["icons"] == EVERY_OPTION["icons"]
    assert sent["worker_threads"] == 2 and sent["log_threshold"] == "warning"
    assert sent["client_request_timeout"] == 1.5 and sent["task_threads"] == 1
    assert sent["at_most_once"]["lease"] == 2.0
    core = _core.Server(sent, None)  # the engine accepts every key and value
    assert core.capabilities().get("logging") is None  # logging=False reached it


def test_the_python_side_options_are_checked_too() -> None:
    with pytest.raises(TypeError, match="log_writer must be a function"):
        ServerOptions("x", log_writer="stderr")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="lifespan must be a function taking the server"):
        ServerOptions("x", lifespan=3)  # type: ignore[arg-type]


def test_server_takes_exactly_the_options_with_the_released_defaults() -> None:
    server_params = inspect.signature(mcpcxx.Server).parameters
    option_params = inspect.signature(ServerOptions).parameters
    assert list(server_params.values()) == list(option_params.values())
    assert {n: p.default for n, p in server_params.items() if n in RELEASED} == RELEASED
    assert [p.name for p in server_params.values() if p.kind is p.POSITIONAL_OR_KEYWORD] == [
        "name",
        "version",
    ]


def test_each_keyword_keeps_its_meaning() -> None:
    server = mcpcxx.Server("kw", **EVERY_OPTION)
    try:
        assert (server.name, server.version, server.expose_exception_details) == ("kw", "2.0", True)
        assert "logging" not in server.capabilities()
        assert server.runtime.lifespan.configured
    finally:
        server.close()
    with pytest.raises(TypeError, match="unexpected keyword argument 'worker_threads'"):
        mcpcxx.Server("kw", worker_threads=2)  # the engine's spelling is not a keyword


def test_type_checkers_see_the_keywords(tmp_path: Any) -> None:
    """Server's keywords come from ServerOptions through a ParamSpec: mypy checks each one."""
    pytest.importorskip("mypy")
    source = tmp_path / "uses_server.py"
    source.write_text(
        "import mcpcxx\n"
        "mcpcxx.Server('ok', '1', workers=2, title='t', tasks={'max_tasks': 2})\n"
        "mcpcxx.Server('bad', workers='2')\n"
        "mcpcxx.Server('bad', worker_threads=2)\n"
    )
    package_root = pathlib.Path(mcpcxx.__file__).parents[1]
    env = dict(os.environ)
    if "site-packages" not in package_root.parts:  # an installed wheel is found as it is
        env["MYPYPATH"] = str(package_root)
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(source)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
        cwd=tmp_path,
    )
    errors = [line for line in proc.stdout.splitlines() if ": error:" in line]
    assert [e.split(":")[1] for e in errors] == ["3", "4"], proc.stdout
    assert 'Argument "workers" to "Server" has incompatible type "str"' in errors[0]
    assert 'Unexpected keyword argument "worker_threads" for "Server"' in errors[1]
