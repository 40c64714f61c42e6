"""stdio serving of a Python server: the demo, stray prints, `python -m mcpcxx run`, inspect."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from conftest import DEMO_SERVER
from mcp_requests import MODERN_META


def frames(*requests: dict[str, Any]) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in requests)


def call(rid: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": rid,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments, "_meta": MODERN_META},
    }


def serve(command: list[str], stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(command, input=stdin, capture_output=True, timeout=60, check=False)


@pytest.mark.parametrize(
    "command",
    [
        [sys.executable, str(DEMO_SERVER)],
        [sys.executable, "-m", "mcpcxx", "run", str(DEMO_SERVER)],
        [sys.executable, "-m", "mcpcxx", "run", f"{DEMO_SERVER}:server"],
    ],
    ids=["script", "run", "run-object"],
)
def test_stray_print_does_not_corrupt_stdout(command: list[str]) -> None:
    proc = serve(command, frames(call(1, "noisy", {"text": "hi"}), call(2, "echo", {"text": "ü"})))
    assert proc.returncode == 0, proc.stderr.decode()
    lines = proc.stdout.decode().splitlines()
    # every stdout line is a JSON-RPC message; requests run concurrently, so order by id
    replies = sorted((json.loads(line) for line in lines), key=lambda r: r["id"])
    assert [r["id"] for r in replies] == [1, 2]
    assert replies[0]["result"]["content"][0]["text"] == "hi"
    assert replies[1]["result"]["content"][0]["text"] == "ü"
    assert b"this stray print goes to stderr" in proc.stderr
    assert b"a raw write to fd 1 goes to stderr too" in proc.stderr


def test_every_error_path_over_stdio() -> None:
    stdin = (
        frames(
            call(1, "get_issue", {"key": "ENG-9"}),
            call(2, "get_issue", {"key": "lowercase"}),
            call(3, "nope", {}),
            call(4, "crash", {}),
            call(5, "broken_stats", {"text": "a"}),
            call(6, "stats", {"text": "a b"}),
        )
        + b"this is not json\n"
    )
    proc = serve([sys.executable, str(DEMO_SERVER)], stdin)
    assert proc.returncode == 0
    replies = {
        json.dumps(r.get("id")): r for r in map(json.loads, proc.stdout.decode().splitlines())
    }
    assert replies["1"]["result"]["isError"] is True
    assert replies["1"]["result"]["content"][0]["text"].startswith(
        "Issue lookup failed: issue ENG-9."
    )
    assert replies["2"]["result"]["_meta"]["mcpcxx/error"]["category"] == "invalid_arguments"
    assert replies["3"]["error"]["code"] == -32602
    crash = replies["4"]["result"]
    assert crash["isError"] is True and "password" not in json.dumps(crash)
    ref = crash["_meta"]["mcpcxx/error"]["reference"]
    logged = [
        json.loads(x) for x in proc.stderr.decode().splitlines() if x.startswith("{") and ref in x
    ]
    assert any("database password rejected" in e.get("detail", "") for e in logged)
    assert "structuredContent" not in replies["5"]["result"]
    assert replies["6"]["result"]["structuredContent"] == {"words": 2, "characters": 3}
    assert replies["null"]["error"]["code"] == -32700


def test_expose_details_flag_of_the_demo() -> None:
    proc = serve(
        [sys.executable, str(DEMO_SERVER), "--expose-details"], frames(call(1, "crash", {}))
    )
    assert "database password rejected" in proc.stdout.decode()


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("/no/such/file.py", "no such file"),
        ("json", "has no mcpcxx.Server"),
        ("json:dumps", "no mcpcxx.Server named"),
    ],
)
def test_run_reports_bad_targets(target: str, message: str) -> None:
    proc = serve([sys.executable, "-m", "mcpcxx", "run", target], b"")
    assert proc.returncode == 2
    assert message in proc.stderr.decode() or "defines 0 Servers" in proc.stderr.decode()


def test_cli_usage() -> None:
    proc = serve([sys.executable, "-m", "mcpcxx"], b"")
    assert proc.returncode == 2 and b"usage" in proc.stdout
    proc = serve([sys.executable, "-m", "mcpcxx", "frobnicate"], b"")
    assert proc.returncode == 2 and b"unknown command" in proc.stderr


def inspect(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcpcxx", "inspect", *args, "--", sys.executable, str(DEMO_SERVER)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("legacy", [False, True])
def test_inspector_prints_raw_frames_for_both_paths(legacy: bool) -> None:
    extra = ["--legacy"] if legacy else []
    proc = inspect(*extra, "--call", "echo", "--args", '{"text": "hi"}', "--error-demo", "--quiet")
    assert proc.returncode == 0, proc.stderr
    sent = [json.loads(line[4:]) for line in proc.stdout.splitlines() if line.startswith("--> ")]
    received = [
        json.loads(line[4:]) for line in proc.stdout.splitlines() if line.startswith("<-- ")
    ]
    methods = [m["method"] for m in sent]
    assert methods[-4:] == ["tools/list", "tools/call", "tools/call", "tools/call"]
    assert ("initialize" in methods) is legacy
    by_id = {r["id"]: r for r in received if "id" in r}
    assert by_id[sent[-3]["id"]]["result"]["content"][0]["text"] == "hi"
    assert by_id[sent[-2]["id"]]["error"]["code"] == -32602
    assert by_id[sent[-1]["id"]]["result"]["isError"] is True
    assert "# tools: echo, get_issue" in proc.stdout


def test_inspector_bad_usage_and_dead_servers() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mcpcxx", "inspect", "--", sys.executable, "-c", "pass"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 1 and "exited" in proc.stderr
    proc = subprocess.run(
        [sys.executable, "-m", "mcpcxx", "inspect", "--", "/no/such/binary"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2 and "cannot start" in proc.stderr
    proc = inspect("--call", "echo", "--args", "{not json", "--quiet")
    assert proc.returncode == 1 and "--args is not valid JSON" in proc.stderr
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mcpcxx",
            "inspect",
            "--",
            sys.executable,
            "-c",
            "import time; print('garbage', flush=True); time.sleep(3)",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 1 and "not JSON" in proc.stderr


POLLING_SERVER = """
import sys
import mcpcxx

