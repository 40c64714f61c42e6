"""`mcpcxx dev`: one stdio session survives restarts of the server behind it.

The test edits the server's file while a client session is open: the next call gets the new
answer in the same session; broken code keeps the old server running and prints the error; a
call in flight at the restart is answered with a JSON-RPC error instead of hanging.
"""

from __future__ import annotations

import json
import pathlib
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from mcpcxx.inspect import CLIENT_CAPABILITIES_KEY, LEGACY, MODERN

SERVER_CODE = """
import asyncio
import os
import sys
import mcpcxx

server = mcpcxx.Server("dev-server", "1.0")


@server.tool
def answer() -> str:
    \"\"\"The current answer.\"\"\"
    return "ANSWER"


@server.tool
async def slow() -> str:
    \"\"\"Takes a minute.\"\"\"
    print("slow started", file=sys.stderr, flush=True)
    await asyncio.sleep(60)
    return "done"


@server.tool
async def ask(ctx: mcpcxx.Context) -> str:
    \"\"\"Asks the user first.\"\"\"
    result = await ctx.elicit("Proceed?")
    return str(result.action)


@server.tool
def crash() -> str:
    \"\"\"Ends the server process without answering.\"\"\"
    os._exit(3)
"""


class DevSession:
    """`mcpcxx dev` as a subprocess: frames in, replies out, stderr collected."""

    def __init__(self, server_file: pathlib.Path, era: str) -> None:
        self.era = era
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "mcpcxx",
                "dev",
                str(server_file),
                "--interval",
                "0.1",
                "--drain-grace",
                "0.5",
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.replies: queue.Queue[dict[str, Any]] = queue.Queue()
        self.err: list[str] = []
        self.early: dict[object, dict[str, Any]] = {}
        self.ids = iter(range(1, 1000))
        threading.Thread(target=self._read_out, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()
        self.wait_for("# serving ")  # the watcher's first look at the files is done

    def _read_out(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.replies.put(json.loads(line))

    def _read_err(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.err.append(line.decode("utf-8", "replace"))

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict[str, Any]) -> int:
        rid = next(self.ids)
        if self.era == MODERN:
            info = {"name": "t", "version": "1"}
            params = {
                **params,
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": MODERN,
                    CLIENT_CAPABILITIES_KEY: {},
                    "io.modelcontextprotocol/clientInfo": info,
                },
            }
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return rid

    def reply(self, rid: int) -> dict[str, Any]:
        """The response to `rid` (notifications are skipped, other responses kept for later)."""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if rid in self.early:
                return self.early.pop(rid)
            try:
                message = self.replies.get(timeout=max(deadline - time.monotonic(), 0.01))
            except queue.Empty:
                break
            if message.get("id") == rid:
                return message
            if "id" in message and "method" not in message:
                self.early[message["id"]] = message  # another request's answer, claimed later
        raise AssertionError(f"no reply to {rid}; stderr:\n{self.stderr()}")

    def server_request(self) -> dict[str, Any]:
        """The next request the server sends the client."""
        while True:
            message = self.replies.get(timeout=30)
            if "method" in message and "id" in message:
                return message
            if "id" in message:
                self.early[message["id"]] = message

    def call(self, tool: str) -> dict[str, Any]:
        return self.reply(self.request("tools/call", {"name": tool, "arguments": {}}))

    def text(self, tool: str = "answer") -> str:
        response = self.call(tool)
        assert "result" in response, response
        return str(response["result"]["content"][0]["text"])

    def handshake(self) -> None:
        if self.era == LEGACY:
            info = {"name": "t", "version": "1"}
            params = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": info}
            init = self.reply(self.request("initialize", params))
            assert init["result"]["serverInfo"]["name"] == "dev-server"
            self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def stderr(self) -> str:
        return "".join(self.err)

    def wait_for(self, text: str, after: int = 0) -> int:
        """Wait until stderr (from line `after` on) contains `text`; the line count then."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            lines = list(self.err)
            if any(text in line for line in lines[after:]):
                return len(lines)
            time.sleep(0.05)
        raise AssertionError(f"{text!r} never printed; stderr:\n{self.stderr()}")

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        code = self.proc.wait(timeout=30)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()
        return code


@pytest.fixture
def server_file(tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "app" / "dev_server.py"
    path.parent.mkdir()
    path.write_text(SERVER_CODE.replace("ANSWER", "first answer"))
    return path


@pytest.fixture(params=[LEGACY, MODERN], ids=["legacy", "modern"])
def session(server_file: pathlib.Path, request: pytest.FixtureRequest) -> Iterator[DevSession]:
    dev = DevSession(server_file, str(request.param))
    yield dev
    if dev.proc.poll() is None:
        dev.proc.kill()
        dev.proc.wait()
    for stream in (dev.proc.stdin, dev.proc.stdout, dev.proc.stderr):
        if stream is not None and not stream.closed:
            stream.close()


def edit(path: pathlib.Path, code: str) -> None:
    """Rewrite the file so that its mtime visibly changes even on a coarse clock."""
    before = path.stat().st_mtime_ns
    path.write_text(code)
    if path.stat().st_mtime_ns == before:
        import os

        os.utime(path, ns=(before + 1_000_000_000, before + 1_000_000_000))


def test_an_edit_restarts_the_server_in_the_same_session_and_broken_code_keeps_the_old(
    session: DevSession, server_file: pathlib.Path
) -> None:
    session.handshake()
    assert session.text() == "first answer"

    mark = len(session.err)
    edit(server_file, SERVER_CODE.replace("ANSWER", "second answer"))
    session.wait_for("is running the new code", mark)
    assert session.text() == "second answer"
    if session.era == LEGACY:
        # The new server got the client's initialize; its reply never reached the client.
        assert "replaying the client's session (2 frames)" in session.stderr()
        assert "answered a replayed frame" in session.stderr()

    mark = len(session.err)
    edit(server_file, SERVER_CODE.replace("ANSWER", "third answer") + "\ndef broken(:\n")
    session.wait_for("the new code does not load; the running server keeps serving", mark)
    session.wait_for("syntax error at line", mark)
    assert session.text() == "second answer"

    # A helper module next to the server is watched too.
    mark = len(session.err)
    (server_file.parent / "helper.py").write_text("VALUE = 1\n")
    edit(server_file, SERVER_CODE.replace("ANSWER", "fourth answer"))
    session.wait_for("is running the new code", mark)
    assert session.text() == "fourth answer"

    assert session.close() == 0
    out = session.stderr()
    # Every frame went by in the inspector's raw format.
    assert '--> {"jsonrpc": "2.0", "id": 1, "method": ' in out
    assert '<-- {"jsonrpc":"2.0","id":' in out and '"text":"fourth answer"' in out


def test_a_call_in_flight_at_a_restart_gets_the_engines_shutdown_error(
    session: DevSession, server_file: pathlib.Path
) -> None:
    session.handshake()
    slow = session.request("tools/call", {"name": "slow", "arguments": {}})
    mark = session.wait_for("slow started")
    edit(server_file, SERVER_CODE.replace("ANSWER", "after restart"))
    response = session.reply(slow)
    assert response["error"]["code"] == -32603, response
    assert response["error"]["message"].startswith("Server shutting down"), response
    session.wait_for("is running the new code", mark)
    assert session.text() == "after restart"
    assert session.close() == 0


def test_a_crashed_server_answers_its_call_and_starts_again_on_the_next_edit(
    session: DevSession, server_file: pathlib.Path
) -> None:
    session.handshake()
    response = session.call("crash")
    assert response["error"] == {  # row P63, rendered by the situation table
        "code": -32603,
        "message": (
            "Internal error: the server process exited before answering this request (it "
            "crashed, or `mcpcxx dev` restarted it after its drain grace), so the outcome is "
            "unknown: it may have taken effect, wholly or in part. Check the current state "
            "before sending it again; the server starts again when a source file changes"
        ),
        "data": {"effect": "unknown"},
    }
    session.wait_for("the server exited with code 3; it starts again when a file changes")
    edit(server_file, SERVER_CODE.replace("ANSWER", "back again"))
    assert session.text() == "back again"  # queued until the new server started
    assert session.close() == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope.py"], "mcpcxx dev: no such file: nope.py"),
        (["no_such_module_xyz"], "mcpcxx dev: cannot find module 'no_such_module_xyz'"),
        (["ok.py", "--watch", "missing-dir"], "mcpcxx dev: --watch missing-dir: not a directory"),
        (["ok.py", "--env", "JUSTAKEY"], "mcpcxx dev: --env: 'JUSTAKEY' is not KEY=VALUE"),
    ],
)
def test_dev_refuses_bad_arguments(args: list[str], message: str, tmp_path: pathlib.Path) -> None:
    (tmp_path / "ok.py").write_text(SERVER_CODE)
    done = subprocess.run(
        [sys.executable, "-m", "mcpcxx", "dev", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert message in done.stderr
    assert done.stdout == ""


def test_a_burst_of_calls_passes_through_in_both_directions(
    session: DevSession, server_file: pathlib.Path
) -> None:
    session.handshake()
    # Far more than a pipe buffer each way: the proxy must keep both directions moving.
    ids = [session.request("tools/call", {"name": "answer", "arguments": {}}) for _ in range(400)]
    for rid in ids:
        assert session.reply(rid)["result"]["content"][0]["text"] == "first answer"
    assert session.close() == 0


def test_a_legacy_sessions_log_level_is_replayed_to_the_new_server(
    server_file: pathlib.Path,
) -> None:
    session = DevSession(server_file, LEGACY)
    try:
        session.handshake()
        assert "result" in session.reply(session.request("logging/setLevel", {"level": "error"}))
        mark = len(session.err)
        edit(server_file, SERVER_CODE.replace("ANSWER", "replayed"))
        session.wait_for("is running the new code", mark)
        assert session.text() == "replayed"
        out = "".join(session.err[mark:])
        assert "replaying the client's session (3 frames)" in out
        assert '"id":"mcpcxx-dev-replay-2-2","method":"logging/setLevel"' in out
        assert out.count("(that reply answered a replayed frame") == 2
        assert session.close() == 0
    finally:
        if session.proc.poll() is None:
            session.proc.kill()
            session.proc.wait()


def test_an_answer_to_a_replaced_servers_question_is_dropped(server_file: pathlib.Path) -> None:
    session = DevSession(server_file, LEGACY)
    try:
        info = {"name": "t", "version": "1"}
        params = {
            "protocolVersion": LEGACY,
            "capabilities": {"elicitation": {}},
            "clientInfo": info,
        }
        assert "result" in session.reply(session.request("initialize", params))
        session.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        ask = session.request("tools/call", {"name": "ask", "arguments": {}})
        question = session.server_request()
        assert question["method"] == "elicitation/create"

        mark = len(session.err)
        edit(server_file, SERVER_CODE.replace("ANSWER", "new server"))
        assert session.reply(ask)["error"]["message"].startswith("Server shutting down")
        session.wait_for("is running the new code", mark)
        answer = {"action": "accept", "content": {}}
        session.send({"jsonrpc": "2.0", "id": question["id"], "result": answer})
        session.wait_for(f"dropped the answer to request {question['id']!r}", mark)
        assert session.text() == "new server"
        assert session.close() == 0
    finally:
        if session.proc.poll() is None:
            session.proc.kill()
            session.proc.wait()


def test_a_server_that_does_not_load_at_first_starts_at_the_edit_that_fixes_it(
    server_file: pathlib.Path,
) -> None:
    good = server_file.read_text()
    server_file.write_text(good + "\nraise RuntimeError('not configured yet')\n")
    session = DevSession(server_file, LEGACY)
    try:
        session.wait_for("the server exited with code 1; it starts again when a file changes")
        assert "RuntimeError: not configured yet" in session.stderr()
        info = {"name": "t", "version": "1"}
        params = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": info}
        init = session.request("initialize", params)  # waits for a server
        mark = len(session.err)
        edit(server_file, good.replace("first answer", "fixed"))
        session.wait_for("is running the new code", mark)
        # The client's own initialize reached the new server once (nothing replayed before it).
        assert session.reply(init)["result"]["serverInfo"]["name"] == "dev-server"
        assert "replaying" not in "".join(session.err[mark:])
        session.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert session.text() == "fixed"
        assert session.close() == 0
    finally:
        if session.proc.poll() is None:
            session.proc.kill()
            session.proc.wait()
