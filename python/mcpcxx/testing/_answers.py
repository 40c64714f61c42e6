"""How the testing Client answers the server's questions (elicitation, sampling, roots).

The same answer serves both eras: the result of a live request on a legacy session, or an entry
of inputResponses on a 2026-07-28 retry.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, Protocol

from mcpcxx._protocol.errors import ProtocolError

Message = dict[str, Any]


class NoReply:
    """The type of NO_REPLY."""

    def __repr__(self) -> str:
        return "NO_REPLY"


NO_REPLY: Final = NoReply()
"""Returned by a handler to leave the server's question unanswered (to test timeouts)."""

ElicitationHandler = Callable[[Message], "Message | NoReply"]
"""handler(ElicitRequest params) -> an ElicitResult dict (see accept/decline/cancel)."""
SamplingHandler = Callable[[Message], "Message | str | NoReply"]
"""handler(CreateMessageRequest params) -> a CreateMessageResult dict, or the reply's text."""
Roots = Sequence["Mapping[str, Any] | str"] | Callable[[], Sequence["Mapping[str, Any] | str"]]
"""Root dicts or URIs, or a callable returning them on each roots/list."""


def accept(content: Mapping[str, Any] | None = None) -> Message:
    """ElicitResult: the user submitted `content` (omitted for URL mode)."""
    return {"action": "accept"} if content is None else {"action": "accept", "content": content}


def decline() -> Message:
    """ElicitResult: the user explicitly declined."""
    return {"action": "decline"}


def cancel() -> Message:
    """ElicitResult: the user dismissed the question."""
    return {"action": "cancel"}


def sampled(text: str, *, model: str = "mcpcxx-testing-model") -> Message:
    """CreateMessageResult: an assistant text reply."""
    return {
        "role": "assistant",
        "content": {"type": "text", "text": text},
        "model": model,
        "stopReason": "endTurn",
    }


class Unanswered(Exception):  # becomes the client's JSON-RPC error reply
    """The client cannot answer: `code` and `message` become the JSON-RPC error it sends."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def declared_capabilities(
    elicitation: ElicitationHandler | None,
    sampling: SamplingHandler | None,
    roots: Roots | None,
) -> Message:
    """The ClientCapabilities a client with these handlers declares."""
    caps: Message = {}
    if elicitation is not None:
        caps["elicitation"] = {"form": {}, "url": {}}
    if sampling is not None:
        caps["sampling"] = {"tools": {}, "context": {}}
    if roots is not None:
        caps["roots"] = {"listChanged": True}
    return caps


class Answering(Protocol):
    """What answer() reads of a client (mcpcxx.testing.Client): its handlers."""

    @property
    def elicitation_handler(self) -> ElicitationHandler | None:
        """Answers elicitation/create."""
        ...

    @property
    def sampling_handler(self) -> SamplingHandler | None:
        """Answers sampling/createMessage."""
        ...

    @property
    def roots(self) -> Roots | None:
        """Answers roots/list."""
        ...


def answer(client: Answering, method: str, params: Message) -> Message | NoReply:
    """The client's result for the server's question; raises Unanswered when it has none."""
    if method == "ping":
        return {}
    try:
        if method == "elicitation/create" and client.elicitation_handler is not None:
            return client.elicitation_handler(params)
        if method == "sampling/createMessage" and client.sampling_handler is not None:
            reply = client.sampling_handler(params)
            return sampled(reply) if isinstance(reply, str) else reply
        if method == "roots/list" and client.roots is not None:
            listed = client.roots() if callable(client.roots) else client.roots
            return {"roots": [{"uri": r} if isinstance(r, str) else dict(r) for r in listed]}
    except ProtocolError as e:  # the handler chose the error the client sends
        raise Unanswered(e.code, e.message) from e
    raise Unanswered(-32601, f"the test client has no handler for {method}")


def result_response(request_id: Any, result: Message) -> Message:
    """A JSON-RPC success response."""
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def error_response(request_id: Any, code: int, message: str) -> Message:
    """A JSON-RPC error response."""
    error: dict[str, Any] = {"code": code, "message": message}
    return {"jsonrpc": "2.0", "id": request_id, "error": error}
