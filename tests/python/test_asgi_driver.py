"""The shared ASGI test driver (asgi_driver.py) against small fake apps: what it feeds, what it
collects, and that it fails on an app breaking the ASGI message order or a malformed stream."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from asgi_driver import AsgiApp, Message, Receive, Scope, Send, SseEvent, asgi_request, parse_sse


def replying(*messages: Message) -> AsgiApp:
    """An app that sends `messages` as they are, after reading the whole request body."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        while (await receive()).get("more_body"):
            pass
        for m in messages:
            await send(m)

    return app


def start(status: int = 200, *headers: tuple[bytes, bytes]) -> Message:
    return {"type": "http.response.start", "status": status, "headers": list(headers)}


def body(data: bytes, more: bool = False) -> Message:
    return {"type": "http.response.body", "body": data, "more_body": more}


def test_collects_status_headers_and_body_chunks() -> None:
    app = replying(
        start(201, (b"Content-Type", b"application/json"), (b"Vary", b"a"), (b"vary", b"b")),
        body(b'{"a": ', True),
        body(b"[1]}"),
    )
    resp = asyncio.run(asgi_request(app, "PUT", "/x", body=b"ignored"))
    assert (resp.status, resp.complete) == (201, True)
    assert resp.headers == {"content-type": "application/json", "vary": "a, b"}
    assert resp.raw_headers[0] == (b"Content-Type", b"application/json")
    assert resp.json() == {"a": [1]}


def test_feeds_scope_chunks_and_a_late_disconnect() -> None:
    seen: list[Any] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        seen.append((scope["method"], scope["path"], scope["query_string"], scope["headers"]))
        for _ in range(4):
            seen.append(dict(await receive()))

    headers = [(b"host", b"h")]
    chunks = [b"a", b"b"]
    late = asgi_request(
        app, "GET", "/p", headers=headers, body=chunks, query_string=b"q=1", disconnect_after=0.01
    )
    asyncio.run(late)
    assert seen == [
        ("GET", "/p", b"q=1", headers),
        {"type": "http.request", "body": b"a", "more_body": True},
        {"type": "http.request", "body": b"b", "more_body": False},
        {"type": "http.disconnect"},
        {"type": "http.disconnect"},
    ]


def test_a_partial_body_keeps_more_body_set() -> None:
    seen: list[Any] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        seen.append(dict(await receive()))
        seen.append(dict(await receive()))

    asyncio.run(asgi_request(app, body=b"cut", body_complete=False, disconnect_after=0))
    assert seen == [
        {"type": "http.request", "body": b"cut", "more_body": True},
        {"type": "http.disconnect"},
    ]


def test_without_disconnect_the_client_never_leaves() -> None:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await receive()
        await receive()

    with pytest.raises(asyncio.TimeoutError):
        asyncio.run(asgi_request(app, timeout=0.2))


def test_an_app_that_never_answers_has_no_status() -> None:
    resp = asyncio.run(asgi_request(replying()))
    assert (resp.status, resp.headers, resp.body, resp.complete) == (None, {}, b"", False)


@pytest.mark.parametrize(
    ("messages", "match"),
    [
        ((body(b"x"),), "before http.response.start"),
        ((start(), start()), "sent twice"),
        ((start(), body(b""), body(b"late")), "after the response ended"),
        ((start(), {"type": "http.response.trailers"}), "unexpected ASGI message"),
    ],
)
def test_out_of_order_messages_fail(messages: tuple[Message, ...], match: str) -> None:
    with pytest.raises(AssertionError, match=match):
        asyncio.run(asgi_request(replying(*messages)))


def test_sse_events_parse_fields_and_refuse_other_content() -> None:
    stream = start(200, (b"content-type", b"text/event-stream"))
    text = b': comment\r\nid: 7\r\nevent: message\r\ndata: {"a":\r\ndata:1}\r\n\r\ndata: 2\n\n'
    resp = asyncio.run(asgi_request(replying(stream, body(text))))
    events = resp.sse_events()
    assert events == [SseEvent('{"a":\n1}', "message", "7"), SseEvent("2")]
    assert [e.json() for e in events] == [{"a": 1}, 2]
    plain = asyncio.run(asgi_request(replying(start(), body(b"data: 1\n\n"))))
    with pytest.raises(AssertionError, match="not an event stream"):
        plain.sse_events()


def test_sse_parse_keeps_empty_events_and_refuses_an_unterminated_one() -> None:
    assert parse_sse("id: 1\ndata:\n\n: only a comment\n\n") == [SseEvent("", None, "1")]
    with pytest.raises(AssertionError, match="ends inside an event"):
        parse_sse("data: 1\n\ndata: 2\n")
    assert parse_sse("") == []
