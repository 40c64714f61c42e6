"""The error model's Python-only behaviour: what the golden corpus cannot express.

Every row of docs/error-model.md is pinned on the wire by the golden transcripts (tests/golden),
which run against the Python fixture server (tests/fixtures/python/fixture_server.py) as well as the C++
one (tests/python/test_golden_stdio.py). What stays here needs the Python API itself: pydantic
conversion after the engine's validation, ToolError's Python arguments, tracebacks in the log
under the reference id (tools, resource readers, prompts), asyncio cancellation at a deadline,
ProtocolError's refusal of reserved codes at the raise site, and Server.metrics().
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any

import pytest
from pydantic import AfterValidator, BaseModel

import mcpcxx
from conftest import error_of, result_of
from mcpcxx import ProtocolError, ToolError
from mcpcxx.testing import Client, text_of


class Count(BaseModel):
    count: int


def details(response: dict[str, Any]) -> dict[str, Any]:
    return result_of(response)["_meta"]["mcpcxx/error"]


def logged_under(lines: list[str], reference: str) -> list[dict[str, Any]]:
    """The JSON log records that carry `reference`."""
    return [json.loads(x) for x in lines if reference in x]


def test_t1_from_pydantic_conversion_after_engine_validation(server: mcpcxx.Server) -> None:
    """A model validator failing after the engine's schema check is still invalid_arguments."""

    class Window(BaseModel):
        start: int
        end: int

        def model_post_init(self, context: Any) -> None:
            if self.end < self.start:
                raise ValueError("end must not be before start")

    @server.tool
    def window(w: Window) -> str:
        return "ok"

    with Client(server) as c:
        response = c.call_tool("window", {"w": {"start": 5, "end": 1}})
    assert result_of(response)["isError"] is True
    assert details(response)["category"] == "invalid_arguments"
    assert "Invalid arguments for tool window" in text_of(response)


def test_t1_from_pydantic_has_the_shape_of_a_schema_failure(
    server: mcpcxx.Server, connect: Any
) -> None:
    """Issue 29: violations (path, validator, message; never the value) and resource, as T1."""
    from pydantic import field_validator

    class Window(BaseModel):
        start: int
        end: int

        @field_validator("end")
        @classmethod
        def after_epoch(cls, v: int) -> int:
            if v < 1000:
                raise ValueError("end must be after the epoch")
            return v

    @server.tool
    def window(w: Window, secret: Annotated[str, AfterValidator(_no_digits)] = "x") -> str:
        return "ok"

    @server.tool
    async def window_async(
        w: Window, secret: Annotated[str, AfterValidator(_no_digits)] = "x"
    ) -> str:
        return "ok"

    c = connect()
    schema_failure = c.call_tool("window", {"w": {"start": "a", "end": 2000}})
    converted = c.call_tool("window", {"w": {"start": 5, "end": 7}, "secret": "pw-4711"})
    from_async = c.call_tool("window_async", {"w": {"start": 5, "end": 7}, "secret": "pw-4711"})
    assert details(from_async) == {**details(converted), "resource": "window_async"}
    expected = {"category", "effect", "resource", "retryable", "violations"}
    assert set(details(schema_failure)) == expected == set(details(converted))
    d = details(converted)
    assert d["resource"] == "window" and d["effect"] == "not_applied" and not d["retryable"]
    assert d["violations"] == [
        {
            "instanceLocation": "/w/end",
            "keyword": "value_error",
            "message": "Value error, end must be after the epoch",
        },
        {
            "instanceLocation": "/secret",
            "keyword": "value_error",
            "message": "Value error, no digits allowed",
        },
    ]
    assert text_of(converted) == (
        "Invalid arguments for tool window; nothing was executed. Fix the following and call "
        "again:\n- /w/end: Value error, end must be after the epoch\n"
        "- /secret: Value error, no digits allowed"
    )
    assert "4711" not in json.dumps(result_of(converted))
    assert result_of(converted)["structuredContent"] == d


def _no_digits(v: str) -> str:
    if any(ch.isdigit() for ch in v):
        raise ValueError("no digits allowed")
    return v


