"""`mcpcxx run TARGET` (stdio and --http) and the top-level command line.

Servers are real subprocesses answering real requests; bad targets and flags exit non-zero with
a message that says what was wrong.
"""

from __future__ import annotations

import json
import os
import pathlib
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator

import pytest

import mcpcxx as mcpcxx_package
from mcpcxx.inspect import CLIENT_CAPABILITIES_KEY, LEGACY, MODERN

SERVER_CODE = """
import os
import mcpcxx

app = mcpcxx.Server("echo-server", "2.0")


@app.tool
def echo(text: str) -> str:
    \"\"\"Echo the text, with the GREETING variable.\"\"\"
    return f"{os.environ.get('GREETING', '-')}: {text}"
"""


def write(path: pathlib.Path, code: str) -> pathlib.Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(code)
    return path


def mcpcxx(*args: str, cwd: pathlib.Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcpcxx", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
        cwd=cwd,
    )


def envelope(era: str) -> dict[str, object]:
    """The per-request _meta of the 2026-07-28 era ({} for the legacy era)."""
    if era != MODERN:
        return {}
    return {
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            CLIENT_CAPABILITIES_KEY: {},
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        }
    }


def call_over_stdio(command: list[str], era: str, text: str, cwd: pathlib.Path) -> str:
    """Run the server, (legacy: initialize,) call echo, close stdin; the tool's text."""
    with subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=cwd
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None

        def ask(message: dict[str, object]) -> dict[str, object]:
            proc.stdin.write(json.dumps(message).encode() + b"\n")  # type: ignore[union-attr]
            proc.stdin.flush()  # type: ignore[union-attr]
            if "id" not in message:
                return {}
            reply: dict[str, object] = json.loads(proc.stdout.readline())  # type: ignore[union-attr]
            assert reply["id"] == message["id"], reply
            return reply

        if era == LEGACY:
            info = {"name": "t", "version": "1"}
            params = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": info}
            ask({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
            ask({"jsonrpc": "2.0", "method": "notifications/initialized"})
        params = {"name": "echo", "arguments": {"text": text}, **envelope(era)}
        reply = ask({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params})
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0
    return str(reply["result"]["content"][0]["text"])  # type: ignore[index]


@pytest.mark.parametrize("era", [MODERN, LEGACY])
@pytest.mark.parametrize("form", ["file", "file:object", "module:object"])
def test_stdio_run_answers_a_tools_call(era: str, form: str, tmp_path: pathlib.Path) -> None:
    path = write(tmp_path / "echo_server.py", SERVER_CODE)
    target = {"file": str(path), "file:object": f"{path}:app", "module:object": "echo_server:app"}[
        form
    ]
    env_file = write(tmp_path / "vars.env", "GREETING=from-file\n")
    command = [sys.executable, "-m", "mcpcxx", "run", target, "--env-file", str(env_file)]
    assert call_over_stdio(command, era, "hi", tmp_path) == "from-file: hi"
    # --env wins over --env-file.
    command += ["--env", "GREETING=from-flag"]
    assert call_over_stdio(command, era, "yo", tmp_path) == "from-flag: yo"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def http_server(tmp_path: pathlib.Path) -> Iterator[tuple[int, pathlib.Path]]:
    """(port, stderr log) of `mcpcxx run --http` serving the echo server at /rpc."""
    path = write(tmp_path / "echo_server.py", SERVER_CODE)
    port = free_port()
    command = [sys.executable, "-m", "mcpcxx", "run", str(path), "--http", f"127.0.0.1:{port}"]
    command += ["--path", "/rpc", "--env", "GREETING=over-http", "--option", "max_sessions=7"]
    log = tmp_path / "stderr.log"
    with open(log, "wb") as err, subprocess.Popen(command, stdout=err, stderr=err) as proc:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        assert proc.poll() is None, log.read_text()
        yield port, log
        proc.terminate()
        assert proc.wait(timeout=30) == 0


def post(
    port: int, path: str, body: dict[str, object], headers: dict[str, str]
) -> dict[str, object]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        json.dumps(body).encode(),
        {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **headers,
        },
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        raw = response.read().decode()
    if raw.startswith(("data:", "event:", "id:")):
        raw = next(line[5:] for line in raw.splitlines() if line.startswith("data:"))
    result: dict[str, object] = json.loads(raw)
    return result


def test_http_run_answers_a_post(http_server: tuple[int, pathlib.Path]) -> None:
    port, _ = http_server
    init = post(
        port,
        "/rpc",
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": LEGACY,
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {},
    )
    assert init["result"]["serverInfo"]["name"] == "echo-server"  # type: ignore[index]
    # A 2026-07-28 request needs no session: its envelope travels in _meta.
    params = {"name": "echo", "arguments": {"text": "hi"}, **envelope(MODERN)}
    body = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params}
    headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": "echo"}
    answer = post(port, "/rpc", body, headers)
    assert answer["result"]["content"][0]["text"] == "over-http: hi"  # type: ignore[index]


TWO_SERVERS = "import mcpcxx\nfirst = mcpcxx.Server('a')\nsecond = mcpcxx.Server('b')\n"


@pytest.mark.parametrize(
    ("files", "target", "code", "message"),
    [
        ({}, "missing.py", 2, "no such file: missing.py"),
        ({"plain.py": "x = 1\n"}, "plain.py", 2, "plain.py has no mcpcxx.Server at its top level"),
        (
            {"two.py": TWO_SERVERS},
            "two.py",
            2,
            "two.py defines 2 Servers (first, second); name the one to use as two.py:first",
        ),
        (
            {"two.py": TWO_SERVERS},
            "two.py:third",
            2,
            "two.py has no mcpcxx.Server named 'third' (nothing has that name)",
        ),
        (
            {"two.py": TWO_SERVERS + "n = 3\n"},
            "two.py:n",
            2,
            "two.py has no mcpcxx.Server named 'n' (it is a int)",
        ),
        (
            {"broken.py": "import mcpcxx\ndef f(:\n"},
            "broken.py",
            2,
            "broken.py has a syntax error at line 2",
        ),
        (
            {"raises.py": "raise RuntimeError('no database')\n"},
            "raises.py",
            1,
            "RuntimeError: no database",
        ),
        (
            {},
            "no_such_module_xyz",
            2,
            "cannot import 'no_such_module_xyz': no module named 'no_such_module_xyz'",
        ),
        ({}, ":app", 2, "':app' names no file or module before ':'"),
    ],
)
def test_bad_targets_exit_non_zero_with_clear_text(
    files: dict[str, str], target: str, code: int, message: str, tmp_path: pathlib.Path
) -> None:
    for name, content in files.items():
        write(tmp_path / name, content)
    for extra in ([], ["--check"]):
        done = mcpcxx("run", target, *extra, cwd=tmp_path)
        assert done.returncode == code, done.stderr
        assert message in done.stderr
        assert done.stdout == ""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--http", "127.0.0.1:http"], "--http 127.0.0.1:http: the port must be a number"),
        (["--http", "127.0.0.1:70000"], "the port must be between 0 and 65535"),
        (["--path", "/x"], "--path only apply with --http HOST:PORT"),
        (["--no-legacy"], "--no-legacy only apply with --http"),
        (["--env", "=x"], "--env: '=x' is not KEY=VALUE"),
        (["--option", "nonsense"], "--option 'nonsense' is not KEY=VALUE"),
        (["--option", "frobnicate=1"], "unexpected stdio option(s): frobnicate"),
        (["--http", ":0", "--option", "frobnicate=1"], "frobnicate"),
    ],
)
def test_bad_flags_exit_2_and_name_the_flag(
    args: list[str], message: str, tmp_path: pathlib.Path
) -> None:
    path = write(tmp_path / "echo_server.py", SERVER_CODE)
    done = mcpcxx("run", str(path), *args)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr


