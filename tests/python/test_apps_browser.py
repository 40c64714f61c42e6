"""MCP Apps in a real browser: the issue tracker's board (examples/issue_tracker/board.html) in
headless Chromium, hosted by a minimal test host built on the extension's published host side
(@modelcontextprotocol/ext-apps, its app bridge; tests/browser/apps_host.mjs).

The issue tracker serves Streamable HTTP; a local HTTP server serves the host page and its
esbuild bundle and passes /mcp through to the issue tracker (one origin for the page). The host
reads the ui:// resource, renders it in a sandboxed iframe, calls show_board and hands the result
to the view. The test checks that the board rendered from that result, clicks a card's button
(the view's tools/call goes through the bridge and the host's client to the server), sees the
server's answer in the view, and reads the issue back from the server. A second test does the same
with a view built on the package's own app side (its App class). The screenshots are kept in
build/test-artifacts (MCPCXX_ARTIFACTS_DIR overrides the folder).

Needs node, Chromium (Debian's chromium) and the npm packages in MCPCXX_APPS_NODE_MODULES;
scripts/test-all.sh installs them in CI, where a missing one fails the test instead of skipping.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from conftest import SOURCE_DIR
from mcp_requests import http_post, mcp_http_headers, modern_body

# Needs npm packages: the full suite runs it, not the per-interpreter wheel runs.
pytestmark = pytest.mark.interop
IN_CI = os.environ.get("CI") == "true" or os.environ.get("MCPCXX_CI") == "1"
BROWSER_DIR = SOURCE_DIR / "tests" / "browser"
PACKAGES = ("@modelcontextprotocol/ext-apps", "@modelcontextprotocol/client", "playwright-core")
CHROMIUM = os.environ.get("MCPCXX_CHROMIUM", "/usr/bin/chromium")


def require(condition: bool, what: str) -> None:
    if not condition:
        if IN_CI:
            pytest.fail(f"{what} is required in CI (scripts/test-all.sh installs it)")
        pytest.skip(f"{what} is not installed")


def node_modules() -> pathlib.Path:
    modules = os.environ.get("MCPCXX_APPS_NODE_MODULES", "")
    require(shutil.which("node") is not None, "node")
    require(os.access(CHROMIUM, os.X_OK), f"Chromium ({CHROMIUM})")
    for package in PACKAGES:
        require(bool(modules) and pathlib.Path(modules, package).is_dir(), package)
    return pathlib.Path(modules)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextlib.contextmanager
def serving(
    command: list[str], port: int, log: pathlib.Path, env: dict[str, str]
) -> Iterator[None]:
    """Runs an MCP server process (stderr to `log`) until the test is done with it."""
    with open(log, "wb") as err, subprocess.Popen(command, stderr=err, env=env) as proc:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        assert proc.poll() is None, log.read_text()
        yield
        proc.terminate()
        proc.wait(timeout=30)


@pytest.fixture
def issue_tracker(tmp_path: pathlib.Path) -> Iterator[tuple[int, pathlib.Path]]:
    """(port, stderr log) of the issue tracker serving HTTP on a fresh database."""
    port, log = free_port(), tmp_path / "server.log"
    server = SOURCE_DIR / "examples" / "issue_tracker" / "server.py"
    env = {**os.environ, "ISSUE_TRACKER_DB": str(tmp_path / "issues.db")}
    with serving([sys.executable, str(server), "--http", str(port)], port, log, env):
        yield port, log


def forwarded(name: str) -> bool:
    """Whether the pass-through keeps a request or response header (the Streamable HTTP ones)."""
    lower = name.lower()
    return lower.startswith("mcp-") or lower in ("content-type", "accept", "last-event-id")


def host_handler(files: dict[str, tuple[bytes, str]], mcp_port: int) -> type:
    """Serves `files` ({path: (body, content type)}) and passes /mcp through to the server."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            if self.path.startswith("/mcp"):
                self.forward()
                return
            body, kind = files.get(self.path, (b"not found", "text/plain"))
            self.send_response(200 if self.path in files else 404)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            self.forward()

        def do_DELETE(self) -> None:
            self.forward()

        def forward(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            headers = {k: v for k, v in self.headers.items() if forwarded(k)}
            request = urllib.request.Request(
                f"http://127.0.0.1:{mcp_port}/mcp", body, headers, method=self.command
            )
            try:
                response = urllib.request.urlopen(request, timeout=60)
            except urllib.error.HTTPError as e:
                response = e
            with response:
                self.send_response(response.status)
                for k, v in response.headers.items():
                    if forwarded(k):
                        self.send_header(k, v)
                self.send_header("Connection", "close")
                self.end_headers()
                while chunk := response.read1(65536):  # SSE streams pass as they come
                    self.wfile.write(chunk)
                    self.wfile.flush()

    return Handler


def bundle(modules: pathlib.Path, source: str, out: pathlib.Path, form: str = "esm") -> bytes:
    """tests/browser/`source` and the npm packages it imports, bundled for the browser."""
    esbuild = modules / "esbuild" / "bin" / "esbuild"
    subprocess.run(
        [str(esbuild), str(BROWSER_DIR / source), "--bundle", f"--format={form}",
         "--platform=browser", "--log-level=warning", f"--outfile={out}"],
        check=True,
        env={**os.environ, "NODE_PATH": str(modules)},
        timeout=120,
    )  # fmt: skip
    return out.read_bytes()


def artifact_path(name: str) -> pathlib.Path:
    folder = pathlib.Path(
        os.environ.get("MCPCXX_ARTIFACTS_DIR", SOURCE_DIR / "build" / "test-artifacts")
    )
    folder.mkdir(parents=True, exist_ok=True)
    return folder / name


def in_browser(
    modules: pathlib.Path, mcp_port: int, tmp_path: pathlib.Path, scenario: str, screenshot: str
) -> dict[str, Any]:
    """Serves the test host for the server at `mcp_port` and runs apps_browser.cjs on it."""
    files = {
        "/": ((BROWSER_DIR / "apps_host.html").read_bytes(), "text/html; charset=utf-8"),
        "/host.js": (bundle(modules, "apps_host.mjs", tmp_path / "host.js"), "text/javascript"),
    }
    host = http.server.ThreadingHTTPServer(("127.0.0.1", 0), host_handler(files, mcp_port))
    threading.Thread(target=host.serve_forever, daemon=True).start()
    shot = artifact_path(screenshot)
    shot.unlink(missing_ok=True)
    try:
        proc = subprocess.run(
            ["node", str(BROWSER_DIR / "apps_browser.cjs"),
             f"http://127.0.0.1:{host.server_address[1]}/", str(shot), scenario],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "NODE_PATH": str(modules), "MCPCXX_CHROMIUM": CHROMIUM},
            check=False,
        )  # fmt: skip
    finally:
        host.shutdown()
        host.server_close()
    assert proc.returncode == 0, proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout)
    assert "hostError" not in out, out
    assert out["problems"] == [], out["problems"]
    assert shot.stat().st_size > 1000
    return out


