"""`mcpcxx install HOST TARGET` against fixture config files, for every host.

Each host's file is written where --config says (its default location is checked separately
with HOME pointing at a temporary directory): absent file and parents, other servers and unknown
keys kept in order and content, same-name refusal and --force, malformed files refused untouched.
"""

from __future__ import annotations

import json
import os
import pathlib
import stat
import subprocess
import sys
from typing import Any

import pytest

SERVER_CODE = """
import mcpcxx

server = mcpcxx.Server("weather", "1.0")


@server.tool
def forecast(city: str) -> str:
    \"\"\"Tomorrow's weather.\"\"\"
    return f"sunny in {city}"
"""

# host -> the key its servers live under
HOSTS = {
    "claude-desktop": "mcpServers",
    "claude-code": "mcpServers",
    "cursor": "mcpServers",
    "vscode": "servers",
    "mcp-json": "mcpServers",
}


@pytest.fixture
def server_file(tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "project" / "weather.py"
    path.parent.mkdir()
    path.write_text(SERVER_CODE)
    return path


def install(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcpcxx", "install", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, **(env or {})},
        cwd=pathlib.Path(__file__).parent,
    )


def expected_entry(host: str, server_file: pathlib.Path, env: dict[str, str]) -> dict[str, Any]:
    entry: dict[str, Any] = {"type": "stdio"} if host == "vscode" else {}
    entry["command"] = sys.executable
    entry["args"] = ["-m", "mcpcxx", "run", str(server_file)]
    if env:
        entry["env"] = env
    return entry


def fingerprint(path: pathlib.Path) -> tuple[bytes, int]:
    return path.read_bytes(), path.stat().st_mtime_ns


OTHERS = {
    "zeta": {"command": "npx", "args": ["-y", "zeta-server"], "env": {"TOKEN": "z"}},
    "alpha": {"url": "https://example.com/mcp", "headers": {"X-Key": "a"}, "custom": [1, 2]},
}


def existing_document(key: str) -> dict[str, Any]:
    return {
        "globalShortcut": "Ctrl+Space",
        key: OTHERS,
        "inputs": [{"id": "api-key", "type": "promptString"}],
        "unknownSetting": {"nested": True},
    }


@pytest.mark.parametrize("host", list(HOSTS))
def test_an_absent_file_and_its_directories_are_created(
    host: str, server_file: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    config = tmp_path / "no" / "such" / "dir" / "config.json"
    env_file = tmp_path / "vars.env"
    env_file.write_text("# comment\nexport REGION='eu'\n\nUNITS=metric\n")
    done = install(
        host,
        str(server_file),
        "--config",
        str(config),
        "--env",
        "API_KEY=k=1",
        "--env-file",
        str(env_file),
    )
    assert done.returncode == 0, done.stderr
    document = json.loads(config.read_text())
    env = {"REGION": "eu", "UNITS": "metric", "API_KEY": "k=1"}
    assert document == {HOSTS[host]: {"weather": expected_entry(host, server_file, env)}}
    # --env values may be secrets: a new file is readable by its owner only.
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    assert str(config) in done.stdout and "weather" in done.stdout
    assert [p.name for p in config.parent.iterdir()] == ["config.json"]  # no temp file left


@pytest.mark.parametrize("host", list(HOSTS))
def test_other_servers_and_unknown_keys_keep_their_content_and_order(
    host: str, server_file: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    key = HOSTS[host]
    config = tmp_path / "config.json"
    original = existing_document(key)
    config.write_text(json.dumps(original, indent=4))
    config.chmod(0o640)
    done = install(host, str(server_file), "--config", str(config), "--name", "wx")
    assert done.returncode == 0, done.stderr
    document = json.loads(config.read_text())
    assert list(document) == list(original)
    for k in original:
        if k != key:
            assert json.dumps(document[k]) == json.dumps(original[k])
    assert list(document[key]) == ["zeta", "alpha", "wx"]
    for name, entry in OTHERS.items():
        assert json.dumps(document[key][name]) == json.dumps(entry)
    assert document[key]["wx"] == expected_entry(host, server_file, {})
    assert stat.S_IMODE(config.stat().st_mode) == 0o640


@pytest.mark.parametrize("host", list(HOSTS))
def test_a_same_name_entry_is_refused_without_force_and_replaced_in_place_with_it(
    host: str, server_file: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    key = HOSTS[host]
    config = tmp_path / "config.json"
    original = existing_document(key)
    original[key] = {
        "zeta": OTHERS["zeta"],
        "weather": {"command": "old"},
        "alpha": OTHERS["alpha"],
    }
    config.write_text(json.dumps(original))
    before = fingerprint(config)
    refused = install(host, str(server_file), "--config", str(config))
    assert refused.returncode != 0
    assert "already has a server named 'weather'" in refused.stderr
    assert "--force" in refused.stderr
    assert fingerprint(config) == before

    done = install(host, str(server_file), "--config", str(config), "--force", "--env", "A=1")
    assert done.returncode == 0, done.stderr
    assert "replaced" in done.stdout
    document = json.loads(config.read_text())
    assert list(document[key]) == ["zeta", "weather", "alpha"]
    assert document[key]["weather"] == expected_entry(host, server_file, {"A": "1"})
    assert document[key]["alpha"] == OTHERS["alpha"]
    assert list(document) == list(original)


MALFORMED = [
    ('{"mcpServers": {"a": {"command": "x"},}}', "not valid JSON (line 1"),
    ('{"servers": {}}\n// a comment\n', "not valid JSON (line 2"),
    ("[1, 2]", "holds a JSON list, not an object"),
    (b"\xff\xfe{}".decode("latin-1"), "not valid JSON"),
]


@pytest.mark.parametrize("host", list(HOSTS))
@pytest.mark.parametrize(("content", "message"), MALFORMED)
def test_a_malformed_file_is_refused_and_left_untouched(
    host: str, content: str, message: str, server_file: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    config = tmp_path / "config.json"
    config.write_text(content, encoding="latin-1")
    before = fingerprint(config)
    done = install(host, str(server_file), "--config", str(config), "--force")
    assert done.returncode != 0
    assert message in done.stderr or "not UTF-8" in done.stderr, done.stderr
    assert "nothing was changed" in done.stderr or "nothing changed" in done.stderr
    assert fingerprint(config) == before
    assert [p.name for p in tmp_path.iterdir() if p.name != "project"] == ["config.json"]


@pytest.mark.parametrize("host", list(HOSTS))
def test_a_servers_key_that_is_not_an_object_is_refused_untouched(
    host: str, server_file: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    config = tmp_path / "config.json"
    config.write_text(json.dumps({HOSTS[host]: ["not", "an", "object"]}))
    before = fingerprint(config)
    done = install(host, str(server_file), "--config", str(config))
    assert done.returncode != 0
    assert f'"{HOSTS[host]}" is a JSON list, not an object of servers' in done.stderr
    assert fingerprint(config) == before


def test_an_empty_file_is_treated_as_an_empty_config(
    server_file: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    config = tmp_path / "claude_desktop_config.json"
    config.write_text("\n")
    assert install("claude-desktop", str(server_file), "--config", str(config)).returncode == 0
    assert list(json.loads(config.read_text())["mcpServers"]) == ["weather"]


def test_a_symlinked_config_is_updated_where_it_points(
    server_file: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    real = tmp_path / "dotfiles" / "mcp.json"
    real.parent.mkdir()
    real.write_text(json.dumps({"mcpServers": OTHERS}))
    link = tmp_path / "link.json"
    link.symlink_to(real)
    assert install("cursor", str(server_file), "--config", str(link)).returncode == 0
    assert link.is_symlink()
    assert list(json.loads(real.read_text())["mcpServers"]) == ["zeta", "alpha", "weather"]


@pytest.mark.skipif(sys.platform != "linux", reason="the Linux locations (macOS/Windows differ)")
@pytest.mark.parametrize(
    ("host", "relative"),
    [
        ("claude-desktop", ".config/Claude/claude_desktop_config.json"),
        ("cursor", ".cursor/mcp.json"),
        ("vscode", ".config/Code/User/mcp.json"),
    ],
)
def test_each_host_file_is_written_at_its_documented_location(
    host: str, relative: str, server_file: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home), "XDG_CONFIG_HOME": ""}
    done = install(host, str(server_file), env=env)
    assert done.returncode == 0, done.stderr
    written = [p.relative_to(home).as_posix() for p in home.rglob("*") if p.is_file()]
    assert written == [relative]
    assert "weather" in json.loads((home / relative).read_text())[HOSTS[host]]
    # XDG_CONFIG_HOME moves the ~/.config ones.
    if relative.startswith(".config/"):
        xdg = tmp_path / "xdg"
        done = install(host, str(server_file), env={**env, "XDG_CONFIG_HOME": str(xdg)})
        assert done.returncode == 0, done.stderr
        assert (xdg / relative.removeprefix(".config/")).is_file()


def test_mcp_json_without_config_prints_the_document(server_file: pathlib.Path) -> None:
    done = install("mcp-json", str(server_file), "--env", "A=1", "--name", "wx")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        "mcpServers": {"wx": expected_entry("mcp-json", server_file, {"A": "1"})}
    }


def test_the_entry_starts_a_server_that_answers(
    server_file: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    config = tmp_path / "mcp.json"
    assert install("cursor", str(server_file), "--config", str(config)).returncode == 0
    entry = json.loads(config.read_text())["mcpServers"]["weather"]
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    done = subprocess.run(
        [entry["command"], *entry["args"]],
        input=json.dumps(request) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=tmp_path,
    )
    assert json.loads(done.stdout)["result"]["serverInfo"]["name"] == "weather"


def test_a_target_without_a_server_installs_nothing(tmp_path: pathlib.Path) -> None:
    plain = tmp_path / "plain.py"
    plain.write_text("x = 1\n")
    config = tmp_path / "out" / "mcp.json"
    done = install("cursor", str(plain), "--config", str(config))
    assert done.returncode == 2
    assert "has no mcpcxx.Server" in done.stderr
    assert not config.parent.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--env", "NOEQUALS"], "--env: 'NOEQUALS' is not KEY=VALUE"),
        (["--env-file", "/no/such.env"], "--env-file /no/such.env: No such file"),
        (["--scope", "user", "--config", "x.json"], "--scope only applies to claude-code"),
    ],
)
def test_bad_flags_are_refused(args: list[str], message: str, server_file: pathlib.Path) -> None:
    done = install("claude-code", str(server_file), *args)
    assert done.returncode == 2
    assert message in done.stderr


def test_a_bad_env_file_line_is_named(server_file: pathlib.Path, tmp_path: pathlib.Path) -> None:
    env_file = tmp_path / "bad.env"
    env_file.write_text("GOOD=1\nthis line has no equals sign\n")
    done = install("mcp-json", str(server_file), "--env-file", str(env_file))
    assert done.returncode == 2
    assert f"--env-file {env_file} line 2" in done.stderr


# ----- claude-code through the `claude` command ------------------------------------------------

FAKE_CLAUDE = """#!{python}
import json, pathlib, sys
state = pathlib.Path({state!r})
servers = json.loads(state.read_text()) if state.exists() else {{}}
with open({log!r}, "a") as log:
    log.write(json.dumps(sys.argv[1:]) + "\\n")
args = sys.argv[2:]
if args[0] == "get":
    sys.exit(0 if args[1] in servers else 1)
if args[0] == "remove":
    servers.pop(args[1], None)
elif args[0] == "add-json":
    servers[args[1]] = json.loads(args[2])
state.write_text(json.dumps(servers))
"""


@pytest.fixture
def fake_claude(tmp_path: pathlib.Path) -> tuple[dict[str, str], pathlib.Path, pathlib.Path]:
    """A `claude` on PATH that records its arguments and keeps servers in a JSON file."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    state, log = tmp_path / "claude-state.json", tmp_path / "claude-log.jsonl"
    script = bin_dir / "claude"
    script.write_text(FAKE_CLAUDE.format(python=sys.executable, state=str(state), log=str(log)))
    script.chmod(0o755)
    return {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}, state, log


def test_claude_code_goes_through_claude_mcp_add_json(
    fake_claude: tuple[dict[str, str], pathlib.Path, pathlib.Path], server_file: pathlib.Path
) -> None:
    env, state, log = fake_claude
    done = install("claude-code", str(server_file), "--env", "A=1", "--scope", "user", env=env)
    assert done.returncode == 0, done.stderr
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert calls[0] == ["mcp", "get", "weather"]
    assert calls[1][:3] == ["mcp", "add-json", "weather"] and calls[1][4:] == ["--scope", "user"]
    assert json.loads(state.read_text()) == {
        "weather": expected_entry("claude-code", server_file, {"A": "1"})
    }

    refused = install("claude-code", str(server_file), env=env)
    assert refused.returncode != 0 and "already has a server named 'weather'" in refused.stderr
    assert len(log.read_text().splitlines()) == 3  # only `get` ran

    forced = install("claude-code", str(server_file), "--force", env=env)
    assert forced.returncode == 0, forced.stderr
    calls = [json.loads(line) for line in log.read_text().splitlines()][3:]
    assert [c[:2] for c in calls] == [["mcp", "get"], ["mcp", "remove"], ["mcp", "add-json"]]
    assert calls[2][-2:] == ["--scope", "local"]
    assert json.loads(state.read_text())["weather"] == expected_entry(
        "claude-code", server_file, {}
    )


def test_claude_code_without_the_claude_command_is_refused(
    server_file: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    done = install("claude-code", str(server_file), env={"PATH": str(empty), "HOME": str(tmp_path)})
    assert done.returncode != 0
    assert "the `claude` command is not on PATH" in done.stderr
    assert "--config" in done.stderr and ".mcp.json" in done.stderr
    assert not (tmp_path / ".claude.json").exists()