def test_a_port_in_use_is_reported_without_a_traceback(tmp_path: pathlib.Path) -> None:
    path = write(tmp_path / "echo_server.py", SERVER_CODE)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = mcpcxx("run", str(path), "--http", f"127.0.0.1:{port}")
    assert done.returncode == 1
    assert f"mcpcxx run: serving HTTP on 127.0.0.1:{port} failed: bind: " in done.stderr
    assert "Traceback" not in done.stderr


def test_check_loads_without_serving(tmp_path: pathlib.Path) -> None:
    path = write(tmp_path / "echo_server.py", SERVER_CODE)
    done = mcpcxx("run", f"{path}:app", "--check")
    assert done.returncode == 0
    assert "Server('echo-server', version='2.0') loads" in done.stderr


def test_help_lists_every_command_and_each_command_has_help() -> None:
    done = mcpcxx("--help")
    assert done.returncode == 0
    listed = [line.split()[0] for line in done.stdout.splitlines() if line.startswith("  ")]
    assert listed == ["run", "dev", "install", "inspect"]
    for command in listed:
        sub = mcpcxx(command, "--help")
        assert sub.returncode == 0, sub.stderr
        assert sub.stdout.startswith("usage: ") and command in sub.stdout.splitlines()[0]
    assert "claude-desktop" in mcpcxx("install", "--help").stdout
    version = mcpcxx("--version")
    assert version.returncode == 0 and version.stdout == f"mcpcxx {mcpcxx_package.__version__}\n"
    unknown = mcpcxx("serve")
    assert unknown.returncode == 2 and "unknown command 'serve'" in unknown.stderr
    assert "run" in unknown.stderr


def test_the_console_script_entry_point_is_the_same_command_line() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from mcpcxx.__main__ import main; sys.exit(main(['--help']))",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0 and "install" in done.stdout


def test_the_installed_mcpcxx_script_runs_the_command_line() -> None:
    """The wheel's console script (next to the interpreter in a venv) is the same command line."""
    script = pathlib.Path(sys.executable).parent / ("mcpcxx.exe" if os.name == "nt" else "mcpcxx")
    if not script.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{script} is missing: the wheel must install the mcpcxx console script")
        pytest.skip("mcpcxx is not installed next to this interpreter (a staged package)")
    done = subprocess.run(
        [str(script), "--help"], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0
    assert [line.split()[0] for line in done.stdout.splitlines() if line.startswith("  ")] == [
        "run",
        "dev",
        "install",
        "inspect",
    ]
