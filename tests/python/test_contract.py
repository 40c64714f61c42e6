"""The error-contract checker: clean on a correct server, precise about every deviation."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

import mcpcxx
from mcpcxx import ToolError
from mcpcxx.testing import MODERN, assert_error_contract, check_error_contract


class Out(BaseModel):
    n: int


def test_probes_pass_and_are_removed(server: mcpcxx.Server) -> None:
    @server.tool
    def keep() -> str:
        return ""

    assert check_error_contract(server) == []
    from mcpcxx.testing import Client

    with Client(server) as c:
        names = [t["name"] for t in c.list_tools()["result"]["tools"]]
    assert names == ["keep"]


@pytest.mark.parametrize("expose", [False, True])
def test_probes_pass_with_and_without_exposed_details(expose: bool) -> None:
    srv = mcpcxx.Server("contract", expose_exception_details=expose)
    assert_error_contract(srv)


def test_author_tools_that_follow_the_contract(server: mcpcxx.Server) -> None:
    @server.tool
    def find(key: str, limit: int = 5) -> str:
        raise ToolError("Issue lookup failed: issue X. Not found.", category="not_found")

    @server.tool
    def explode() -> str:
        raise RuntimeError("internal")

    @server.tool
    def wrong() -> Out:
        return {"n": "x"}  # type: ignore[return-value]

    assert_error_contract(
        server,
        tool_error=("find", {"key": "X"}),
        unexpected_exception="explode",
        output_mismatch="wrong",
        invalid_arguments="find",
    )


def test_deviations_are_reported_per_case_and_era(server: mcpcxx.Server) -> None:
    @server.tool
    def returns_error_text(key: str) -> str:
        return "Error: lookup failed"  # the classic mistake: isError never set

    @server.tool
    def no_schema() -> dict[str, int]:
        return {"n": 1}

    @server.tool
    def anything(value: object = None) -> str:
        return "accepted"

    found = check_error_contract(
        server,
        tool_error=("returns_error_text", {"key": "K"}),
        unexpected_exception=("returns_error_text", {"key": "K"}),
        output_mismatch="no_schema",
        invalid_arguments="anything",
        unknown_tool="returns_error_text",
    )
    problems = {(d.case, d.era, d.problem) for d in found}
    for era in (MODERN, "2025-11-25"):
        assert ("tool_error", era, "expected isError:true") in problems
        assert (
            "unknown_tool",
            era,
            "an unknown tool must get JSON-RPC error -32602, not a result",
        ) in problems
        assert (
            "unexpected_exception",
            era,
            "expected a reference id (ERR-...) tying the text to the server log",
        ) in problems
        assert (
            "invalid_arguments",
            era,
            "cannot build invalid arguments: the tool's inputSchema accepts anything",
        ) in problems
    text = str(found[0])
    assert "sent:" in text and "received:" in text
    with pytest.raises(AssertionError, match="error-contract deviation"):
        assert_error_contract(server, tool_error="returns_error_text")


def test_unlisted_tool_is_a_deviation(server: mcpcxx.Server) -> None:
    @server.tool
    def present() -> str:
        return ""

    found = check_error_contract(server, tool_error="missing_tool", eras=[MODERN], probe=False)
    assert [d.problem for d in found] == ["tool 'missing_tool' is not listed by tools/list"]
