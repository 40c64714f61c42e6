"""The official TypeScript Skills client against both fixture servers serving tests/fixtures/skills.

interop/ts_skills_client.cjs drives @modelcontextprotocol/client 2.4's SkillsClient, which refuses
an invalid skills/list entry and verifies every file it reads against the entry: listed, size,
sha256 digest, and for SKILL.md the frontmatter field by field (parsed by its own YAML reader).
The npm packages are those of the MCP Apps browser test (scripts/install-apps-browser.sh, run by
scripts/test-all.sh: MCPCXX_APPS_NODE_MODULES); in CI they are required.
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
from typing import Any

import pytest

import golden_schema
import mcpcxx

SOURCE_DIR = golden_schema.SOURCE_DIR
TREE = SOURCE_DIR / "tests" / "fixtures" / "skills"
SCRIPT = pathlib.Path(__file__).with_name("interop") / "ts_skills_client.cjs"
# Needs npm packages: the full suite runs it, not the per-interpreter wheel runs.
pytestmark = pytest.mark.interop
IN_CI = os.environ.get("CI") == "true"


def require(condition: bool, what: str) -> None:
    if not condition:
        if IN_CI:
            pytest.fail(f"{what} is required in CI (scripts/test-all.sh installs it)")
        pytest.skip(f"{what} is not installed")


def fixture_command(fixture: str) -> tuple[list[str], dict[str, str]]:
    if fixture == "cpp":
        server = golden_schema.CPP_EXAMPLE_SERVER
        require(os.access(server, os.X_OK), f"the C++ example server {server}")
        return [str(server)], dict(os.environ)
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(mcpcxx.__file__)))
    path = os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))
    fixture_server = SOURCE_DIR / "tests" / "fixtures" / "python" / "fixture_server.py"
    return [sys.executable, str(fixture_server)], {**os.environ, "PYTHONPATH": path}


def ts_skills_report(fixture: str, era: str) -> dict[str, Any]:
    modules = os.environ.get("MCPCXX_APPS_NODE_MODULES", "")
    node = shutil.which("node")
    require(node is not None, "node")
    require(
        bool(modules) and pathlib.Path(modules, "@modelcontextprotocol/client").is_dir(),
        "@modelcontextprotocol/client",
    )
    argv, env = fixture_command(fixture)
    proc = subprocess.run(
        [str(node), str(SCRIPT), era, *argv],
        capture_output=True,
        text=True,
        timeout=120,
        env={**env, "NODE_PATH": modules},
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    report: dict[str, Any] = json.loads(proc.stdout)
    return report


def sha256(rel: str) -> str:
    return "sha256:" + hashlib.sha256((TREE / rel).read_bytes()).hexdigest()


@pytest.mark.parametrize("era", ["modern", "legacy"])
@pytest.mark.parametrize("fixture", ["cpp", "python"])
def test_the_official_skills_client_verifies_every_file(fixture: str, era: str) -> None:
    report = ts_skills_report(fixture, era)
    assert report["protocolVersion"] == ("2026-07-28" if era == "modern" else "2025-11-25")
    assert report["supported"] is True and report["directoryRead"] is True
    assert report["list"] == [
        "skill://acme/billing/refunds/SKILL.md",
        "skill://git-workflow/SKILL.md",
    ]
    assert report["invalid"] == []
    assert report["ttlMs"] == 60000 and report["cacheScope"] == "public"
    files = {
        "acme/billing/refunds/SKILL.md",
        "acme/billing/refunds/examples/email.md",
        "git-workflow/SKILL.md",
        "git-workflow/templates/commit.md",
    }
    assert {r["uri"]: (r.get("verified"), r.get("size")) for r in report["reads"]} == {
        f"skill://{rel}": (True, (TREE / rel).stat().st_size) for rel in files
    }
    git = next(r for r in report["reads"] if r["uri"] == "skill://git-workflow/SKILL.md")
    assert git["frontmatter"]["metadata"] == {"version": "1.2", "owner": "platform"}
    assert report["get"]["resources"][0] == {
        "uri": "skill://git-workflow/SKILL.md",
        "digest": sha256("git-workflow/SKILL.md"),
        "size": (TREE / "git-workflow/SKILL.md").stat().st_size,
    }
    assert report["directory"] == [
        ["skill://git-workflow/SKILL.md", "text/markdown"],
        ["skill://git-workflow/templates", "inode/directory"],
    ]
    assert report["unknown"]["error"]["code"] == -32602
    assert "no skill is served at" in report["unknown"]["error"]["message"]
    # The client refuses a file the entry does not list before asking the server.
    assert report["unlisted"]["error"]["name"] == "SkillVerificationError"
