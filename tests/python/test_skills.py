"""Server.add_skills and Server.reload_skills: the Skills extension from Python, in both eras."""

from __future__ import annotations

import base64
import hashlib
import os
import pathlib
import time
from typing import Any

import pytest

import mcpcxx
from mcpcxx.testing import LEGACY, MODERN, Client

SKILL = "---\nname: {name}\ndescription: {description}\n---\n# {name}\n"


def write(root: pathlib.Path, rel: str, data: str | bytes) -> pathlib.Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data)
    return path


def digest(path: pathlib.Path) -> str:
    return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def tree(tmp_path: pathlib.Path) -> pathlib.Path:
    write(tmp_path, "pdf/SKILL.md", SKILL.format(name="pdf", description="Fill PDF forms"))
    write(tmp_path, "pdf/templates/invoice.md", "# Invoice\n")
    write(tmp_path, "pdf/logo.png", b"\x89PNG\r\n\x1a\n\x00\xff")
    write(tmp_path, "acme/refunds/SKILL.md", SKILL.format(name="refunds", description="Refunds"))
    return tmp_path


def result(response: dict[str, Any]) -> dict[str, Any]:
    assert "result" in response, response
    out: dict[str, Any] = response["result"]
    return out


def test_skills_list_and_get_give_the_manifest_with_digests(
    server: mcpcxx.Server, tree: pathlib.Path, era: str
) -> None:
    server.add_skills(tree, directory_read=True, ttl_ms=5000)
    caps = server.capabilities()
    assert caps["extensions"]["io.modelcontextprotocol/skills"] == {"directoryRead": True}
    assert "resources" in caps
    with Client(server, protocol_version=era) as client:
        listed = result(client.request("skills/list"))
        assert [s["uri"] for s in listed["skills"]] == [
            "skill://acme/refunds/SKILL.md",
            "skill://pdf/SKILL.md",
        ]
        assert listed["ttlMs"] == 5000 and listed["cacheScope"] == "public"
        assert ("resultType" in listed) == (era == MODERN)
        got = result(client.request("skills/get", {"uri": "skill://pdf/SKILL.md"}))["skill"]
        assert got == listed["skills"][1]
        assert got["frontmatter"] == {"name": "pdf", "description": "Fill PDF forms"}
        assert got["resources"] == [
            {"uri": f"skill://pdf/{rel}", "digest": digest(tree / "pdf" / rel), "size": size}
            for rel, size in (("SKILL.md", 52), ("logo.png", 10), ("templates/invoice.md", 10))
        ]


def test_skill_files_read_as_text_or_blob(server: mcpcxx.Server, tree: pathlib.Path) -> None:
    server.add_skills(str(tree))
    with Client(server) as client:
        md = result(client.read_resource("skill://pdf/SKILL.md"))["contents"][0]
        assert md["mimeType"] == "text/markdown"
        assert md["text"] == (tree / "pdf/SKILL.md").read_text()
        png = result(client.read_resource("skill://pdf/logo.png"))["contents"][0]
        assert png["mimeType"] == "image/png"
        assert base64.b64decode(png["blob"]) == (tree / "pdf/logo.png").read_bytes()
        listed = {r["uri"]: r for r in result(client.list_resources())["resources"]}
        assert listed["skill://acme/refunds/SKILL.md"]["name"] == "refunds"
        assert listed["skill://acme/refunds/SKILL.md"]["description"] == "Refunds"


@pytest.mark.parametrize(
    "uri",
    [
        "skill://pdf/../acme/refunds/SKILL.md",
        "skill://pdf/%2e%2e/acme/refunds/SKILL.md",
        "skill:///etc/passwd",
        "skill://pdf/templates/../../../../../etc/passwd",
    ],
)
def test_traversal_uris_are_not_found(
    server: mcpcxx.Server, tree: pathlib.Path, era: str, uri: str
) -> None:
    server.add_skills(tree)
    with Client(server, protocol_version=era) as client:
        error = client.read_resource(uri)["error"]
        assert error["code"] == (-32602 if era == MODERN else -32002)
        assert error["message"] == f"Resource not found: {uri}. List resources to see what exists"


def test_unknown_skill_and_directory_errors(server: mcpcxx.Server, tree: pathlib.Path) -> None:
    server.add_skills(tree, directory_read=True)
    with Client(server, protocol_version=LEGACY) as client:
        unknown = client.request("skills/get", {"uri": "skill://pdf/templates/invoice.md"})
        assert unknown["error"]["code"] == -32602
        assert unknown["error"]["message"].startswith(
            "Invalid params: no skill is served at skill://pdf/templates/invoice.md;"
        )
        children = result(client.request("resources/directory/read", {"uri": "skill://pdf"}))
        assert [(c["name"], c["mimeType"]) for c in children["resources"]] == [
            ("SKILL.md", "text/markdown"),
            ("logo.png", "image/png"),
            ("templates", "inode/directory"),
        ]
        not_dir = client.request("resources/directory/read", {"uri": "skill://pdf/SKILL.md"})
        assert not_dir["error"]["code"] == -32602
        assert "is not a directory resource" in not_dir["error"]["message"]