def test_t2_retry_after_on_a_tool_with_output_schema(connect: Any) -> None:
    """ToolError(retry_after=) becomes retryAfterSeconds and makes the error retryable."""
    client = connect()

    @client.server.tool
    def locked() -> Count:
        raise ToolError(
            "Issue update failed: ENG-42 is locked by another workflow. Retry after the workflow "
            "finishes; no fields were changed.",
            category="conflict",
            resource="ENG-42",
            retry_after=30,
        )

    response = client.call_tool("locked")
    result = result_of(response)
    assert result["isError"] is True
    assert "structuredContent" not in result  # the tool declares an outputSchema
    assert details(response)["retryAfterSeconds"] == 30
    assert details(response)["retryable"] is True
    assert details(response)["category"] == "conflict"


def build_crashing(server: mcpcxx.Server) -> None:
    @server.tool(annotations={"read_only_hint": True})
    def crash_ro() -> str:
        raise KeyError("id")

    @server.tool
    def crash_rw() -> str:
        raise ValueError("db password is hunter2")

    @server.resource("crash://now")
    def crash_resource() -> str:
        raise RuntimeError("resource secret")

    @server.prompt
    def crash_prompt(topic: str) -> str:
        """Crashes."""
        raise RuntimeError(f"prompt secret about {topic}")


@pytest.mark.parametrize("expose", [False, True])
def test_t3_traceback_logged_under_the_reference(era: str, expose: bool) -> None:
    lines: list[str] = []
    server = mcpcxx.Server("t3", expose_exception_details=expose, log_writer=lines.append)
    build_crashing(server)
    with Client(server, protocol_version=era) as c:
        for tool, effect in (("crash_ro", "not_applied"), ("crash_rw", "unknown")):
            response = c.call_tool(tool)
            text = text_of(response)
            meta = details(response)
            ref = meta["reference"]
            assert re.fullmatch(r"ERR-[0-9a-f]{8}", ref)
            assert text.startswith(f"{tool} failed with an internal error (reference {ref}).")
            assert meta["category"] == "internal" and meta["effect"] == effect
            assert "Traceback" not in text
            secret = "hunter2" if tool == "crash_rw" else "KeyError"
            assert (secret in text) is expose
            logged = [r for r in logged_under(lines, ref) if r.get("event") == "tool_exception"]
            assert len(logged) == 1
            assert "Traceback (most recent call last)" in logged[0]["detail"]
    server.close()


@pytest.mark.parametrize(
    ("kind", "secret"), [("resource", "resource secret"), ("prompt", "prompt secret")]
)
def test_p24_traceback_of_a_crashing_reader_or_prompt_is_logged(
    era: str, kind: str, secret: str
) -> None:
    """Issue 8: a crashing resource reader's (or prompt's) traceback must reach the log under
    the reference the client got, and never the wire."""
    lines: list[str] = []
    server = mcpcxx.Server("p24", log_writer=lines.append)
    build_crashing(server)
    with Client(server, protocol_version=era) as c:
        if kind == "resource":
            response = c.read_resource("crash://now")
        else:
            response = c.get_prompt("crash_prompt", {"topic": "x"})
    error = error_of(response)
    assert error["code"] == -32603
    ref = error["data"]["reference"]
    assert secret not in json.dumps(error)
    logged = " ".join(json.dumps(r) for r in logged_under(lines, ref))
    assert "Traceback (most recent call last)" in logged, lines
    assert secret in logged
    server.close()


def test_t5_async_tool_is_cancelled_at_its_deadline(connect: Any) -> None:
    """The engine's deadline cancels the asyncio task; the client gets T5 at once."""
    client = connect()

    @client.server.tool(timeout=0.05)
    async def slow_rw() -> str:
        import asyncio

        await asyncio.sleep(30)
        return "late"

    response = client.call_tool("slow_rw")
    assert result_of(response)["isError"] is True
    assert details(response)["category"] == "timeout"
    assert "outcome is unknown" in text_of(response)


def test_p23_reserved_codes_refused_at_the_raise_site() -> None:
    with pytest.raises(ValueError, match="reserved"):
        ProtocolError(-32601, "no")
    for code in (-32602, -32603, -32002, -31999, -32769, 1):
        assert ProtocolError(code, "ok").code == code


def test_metrics_count_outcomes(connect: Any) -> None:
    client = connect()
    server = client.server

    @server.tool
    def echo(text: str) -> str:
        return text

    @server.tool
    def lookup(key: str) -> str:
        raise ToolError(f"Issue lookup failed: issue {key}.", category="not_found")

    client.call_tool("echo", {"text": "x"})
    client.call_tool("lookup", {"key": "K"})
    client.call_tool("nope")
    m = server.metrics()
    assert m["tool_errors"] >= 1 and m["protocol_errors"] >= 1
    assert m["by_category"]["not_found"] >= 1


