"""Server(store=...) and run("http", store=...): configuration of the store replicas share.

Bad configuration fails when the Server is built (or run("http") starts), within a bounded time,
with a message that names the URL without its password and says what to do. A real Redis (the
Debian redis-server, on a free port) checks the good path.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator

import pytest

import mcpcxx

KEY = "q9Tt3n3oJ5Q0R0m1f2yYxQ0y8kTqG4sQmV1oZr7b0cA="  # 32 bytes, base64 (tests only)
REDIS = shutil.which("redis-server")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    if REDIS is None:
        pytest.fail("redis-server is not installed: run scripts/setup.sh")
    port = _free_port()
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.Popen(
            [
                REDIS,
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                tmp,
                "--requirepass",
                "s3cret",
            ],
            stdout=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                except OSError:
                    time.sleep(0.05)
            yield f"redis://:s3cret@127.0.0.1:{port}/0"
        finally:
            proc.terminate()
            proc.wait(10)


@pytest.fixture(autouse=True)
def _no_store_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "MCPCXX_STORE_URL",
        "MCPCXX_REQUEST_STATE_KEY",
        "MCPCXX_REQUEST_STATE_PREVIOUS_KEYS",
    ):
        monkeypatch.delenv(name, raising=False)


def test_memory_is_the_default_and_needs_no_key() -> None:
    mcpcxx.Server("s")
    mcpcxx.Server("s", store="memory:")


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("redis://127.0.0.1:notaport/0", "port"),
        ("http://127.0.0.1:6379", "redis://"),
        ("redis://", "host"),
        ("redis://127.0.0.1:6379/x", "db"),
        ("unix://relative/path", "unix:///"),
    ],
)
def test_a_malformed_url_is_refused_with_the_accepted_forms(url: str, says: str) -> None:
    with pytest.raises(ValueError, match="store URL") as e:
        mcpcxx.Server("s", store=url, request_state_key=KEY)
    assert says in str(e.value)


def test_a_shared_store_without_a_request_state_key_is_refused(redis_url: str) -> None:
    with pytest.raises(ValueError) as e:
        mcpcxx.Server("s", store=redis_url)
    text = str(e.value)
    assert "request_state_key" in text and "openssl rand -base64 32" in text
    assert "MCPCXX_REQUEST_STATE_KEY" in text


def test_the_key_may_come_from_the_environment(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCPCXX_REQUEST_STATE_KEY", KEY)
    mcpcxx.Server("s", store=redis_url)


def test_a_reachable_redis_is_accepted(redis_url: str) -> None:
    mcpcxx.Server("s", store=redis_url, request_state_key=KEY, store_key_prefix="t:")


def test_unreachable_redis_fails_fast_naming_the_url_without_password() -> None:
    url = f"redis://user:hunter2@127.0.0.1:{_free_port()}/0"
    started = time.monotonic()
    with pytest.raises(RuntimeError) as e:
        mcpcxx.Server("s", store=url, request_state_key=KEY)
    assert time.monotonic() - started < 5
    text = str(e.value)
    assert "hunter2" not in text and "127.0.0.1" in text and "***" in text


def test_a_wrong_password_is_refused_naming_the_url_without_it(redis_url: str) -> None:
    wrong = redis_url.replace("s3cret", "nope")
    with pytest.raises(RuntimeError) as e:
        mcpcxx.Server("s", store=wrong, request_state_key=KEY)
    assert "nope" not in str(e.value) and "***" in str(e.value)


def test_a_store_that_is_not_a_str_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="store must be a URL str"):
        mcpcxx.Server("s", store=6379)  # type: ignore[arg-type]


def test_previous_keys_must_be_a_list_of_str() -> None:
    with pytest.raises(TypeError, match="request_state_previous_keys"):
        mcpcxx.Server("s", request_state_key=KEY, request_state_previous_keys=KEY)  # type: ignore[arg-type]


def test_run_http_reads_the_store_url_from_the_environment_and_refuses_a_bad_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MCPCXX_STORE_URL", "redis://127.0.0.1:notaport")
    server = mcpcxx.Server("s", request_state_key=KEY)
    with pytest.raises(ValueError, match="store URL"):
        server.run("http", port=0)


def test_run_http_store_argument_is_checked(redis_url: str) -> None:
    server = mcpcxx.Server("s")  # no key: the shared store is refused when run("http") starts
    with pytest.raises(ValueError, match="request_state_key"):
        server.run("http", port=0, store=redis_url)


def test_environment_is_not_read_when_the_argument_is_given(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCPCXX_STORE_URL", "redis://127.0.0.1:notaport")
    server = mcpcxx.Server("s")
    with pytest.raises(ValueError, match="request_state_key"):
        server.run("http", port=0, store=redis_url)