def call_tool(port: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A 2026-07-28 tools/call straight to the server (not through the browser)."""
    body = modern_body("tools/call", {"name": name, "arguments": arguments})
    reply = http_post(f"http://127.0.0.1:{port}/mcp", body, mcp_http_headers("tools/call", name))
    assert reply.status == 200, reply.body
    result: dict[str, Any] = reply.json()["result"]
    return result


def tool_calls_logged(log: pathlib.Path, count: int) -> list[tuple[str, str]]:
    """(tool, outcome) of the server's tools/call request log lines, once `count` are there (the
    line follows the reply, so the last one may still be on its way; 10 s at most)."""
    deadline = time.monotonic() + 10
    while True:
        requests = [
            json.loads(line)
            for line in log.read_text().splitlines()
            if line.startswith("{") and '"event":"request"' in line
        ]
        calls = [(r["tool"], r["outcome"]) for r in requests if r["method"] == "tools/call"]
        if len(calls) >= count or time.monotonic() > deadline:
            return calls
        time.sleep(0.05)


def test_board_renders_in_chromium_and_its_tool_call_reaches_the_server(
    issue_tracker: tuple[int, pathlib.Path], tmp_path: pathlib.Path
) -> None:
    mcp_port, server_log = issue_tracker
    out = in_browser(node_modules(), mcp_port, tmp_path, "board", "apps_board.png")
    report = out["report"]
    # The host found the link and the UI resource's metadata as the server declared them.
    assert report["tool"] == "show_board"
    assert report["uri"] == "ui://issue-tracker/board"
    assert report["toolMeta"]["ui/resourceUri"] == "ui://issue-tracker/board"
    assert report["resourceMeta"] == {"ui": {"prefersBorder": True}}
    assert report["app"] == {"name": "issue-board", "version": "1.0.0"}
    assert report["serverVersion"]["name"] == "issue-tracker"
    # The view rendered show_board's structuredContent: every seeded issue in its column.
    for text in ("ENG-1", "Crash on start", "ENG-42", "Migrate billing", "OPS-7"):
        assert text in out["rendered"], out["rendered"]
    assert out["statusBefore"] == "Board loaded"
    # The click's update_issue came back from the server through the host.
    assert out["statusAfter"] == "ENG-2 is in progress (from update_issue)"
    assert call_tool(mcp_port, "get_issue", {"key": "ENG-2"})["structuredContent"] == {
        "key": "ENG-2",
        "title": "Slow search",
        "state": "in_progress",
    }
    # The server saw the host's calls: show_board, then the view's update_issue and get_issue
    # (the second get_issue is the test's own, above), all ok.
    calls = tool_calls_logged(server_log, 4)
    assert calls == [
        ("show_board", "ok"),
        ("update_issue", "ok"),
        ("get_issue", "ok"),
        ("get_issue", "ok"),
    ], calls


def test_the_extensions_own_app_class_calls_an_app_only_tool_through_the_host(
    tmp_path: pathlib.Path,
) -> None:
    """The app side from the same package: a view on App (apps_official_view.mjs) served by
    tests/fixtures/python/official_view_server.py through Server.ui_resource(path=...)."""
    modules = node_modules()
    script = bundle(modules, "apps_official_view.mjs", tmp_path / "view.js", form="iife")
    page = tmp_path / "view.html"
    page.write_text(
        '<!DOCTYPE html><html><head><meta charset="utf-8"><title>Official view</title></head>'
        '<body><p id="state">starting</p><p id="result"></p><p id="called"></p><script>'
        + script.decode().replace("</script", "<\\/script")
        + "</script></body></html>",
        encoding="utf-8",
    )
    port, log = free_port(), tmp_path / "server.log"
    server = SOURCE_DIR / "tests" / "fixtures" / "python" / "official_view_server.py"
    with serving([sys.executable, str(server), str(port), str(page)], port, log, dict(os.environ)):
        out = in_browser(modules, port, tmp_path, "official", "apps_official_view.png")
    assert out["report"]["tool"] == "open_view"
    assert out["report"]["app"] == {"name": "official-view", "version": "1.0.0"}
    assert out["state"] == "connected to mcpcxx-test-host"
    # The host's client declared the extension in initialize: the tool saw it.
    assert out["result"] == "tool result: apps"
    assert out["called"] == "HELLO FROM THE VIEW"
    # The view calls shout as soon as it is connected, while the host calls open_view: any order.
    assert sorted(tool_calls_logged(log, 2)) == [("open_view", "ok"), ("shout", "ok")]