class QuotaError(ToolError):
    """A user subclass: still a ToolError to the engine."""


def test_t2_a_raised_tool_error_is_handed_over_as_a_value_with_the_same_reply(
    era: str,
) -> None:
    # mcpcxx/_components/tools.py returns the raised ToolError to the engine instead of letting it cross
    # the binding as an exception; every kind of raise must give the reply it gave before.
    server = mcpcxx.Server("t2-value")

    def fail() -> None:
        raise QuotaError(
            "Export failed: the monthly quota is used up. Retry next month; nothing was exported.",
            category="rate_limited",
            resource="export",
            retry_after=60,
        )

    @server.tool
    def nested() -> str:
        fail()
        return "unreachable"

    @server.tool
    async def in_async() -> str:
        fail()
        return "unreachable"

    with Client(server, protocol_version=era) as c:
        for tool in ("nested", "in_async"):
            response = c.call_tool(tool)
            result = result_of(response)
            assert result["isError"] is True, response
            assert text_of(response).startswith("Export failed: the monthly quota is used up.")
            assert result["structuredContent"] == details(response)
            assert details(response) == {
                "category": "rate_limited",
                "effect": "not_applied",
                "resource": "export",
                "retryAfterSeconds": 60.0,
                "retryable": True,
            }
    server.close()


def test_a_tool_error_changed_after_construction_is_still_refused(era: str) -> None:
    # The value path keeps the raised path's rule: attributes the C++ type refuses make the
    # failure unexpected (T3, reference id), with the reason logged.
    lines: list[str] = []
    server = mcpcxx.Server("t2-refused", log_writer=lines.append)

    @server.tool
    def mutated() -> str:
        error = ToolError("Sync failed: the remote refused. Do not retry.", category="conflict")
        error.category = "no-such-category"
        raise error

    with Client(server, protocol_version=era) as c:
        response = c.call_tool("mutated")
    ref = details(response)["reference"]
    assert details(response)["category"] == "internal"
    logged = [r for r in logged_under(lines, ref) if r.get("event") == "tool_exception"]
    assert len(logged) == 1
    assert "attributes changed after construction" in logged[0]["detail"], logged[0]
    server.close()


def test_a_raised_chain_reaches_the_log_whole(era: str) -> None:
    # A tool's exception is handed to the engine as a value (mcpcxx/_components/tools.py): the log still
    # gets its whole traceback, causes included, from the tool wrapper's frame down.
    lines: list[str] = []
    server = mcpcxx.Server("t3-chain", log_writer=lines.append)

    @server.tool
    def chained(key: str) -> str:
        try:
            return {"a": "1"}[key]
        except KeyError as e:
            raise RuntimeError(f"lookup of {key} broke") from e

    with Client(server, protocol_version=era) as c:
        response = c.call_tool("chained", {"key": "zz"})
    ref = details(response)["reference"]
    assert details(response)["category"] == "internal"
    assert "broke" not in text_of(response)
    logged = [r for r in logged_under(lines, ref) if r.get("event") == "tool_exception"]
    assert len(logged) == 1
    detail = logged[0]["detail"]
    assert detail.startswith("Traceback (most recent call last):\n"), detail
    assert "KeyError: 'zz'\n\nThe above exception was the direct cause" in detail, detail
    assert 'return {"a": "1"}[key]' in detail and "in chained\n" in detail, detail
    assert detail.endswith("RuntimeError: lookup of zz broke"), detail
    assert logged[0]["what"] == "RuntimeError: lookup of zz broke"
    server.close()


@pytest.mark.parametrize(
    ("raised", "expect"),
    [
        (lambda: ProtocolError(-31000, "quota exhausted", {"quota": "daily"}), -31000),
        (lambda: mcpcxx.ResourceNotFoundError("issues://9"), "not_found"),
        (lambda: ValueError("plain"), "internal"),
    ],
)
def test_typed_errors_raised_by_a_tool_keep_their_rows(era: str, raised: Any, expect: Any) -> None:
    server = mcpcxx.Server("typed")

    @server.tool
    def fails() -> str:
        raise raised()

    with Client(server, protocol_version=era) as c:
        response = c.call_tool("fails")
    if isinstance(expect, int):
        assert error_of(response)["code"] == expect
        assert error_of(response)["data"] == {"quota": "daily"}
    else:
        assert details(response)["category"] == expect
    server.close()
