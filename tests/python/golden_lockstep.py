"""Lockstep stdio runs ("lockstep: yes"), mirror of tests/cpp/golden/lockstep.hpp.

The runner plays a client that reacts to the server. Each client line is sent on its own; a
request (an object with "id" and "method", or a batch) waits for its reply before the next line
goes out, so the server's own request ids and the order of everything it writes are
deterministic. Meanwhile every server-to-client request is answered from the transcript's answers
section, in order per method: a result, a JSON-RPC error, or never (the server's
client_request_timeout then runs). Client lines may use {REQUEST_STATE} (the requestState of the
latest reply that carried one) and the whole line "@align" (not sent: sleep until 250 ms past the
next whole second of the wall clock, since requestState expiry counts whole seconds).
"""

from __future__ import annotations

import json
import queue
import subprocess
import tempfile
import threading
import time
from collections import defaultdict, deque
from typing import Any

from golden import STATE, Answer, Transcript

REPLY_WAIT_S = 30.0  # a hung server fails the run, never blocks it


class LockstepError(Exception):
    """The run could not follow the transcript (no answer left, no state yet, no reply)."""


class _Client:
    def __init__(self, proc: subprocess.Popen[bytes], t: Transcript) -> None:
        assert proc.stdin is not None and proc.stdout is not None
        self._stdin = proc.stdin
        self._lines: queue.Queue[bytes] = queue.Queue()
        self.out: list[bytes] = []
        self._answers: dict[str, deque[Answer]] = defaultdict(deque)
        for a in t.answers:
            self._answers[a.method].append(a)
        self._state = ""
        stdout = proc.stdout
        threading.Thread(target=self._read, args=(stdout,), daemon=True).start()

    def _read(self, stdout: Any) -> None:
        for line in iter(stdout.readline, b""):
            self._lines.put(line)
        self._lines.put(b"")  # end of stdout

    def send(self, raw: bytes) -> None:
        if raw == b"@align":
            now = time.time()
            time.sleep(int(now) + 1.25 - now)
            return
        if STATE.encode() in raw:
            if not self._state:
                raise LockstepError(f"{STATE} before any reply carried a requestState")
            raw = raw.replace(STATE.encode(), self._state.encode(), 1)
        self._write(raw)
        try:
            m = json.loads(raw)
        except ValueError:
            return
        if isinstance(m, list) and m:
            self._wait(lambda r: isinstance(r, list))
        elif isinstance(m, dict) and "id" in m and "method" in m:
            want = m["id"]
            self._wait(lambda r: isinstance(r, dict) and "method" not in r and r.get("id") == want)

    def _write(self, raw: bytes) -> None:
        self._stdin.write(raw + b"\n")
        self._stdin.flush()

    def _wait(self, done: Any) -> None:
        until = time.monotonic() + REPLY_WAIT_S
        while True:
            try:
                line = self._lines.get(timeout=max(0.0, until - time.monotonic()))
            except queue.Empty:
                raise LockstepError(f"no reply within {REPLY_WAIT_S:.0f} s") from None
            if not line:
                raise LockstepError("the server's stdout ended before the reply")
            self.out.append(line)
            try:
                m = json.loads(line)
            except ValueError:
                continue
            self._react(m)
            if done(m):
                return

    def _react(self, m: Any) -> None:
        if not isinstance(m, dict):
            return
        result = m.get("result")
        if isinstance(result, dict) and isinstance(result.get("requestState"), str):
            self._state = result["requestState"]
        if "id" not in m or not isinstance(m.get("method"), str):
            return
        pending = self._answers[m["method"]]
        if not pending:
            raise LockstepError(f"no answer left for the server's request {json.dumps(m)}")
        a = pending.popleft()
        if a.kind != "never":
            self._write(json.dumps({"jsonrpc": "2.0", "id": m["id"], a.kind: a.value}).encode())

    def rest(self) -> bytes:
        """What stdout still brings until it ends (after stdin closed)."""
        chunks = []
        while line := self._lines.get(timeout=REPLY_WAIT_S):
            chunks.append(line)
        return b"".join(self.out + chunks)


def run(argv: list[str], env: dict[str, str], t: Transcript) -> tuple[bytes, int, str, str]:
    """(stdout, exit status, stderr tail, problem) of a lockstep run; problem "" when the run
    followed the transcript."""
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, env=env
        )
        client = _Client(proc, t)
        problem = ""
        try:
            for raw in t.client:
                client.send(raw)
        except (LockstepError, BrokenPipeError) as e:
            problem = str(e) or type(e).__name__
            proc.kill()
        try:
            assert proc.stdin is not None
            proc.stdin.close()
        except BrokenPipeError:
            pass
        try:
            out = client.rest()  # the reader thread is done once stdout ended
        finally:
            if proc.stdout is not None:
                proc.stdout.close()
        proc.wait(timeout=REPLY_WAIT_S)
        err.seek(0)
        return out, proc.returncode, err.read().decode(errors="replace")[-3000:], problem
