"""Server.mount (docs/composition.md): a child server's tools, resources, templates and prompts
served by the parent under a prefix, in both eras and over HTTP (the ASGI adapter), with the
child's sync and async handlers, its Context reaching the caller, its middleware (seeing its own
names) and scopes; later registrations mirrored; collisions, cycles and bad prefixes refused with
errors that say what to do.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

import mcpcxx
from asgi_driver import asgi_request, mcp_headers
from auth_keys import AUDIENCE, ISSUER
from conftest import result_of
from mcp_requests import modern_body
from mcpcxx import Context, Middleware, Refusal, Reply
from mcpcxx.asgi import MCPApp
from mcpcxx.auth import BearerAuth, Principal
from mcpcxx.middleware import Request
from mcpcxx.testing import Client, text_of

MODERN, LEGACY = "2026-07-28", "2025-11-25"


def billing() -> tuple[mcpcxx.Server, list[str]]:
    server = mcpcxx.Server("billing-server")
    runs: list[str] = []

    @server.tool
    def charge(cents: int, ctx: Context) -> str:
        """Charge the card."""
        runs.append(f"charge {cents}")
        ctx.info(f"charging {cents}")
        return f"charged {cents}"

    @server.tool
    async def refund(cents: int) -> str:
        await asyncio.sleep(0.01)
        runs.append(f"refund {cents}")
        return f"refunded {cents}"

    @server.resource("mem://invoice")
    def invoice() -> str:
        return "invoice 1"

    @server.resource("mem://invoices/{id}")
    def invoice_by_id(id: str) -> str:
        return f"invoice {id}"

    @server.prompt
    def greet(who: str) -> str:
        return f"hi {who}"

    return server, runs


def shop_with_billing() -> tuple[mcpcxx.Server, mcpcxx.Server, list[str]]:
    shop = mcpcxx.Server("shop")

    @shop.tool
    def browse() -> str:
        return "browsing"

    child, runs = billing()
    shop.mount(child, "billing")
    return shop, child, runs


@pytest.mark.parametrize("era", [MODERN, LEGACY])
def test_every_primitive_is_served_under_the_prefix(era: str) -> None:
    shop, _, runs = shop_with_billing()
    with Client(shop, protocol_version=era) as c:
        names = [t["name"] for t in result_of(c.list_tools())["tools"]]
        assert names == ["browse", "billing_charge", "billing_refund"]
        assert text_of(c.call_tool("billing_charge", {"cents": 250})) == "charged 250"
        assert text_of(c.call_tool("billing_refund", {"cents": 5})) == "refunded 5"
        read = result_of(c.read_resource("mem://billing/invoice"))["contents"][0]
        assert (read["uri"], read["text"]) == ("mem://billing/invoice", "invoice 1")
        templated = result_of(c.read_resource("mem://billing/invoices/7"))["contents"][0]
        assert (templated["uri"], templated["text"]) == ("mem://billing/invoices/7", "invoice 7")
        prompt = result_of(c.get_prompt("billing_greet", {"who": "ann"}))
        assert prompt["messages"][0]["content"]["text"] == "hi ann"
    assert runs == ["charge 250", "refund 5"]


def test_the_child_context_logs_to_the_caller_and_the_child_still_runs_alone() -> None:
    shop, child, _ = shop_with_billing()
    with Client(shop, log_level="info") as c:
        c.call_tool("billing_charge", {"cents": 3})
        logged = [n["params"]["data"] for n in c.notifications if "message" in n["method"]]
        assert logged == ["charging 3"]
    with Client(child) as alone:
        assert text_of(alone.call_tool("charge", {"cents": 4})) == "charged 4"
        assert alone.call_tool("billing_charge", {"cents": 4})["error"]["code"] == -32602


@pytest.mark.parametrize("era", [MODERN, LEGACY])
def test_the_childs_tool_asks_the_caller_through_the_parent(era: str) -> None:
    child = mcpcxx.Server("approvals")

    @child.tool
    def approve(ctx: Context) -> str:
        return ctx.elicit_sync("Approve the refund?").action

    shop = mcpcxx.Server("shop")
    shop.mount(child, "approvals")
    asked: list[dict[str, Any]] = []

    def answer(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params)
        return {"action": "decline"}

    with Client(shop, protocol_version=era, elicitation_handler=answer) as c:
        assert text_of(c.call_tool("approvals_approve")) == "decline"
    assert [p["message"] for p in asked] == ["Approve the refund?"]


class Recorder(Middleware):
    def __init__(self, label: str, seen: list[str]) -> None:
        self.label, self.seen = label, seen

    async def before(self, request: Request) -> None:
        await asyncio.sleep(0)
        self.seen.append(f"{self.label} {request.method} {request.name}")


class NoRefunds(Middleware):
    methods = ("tools/call",)

    def before(self, request: Request) -> Reply | None:
        if request.name == "refund":
            return Reply.refuse(Refusal.forbidden("refunds are closed today"))
        return None


def test_the_childs_middleware_runs_after_the_parents_with_the_childs_names() -> None:
    shop, child, runs = shop_with_billing()
    seen: list[str] = []
    shop.add_middleware(Recorder("parent", seen), methods=["tools/call"])
    child.add_middleware(Recorder("child", seen), methods=["tools/call"])
    child.add_middleware(NoRefunds())
    with Client(shop, protocol_version=LEGACY) as c:
        c.call_tool("billing_charge", {"cents": 1})
        refused = c.call_tool("billing_refund", {"cents": 1})
        assert refused["error"]["data"]["reason"] == "refunds are closed today"
        assert "tools/call billing_refund is not allowed" in refused["error"]["message"]
        c.call_tool("browse")
    assert seen == [
        "parent tools/call billing_charge",
        "child tools/call charge",
        "parent tools/call billing_refund",
        "child tools/call refund",
        "parent tools/call browse",
    ]
    assert runs == ["charge 1"]


def test_a_tool_added_to_the_child_later_is_served_and_announced() -> None:
    shop, child, _ = shop_with_billing()
    with Client(shop, protocol_version=LEGACY) as c:

        @child.tool
        def void(invoice: str) -> str:
            return f"voided {invoice}"

        assert text_of(c.call_tool("billing_void", {"invoice": "A1"})) == "voided A1"
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not any(
            n["method"] == "notifications/tools/list_changed" for n in c.notifications
        ):
            time.sleep(0.01)
        assert any(n["method"] == "notifications/tools/list_changed" for n in c.notifications)


def test_collisions_are_refused_at_mount_and_at_later_registration() -> None:
    shop = mcpcxx.Server("shop")

    @shop.tool
    def billing_charge() -> str:
        return "mine"

    child, _ = billing()
    with pytest.raises(ValueError) as refused:
        shop.mount(child, "billing")
    message = str(refused.value)
    for part in ("'billing-server'", "'shop'", "'billing_charge'", "different prefix"):
        assert part in message
    shop.mount(child, "pay")
    with pytest.raises(ValueError, match="mounted at prefix 'pay'"):

        @shop.tool
        def pay_charge() -> str:
            return "mine"

    @shop.tool
    def pay_void() -> str:
        return "the shop's own"

    with pytest.raises(ValueError, match="mounted into 'shop'.*'pay_void'"):

        @child.tool
        def void() -> str:
            return "voided"


def test_self_cycles_and_bad_prefixes_are_refused() -> None:
    a, b = mcpcxx.Server("a"), mcpcxx.Server("b")
    with pytest.raises(ValueError, match="into itself"):
        a.mount(a, "a")
    a.mount(b, "b")
    with pytest.raises(ValueError, match="mount cycle"):
        b.mount(a, "a")
    for bad in ("", "has space", "a/b"):
        with pytest.raises(ValueError, match="invalid prefix"):
            a.mount(mcpcxx.Server("c"), bad)
    not_a_server: Any = object()
    with pytest.raises(TypeError, match="mcpcxx.Server"):
        a.mount(not_a_server, "x")


def http_call(app: MCPApp, tool: str, token: str | None) -> tuple[int, Any]:
    """One 2026-07-28 tools/call over HTTP (the ASGI adapter), with an optional bearer token."""
    params = {"name": tool, "arguments": {}}
    headers = mcp_headers("tools/call", tool)
    if token is not None:
        headers.append((b"authorization", f"Bearer {token}".encode()))
    body = modern_body("tools/call", params)
    resp = asyncio.run(asgi_request(app, "POST", "/mcp", headers=headers, body=body))
    assert resp.status is not None, "the app sent no response"
    return resp.status, resp.json() if resp.body else None


def test_over_http_the_childs_scopes_hold_for_its_mounted_tool() -> None:
    child = mcpcxx.Server("ledger")

    @child.tool(scopes=["ledger:write"])
    def close_books() -> str:
        return "closed"

    shop = mcpcxx.Server("shop")
    shop.mount(child, "ledger")
    principals = {"writer": Principal("wes", {"ledger:write"}), "reader": Principal("rai", set())}
    app = MCPApp(
        shop,
        auth=BearerAuth(
            lambda t: principals.get(t),
            authorization_servers=[ISSUER],
            resource=AUDIENCE,
            resource_metadata_url="https://mcp.example.test/.well-known/oauth-protected-resource/mcp",
        ),
    )
    status, reply = http_call(app, "ledger_close_books", "writer")
    assert status == 200 and reply["result"]["content"][0]["text"] == "closed"
    status, reply = http_call(app, "ledger_close_books", "reader")
    assert status == 403
    assert "ledger_close_books" in reply["error"]["message"]
