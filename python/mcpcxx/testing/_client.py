"""An in-process MCP client that returns the raw JSON-RPC responses as they go on the wire."""

from __future__ import annotations

import itertools
import json
import threading
from typing import TYPE_CHECKING, Any

from mcpcxx import _core
from mcpcxx._protocol import envelope as _envelope
from mcpcxx._protocol.envelope import LEGACY, MODERN
from mcpcxx.testing._answers import (
    NO_REPLY,
    ElicitationHandler,
    NoReply,
    Roots,
    SamplingHandler,
    Unanswered,
    answer,
    declared_capabilities,
    error_response,
    result_response,
)

if TYPE_CHECKING:
    from mcpcxx._api.server import Server
    from mcpcxx._runtime.lifespan import Lifespan

__all__ = ["LEGACY", "MODERN", "NO_REPLY", "Client", "text_of"]

Message = dict[str, Any]

_INPUT_METHODS = ("tools/call", "prompts/get", "resources/read")


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

    `elicitation_handler(params) -> ElicitResult dict`, `sampling_handler(params) ->
    CreateMessageResult dict or str` and `roots` (a list of Root dicts or URIs, or a callable
    returning one) answer the server's questions in both eras, and declare the matching client
    capabilities unless `capabilities` is given: on a legacy session each server request is
    answered on a thread of its own; on 2026-07-28 request() answers an input_required result
    and retries with inputResponses and requestState until the final result (at most
    `max_input_rounds` retries). Every frame stays in `frames`; the questions asked are in
    `server_requests`. A handler returning NO_REPLY leaves the question unanswered.
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
        elicitation_handler: ElicitationHandler | None = None,
        sampling_handler: SamplingHandler | None = None,
        roots: Roots | None = None,
        max_input_rounds: int = 8,
    ) -> None:
        self.server = server
        self.protocol_version = protocol_version
        self.modern = protocol_version == MODERN
        self.client_info = client_info or {"name": "mcpcxx-testing", "version": _core.__version__}
        self.elicitation_handler = elicitation_handler
        self.sampling_handler = sampling_handler
        self.roots = roots
        self.max_input_rounds = max_input_rounds
        self.capabilities = (
            capabilities
            if capabilities is not None
            else declared_capabilities(elicitation_handler, sampling_handler, roots)
        )
        self.server_requests: list[Message] = []
        """The questions the server asked, in order: {"method", "params"} plus "id" (a legacy
        request) or "key" (an inputRequests entry on 2026-07-28)."""
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
        # The server's lifespan (if any) runs while this client is open: close() releases it.
        runtime = server.runtime
        self._lifespan: Lifespan | None = runtime.lifespan
        runtime.lifespan.acquire()
        try:
            self._session = runtime.core.open_session(self._sink, inline)
        except BaseException:
            runtime.lifespan.release()
            raise
        self.initialize_result: Message | None = None
        if not self.modern and initialize:
            self.initialize_result = self.initialize()

    # ----- plumbing ----------------------------------------------------------------------------

    def _sink(self, frame: str, kind: str) -> None:
        message = json.loads(frame)
        asked: list[Message] = []
        with self._cond:
            self.frames.append(frame)
            for item in message if isinstance(message, list) else [message]:
                if isinstance(item, dict) and "method" in item and item.get("id") is not None:
                    asked.append(item)  # a server-to-client request (legacy sessions)
                    self.server_requests.append(
                        {"method": item["method"], "params": item.get("params"), "id": item["id"]}
                    )
                elif kind == "notification" or (isinstance(item, dict) and "method" in item):
                    self.notifications.append(item)
                elif isinstance(item, dict) and item.get("id") is not None:
                    self._responses[_key(item["id"])] = item
                else:
                    self._unmatched.append(item)
            self._cond.notify_all()
        for request in asked:
            # Never on the engine's thread: the handler that asked is waiting for this answer,
            # and with inline dispatch that thread is the one that called receive().
            threading.Thread(
                target=self._answer_live, args=(request,), name="mcpcxx-client-answer", daemon=True
            ).start()

    def _answer_live(self, request: Message) -> None:
        try:
            result = answer(self, request["method"], request.get("params") or {})
        except Unanswered as e:
            reply: Message | None = error_response(request["id"], e.code, e.message)
        except Exception as e:  # a failing test handler: the server sees an internal error
            reply = error_response(request["id"], -32603, f"{type(e).__name__}: {e}")
        else:
            reply = None if isinstance(result, NoReply) else result_response(request["id"], result)
        if reply is not None:
            self._session.receive(json.dumps(reply, ensure_ascii=False))

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
        """Send a request and return its raw response (a dict with "result" or "error").

        On 2026-07-28 an input_required result of tools/call, prompts/get or resources/read is
        answered from the client's handlers and retried (a new id, inputResponses and the
        echoed requestState) until another result comes back; it is returned as it is when a
        question has no handler, a handler returned NO_REPLY, or after max_input_rounds retries.
        """
        response = self.wait(self.send(method, params))
        rounds = 0
        while self.modern and method in _INPUT_METHODS and rounds < self.max_input_rounds:
            retry = self._retry_params(params, response)
            if retry is None:
                break
            response = self.wait(self.send(method, retry))
            rounds += 1
        return response

    def _retry_params(self, params: dict[str, Any] | None, response: Message) -> Message | None:
        """The retry's params for an input_required `response`.

        None when `response` is not one or a question stays unanswered.
        """
        result = response.get("result")
        if not isinstance(result, dict) or result.get("resultType") != "input_required":
            return None
        answers: Message = {}
        for key, question in (result.get("inputRequests") or {}).items():
            method, qparams = question.get("method", ""), question.get("params") or {}
            self.server_requests.append({"method": method, "params": qparams, "key": key})
            try:
                value = answer(self, method, qparams)
            except Unanswered:
                return None
            if isinstance(value, NoReply):
                return None
            answers[key] = value
        retry = {**(params or {}), "inputResponses": answers}
        retry.pop("requestState", None)
        if "requestState" in result:
            retry["requestState"] = result["requestState"]
        return retry

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
        """tools/call; the raw response (input_required answered as request() says)."""
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        if progress_token is not None:
            params["_meta"] = {"progressToken": progress_token}
        return self.request("tools/call", params)

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
        """Cancel what is still running; True when every handler returned within the grace.

        The last open client of a Server with a lifespan stops it.
        """
        done: bool = self._session.shutdown(grace_seconds)
        lifespan, self._lifespan = self._lifespan, None
        if lifespan is not None:
            lifespan.release()
        return done

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def text_of(response: Message) -> str:
    """The concatenated text blocks of a tools/call response's result ("" when none)."""
    result = response.get("result") or {}
    return "".join(b.get("text", "") for b in result.get("content", []) if b.get("type") == "text")
