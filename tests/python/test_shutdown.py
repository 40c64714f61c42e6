"""A stop never starts a request it answered (issue 27), for a Python server over stdio (both
eras) and Streamable HTTP: with more calls in flight than workers at SIGTERM, the queued ones are
answered at once with P27a (never started, nothing applied) and their handlers never run; the
running ones get the drain grace, then P27 (outcome unknown); every request is answered exactly
once and the process exits within the documented bound (grace + 1 s for cancelled handlers)."""

from __future__ import annotations

import concurrent.futures
import json
import pathlib
import signal
import subprocess
import sys
import textwrap
import threading
import time
from typing import Any

import pytest

from mcp_requests import http_post, mcp_http_headers, modern_body, modern_message, read_served_url

GRACE = 1.0
CALLS = 10
# The documented bound after SIGTERM: the drain grace, then 1 s for cancelled handlers to return
# (docs/limits.md); the margin covers process start-up noise on a loaded test machine.
EXIT_BOUND = GRACE + 1.0 + 3.0

SERVER = textwrap.dedent(
    """
    import sys, time
    from mcpcxx import Context, Server

    server = Server("stop", workers=2, max_workers=2)
    starts = open(sys.argv[1], "a", buffering=1)

    @server.tool
    def apply(n: int, ctx: Context) -> str:
        starts.write(f"{n} {time.monotonic()}\\n")
        end = time.monotonic() + 3
        while time.monotonic() < end and not ctx.cancelled:
            time.sleep(0.005)
        return "applied"

    if sys.argv[2] == "http":
        sys.exit(server.run("http", port=0, drain_grace=GRACE))
    sys.exit(server.run(drain_grace_seconds=GRACE))
    """
).replace("GRACE", repr(GRACE))


def check_answers(
    answers: dict[int, tuple[dict[str, Any], float]], starts_file: pathlib.Path
) -> None:
    """Every call answered once: two ran (P27, after the grace), the rest never started."""
    assert sorted(answers) == list(range(1, CALLS + 1)), answers
    starts = {}
    for line in starts_file.read_text().splitlines():
        n, at = line.split()
        assert int(n) not in starts, f"call {n} started twice"
        starts[int(n)] = float(at)
    assert len(starts) == 2, starts  # the two workers' calls; nothing queued ever started
    for n, (error, answered_at) in answers.items():
        assert error["code"] == -32603, error
        if n in starts:
            assert starts[n] < answered_at
            assert error["data"]["effect"] == "unknown"  # stdio adds graceMs (row P27)
            assert "check whether it took effect" in error["message"]
        else:
            assert error["data"] == {"started": False, "effect": "not_applied"}
            assert "never started" in error["message"]
            assert "safe to retry" in error["message"]


def stdio_call(n: int, modern: bool) -> dict[str, Any]:
    params = {"name": "apply", "arguments": {"n": n}}
    if modern:
        return modern_message("tools/call", params, rid=n)
    return {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": params}


@pytest.mark.parametrize("modern", [True, False], ids=["modern", "legacy"])
def test_stdio_sigterm_refuses_queued_calls_and_exits_within_the_bound(
    tmp_path: pathlib.Path, modern: bool
) -> None:
    script, starts = tmp_path / "server.py", tmp_path / "starts.txt"
    script.write_text(SERVER)
    proc = subprocess.Popen(
        [sys.executable, str(script), str(starts), "stdio"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None
    answers: dict[int, tuple[dict[str, Any], float]] = {}
    try:
        if not modern:
            init = {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            }
            proc.stdin.write(
                json.dumps(
                    {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init}
                ).encode()
                + b"\n"
            )
            proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
            proc.stdin.flush()
            assert json.loads(proc.stdout.readline())["id"] == 0
        for n in range(1, CALLS + 1):
            proc.stdin.write(json.dumps(stdio_call(n, modern)).encode() + b"\n")
        proc.stdin.flush()
        deadline = time.monotonic() + 20
        while (
            not starts.exists() or len(starts.read_text().splitlines()) < 2
        ) and time.monotonic() < deadline:
            time.sleep(0.01)
        signalled = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        for raw in proc.stdout:
            reply = json.loads(raw)
            assert reply["id"] not in answers, f"answered twice: {reply}"
            answers[reply["id"]] = (reply["error"], time.monotonic())
        proc.wait(timeout=30)
        exited_after = time.monotonic() - signalled
    finally:
        proc.kill()
        proc.stdin.close()
        proc.stdout.close()
    assert proc.returncode == 0
    check_answers(answers, starts)
    refused = [at - signalled for n, (e, at) in answers.items() if "started" in e["data"]]
    assert max(refused) < GRACE, "queued calls must be refused at once, not after the grace"
    assert exited_after < EXIT_BOUND, exited_after


def test_http_sigterm_refuses_queued_calls_and_exits_within_the_bound(
    tmp_path: pathlib.Path,
) -> None:
    script, starts = tmp_path / "server.py", tmp_path / "starts.txt"
    script.write_text(SERVER)
    proc = subprocess.Popen(
        [sys.executable, str(script), str(starts), "http"], stderr=subprocess.PIPE, text=True
    )
    answers: dict[int, tuple[dict[str, Any], float]] = {}
    lock = threading.Lock()
    try:
        assert proc.stderr is not None
        url = read_served_url(proc.stderr)
        drain = threading.Thread(target=proc.stderr.read, daemon=True)  # keep the pipe drained
        drain.start()

        def post(n: int) -> None:
            body = modern_body("tools/call", {"name": "apply", "arguments": {"n": n}}, rid=n)
            reply = http_post(url, body, mcp_http_headers("tools/call", "apply"), timeout=30)
            assert reply.status == 503, (reply.status, reply.body)
            with lock:
                answers[n] = (reply.json()["error"], time.monotonic())

        with concurrent.futures.ThreadPoolExecutor(CALLS) as pool:
            futures = [pool.submit(post, n) for n in range(1, CALLS + 1)]
            deadline = time.monotonic() + 20
            while (
                not starts.exists() or len(starts.read_text().splitlines()) < 2
            ) and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(0.2)  # every POST has reached the engine (queued behind the two workers)
            signalled = time.monotonic()
            proc.send_signal(signal.SIGTERM)
            for f in futures:
                f.result(timeout=30)
        proc.wait(timeout=30)
        exited_after = time.monotonic() - signalled
        drain.join(timeout=10)
    finally:
        proc.kill()
        if proc.stderr is not None:
            proc.stderr.close()
    assert proc.returncode == 0
    check_answers(answers, starts)
    assert exited_after < EXIT_BOUND, exited_after
