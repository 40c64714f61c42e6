"""Issue tracker MCP server on an embedded SQLite database (created on first run).

Its tools exercise the founding document's failure cases, each with the wire shape it should
have: not found, locked by another workflow, protected branch / approval required, an upstream
timeout with an unknown outcome, a deployment repeated by a retrying model (create_deployment
runs at most once), rate limiting (the engine's RateLimit middleware) and a policy on who may
change OPS issues (its Authorize middleware). deploy_release asks the user to confirm a production
deployment through elicitation (a live request on legacy sessions, an input_required round on
2026-07-28). show_board's result is an interactive board in hosts that render MCP Apps
(board.html, served as ui://issue-tracker/board; docs/apps.md). Run it over stdio:

    python examples/issue_tracker/server.py            # or: python -m mcpcxx run ...

or over Streamable HTTP on 127.0.0.1:PORT (0: any free port; the URL is printed on stderr):

    python examples/issue_tracker/server.py --http PORT

The database lives at $ISSUE_TRACKER_DB (default: issue_tracker.db in the temp directory); several
processes may share it (scripts/cluster-demo.sh runs three replicas on one file).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import pathlib
import sqlite3
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from mcpcxx import AtMostOnce, Context, Server, StatusCheck, ToolError
from mcpcxx.middleware import Authorize, RateLimit, Request

DB_PATH = os.environ.get(
    "ISSUE_TRACKER_DB", os.path.join(tempfile.gettempdir(), "issue_tracker.db")
)
KEY = Annotated[str, Field(pattern=r"^[A-Z]+-\d+$", description="An issue key such as ENG-42")]
SEED = [
    ("ENG-1", "Crash on start", "open", None),
    ("ENG-2", "Slow search", "open", None),
    ("ENG-42", "Migrate billing", "in_progress", "release-train #118"),
    ("OPS-7", "Rotate certificates", "closed", None),
]

server = Server(
    "issue-tracker",
    "1.0.0",
    title="Issue tracker demo",
    instructions=(
        "Look up, list and update issues; create deployments of a branch; deploy tagged "
        "releases (production asks the user to confirm)."
    ),
)


@contextlib.contextmanager
def db() -> Iterator[sqlite3.Connection]:
    """A connection per call, committed (or rolled back) and closed at the end of the `with`:
    tools run concurrently on the engine's worker threads."""
    conn = sqlite3.connect(DB_PATH, timeout=5)
    try:
        conn.row_factory = sqlite3.Row
        conn.execute(
            "CREATE TABLE IF NOT EXISTS issues (key TEXT PRIMARY KEY, title TEXT NOT NULL, "
            "state TEXT NOT NULL, locked_by TEXT)"
        )
        conn.execute(
            "CREATE TABLE IF NOT EXISTS deployments (id INTEGER PRIMARY KEY AUTOINCREMENT, "
            "branch TEXT NOT NULL, environment TEXT NOT NULL, status TEXT NOT NULL)"
        )
        conn.execute(
            "CREATE TABLE IF NOT EXISTS releases (id INTEGER PRIMARY KEY AUTOINCREMENT, "
            "version TEXT NOT NULL, environment TEXT NOT NULL, reason TEXT)"
        )
        if conn.execute("SELECT COUNT(*) FROM issues").fetchone()[0] == 0:
            # OR IGNORE: replicas sharing the file may seed it at the same moment.
            conn.executemany("INSERT OR IGNORE INTO issues VALUES (?, ?, ?, ?)", SEED)
            conn.commit()
        with conn:  # commits on success, rolls back on an exception
            yield conn
    finally:
        conn.close()


class Issue(BaseModel):
    """One issue."""

    key: str
    title: str
    state: Literal["open", "in_progress", "closed"]


def _not_found(key: str) -> ToolError:
    return ToolError.compose(
        "Issue lookup",
        resource=f"issue {key}",
        reason="it was not found",
        next_step="Verify the issue key or call list_issues to see recent issues",
        retry_guidance="Do not retry unchanged",
        category="not_found",
        resource_id=key,
    )


class Board(BaseModel):
    """Every issue, by state."""

    open: list[Issue]
    in_progress: list[Issue]
    closed: list[Issue]


# The board UI (MCP Apps): hosts that render apps show board.html for show_board's result; the
# page moves issues by calling update_issue (and get_issue) through the host.
server.ui_resource(
    "ui://issue-tracker/board",
    path=pathlib.Path(__file__).with_name("board.html"),
    name="board",
    title="Issue board",
    description="Issues in three columns; move one with a click.",
    prefers_border=True,
)


