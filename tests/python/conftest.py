"""Shared fixtures: servers and in-process clients in both eras."""

from __future__ import annotations

import os
import pathlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import mcpcxx
from mcpcxx.testing import LEGACY, MODERN, Client

SOURCE_DIR = pathlib.Path(os.environ.get("MCPCXX_SOURCE_DIR", pathlib.Path(__file__).parents[2]))
DEMO_SERVER = SOURCE_DIR / "examples" / "python" / "demo_server.py"


@pytest.fixture
def server() -> Iterator[mcpcxx.Server]:
    srv = mcpcxx.Server("test-server", "1.2.3", workers=4)
    yield srv
    srv.close()


@pytest.fixture(params=[MODERN, LEGACY], ids=["modern", "legacy"])
def era(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def connect(server: mcpcxx.Server, era: str) -> Iterator[object]:
    """connect() -> a Client of `server` in the parametrized era (closed afterwards)."""
    clients: list[Client] = []

    def make(**kw: object) -> Client:
        c = Client(server, protocol_version=era, **kw)  # type: ignore[arg-type]
        clients.append(c)
        return c

    yield make
    for c in clients:
        c.close()


def result_of(response: dict[str, Any]) -> dict[str, Any]:
    assert "error" not in response, response
    result: dict[str, Any] = response["result"]
    return result


def error_of(response: dict[str, Any]) -> dict[str, Any]:
    assert "result" not in response, response
    error: dict[str, Any] = response["error"]
    return error


@pytest.fixture
def asking(server: mcpcxx.Server, era: str) -> Iterator[Callable[..., Client]]:
    """asking(**client options) -> a Client of `server` in `era`, closed after the test."""
    clients: list[Client] = []

    def make(**kw: Any) -> Client:
        c = Client(server, protocol_version=era, **kw)
        clients.append(c)
        return c

    yield make
    for c in clients:
        c.close()
