"""Golden transcript reader and comparer shared by the pytest suites (mirror of tests/cpp/golden).

Format: tests/golden/README.md.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "golden"
FIXTURES = ("cpp", "python")
_REF = re.compile(r"ERR-[0-9a-f]{8}")
STATE = "{REQUEST_STATE}"  # a requestState in a reply, and where a client line uses the last one


@dataclass
class Answer:
    """How the client answers one server-to-client request (a line of "-- answers --")."""

    method: str  # e.g. "elicitation/create"
    kind: str  # "result", "error" or "never" (no answer: the server's timeout runs)
    value: Any = None  # the result or error object; None for "never"


@dataclass
class Transcript:
    path: Path
    prose: str = ""
    fixtures: list[str] = field(default_factory=list)
    rows: list[str] = field(default_factory=list)
    pending: str = ""
    transport: str = "stdio"
    mask: str = ""
    signal: str = ""  # stdio: "SIGTERM"/"SIGINT", sent once the server wrote signal_after messages
    signal_after: int = 0
    lockstep: bool = False  # stdio: one request at a time, server requests answered (lockstep.py)
    answers: list[Answer] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    client: list[bytes] = field(default_factory=list)
    server: list[Any] = field(default_factory=list)


def load(path: Path) -> Transcript:
    """Parses a .txtar transcript; client lines stay raw bytes (some are deliberately not UTF-8)."""
    t = Transcript(path)
    section = "prose"
    for raw in path.read_bytes().split(b"\n"):
        line = raw.decode("utf-8", errors="surrogateescape")
        if line.startswith("-- ") and line.endswith(" --") and len(line) > 6:
            section = line[3:-3]
            if section not in ("meta", "env", "answers", "client", "server"):
                raise ValueError(f"{path}: unknown section {section}")
            continue
        if section == "prose":
            t.prose += line + "\n"
        elif section == "client" and t.transport == "http":
            t.client.append(raw)  # blank lines separate an HTTP head from its body
        elif not raw:
            continue
        elif section == "meta":
            _read_meta(t, line)
        elif section == "env":
            key, _, value = line.partition("=")
            t.env[key] = value
        elif section == "answers":
            t.answers.append(_read_answer(t, line))
        elif section == "client":
            t.client.append(raw)
        elif t.transport == "http":
            status, _, body = line.partition(" ")
            t.server.append({"status": int(status), **({"body": json.loads(body)} if body else {})})
        else:
            t.server.append(json.loads(raw))
    if not t.fixtures:
        raise ValueError(f"{path}: the meta section names no fixtures")
    if t.answers and not t.lockstep:
        raise ValueError(f'{path}: an answers section needs "lockstep: yes" in the meta')
    return t


def _read_answer(t: Transcript, line: str) -> Answer:
    """ "METHOD result JSON", "METHOD error JSON" or "METHOD never"."""
    method, _, rest = line.partition(" ")
    kind, _, value = rest.partition(" ")
    if kind == "never" and not value.strip():
        return Answer(method, kind)
    if kind not in ("result", "error"):
        raise ValueError(
            f"{t.path}: answers are METHOD result JSON, METHOD error JSON or METHOD never, "
            f"not {line!r}"
        )
    parsed = json.loads(value)
    if not isinstance(parsed, dict):
        raise ValueError(f"{t.path}: the answer is not a JSON object: {line!r}")
    return Answer(method, kind, parsed)


def _read_meta(t: Transcript, line: str) -> None:
    key, colon, value = line.partition(":")
    if not colon:
        raise ValueError(f"{t.path}: meta lines are key: value, not {line!r}")
    if key == "fixtures":
        t.fixtures = value.split()
        unknown = set(t.fixtures) - set(FIXTURES)
        if unknown:
            raise ValueError(f"{t.path}: unknown fixture(s) {sorted(unknown)}; use cpp, python")
    elif key == "rows":
        t.rows = value.split()
    elif key == "transport":
        t.transport = value.strip()
        if t.transport not in ("stdio", "http"):
            raise ValueError(f"{t.path}: transport is stdio or http, not {t.transport!r}")
    elif key == "lockstep":
        if value.split() != ["yes"]:
            raise ValueError(f"{t.path}: lockstep is yes (leave the line out for no)")
        t.lockstep = True
    elif key == "pending":
        t.pending = value.strip() or "pending"
    elif key == "signal":
        words = value.split()
        if len(words) != 2 or words[0] not in ("SIGTERM", "SIGINT") or not words[1].isdigit():
            raise ValueError(
                f"{t.path}: signal is SIGTERM or SIGINT and a message count, not {value!r}"
            )
        t.signal, t.signal_after = words[0], int(words[1])
    elif key == "mask":
        t.mask = value.strip()
        re.compile(t.mask)
    else:
        raise ValueError(f"{t.path}: unknown meta key {key!r}")


def apply_mask(v: Any, mask: str) -> Any:
    """v with every match of the regex `mask` cut from its strings (keys untouched)."""
    if not mask:
        return v
    if isinstance(v, str):
        return re.sub(mask, "", v)
    if isinstance(v, dict):
        return {k: apply_mask(x, mask) for k, x in v.items()}
    if isinstance(v, list):
        return [apply_mask(x, mask) for x in v]
    return v


def normalize(v: Any) -> Any:
    """Masks reference ids and requestStates (sealed with a random nonce: every string
    "requestState" becomes "{REQUEST_STATE}") and sorts batch arrays by id, as the C++ runner."""
    if isinstance(v, str):
        return _REF.sub("ERR-XXXXXXXX", v)
    if isinstance(v, dict):
        return {
            k: STATE if k == "requestState" and isinstance(x, str) else normalize(x)
            for k, x in v.items()
        }
    if isinstance(v, list):
        items = [normalize(x) for x in v]
        if items and isinstance(items[0], dict) and "jsonrpc" in items[0]:
            items.sort(key=lambda m: json.dumps(m.get("id")))
        return items
    return v


def canonical(v: Any) -> str:
    """The normalized value serialized with sorted keys: 1 and 1.0 differ, as on the wire."""
    return json.dumps(normalize(v), sort_keys=True, ensure_ascii=False)


def compare(expected: list[Any], actual: list[Any]) -> str:
    """Replies as a multiset, notifications in order; returns "" or the first difference."""

    def is_note(m: Any) -> bool:
        return isinstance(m, dict) and "method" in m

    got_replies = [canonical(a) for a in actual if not is_note(a)]
    got_notes = [canonical(a) for a in actual if is_note(a)]
    want_notes = [canonical(e) for e in expected if is_note(e)]
    for e in expected:
        if is_note(e):
            continue
        n = canonical(e)
        if n not in got_replies:
            return f"no reply equal to {n}"
        got_replies.remove(n)
    if got_replies:
        return f"unexpected reply {got_replies[0]}"
    if want_notes != got_notes:
        return f"notifications differ:\n  expected {want_notes}\n  actual   {got_notes}"
    return ""


def files() -> list[Path]:
    return sorted(GOLDEN_DIR.glob("*.txtar"))
