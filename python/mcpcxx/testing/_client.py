"""An in-process MCP client that returns the raw JSON-RPC responses as they go on the wire."""

from __future__ import annotations

import itertools
import json
import threading
from typing import TYPE_CHECKING, Any

from mcpcxx import _core, _envelope
from mcpcxx._envelope import LEGACY, MODERN

if TYPE_CHECKING:
    from mcpcxx._server import Server

__all__ = ["LEGACY", "MODERN", "Client", "text_of"]

Message = dict[str, Any]


def _key(request_id: Any) -> str:
    return json.dumps(request_id)


class Client:
    """Talk to a Server in-process through a real engine session.

    Every method returns the response dict parsed from the exact frame the engine wrote, so tests
    assert the serialized response, not an exception class. `protocol_version` picks the era:
    "2026-07-28" (default) adds the per-request _meta; a legacy version performs initialize and
    notifications/initialized first.

    With `inline=True` (default) handlers run on the calling thread; `inline=False` uses the
    engine's worker pool, so requests can be in flight concurrently (call_tool_nowait()).
    """

    def __init__(
        self,
        server: Server,
        *,
        protocol_version: str = MODERN,
        client_info: dict[str, Any] | None = None,
        capabilities: dict[str, Any] | None = None,
        log_level: str | None = None,
        inline: bool = True,
        initialize: bool = True,
        timeout: float = 30.0,
    ) -> None:
        self.server = server
        self.protocol_version = protocol_version
        self.modern = protocol_version == MODERN
        self.client_info = client_info or {"name": "mcpcxx-testing", "version": _core.__version__}
        self.capabilities = capabilities if capabilities is not None else {}
        self.log_level = log_level
        self.timeout = timeout
        self.frames: list[str] = []
        """Every frame received, in order, exactly as written by the engine (a batch reply is
        one frame holding a JSON array)."""
        self.notifications: list[Message] = []
        self._responses: dict[str, Message] = {}
        self._unmatched: list[Message] = []
        self._cond = threading.Condition()
        self._send_lock = threading.Lock()
        self._ids = itertools.count(1)
        self._session = server._core.open_session(self._sink, inline)
        self.initialize_result: Message | None = None
        if not self.modern and initialize:
            self.initialize_result = self.initialize()

    # ----- plumbing ----------------------------------------------------------------------------

    def _sink(self, frame: str, kind: str) -> None:
        message = json.loads(frame)
        with self._cond:
            self.frames.append(frame)
            if kind == "notification":
                self.notifications.append(message)
            else:
                for item in message if isinstance(message, list) else [message]:
                    if isinstance(item, dict) and item.get("id") is not None:
                        self._responses[_key(item["id"])] = item
                    else:
                        self._unmatched.append(item)
            self._cond.notify_all()

    def send_raw(self, frame: str | bytes) -> list[Message]:
        """Send bytes as they are; returns the responses with no matching id (id null, ...)."""
        with self._cond:
            before = len(self._unmatched)
        with self._send_lock:
            self._session.receive(frame)
        with self._cond:
            return list(self._unmatched[before:])

    def send(
        self, method: str, params: dict[str, Any] | None = None, *, request_id: Any = None
    ) -> Any:
        """Send a request without waiting; returns its id (see wait())."""
        rid = next(self._ids) if request_id is None else request_id
        if self.modern:
            params = _envelope.with_envelope(
                params,
                protocol_version=self.protocol_version,
                client_info=self.client_info,
                capabilities=self.capabilities,
                log_level=self.log_level,
            )
        body = _envelope.request(rid, method, params)
        with self._send_lock:
            self._session.receive(json.dumps(body, ensure_ascii=False))
        return rid

    def wait(self, request_id: Any, timeout: float | None = None) -> Message:
        """The response to `request_id`; raises TimeoutError when none arrives in time."""
        key = _key(request_id)
        limit = self.timeout if timeout is None else timeout
        with self._cond:
            if not self._cond.wait_for(lambda: key in self._responses, timeout=limit):
                raise TimeoutError(f"no response to request {request_id!r} within {limit} s")
            return self._responses.pop(key)

    def has_response(self, request_id: Any) -> bool:
        """True when a response to `request_id` arrived and was not yet taken by wait()."""
        with self._cond:
            return _key(request_id) in self._responses

    def request(self, method: str, params: dict[str, Any] | None = None) -> Message:
        """Send a request and return its raw response (a dict with "result" or "error")."""
        return self.wait(self.send(method, params))

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        """Send a notification (no reply is expected)."""
        body: Message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            body["params"] = params
        with self._send_lock:
            self._session.receive(json.dumps(body, ensure_ascii=False))

    # ----- MCP methods -------------------------------------------------------------------------

    def initialize(self) -> Message:
        """Legacy handshake: initialize, then notifications/initialized."""
        response = self.request(
            "initialize",
            {
                "protocolVersion": self.protocol_version,
                "capabilities": self.capabilities,
                "clientInfo": self.client_info,
            },
        )
        if "result" in response:
            self.notify("notifications/initialized")
        return response

    def discover(self) -> Message:
        """server/discover (2026-07-28)."""
        return self.request("server/discover")

    def list_tools(self, cursor: str | None = None) -> Message:
        """tools/list."""
        return self.request("tools/list", {"cursor": cursor} if cursor else None)

    def call_tool_nowait(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        progress_token: Any = None,
        request_id: Any = None,
    ) -> Any:
        """Send tools/call without waiting; returns the request id (see wait(), cancel())."""
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        if progress_token is not None:
            params["_meta"] = {"progressToken": progress_token}
        return self.send("tools/call", params, request_id=request_id)

    def call_tool(
        self, name: str, arguments: dict[str, Any] | None = None, *, progress_token: Any = None
    ) -> Message:
        """tools/call; the raw response."""
        return self.wait(self.call_tool_nowait(name, arguments, progress_token=progress_token))

    def cancel(self, request_id: Any, reason: str = "cancelled by the test") -> None:
        """Send notifications/cancelled for `request_id`."""
        self.notify("notifications/cancelled", {"requestId": request_id, "reason": reason})

    def list_resources(self) -> Message:
        """resources/list."""
        return self.request("resources/list")

    def list_resource_templates(self) -> Message:
        """resources/templates/list."""
        return self.request("resources/templates/list")

    def read_resource(self, uri: str) -> Message:
        """resources/read."""
        return self.request("resources/read", {"uri": uri})

    def list_prompts(self) -> Message:
        """prompts/list."""
        return self.request("prompts/list")

    def get_prompt(self, name: str, arguments: dict[str, str] | None = None) -> Message:
        """prompts/get."""
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        return self.request("prompts/get", params)

    def complete(self, ref: dict[str, Any], argument: str, value: str) -> Message:
        """completion/complete."""
        return self.request(
            "completion/complete", {"ref": ref, "argument": {"name": argument, "value": value}}
        )

    # ----- lifetime ----------------------------------------------------------------------------

    def wait_idle(self) -> None:
        """Block until no request of this client is in flight."""
        self._session.wait_idle()

    @property
    def in_flight(self) -> int:
        """Requests of this client still running."""
        return self._session.in_flight

    def close(self, grace_seconds: float = 5.0) -> bool:
        """Cancel what is still running; True when every handler returned within the grace."""
        return self._session.shutdown(grace_seconds)

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def text_of(response: Message) -> str:
    """The concatenated text blocks of a tools/call response's result ("" when none)."""
    result = response.get("result") or {}
    return "".join(b.get("text", "") for b in result.get("content", []) if b.get("type") == "text")
