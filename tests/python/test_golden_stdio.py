"""Runs every golden transcript through the stdio transport of each fixture server it names.

Transcripts with "transport: http" run against the fixtures serving Streamable HTTP
(golden_http.py). Fixtures: "cpp" is the C++ example server binary ($MCPCXX_EXAMPLE_SERVER, default
build/dev/tests/fixtures/cpp/mcpcxx_example_server), "python" is tests/fixtures/python/fixture_server.py run
by this interpreter. Every reply is validated against the official MCP schema of its revision
(golden_schema.py). The same transcripts are run by GoogleTest (tests/cpp/golden); this runner is
independent code (Python, subprocess pipes, jsonschema) so a bug in one runner cannot hide a wire
difference.

A transcript with "signal: SIGTERM N" keeps stdin open and sends the signal once the fixture
wrote N messages (a stop while calls run, row P27). One with "lockstep: yes" sends a request at a
time and answers the server's own requests from its answers section (golden_lockstep.py).
CI=true turns a missing fixture server or missing schemas into a failure instead of a skip.
MCPCXX_GOLDEN_FIXTURES (e.g. "python") restricts the fixtures run; MCPCXX_GOLDEN_PENDING=1 also
runs the transcripts marked pending.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

import golden_http
import golden_lockstep
import golden_schema
import mcpcxx
from golden import FIXTURES, STATE, Transcript, apply_mask, canonical, compare, files, load

SOURCE_DIR = golden_schema.SOURCE_DIR
CPP_SERVER = golden_schema.CPP_EXAMPLE_SERVER
PYTHON_SERVER = SOURCE_DIR / "tests" / "fixtures" / "python" / "fixture_server.py"
IN_CI = os.environ.get("CI") == "true"
_REF = re.compile(r"ERR-[0-9a-f]{8}")
_STATE = re.compile(r'"requestState":"[^"]*"')


def _selected() -> set[str]:
    return set(
        os.environ.get("MCPCXX_GOLDEN_FIXTURES", " ".join(FIXTURES)).replace(",", " ").split()
    )


def _command(fixture: str) -> tuple[list[str], dict[str, str]]:
    """argv and environment that start `fixture`; pytest.fail/skip when it is missing."""
    if fixture == "cpp":
        if not os.access(CPP_SERVER, os.X_OK):
            why = f"C++ example server {CPP_SERVER} is missing (set MCPCXX_EXAMPLE_SERVER)"
            if IN_CI:
                pytest.fail(f"{why}; CI=true requires it")
            pytest.skip(why)
        return [str(CPP_SERVER)], dict(os.environ)
    # The fixture imports the same mcpcxx this process imported, wherever that came from.
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(mcpcxx.__file__)))
    inherited = os.environ.get("PYTHONPATH")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_root, inherited]))}
    return [sys.executable, str(PYTHON_SERVER)], env


def _run_stdio(t: Transcript, fixture: str) -> tuple[bytes, int, str]:
    """(stdout, exit status, stderr tail) of `fixture` fed the transcript's client lines."""
    argv, env = _command(fixture)
    if t.lockstep:
        out, returncode, stderr, problem = golden_lockstep.run(argv, {**env, **t.env}, t)
        assert problem == "", f"{t.path.name} ({fixture}): the lockstep run stopped: {problem}"
        return out, returncode, stderr
    data = b"".join(line + b"\n" for line in t.client)
    if t.signal:
        return _run_with_signal(argv, {**env, **t.env}, data, t)
    proc = subprocess.run(
        argv, input=data, capture_output=True, timeout=60, env={**env, **t.env}, check=False
    )
    return proc.stdout, proc.returncode, proc.stderr.decode(errors="replace")[-3000:]


