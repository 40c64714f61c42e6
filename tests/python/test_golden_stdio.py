"""Runs every golden transcript through the stdio transport of the C++ example server.

The same transcripts are run by GoogleTest (tests/cpp/golden); this runner is independent code
(Python, subprocess pipes) so a bug in one runner cannot hide a wire difference.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from golden import compare, files, load

SERVER = os.environ.get("MCPCXX_EXAMPLE_SERVER", "")


@pytest.mark.skipif(
    not SERVER and os.environ.get("CI") != "true",
    reason="MCPCXX_EXAMPLE_SERVER not set (scripts/test-python.sh sets it)",
)
@pytest.mark.parametrize("path", files(), ids=lambda p: p.stem)
def test_transcript_over_stdio(path: Path) -> None:
    assert SERVER, "MCPCXX_EXAMPLE_SERVER must point at mcpcxx_example_server in CI"
    t = load(path)
    proc = subprocess.run(
        [SERVER],
        input=b"".join(line + b"\n" for line in t.client),
        capture_output=True,
        timeout=60,
        env={**os.environ, **t.env},
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-2000:]
    actual = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    assert compare(t.server, actual) == ""


def test_every_transcript_has_prose_and_both_sections() -> None:
    assert len(files()) >= 20
    for path in files():
        t = load(path)
        assert t.prose.strip(), f"{path.name} lacks the prose header saying what it pins"
        assert t.client and t.server, f"{path.name} lacks a client or server section"