def test_bad_trees_are_refused_naming_the_file(tmp_path: pathlib.Path) -> None:
    write(tmp_path, "git-workflow/SKILL.md", SKILL.format(name="git-flow", description="x"))
    server = mcpcxx.Server("skills-bad")
    try:
        with pytest.raises(ValueError, match=r"git-workflow/SKILL.md: name 'git-flow' differs"):
            server.add_skills(tmp_path)
        assert "extensions" not in server.capabilities()
        (tmp_path / "git-workflow/SKILL.md").write_text("---\nname: git-workflow\n---\n")
        with pytest.raises(ValueError, match="needs a non-empty 'description'"):
            server.add_skills(tmp_path)
        (tmp_path / "git-workflow/SKILL.md").write_text("no frontmatter\n")
        with pytest.raises(ValueError, match=r"line 1: SKILL.md must begin with a '---' line"):
            server.add_skills(tmp_path)
    finally:
        server.close()


def test_symlinks_and_limits(tmp_path: pathlib.Path) -> None:
    root = tmp_path / "skills"
    write(root, "s/SKILL.md", SKILL.format(name="s", description="d"))
    outside = write(tmp_path, "secret.txt", "secret")
    os.symlink(outside, root / "s" / "secret.txt")
    server = mcpcxx.Server("skills-links")
    try:
        with pytest.raises(ValueError, match="is a symbolic link, and links are refused"):
            server.add_skills(root)
        with pytest.raises(ValueError, match="outside the skills directory"):
            server.add_skills(root, symlinks="follow_inside")
        (root / "s" / "secret.txt").unlink()
        write(root, "s/big.txt", "x" * 2048)
        with pytest.raises(ValueError, match=r"is 2048 bytes, over max_file_bytes \(1024\)"):
            server.add_skills(root, max_file_bytes=1024)
        server.add_skills(root, max_file_bytes=4096)
        with Client(server) as client:
            listed = result(client.list_resources())["resources"]
            assert "skill://s/big.txt" in [r["uri"] for r in listed]
    finally:
        server.close()


def test_arguments_are_checked(tmp_path: pathlib.Path) -> None:
    server = mcpcxx.Server("skills-args")
    try:
        with pytest.raises(FileNotFoundError, match="does not exist"):
            server.add_skills(tmp_path / "missing")
        write(tmp_path, "file.txt", "x")
        with pytest.raises(NotADirectoryError):
            server.add_skills(tmp_path / "file.txt")
        with pytest.raises(TypeError):
            server.add_skills(42)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="symlinks must be"):
            server.add_skills(tmp_path, symlinks="always")  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="max_depth must be a positive int"):
            server.add_skills(tmp_path, max_depth=0)
        with pytest.raises(ValueError, match="no skill found"):
            server.add_skills(tmp_path)
        with pytest.raises(ValueError, match="call add_skills first"):
            server.reload_skills()
    finally:
        server.close()


def wait_for(client: Client, method: str) -> dict[str, Any]:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        for note in client.notifications:
            if note.get("method") == method:
                return note
        time.sleep(0.01)
    raise AssertionError(f"no {method} among {client.notifications}")


def test_reload_announces_changes_and_serves_new_digests(
    server: mcpcxx.Server, tree: pathlib.Path
) -> None:
    server.add_skills(tree)
    with Client(server, protocol_version=LEGACY) as client:
        invoice = "skill://pdf/templates/invoice.md"
        result(client.request("resources/subscribe", {"uri": invoice}))
        old = result(client.request("skills/get", {"uri": "skill://pdf/SKILL.md"}))["skill"]
        write(tree, "pdf/templates/invoice.md", "# Invoice v2, longer\n")
        write(tree, "pdf/templates/receipt.md", "# Receipt\n")
        changes = server.reload_skills()
        assert changes.changed == (invoice,)
        assert changes.added == ("skill://pdf/templates/receipt.md",)
        assert changes.removed == ()
        assert changes.skills == 2 and changes
        assert wait_for(client, "notifications/resources/updated")["params"] == {"uri": invoice}
        wait_for(client, "notifications/resources/list_changed")
        new = result(client.request("skills/get", {"uri": "skill://pdf/SKILL.md"}))["skill"]
        digests = {r["uri"]: r["digest"] for r in new["resources"]}
        assert digests[invoice] == digest(tree / "pdf/templates/invoice.md")
        assert digests[invoice] != {r["uri"]: r["digest"] for r in old["resources"]}[invoice]
        assert "skill://pdf/templates/receipt.md" in digests
        # A tree that no longer loads keeps the old one served.
        write(tree, "pdf/SKILL.md", "---\nname: other\ndescription: d\n---\n")
        with pytest.raises(ValueError, match="differs from its directory"):
            server.reload_skills()
        text = result(client.read_resource("skill://pdf/SKILL.md"))["contents"][0]["text"]
        assert "name: pdf" in text