def _run_with_signal(
    argv: list[str], env: dict[str, str], data: bytes, t: Transcript
) -> tuple[bytes, int, str]:
    """Sends t.signal once the server wrote t.signal_after lines; stdin closes only after the
    server exited (an EOF racing the signal would be a different stop: a silent cancel)."""
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, env=env
        )
        assert proc.stdin is not None and proc.stdout is not None
        watchdog = threading.Timer(60, proc.kill)  # a hung server fails the comparison
        watchdog.start()
        try:
            proc.stdin.write(data)
            proc.stdin.flush()
            out = b"".join(proc.stdout.readline() for _ in range(t.signal_after))
            proc.send_signal(signal.Signals[t.signal])
            out += proc.stdout.read()
            proc.wait()
        finally:
            watchdog.cancel()
            proc.stdin.close()
            proc.stdout.close()
        err.seek(0)
        return out, proc.returncode, err.read().decode(errors="replace")[-3000:]


def run_transcript(t: Transcript, fixture: str) -> list[object]:
    """The messages `fixture` writes to stdout for the transcript's client lines."""
    stdout, returncode, stderr = _run_stdio(t, fixture)
    assert returncode == 0, f"{fixture} fixture exited {returncode}:\n{stderr}"
    lines = [line for line in stdout.splitlines() if line.strip()]
    return [json.loads(line) for line in lines]


CASES = [
    pytest.param(path, fixture, id=f"{path.stem}-{fixture}")
    for path in files()
    for fixture in load(path).fixtures
]


@pytest.mark.parametrize(("path", "fixture"), CASES)
def test_transcript(path: Path, fixture: str) -> None:
    t = load(path)
    if t.pending and os.environ.get("MCPCXX_GOLDEN_PENDING") != "1":
        pytest.skip(f"pending (MCPCXX_GOLDEN_PENDING=1 runs it): {t.pending}")
    if fixture not in _selected():
        pytest.skip(f"MCPCXX_GOLDEN_FIXTURES leaves out {fixture}")
    if t.transport == "http":
        check_http(t, fixture)
        return
    actual = run_transcript(t, fixture)
    expected = [apply_mask(e, t.mask) for e in t.server]
    assert compare(expected, [apply_mask(a, t.mask) for a in actual]) == "", (
        f"{path.name} ({fixture})"
    )
    require_schemas()
    assert golden_schema.check_transcript(t.client, actual) == []


def require_schemas() -> None:
    missing = golden_schema.available()
    if missing:
        if IN_CI:
            pytest.fail(f"{missing}; CI=true requires the schemas")
        pytest.skip(f"replies match, but {missing}")


def check_http(t: Transcript, fixture: str) -> None:
    """HTTP transcripts: responses in request order; bodies checked against their revision."""
    argv, env = _command(fixture)
    actual, returncode, stderr = golden_http.run(argv, env, t)
    assert returncode == 0, f"{fixture} fixture exited {returncode}:\n{stderr}"
    assert [canonical(apply_mask(a, t.mask)) for a in actual] == [
        canonical(apply_mask(e, t.mask)) for e in t.server
    ], stderr
    require_schemas()
    problems = []
    for request, response in zip(golden_http.requests(t), actual, strict=True):
        body = response.get("body")
        if isinstance(body, (dict, list)):
            rev, method = golden_http.request_facts(request)
            problems.append(golden_schema.check(rev, method, body))
    assert [p for p in problems if p] == []


def _raw_lines(t: Transcript, fixture: str) -> list[str]:
    """stdout lines with reference ids masked; batch arrays (members finish in any order) in
    canonical form, every other line byte for byte."""
    lines: list[str] = []
    for raw in _run_stdio(t, fixture)[0].decode().splitlines():
        masked = _STATE.sub(f'"requestState":"{STATE}"', _REF.sub("ERR-XXXXXXXX", raw))
        lines.append(canonical(json.loads(raw)) if raw.startswith("[") else masked)
    return sorted(lines)


BOTH = [
    pytest.param(path, id=path.stem)
    for path in files()
    if set(load(path).fixtures) == set(FIXTURES)
    and load(path).transport == "stdio"
    and not load(path).mask  # a masked transcript's fixtures legitimately differ there
]