@server.tool(ui="ui://issue-tracker/board", annotations={"read_only_hint": True})
def show_board() -> Board:
    """Show every issue by state (an interactive board in hosts with MCP Apps)."""
    with db() as conn:
        rows = [Issue(**dict(r)) for r in conn.execute("SELECT key, title, state FROM issues")]
    rows.sort(key=lambda i: i.key)
    return Board(
        open=[i for i in rows if i.state == "open"],
        in_progress=[i for i in rows if i.state == "in_progress"],
        closed=[i for i in rows if i.state == "closed"],
    )


@server.tool(annotations={"read_only_hint": True})
def get_issue(key: KEY) -> Issue:
    """Fetch one issue by key."""
    with db() as conn:
        row = conn.execute("SELECT key, title, state FROM issues WHERE key = ?", (key,)).fetchone()
    if row is None:
        raise _not_found(key)
    return Issue(**dict(row))


# The engine's rate limit (docs/middleware.md): a refused call is a tool error of category
# rate_limited that says when to call again (row T14); the function below never sees it.
server.add_middleware(
    RateLimit(
        name="listings",
        burst=5,
        per_second=5 / 60,
        per="principal",
        description="the tracker's budget of 5 listings a minute",
        tools=["list_issues"],
    )
)


def _ops_only(request: Request) -> str | None:
    """Issues of project OPS change only for callers holding the ops role (a claim)."""
    key = (request.arguments or {}).get("key", "")
    if not isinstance(key, str) or not key.startswith("OPS-"):
        return None
    claims = (request.principal or {}).get("claims") or {}
    if "ops" in (claims.get("roles") or []):
        return None
    return f"issues of project OPS ({key}) are changed only by callers with the ops role"


server.add_middleware(Authorize(deny=_ops_only, methods=["tools/call"], tools=["update_issue"]))


@server.tool(annotations={"read_only_hint": True})
def list_issues(state: Literal["open", "in_progress", "closed"] | None = None) -> list[Issue]:
    """List issues, optionally by state (at most 5 calls a minute).

    Args:
        state: Only issues in this state.
    """
    query = "SELECT key, title, state FROM issues"
    args: tuple[str, ...] = ()
    if state is not None:
        query, args = query + " WHERE state = ?", (state,)
    with db() as conn:
        return [Issue(**dict(r)) for r in conn.execute(query + " ORDER BY key", args)]


@server.tool(annotations={"idempotent_hint": True})
def update_issue(key: KEY, state: Literal["open", "in_progress", "closed"], ctx: Context) -> Issue:
    """Change an issue's state."""
    with db() as conn:
        row = conn.execute("SELECT locked_by FROM issues WHERE key = ?", (key,)).fetchone()
        if row is None:
            raise _not_found(key)
        if row["locked_by"]:
            raise ToolError(
                f"Issue update failed: {key} is locked by another workflow ({row['locked_by']}). "
                "Retry after the workflow finishes; no fields were changed.",
                category="conflict",
                resource=key,
                retry_after=30,
            )
        conn.execute("UPDATE issues SET state = ? WHERE key = ?", (state, key))
    ctx.info(f"{key} -> {state}")
    return get_issue(key)


# A deployment must never be submitted twice because a model retried: a repeat within 10 minutes
# gets the first call's result (or, while it runs or when its outcome is unknown, a refusal that
# names find_deployments) and never reaches the deploy service.
@server.tool(
    annotations={"destructive_hint": True},
    timeout=1.0,
    at_most_once=AtMostOnce(
        window=timedelta(minutes=10),
        status_check=StatusCheck("find_deployments", ["branch", "environment"]),
    ),
)
def create_deployment(
    branch: Annotated[str, Field(min_length=1, max_length=100)],
    environment: Literal["staging", "production"],
    change_request: Annotated[str | None, Field(pattern=r"^CR-\d+$")] = None,
) -> dict[str, object]:
    """Deploy a branch to an environment.

    Args:
        branch: The git branch to deploy.
        environment: Where to deploy it.
        change_request: An approved change request id (CR-123), required for production.
    """
    if environment == "production" and change_request is None:
        raise ToolError(
            "Deployment blocked: production requires an approved change request. Create or "
            "provide the change request ID, then retry.",
            category="precondition_failed",
            resource=f"{branch} -> {environment}",
        )
    if branch == "main" and environment == "staging":
        raise ToolError(
            "Deployment failed: branch main is protected and deploys only through the release "
            "train. Deploy a feature branch to staging, or ask a release manager. Do not retry "
            "unchanged.",
            category="permission_denied",
            resource="main",
        )
    with db() as conn:
        cur = conn.execute(
            "INSERT INTO deployments (branch, environment, status) VALUES (?, ?, 'submitted')",
            (branch, environment),
        )
        deployment_id = cur.lastrowid
    if environment == "production":
        # The simulated deploy service accepts the request and then never answers.
        raise ToolError(
            f"Deployment status is unknown: the deploy service timed out after receiving "
            f"deployment {deployment_id} of {branch}. Do not submit again yet; check "
            f"get_deployment({deployment_id}) before retrying to avoid deploying twice.",
            category="timeout",
            effect="unknown",
            resource=f"deployment {deployment_id}",
        )
    # The simulated deploy service takes 1.5 s to accept a staging deploy: longer than the tool's
    # 1 s deadline, so the caller hears "outcome unknown" while the deploy goes on.
    time.sleep(1.5)
    with db() as conn:
        conn.execute("UPDATE deployments SET status = 'accepted' WHERE id = ?", (deployment_id,))
    return {
        "id": deployment_id,
        "branch": branch,
        "environment": environment,
        "status": "accepted",
    }


