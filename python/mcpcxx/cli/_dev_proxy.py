"""The stdio proxy behind `mcpcxx dev`: forwards frames to a child server, swaps it on reload.

The client (host) talks to this process over stdio; the proxy forwards every line to the current
child (`mcpcxx run TARGET`) and every line the child writes back to the client, printing both in
the inspector's raw format (`--> ` toward the server, `<-- ` toward the client, `# ` commentary)
to stderr. A restart stops the old child with SIGTERM, so the engine itself answers what is still
in flight (rows P27/P27a); an initialize-era session is carried over by replaying the client's
initialize and session-state requests to the new child and swallowing the replies.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import threading
from collections.abc import Callable
from typing import Any, BinaryIO, TextIO

from mcpcxx import _core
from mcpcxx.inspect import dumps

# A request the old child never answered because its process died (crashed, or was killed after
# the drain grace) gets row P63 of the situation table, rendered by the engine.
LOST_ROW = "P63"
# Requests whose effect lives in the legacy session and is replayed into every new child.
SESSION_METHODS = ("logging/setLevel", "resources/subscribe", "resources/unsubscribe")
REPLAY_PREFIX = "mcpcxx-dev-replay-"


def _key(rid: Any) -> str:
    return json.dumps(rid, sort_keys=True)


class Child:
    """One generation of the server process and the thread reading its stdout."""

    def __init__(self, command: list[str], env: dict[str, str], number: int) -> None:
        self.number = number
        pipe = subprocess.PIPE
        self.proc = subprocess.Popen(command, stdin=pipe, stdout=pipe, env=env)
        self.reader: threading.Thread | None = None
        self.pending: set[str] = set()  # client request ids sent here and not yet answered
        self.asked: set[str] = set()  # ids of requests this child sent to the client
        self.gone = False  # its stdout closed: it answers nothing more

    def send(self, line: bytes) -> bool:
        """Write one frame; False when the child's stdin is gone."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(line + b"\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            return False
        return True

    def stop(self, grace: float) -> int:
        """SIGTERM (the engine drains for its grace), then SIGKILL if it outlives grace + 5 s."""
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            code = self.proc.wait(timeout=grace + 5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        if self.reader is not None:
            self.reader.join(timeout=5)
        return code


class Proxy:
    """Routes frames between the client and the current child; thread-safe (one lock)."""

    def __init__(self, client_out: BinaryIO, log: TextIO, spawn: Callable[[int], Child]) -> None:
        self.client_out, self.log, self.spawn = client_out, log, spawn
        self.lock = threading.RLock()
        self.child: Child | None = None
        self.generation = 0
        self.restarting = False
        self.queued: list[bytes] = []
        self.session: list[dict[str, Any]] = []  # the legacy handshake and session-state requests
        self.swallow: dict[str, threading.Event] = {}
        self.replies: dict[str, dict[str, Any]] = {}
        self.closing = False

    # ----- output ----------------------------------------------------------------------------

    def note(self, text: str) -> None:
        """Print a commentary line to the log."""
        print(f"# {text}", file=self.log, flush=True)

    def _frame(self, arrow: str, line: bytes) -> None:
        print(f"{arrow} {line.decode('utf-8', 'replace')}", file=self.log, flush=True)

    def to_client(self, line: bytes) -> None:
        """Write one frame to the client (stdout) and print it."""
        with self.lock:
            self._frame("<--", line)
            self.client_out.write(line + b"\n")
            self.client_out.flush()

    # ----- client -> server ------------------------------------------------------------------

    def from_client(self, line: bytes) -> None:
        """Route one frame the client wrote."""
        line = line.rstrip(b"\r\n")
        if not line.strip():
            return
        with self.lock:
            self._frame("-->", line)
            message = _parse(line)
            if message is not None and self._drop_stale_answer(message):
                return
            child = None if self.restarting else self.child
            if child is None or child.gone:
                self.queued.append(line)
                return
            self._track_incoming(child, message)
        self._deliver(child, line, message)

    def _track_incoming(self, child: Child, message: dict[str, Any] | None) -> None:
        """Note a frame on its way to `child` (a queued frame only once it is delivered)."""
        if message is None:
            return
        self._remember(message)
        if "method" in message and "id" in message:
            child.pending.add(_key(message["id"]))

    def _deliver(self, child: Child, line: bytes, message: dict[str, Any] | None) -> None:
        """Write outside the lock: a full pipe must not stall the threads reading the children."""
        if child.send(line):
            return
        with self.lock:
            rid = _key(message["id"]) if message is not None and "id" in message else None
            if rid is None or rid in child.pending:
                child.pending.discard(rid or "")
                self.queued.append(line)  # the next server gets it
            # else the dead child's reader already answered it

    def _drop_stale_answer(self, message: dict[str, Any]) -> bool:
        """A client's answer to a request an earlier child sent is dropped (nobody awaits it)."""
        if "method" in message or "id" not in message:
            return False
        child = self.child
        if child is not None and _key(message["id"]) in child.asked:
            child.asked.discard(_key(message["id"]))
            return False
        self.note(f"dropped the answer to request {message['id']!r} of a server since restarted")
        return True

    def _remember(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if method == "initialize":
            self.session = [message]
        elif method == "notifications/initialized" or method in SESSION_METHODS:
            self.session.append(message)

    # ----- server -> client ------------------------------------------------------------------

    def read_child(self, child: Child) -> None:
        """Forward everything a child writes until it closes stdout (runs on its own thread)."""
        assert child.proc.stdout is not None
        for raw in child.proc.stdout:
            line = raw.rstrip(b"\r\n")
            message = _parse(line)
            if message is not None and self._swallowed(message):
                self._frame("<--", line)
                self.note("(that reply answered a replayed frame; the client does not see it)")
                continue
            if message is not None:
                self._track_outgoing(child, message)
            self.to_client(line)
        self._child_gone(child)

    def _swallowed(self, message: dict[str, Any]) -> bool:
        rid = message.get("id")
        if "method" in message or not isinstance(rid, str) or not rid.startswith(REPLAY_PREFIX):
            return False
        with self.lock:
            event = self.swallow.pop(_key(rid), None)
            self.replies[_key(rid)] = message
        if event is not None:
            event.set()
        return True

    def _track_outgoing(self, child: Child, message: dict[str, Any]) -> None:
        if "id" not in message:
            return
        with self.lock:
            if "method" in message:
                child.asked.add(_key(message["id"]))
            else:
                child.pending.discard(_key(message["id"]))

    def _child_gone(self, child: Child) -> None:
        """Answer what the dead child left unanswered; note an exit nobody asked for."""
        with self.lock:
            lost = sorted(child.pending)
            child.pending.clear()
            child.gone = True
        for rid in lost:
            error = _core.render_error_row(LOST_ROW, {"effect": "unknown"})
            answer = {"jsonrpc": "2.0", "id": json.loads(rid), "error": error}
            self.to_client(dumps(answer).encode())
        with self.lock:
            unexpected = self.child is child and not self.restarting and not self.closing
        if unexpected:
            code = child.proc.wait()
            with self.lock:
                self.child = None
            self.note(f"the server exited with code {code}; it starts again when a file changes")

    # ----- lifecycle -------------------------------------------------------------------------

    def start(self) -> None:
        """Start a new child, carry the legacy session over, then deliver the queued frames."""
        with self.lock:
            self.generation += 1
            child = self.spawn(self.generation)
            child.reader = threading.Thread(target=self.read_child, args=(child,), daemon=True)
            child.reader.start()
            self.restarting = True
            self.child = child
            session = list(self.session)
        self._replay(child, session)
        self._flush(child)

    def _flush(self, child: Child) -> None:
        """Deliver the queued frames in order; frames arriving meanwhile queue behind them."""
        while True:
            with self.lock:
                queued, self.queued = self.queued, []
                if not queued or child.gone:
                    self.queued = queued + self.queued
                    self.restarting = False
                    if child.gone and self.child is child:
                        self.child = None
                    return
                parsed = [_parse(line) for line in queued]
                for message in parsed:
                    self._track_incoming(child, message)
            for line, message in zip(queued, parsed, strict=True):
                self._deliver(child, line, message)

    def _replay(self, child: Child, session: list[dict[str, Any]]) -> None:
        if not session:
            return
        self.note(f"replaying the client's session ({len(session)} frames) to the new server")
        changed: list[str] = []
        for n, message in enumerate(session):
            if "id" not in message:
                self._replay_send(child, message)
                continue
            rid = f"{REPLAY_PREFIX}{child.number}-{n}"
            event = threading.Event()
            with self.lock:
                self.swallow[_key(rid)] = event
            self._replay_send(child, {**message, "id": rid})
            if not event.wait(timeout=30):
                self.note(f"the new server did not answer the replayed {message['method']}")
                return
            changed += self._after_reply(message, self.replies.pop(_key(rid), {}))
        # The new code may serve other tools, resources or prompts: tell the host to list again.
        for method in changed:
            self.to_client(dumps({"jsonrpc": "2.0", "method": method}).encode())

    def _replay_send(self, child: Child, message: dict[str, Any]) -> None:
        line = dumps(message).encode()
        self._frame("-->", line)
        child.send(line)

    def _after_reply(self, request: dict[str, Any], reply: dict[str, Any]) -> list[str]:
        """The list_changed notifications the new server's initialize result allows."""
        if "error" in reply:
            self.note(f"the new server refused the replayed {request['method']}: {reply['error']}")
        if request.get("method") != "initialize" or "result" not in reply:
            return []
        capabilities = reply["result"].get("capabilities") or {}
        return [
            f"notifications/{kind}/list_changed"
            for kind in ("tools", "resources", "prompts")
            if (capabilities.get(kind) or {}).get("listChanged")
        ]

    def restart(self, grace: float) -> None:
        """Stop the current child (the engine answers its in-flight requests) and start anew."""
        with self.lock:
            old, self.restarting = self.child, True
        if old is not None:
            self.note(f"stopping server #{old.number} (in-flight requests get {grace:g} s)")
            code = old.stop(grace)
            self.note(f"server #{old.number} exited with code {code}")
        self.start()
        self.note(f"server #{self.generation} is running the new code")

    def close(self, grace: float) -> int:
        """The client went away: end the child's input, let it drain, return its exit code."""
        with self.lock:
            self.closing = True
            child = self.child
        if child is None:
            return 0
        assert child.proc.stdin is not None
        with contextlib.suppress(OSError):
            child.proc.stdin.close()
        try:
            code = child.proc.wait(timeout=grace + 5)
        except subprocess.TimeoutExpired:
            code = child.stop(grace)
        if child.reader is not None:
            child.reader.join(timeout=5)
        return code


def _parse(line: bytes) -> dict[str, Any] | None:
    try:
        message = json.loads(line)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None