server = mcpcxx.Server("poll")


@server.tool
def echo(text: str) -> str:
    return text


sys.exit(server.run("stdio", request_poll=float(sys.argv[1])))
"""


@pytest.mark.parametrize("poll", ["0", "0.00005", "0.01"])
def test_request_poll_serves_every_call_and_ends_at_eof(poll: str) -> None:
    calls = [call(i, "echo", {"text": f"t{i}"}) for i in range(1, 21)]
    proc = serve([sys.executable, "-c", POLLING_SERVER, poll], frames(*calls))
    assert proc.returncode == 0, proc.stderr.decode()
    replies = [json.loads(line) for line in proc.stdout.splitlines()]
    assert sorted(r["id"] for r in replies) == list(range(1, 21))
    for r in replies:
        assert r["result"]["content"][0]["text"] == f"t{r['id']}"


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        (-0.001, TypeError, "'request_poll' must be a number of seconds >= 0"),
        ("fast", TypeError, "'request_poll' must be a number of seconds >= 0, got string"),
        (0.02, ValueError, "request_poll must be between 0 and 10 ms"),
    ],
)
def test_request_poll_out_of_range_is_refused_before_serving(
    value: object, error: type[Exception], message: str
) -> None:
    import mcpcxx

    server = mcpcxx.Server("poll")
    with pytest.raises(error, match=message):
        server.run("stdio", request_poll=value)
    with pytest.raises(TypeError, match="unexpected stdio option"):
        server.run("stdio", reply_poll=0.001)