@pytest.mark.parametrize("path", BOTH)
def test_both_fixtures_write_the_same_bytes(path: Path) -> None:
    """Beyond equal JSON values: the C++ and the Python server write identical lines."""
    t = load(path)
    if not set(FIXTURES) <= _selected():
        pytest.skip("MCPCXX_GOLDEN_FIXTURES leaves out a fixture")
    assert _raw_lines(t, "cpp") == _raw_lines(t, "python")


def test_every_transcript_has_prose_meta_and_both_sections() -> None:
    assert len(files()) >= 20
    for path in files():
        t = load(path)
        assert t.prose.strip(), f"{path.name} lacks the prose header saying what it pins"
        assert t.client and t.server, f"{path.name} lacks a client or server section"
        assert t.fixtures, f"{path.name} names no fixture"


def test_the_schema_checker_rejects_a_bad_reply() -> None:
    """The validator used above can fail: a CallToolResult without content breaks the schema."""
    if golden_schema.available():
        pytest.skip(golden_schema.available())
    bad = {"jsonrpc": "2.0", "id": 1, "result": {"isError": "yes"}}
    assert golden_schema.check("2025-11-25", "tools/call", bad) != ""
    good = {"jsonrpc": "2.0", "id": 1, "result": {"content": []}}
    assert golden_schema.check("2025-11-25", "tools/call", good) == ""


def _load_text(tmp_path: Path, text: str) -> Transcript:
    path = tmp_path / "t.txtar"
    path.write_text(text)
    return load(path)


def test_an_answers_section_needs_lockstep(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="lockstep"):
        _load_text(tmp_path, "p\n-- meta --\nfixtures: cpp\n-- answers --\nroots/list never\n")


def test_a_bad_answer_line_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="METHOD never"):
        _load_text(
            tmp_path,
            "p\n-- meta --\nfixtures: cpp\nlockstep: yes\n-- answers --\nroots/list maybe {}\n",
        )


def test_answers_are_read_in_order_with_their_json(tmp_path: Path) -> None:
    t = _load_text(
        tmp_path,
        "p\n-- meta --\nfixtures: cpp\nlockstep: yes\n-- answers --\n"
        'roots/list result {"roots":[]}\nroots/list error {"code":-1,"message":"x"}\n'
        "sampling/createMessage never\n-- client --\n{}\n",
    )
    assert t.lockstep
    assert [(a.method, a.kind, a.value) for a in t.answers] == [
        ("roots/list", "result", {"roots": []}),
        ("roots/list", "error", {"code": -1, "message": "x"}),
        ("sampling/createMessage", "never", None),
    ]


_INIT = (
    b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
    b'"capabilities":{"sampling":{}},"clientInfo":{"name":"golden","version":"1"}}}'
)


def _lockstep_problem(client: list[bytes]) -> str:
    """Why a lockstep run of `client` against the C++ fixture stopped ("" when it did not)."""
    argv, env = _command("cpp")
    t = Transcript(Path("inline"), lockstep=True, client=client)
    return golden_lockstep.run(argv, {**env, "MCPCXX_EXAMPLE_ASKING": "1"}, t)[3]


def test_a_server_request_without_an_answer_stops_the_lockstep_run() -> None:
    problem = _lockstep_problem(
        [
            _INIT,
            b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
            b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sample"}}',
        ]
    )
    assert "no answer left" in problem
    assert "sampling/createMessage" in problem


def test_a_request_state_placeholder_needs_an_earlier_state() -> None:
    problem = _lockstep_problem(
        [b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"requestState":"{REQUEST_STATE}"}}']
    )
    assert "before any reply carried a requestState" in problem


def test_every_request_state_compares_as_the_placeholder() -> None:
    sealed = {"id": 1, "result": {"requestState": "AQAAabc", "x": "y"}}
    assert canonical(sealed) == canonical({"id": 1, "result": {"requestState": STATE, "x": "y"}})
    assert canonical(sealed) != canonical({"id": 1, "result": {"x": "y"}})
