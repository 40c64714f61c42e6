"""The issue-tracker demo: every failure case with its wire shape; deploy_release asks first."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import pytest

from conftest import SOURCE_DIR, error_of, result_of
from mcpcxx.testing import MODERN, Client, accept, cancel, decline, text_of

CLIENT = SOURCE_DIR / "examples" / "issue_tracker" / "client.py"


def exchanges(output: str) -> list[tuple[str, dict[str, Any]]]:
    """(title, response) per scripted call, read back from the printed raw frames."""
    out, title = [], ""
    for line in output.splitlines():
        if line.startswith("# "):
            title = line[2:]
        elif line.startswith("<-- "):
            out.append((title, json.loads(line[4:])))
    return out


def assert_at_most_once(got: dict[str, Any], meta: dict[str, Any]) -> None:
    """create_deployment: the retry while the first deploy runs is refused, the one after it
    finished replays it, and the repeat of the unknown production deploy names the check."""
    first = meta["at most once: a staging deploy outlives its 1 s deadline (outcome unknown)"]
    assert first["category"] == "timeout" and first["effect"] == "unknown"
    busy = meta["at most once: the model retries at once: refused, the first deploy still runs"]
    assert (busy["category"], busy["effect"], busy["retryable"]) == (
        "conflict",
        "not_applied",
        True,
    )
    replay = got["at most once: the retry after it finished gets the first result again"]
    assert "mcpcxx/replay" in replay["result"]["_meta"]
    assert replay["result"]["structuredContent"]["status"] == "accepted"
    repeat = meta["at most once: the production deploy with an unknown outcome, repeated"]
    assert (repeat["category"], repeat["effect"], repeat["reason"]) == (
        "conflict",
        "unknown",
        "timeout",
    )
    assert repeat["statusCheck"]["tool"] == "find_deployments"


def test_scripted_client_prints_every_case(tmp_path: Any) -> None:
    env = {**os.environ, "ISSUE_TRACKER_DB": str(tmp_path / "t.db")}
    for flag in ([], ["--legacy"]):
        proc = subprocess.run(
            [sys.executable, str(CLIENT), *flag],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr
        got = dict(exchanges(proc.stdout))  # by title (list_issues: the last of its six)
        meta = {
            t: (r.get("result") or {}).get("_meta", {}).get("mcpcxx/error", {})
            for t, r in got.items()
        }
        assert "error" not in got["success: get_issue"]
        assert got["protocol error: unknown tool"]["error"]["code"] == -32602
        assert meta["isError: invalid arguments"]["category"] == "invalid_arguments"
        assert meta["isError: not found"]["category"] == "not_found"
        assert meta["isError: locked by another workflow"]["category"] == "conflict"
        forbidden = got["protocol error: forbidden by policy"]["error"]
        assert forbidden["code"] == -32602 and "ops role" in forbidden["data"]["reason"]
        assert meta["isError: approval required"]["category"] == "precondition_failed"
        assert meta["isError: protected branch"]["category"] == "permission_denied"
        unknown = meta["isError: upstream timeout, outcome unknown"]
        assert unknown["category"] == "timeout" and unknown["effect"] == "unknown"
        assert meta["isError: deadline exceeded (engine timeout)"]["category"] == "timeout"
        assert_at_most_once(got, meta)
        last = exchanges(proc.stdout)[-1][1]
        limited = last["result"]["_meta"]["mcpcxx/error"]
        assert limited["category"] == "rate_limited" and limited["retryAfterSeconds"] >= 1
        (tmp_path / "t.db").unlink()


# ----- deploy_release: production asks the user first (elicitation, both eras) -----------------

CONFIRM_CLIENT = SOURCE_DIR / "examples" / "issue_tracker" / "confirm_client.py"
PRODUCTION = {"version": "v2.4.0", "environment": "production"}


@pytest.fixture(scope="module")
def tracker() -> Iterator[ModuleType]:
    """examples/issue_tracker/server.py, imported once (its Server is closed afterwards)."""
    spec = importlib.util.spec_from_file_location(
        "issue_tracker_server", SOURCE_DIR / "examples" / "issue_tracker" / "server.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # pydantic resolves the models' annotations through it
    spec.loader.exec_module(module)
    yield module
    module.server.close()
    del sys.modules[spec.name]


@pytest.fixture
def deploys(
    tracker: ModuleType, era: str, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[..., Client]]:
    """deploys(**client options) -> a Client of the tracker in `era` on a fresh database."""
    monkeypatch.setattr(tracker, "DB_PATH", str(tmp_path / "tracker.db"))
    clients: list[Client] = []

    def make(**kw: Any) -> Client:
        c = Client(tracker.server, protocol_version=era, **kw)
        clients.append(c)
        return c

    yield make
    for c in clients:
        c.close()


def releases(tracker: ModuleType) -> list[tuple[str, str, str | None]]:
    """(version, environment, reason) of every recorded deployment."""
    with tracker.db() as conn:
        rows = conn.execute("SELECT version, environment, reason FROM releases ORDER BY id")
        return [tuple(r) for r in rows]


def test_production_deploys_after_the_user_confirms(
    deploys: Callable[..., Client], tracker: ModuleType
) -> None:
    c = deploys(elicitation_handler=lambda p: accept({"confirm": True, "reason": "train #119"}))
    result = result_of(c.call_tool("deploy_release", PRODUCTION))
    assert "isError" not in result
    assert result["structuredContent"]["status"] == "deployed"
    assert result["structuredContent"]["reason"] == "train #119"
    [question] = c.server_requests
    assert question["method"] == "elicitation/create"
    assert "v2.4.0" in question["params"]["message"]
    schema = question["params"]["requestedSchema"]
    assert schema["properties"]["confirm"]["type"] == "boolean"
    assert schema["properties"]["reason"]["type"] == "string"
    assert schema["required"] == ["confirm"]
    # 2026-07-28 ran the handler twice; the deployment is recorded once, after the ask.
    assert releases(tracker) == [("v2.4.0", "production", "train #119")]


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        (decline(), "declined"),
        (cancel(), "dismissed"),
        (accept({"confirm": False}), "without ticking confirm"),
    ],
    ids=["decline", "cancel", "unticked"],
)
def test_production_without_confirmation_deploys_nothing(
    deploys: Callable[..., Client], tracker: ModuleType, answer: dict[str, Any], why: str
) -> None:
    c = deploys(elicitation_handler=lambda p: answer)
    result = result_of(c.call_tool("deploy_release", PRODUCTION))
    assert result["isError"] is True
    text = text_of({"result": result})
    assert text.startswith("Production deployment failed: release v2.4.0.")
    assert why in text and "nothing was deployed" in text
    assert "staging" in text and "retrying is safe" in text
    assert result["_meta"]["mcpcxx/error"] == {
        "category": "precondition_failed",
        "effect": "not_applied",
        "resource": "v2.4.0",
        "retryable": False,
    }
    assert releases(tracker) == []


def test_staging_asks_nothing(deploys: Callable[..., Client], tracker: ModuleType) -> None:
    def never(params: dict[str, Any]) -> dict[str, Any]:
        raise AssertionError(f"staging asked the user: {params}")

    c = deploys(elicitation_handler=never)
    staging = {"version": "v2.4.0", "environment": "staging"}
    result = result_of(c.call_tool("deploy_release", staging))
    assert result["structuredContent"]["status"] == "deployed"
    assert c.server_requests == []
    assert releases(tracker) == [("v2.4.0", "staging", None)]


def test_client_without_elicitation_gets_the_capability_error(
    deploys: Callable[..., Client], tracker: ModuleType, era: str
) -> None:
    c = deploys()  # no handler: elicitation is not declared
    error = error_of(c.call_tool("deploy_release", PRODUCTION))
    assert error["code"] == (-32021 if era == MODERN else -32600)
    assert error["data"]["requiredCapabilities"] == {"elicitation": {}}
    assert c.server_requests == []
    assert releases(tracker) == []


def test_bad_release_tag_is_rejected_before_asking(
    deploys: Callable[..., Client], tracker: ModuleType
) -> None:
    c = deploys(elicitation_handler=lambda p: accept({"confirm": True}))
    result = result_of(c.call_tool("deploy_release", {**PRODUCTION, "version": "2.4"}))
    assert result["_meta"]["mcpcxx/error"]["category"] == "invalid_arguments"
    assert c.server_requests == []
    assert releases(tracker) == []


def frames(output: str) -> list[tuple[str, dict[str, Any]]]:
    """("-->" or "<--", frame) for every raw frame the client printed, in order."""
    return [(line[:3], json.loads(line[4:])) for line in output.splitlines() if line[:4] in _ARROWS]


_ARROWS = ("--> ", "<-- ")


def test_confirm_client_prints_both_eras(tmp_path: Any) -> None:
    env = {**os.environ, "ISSUE_TRACKER_DB": str(tmp_path / "t.db")}
    proc = subprocess.run(
        [sys.executable, str(CONFIRM_CLIENT)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    legacy_part, modern_part = proc.stdout.split("=== 2026-07-28 era")
    assert "frames: --> client to server, <-- server to client" in legacy_part
    check_legacy_frames(frames(legacy_part))
    check_modern_frames(frames(modern_part))


def check_legacy_frames(got: list[tuple[str, dict[str, Any]]]) -> None:
    """initialize, staging without a question, production: request, answer, result."""
    directions = [d for d, _ in got]
    assert directions == ["-->", "<--", "-->", "-->", "<--", "-->", "<--", "-->", "<--"]
    assert got[0][1]["params"]["protocolVersion"] == "2025-11-25"
    assert got[0][1]["params"]["capabilities"]["elicitation"] is not None
    assert got[4][1]["result"]["structuredContent"]["environment"] == "staging"
    call, ask, answer, final = (f for _, f in got[5:])
    assert call["params"]["arguments"] == PRODUCTION
    assert ask["method"] == "elicitation/create" and "id" in ask
    assert answer == {"jsonrpc": "2.0", "id": ask["id"], "result": accept_frame(answer)}
    assert final["id"] == call["id"] and "resultType" not in final["result"]
    assert final["result"]["structuredContent"]["status"] == "deployed"


def accept_frame(answer: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = answer["result"]
    assert result["action"] == "accept" and result["content"]["confirm"] is True
    return result


def check_modern_frames(got: list[tuple[str, dict[str, Any]]]) -> None:
    """Two rounds each: input_required, then the retry; the user confirms, then declines."""
    assert [d for d, _ in got] == ["-->", "<--"] * 4
    for (_, first), (_, required), (_, retry), (_, final), action in (
        (*got[0:4], "accept"),
        (*got[4:8], "decline"),
    ):
        meta = first["params"]["_meta"]
        assert meta["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
        assert meta["io.modelcontextprotocol/clientCapabilities"]["elicitation"] is not None
        asked = required["result"]
        assert asked["resultType"] == "input_required"
        [(key, question)] = asked["inputRequests"].items()
        assert question["method"] == "elicitation/create"
        assert retry["id"] != first["id"]
        assert retry["params"]["requestState"] == asked["requestState"]
        assert retry["params"]["inputResponses"][key]["action"] == action
        assert final["id"] == retry["id"]
        assert final["result"]["resultType"] == "complete"
        assert final["result"].get("isError", False) is (action == "decline")
    assert "nothing was deployed" in got[7][1]["result"]["content"][0]["text"]


def test_demo_runs_the_confirmation_client() -> None:
    demo = (SOURCE_DIR / "scripts" / "demo.sh").read_text()
    assert "examples/issue_tracker/confirm_client.py" in demo