@server.tool(annotations={"read_only_hint": True})
def find_deployments(
    branch: str, environment: Literal["staging", "production"]
) -> list[dict[str, object]]:
    """The deployments of a branch to an environment, newest first."""
    with db() as conn:
        rows = conn.execute(
            "SELECT * FROM deployments WHERE branch = ? AND environment = ? ORDER BY id DESC",
            (branch, environment),
        ).fetchall()
    return [dict(r) for r in rows]


@server.tool(annotations={"read_only_hint": True})
def get_deployment(deployment_id: int) -> dict[str, object]:
    """Look up a deployment by id."""
    with db() as conn:
        row = conn.execute("SELECT * FROM deployments WHERE id = ?", (deployment_id,)).fetchone()
    if row is None:
        raise ToolError.compose(
            "Deployment lookup",
            resource=f"deployment {deployment_id}",
            reason="it does not exist",
            next_step="Check the id returned by create_deployment",
            retry_guidance="Do not retry unchanged",
            category="not_found",
        )
    return dict(row)


RELEASE = Annotated[
    str, Field(pattern=r"^v\d+\.\d+\.\d+$", description="A release tag such as v2.4.0")
]


class ProductionConfirmation(BaseModel):
    """What the user is asked before a production deployment."""

    confirm: bool = Field(description="Deploy this release to production now")
    reason: str | None = Field(default=None, description="Why, recorded with the deployment")


_NOT_CONFIRMED = {
    "decline": "the user declined the confirmation",
    "cancel": "the user dismissed the confirmation without answering",
    "accept": "the user answered without ticking confirm",
}


def _confirm_production(version: str, ctx: Context) -> str | None:
    """Ask the user; their reason when they confirm, a ToolError (nothing deployed) otherwise.

    A client that did not declare elicitation gets ClientCapabilityError, left to the engine:
    -32021 (2026-07-28) or -32600 (legacy) with data.requiredCapabilities, nothing deployed.
    """
    answer = ctx.elicit_sync(
        f"Deploy release {version} to production? Every customer gets it immediately.",
        ProductionConfirmation,
    )
    if answer.action == "accept" and answer.content is not None and answer.content.confirm:
        return answer.content.reason
    raise ToolError.compose(
        "Production deployment",
        resource=f"release {version}",
        reason=f"{_NOT_CONFIRMED[answer.action]}, so nothing was deployed",
        next_step="Ask the user whether this release should go out, or deploy it to staging first",
        retry_guidance=(
            "Retry only if the user wants it out: nothing changed, so retrying is safe and asks "
            "them again"
        ),
        category="precondition_failed",
        effect="not_applied",
        resource_id=version,
    )


@server.tool(annotations={"destructive_hint": True})
def deploy_release(
    version: RELEASE, environment: Literal["staging", "production"], ctx: Context
) -> dict[str, object]:
    """Deploy a tagged release; production first asks the user to confirm (elicitation).

    Args:
        version: The release tag to deploy.
        environment: Where to deploy it; production needs the user's confirmation.
    """
    # On 2026-07-28 the ask ends the first run with an input_required result, and the engine runs
    # this handler again from the start with the user's answer: everything before the ask must
    # be safe to repeat, so the deployment is recorded only after it.
    reason = _confirm_production(version, ctx) if environment == "production" else None
    with db() as conn:
        cur = conn.execute(
            "INSERT INTO releases (version, environment, reason) VALUES (?, ?, ?)",
            (version, environment, reason),
        )
    return {
        "id": cur.lastrowid,
        "version": version,
        "environment": environment,
        "status": "deployed",
        "reason": reason,
    }


@server.tool(timeout=1.0)
def sync_mirror(ctx: Context) -> str:
    """Synchronise the upstream mirror (the upstream hangs: the engine's deadline cancels it)."""
    while not ctx.cancelled:
        time.sleep(0.01)
    return "cancelled"


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="The issue tracker MCP server (stdio by default).")
    parser.add_argument("--http", type=int, metavar="PORT", help="serve HTTP on 127.0.0.1:PORT")
    port = parser.parse_args().http
    sys.exit(server.run() if port is None else server.run("http", host="127.0.0.1", port=port))
