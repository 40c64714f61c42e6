"""Server(lifespan=...): started before serving, stopped after, its value in ctx.lifespan_context.

Covered paths: mcpcxx.testing.Client, the ASGI app's lifespan events, run("stdio") and
run("http") (in subprocesses, with startup failure, serving failure and a normal end).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

import mcpcxx
from conftest import result_of
from mcp_requests import http_post, mcp_http_headers, modern_message, read_served_url
from mcpcxx.asgi import MCPApp
from mcpcxx.testing import Client


class Events:
    """What a lifespan did, in order."""

    def __init__(self) -> None:
        self.log: list[str] = []

    def lifespan(self, value: Any = None, fail: BaseException | None = None) -> Any:
        @contextlib.asynccontextmanager
        async def lifespan(server: mcpcxx.Server) -> AsyncIterator[Any]:
            self.log.append(f"start {server.name}")
            if fail is not None:
                raise fail
            try:
                yield value
            except BaseException as e:
                self.log.append(f"stop after {type(e).__name__}")
                raise
            self.log.append("stop")

        return lifespan


def context_server(events: Events, value: Any) -> mcpcxx.Server:
    server = mcpcxx.Server("life", lifespan=events.lifespan(value))

    @server.tool
    def sync_value(ctx: mcpcxx.Context) -> str:
        return json.dumps(ctx.lifespan_context)

    @server.tool
    async def async_value(ctx: mcpcxx.Context) -> str:
        await asyncio.sleep(0)
        return json.dumps(ctx.lifespan_context)

    return server


def test_client_path_starts_once_and_stops_with_the_last_client(era: str) -> None:
    events = Events()
    server = context_server(events, {"db": "open"})
    assert events.log == []
    with Client(server, protocol_version=era) as first:
        assert events.log == ["start life"]
        with Client(server, protocol_version=era) as second:
            text = result_of(second.call_tool("async_value", {}))["content"][0]["text"]
            assert json.loads(text) == {"db": "open"}
        assert events.log == ["start life"]
        text = result_of(first.call_tool("sync_value", {}))["content"][0]["text"]
        assert json.loads(text) == {"db": "open"}
        assert server.lifespan_context == {"db": "open"}
    assert events.log == ["start life", "stop"]
    with pytest.raises(RuntimeError, match="lifespan is not running"):
        _ = server.lifespan_context
    with Client(server, protocol_version=era):
        assert events.log == ["start life", "stop", "start life"]
    server.close()


def test_without_a_lifespan_the_context_is_none(server: mcpcxx.Server, era: str) -> None:
    @server.tool
    def value(ctx: mcpcxx.Context) -> str:
        return repr(ctx.lifespan_context)

    with Client(server, protocol_version=era) as c:
        assert result_of(c.call_tool("value", {}))["content"][0]["text"] == "None"


def test_startup_failure_fails_the_start_with_a_clear_message() -> None:
    events = Events()
    server = mcpcxx.Server("life", lifespan=events.lifespan(fail=OSError("db unreachable")))
    with pytest.raises(
        mcpcxx.LifespanError,
        match=r"server 'life' cannot start: its lifespan raised "
        r"OSError: db unreachable",
    ) as failed:
        Client(server)
    assert isinstance(failed.value.__cause__, OSError)
    # Nothing holds the lifespan: a later start tries again.
    with pytest.raises(mcpcxx.LifespanError):
        Client(server)
    assert events.log == ["start life", "start life"]
    server.close()


@pytest.mark.parametrize(
    ("lifespan", "match"),
    [
        (lambda server: {"not": "a context manager"}, "returned a dict, not an async context"),
        (lambda: None, "lifespan function raised TypeError"),
    ],
)
def test_a_lifespan_that_is_not_an_async_context_manager(lifespan: Any, match: str) -> None:
    server = mcpcxx.Server("life", lifespan=lifespan)
    with pytest.raises(mcpcxx.LifespanError, match=match):
        Client(server)
    server.close()


def test_lifespan_must_be_callable() -> None:
    with pytest.raises(TypeError, match="lifespan must be a function taking the server"):
        mcpcxx.Server("life", lifespan="nope")  # type: ignore[arg-type]


def test_shutdown_runs_when_serving_failed() -> None:
    events = Events()
    server = mcpcxx.Server("life", lifespan=events.lifespan("v"))
    with pytest.raises(TypeError, match="no_such_option"):
        server.run("http", no_such_option=1)
    assert events.log == ["start life", "stop after TypeError"]
    server.close()


def test_run_refuses_to_serve_when_startup_fails() -> None:
    events = Events()
    server = mcpcxx.Server("life", lifespan=events.lifespan(fail=ValueError("bad config")))
    with pytest.raises(mcpcxx.LifespanError, match="cannot start: its lifespan raised ValueError"):
        server.run("http", port=0)
    assert events.log == ["start life"]
    server.close()


# ----- ASGI -------------------------------------------------------------------------------------


async def drive_lifespan(app: MCPApp, during: Any = None) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []
    inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    inbox.put_nowait({"type": "lifespan.startup"})

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)
        if message["type"] == "lifespan.startup.complete":
            if during is not None:
                await during()
            inbox.put_nowait({"type": "lifespan.shutdown"})

    await asyncio.wait_for(app({"type": "lifespan"}, inbox.get, send), 30)
    return sent


def test_asgi_lifespan_events_run_the_server_lifespan() -> None:
    events = Events()
    server = context_server(events, [1, 2])
    app = MCPApp(server)
    seen: list[Any] = []

    async def during() -> None:
        seen.append(server.lifespan_context)

    sent = asyncio.run(drive_lifespan(app, during))
    assert [m["type"] for m in sent] == ["lifespan.startup.complete", "lifespan.shutdown.complete"]
    assert seen == [[1, 2]]
    assert events.log == ["start life", "stop"]
    server.close()


def test_asgi_startup_failure_is_reported_to_the_asgi_server() -> None:
    events = Events()
    server = mcpcxx.Server("life", lifespan=events.lifespan(fail=OSError("no db")))
    sent = asyncio.run(drive_lifespan(MCPApp(server)))
    assert sent == [
        {
            "type": "lifespan.startup.failed",
            "message": "server 'life' cannot start: its lifespan raised OSError: no db",
        }
    ]
    server.close()


# ----- run("stdio") and run("http") in a process of their own ----------------------------------

SCRIPT = textwrap.dedent(
    """
    import contextlib, sys
    import mcpcxx

    @contextlib.asynccontextmanager
    async def lifespan(server):
        print("lifespan: start", file=sys.stderr, flush=True)
        if sys.argv[2] == "fail":
            raise RuntimeError("config missing")
        yield {"greeting": "hello"}
        print("lifespan: stop", file=sys.stderr, flush=True)

    server = mcpcxx.Server("life", lifespan=lifespan)

    @server.tool
    def greet(ctx: mcpcxx.Context) -> str:
        return ctx.lifespan_context["greeting"]

    if sys.argv[1] == "http":
        server.run("http", port=0)
    else:
        server.run()
    """
)


CALL = modern_message("tools/call", {"name": "greet", "arguments": {}})


def _script(tmp_path: Path) -> Path:
    path = tmp_path / "life_server.py"
    path.write_text(SCRIPT)
    return path


def test_run_stdio_starts_serves_and_stops(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(_script(tmp_path)), "stdio", "ok"],
        input=json.dumps(CALL) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"]["content"][0]["text"] == "hello"
    lines = [line for line in done.stderr.splitlines() if line.startswith("lifespan:")]
    assert lines == ["lifespan: start", "lifespan: stop"]


def test_run_stdio_startup_failure_serves_nothing(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(_script(tmp_path)), "stdio", "fail"],
        input=json.dumps(CALL) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert done.stdout == ""
    assert "server 'life' cannot start: its lifespan raised RuntimeError: config missing" in (
        done.stderr
    )


def test_run_http_starts_serves_and_stops_on_sigterm(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, str(_script(tmp_path)), "http", "ok"], stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stderr is not None
        url = read_served_url(proc.stderr)
        call = json.dumps(CALL).encode()
        reply = http_post(url, call, mcp_http_headers("tools/call", "greet"), timeout=10)
        assert reply.status == 200
        assert reply.json()["result"]["content"][0]["text"] == "hello"
        proc.send_signal(signal.SIGTERM)
        rest = proc.stderr.read()
        assert proc.wait(timeout=30) == 0
        assert "lifespan: stop" in rest
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()
