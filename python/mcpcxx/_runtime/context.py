"""What a handler may know about and do for its request, and its implementation over the engine.

`BaseContext` is every member of the public `mcpcxx.Context` Protocol but `server` (which names
the Server class, so it is added in mcpcxx._api.context, above the modules that find a Context
parameter by type); `EngineContext` implements it over the engine's per-request handle and the
Server's Runtime, so tests and other runtimes can pass their own.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from types import MappingProxyType
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    Protocol,
    TypedDict,
    TypeVar,
    cast,
    overload,
    runtime_checkable,
)

from mcpcxx._protocol import asking as _asking
from mcpcxx._protocol.asking import ElicitResult, Root, SamplingResult
from mcpcxx._protocol.content import ResourceContents
from mcpcxx._protocol.errors import MissingClientCapabilityError, RequestCancelledError

if TYPE_CHECKING:
    import logging

    from pydantic import BaseModel
    from typing_extensions import Unpack

    from mcpcxx._core import RequestContext
    from mcpcxx._runtime.runtime import Runtime
    from mcpcxx.auth._principal import Principal

    M = TypeVar("M", bound=BaseModel)

Messages = str | Sequence[str | Mapping[str, Any]]
"""Sampling messages: a str (one user text message) or a list of str and SamplingMessage dicts."""
IncludeContext = Literal["none", "thisServer", "allServers"]


class SamplingOptions(TypedDict, total=False):
    """The keyword options of ctx.sample (CreateMessageRequest params, snake_case)."""

    max_tokens: int
    """maxTokens; 512 when not given."""
    system_prompt: str | None
    temperature: float | None
    stop_sequences: Sequence[str] | None
    model_preferences: Mapping[str, Any] | Sequence[str] | None
    """A ModelPreferences dict, or model name hints in order of preference."""
    include_context: IncludeContext | None
    tools: Sequence[Mapping[str, Any]] | None
    """Tools the client's model may call (2025-11-25+, client capability sampling.tools)."""
    tool_choice: Mapping[str, Any] | None
    metadata: Mapping[str, Any] | None


_UNREAD = object()  # EngineContext.headers not read yet

_LEVELS = {10: "debug", 20: "info", 30: "warning", 40: "error", 50: "critical"}


class Done:
    """A finished awaitable: `await ctx.report_progress(...)` and a plain call both work."""

    __slots__ = ("value",)

    def __init__(self, value: Any = None) -> None:
        self.value = value

    def __await__(self) -> Generator[Any, None, Any]:
        yield from ()  # a generator that finishes at once, with `value` as the result
        return self.value


def _client_logger(ctx: EngineContext, name: str) -> logging.Logger:
    import logging

    class ClientHandler(logging.Handler):
        """Forwards records to the engine (stderr always; the client when it asked)."""

        def emit(self, record: logging.LogRecord) -> None:
            level = _LEVELS.get(record.levelno) or ("debug" if record.levelno < 20 else "error")
            try:
                ctx.log(level, self.format(record), logger=record.name)
            except Exception:
                self.handleError(record)

    log = logging.Logger(name)
    log.addHandler(ClientHandler())
    log.propagate = False
    return log


@runtime_checkable
class BaseContext(Protocol):
    """mcpcxx.Context without `server`: ids, client, progress, logging and cancellation.

    A parameter annotated with this Protocol or one deriving from it (mcpcxx.Context) receives
    the request's context.
    """

    @property
    def request_id(self) -> int | str:
        """The JSON-RPC id of the request."""
        ...

    @property
    def protocol_version(self) -> str:
        """The protocol revision the request is served under, e.g. "2026-07-28"."""
        ...

    @property
    def modern(self) -> bool:
        """True under the stateless 2026-07-28 revision."""
        ...

    @property
    def client_info(self) -> dict[str, Any] | None:
        """The client's self-reported Implementation object (never use it for security)."""
        ...

    @property
    def client_capabilities(self) -> dict[str, Any] | None:
        """The capabilities the client declared for this request."""
        ...

    @property
    def request_meta(self) -> dict[str, Any]:
        """The request's `_meta` as sent ({} when absent): traceparent, tracestate, custom keys."""
        ...

    @property
    def headers(self) -> Mapping[str, str] | None:
        """HTTP: the request's headers, read-only, lower-case names; None on stdio.

        Authorization, Proxy-Authorization, Cookie and Set-Cookie are withheld unless
        run("http", expose_headers=[...]) names them.
        """
        ...

    @property
    def principal(self) -> Principal | None:
        """HTTP with auth: who the verified access token speaks for; None otherwise."""
        ...

    def client_extension(self, id: str) -> dict[str, Any] | None:
        """The settings the client declared for extension `id`; None when it did not."""
        ...

    def client_supports_apps(self) -> bool:
        """Whether this request's client renders MCP Apps UI resources (docs/apps.md)."""
        ...

    @property
    def lifespan_context(self) -> Any:
        """What the server's lifespan yielded (None when the Server has no lifespan)."""
        ...

    @property
    def cancelled(self) -> bool:
        """True once the client cancelled, the deadline passed, or the server is stopping."""
        ...

    def raise_if_cancelled(self) -> None:
        """Raise RequestCancelledError when the request was cancelled (for sync loops)."""
        ...

    def start_task(self) -> bool:
        """Run the rest of this handler as a task (tools with task_start="handler")."""
        ...

    def require_client_capability(self, name: str) -> None:
        """Raise MissingClientCapabilityError unless the client declared capability `name`."""
        ...

    def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> Done:
        """Send notifications/progress (with a progressToken); in a task, set its statusMessage."""
        ...

    def log(self, level: str, message: Any, *, logger: str | None = None) -> Done:
        """Log to stderr, and to the client when it asked for `level`."""
        ...

    def debug(self, message: Any) -> Done:
        """log("debug", message)."""
        ...

    def info(self, message: Any) -> Done:
        """log("info", message)."""
        ...

    def warning(self, message: Any) -> Done:
        """log("warning", message)."""
        ...

    def error(self, message: Any) -> Done:
        """log("error", message)."""
        ...

    @property
    def logger(self) -> logging.Logger:
        """A stdlib Logger whose records reach stderr and, when asked for, the client."""
        ...

    # Asking the client (docs/python-context.md, "Asking the client"). Each ask is a live request
    # on a legacy session and an input_required round trip on 2026-07-28 (the handler is re-run).

    @overload
    async def elicit(self, message: str, schema: type[M]) -> ElicitResult[M]: ...
    @overload
    async def elicit(
        self, message: str, schema: Mapping[str, Any] | None = None
    ) -> ElicitResult[dict[str, Any]]: ...
    async def elicit(self, message: str, schema: Any = None) -> ElicitResult[Any]:
        """Ask the user to fill a form (elicitation/create, form mode)."""
        ...

    @overload
    def elicit_sync(self, message: str, schema: type[M]) -> ElicitResult[M]: ...
    @overload
    def elicit_sync(
        self, message: str, schema: Mapping[str, Any] | None = None
    ) -> ElicitResult[dict[str, Any]]: ...
    def elicit_sync(self, message: str, schema: Any = None) -> ElicitResult[Any]:
        """elicit() for `def` handlers: blocks until the user answered."""
        ...

    async def elicit_url(self, message: str, url: str, elicitation_id: str) -> ElicitResult[None]:
        """Ask the user to complete a flow at `url` (URL mode, 2025-11-25+)."""
        ...

    def elicit_url_sync(self, message: str, url: str, elicitation_id: str) -> ElicitResult[None]:
        """elicit_url() for `def` handlers."""
        ...

    async def sample(
        self, messages: Messages, **options: Unpack[SamplingOptions]
    ) -> SamplingResult:
        """Ask the client's model for a completion (sampling/createMessage)."""
        ...

    def sample_sync(self, messages: Messages, **options: Unpack[SamplingOptions]) -> SamplingResult:
        """sample() for `def` handlers."""
        ...

    async def list_roots(self) -> list[Root]:
        """The roots the client exposes (roots/list)."""
        ...

    def list_roots_sync(self) -> list[Root]:
        """list_roots() for `def` handlers."""
        ...

    async def ask_all(self, requests: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """Several questions in one round, each {"method", "params", "key"?}: raw results."""
        ...

    def ask_all_sync(self, requests: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """ask_all() for `def` handlers."""
        ...

    async def read_resource(self, uri: str) -> list[ResourceContents]:
        """Read one of this server's resources or templates (ResourceNotFoundError if none)."""
        ...

    def read_resource_sync(self, uri: str) -> list[ResourceContents]:
        """read_resource() for `def` handlers."""
        ...


class EngineContext:
    """mcpcxx.Context over the engine's per-request handle and the Server's Runtime."""

    __slots__ = ("_core", "_headers", "_logger", "_runtime")

    def __init__(self, core: RequestContext, runtime: Runtime | None = None) -> None:
        self._core = core
        self._runtime = runtime
        self._logger: logging.Logger | None = None
        self._headers: object = _UNREAD

    @property
    def request_id(self) -> int | str:
        """The JSON-RPC id of the request."""
        return self._core.request_id

    @property
    def protocol_version(self) -> str:
        """The protocol revision the request is served under, e.g. "2026-07-28"."""
        return self._core.protocol_version

    @property
    def modern(self) -> bool:
        """True under the stateless 2026-07-28 revision."""
        return self._core.modern

    @property
    def client_info(self) -> dict[str, Any] | None:
        """The client's self-reported Implementation object (never use it for security)."""
        return cast("dict[str, Any] | None", self._core.client_info)

    @property
    def client_capabilities(self) -> dict[str, Any] | None:
        """The capabilities the client declared for this request."""
        return cast("dict[str, Any] | None", self._core.client_capabilities)

    @property
    def request_meta(self) -> dict[str, Any]:
        """The request's `_meta` as sent ({} when absent): traceparent, tracestate, custom keys.

        A fresh copy per access: changing it changes nothing the engine sees.
        """
        return self._core.request_meta

    @property
    def headers(self) -> Mapping[str, str] | None:
        """HTTP: the request's headers (read-only, lower-case names; repeats joined by ", ").

        None on stdio and in-process sessions. Authorization, Proxy-Authorization, Cookie and
        Set-Cookie are withheld unless run("http", expose_headers=[...]) names them.
        """
        if self._headers is _UNREAD:
            raw = self._core.http_headers
            self._headers = None if raw is None else MappingProxyType(dict(raw))
        return cast("Mapping[str, str] | None", self._headers)

    @property
    def principal(self) -> Principal | None:
        """HTTP with auth: who the verified access token speaks for; None otherwise.

        A Principal (subject, scopes, claims, client_id, expires_at), never the token itself;
        None on stdio and without auth.
        """
        from mcpcxx.auth._principal import Principal

        return Principal.from_json(self._core.principal)

    def client_extension(self, id: str) -> dict[str, Any] | None:
        """The settings the client declared for extension `id`; None when it did not.

        2026-07-28: this request's client capabilities; legacy: the session's (initialize).
        """
        caps = self._core.client_capabilities
        extensions = caps.get("extensions") if isinstance(caps, dict) else None
        settings = extensions.get(id) if isinstance(extensions, dict) else None
        return cast("dict[str, Any] | None", settings)

    def client_supports_apps(self) -> bool:
        """Whether this request's client renders MCP Apps UI resources (docs/apps.md).

        True when it declared the extension io.modelcontextprotocol/ui with the MIME type
        text/html;profile=mcp-app: in this request's client capabilities on 2026-07-28, in
        initialize on legacy sessions. Return meaningful content either way; the UI reads
        structuredContent.
        """
        from mcpcxx._components.apps import MIME_TYPE, client_mime_types

        return MIME_TYPE in client_mime_types(self._core)

    @property
    def server(self) -> Any:
        """The Server serving this request (mcpcxx.Server; None without a Runtime)."""
        return None if self._runtime is None else self._runtime.server

    @property
    def lifespan_context(self) -> Any:
        """What the server's lifespan yielded (None when the Server has no lifespan)."""
        return None if self._runtime is None else self._runtime.lifespan.value

    @property
    def cancelled(self) -> bool:
        """True once the client cancelled, the deadline passed, or the server is stopping."""
        return self._core.cancelled

    def raise_if_cancelled(self) -> None:
        """Raise RequestCancelledError when the request was cancelled (for sync tools' loops)."""
        if self._core.cancelled:
            raise RequestCancelledError(f"request {self._core.request_id!r} was cancelled")

    def start_task(self) -> bool:
        """Run the rest of this handler as a task (tools registered with task_start="handler").

        The request is answered now with a task the client polls; later questions and progress go
        to the task, and tasks/cancel sets `cancelled`. False, changing nothing, when this call
        cannot become a task (the client did not declare the tasks extension, or it already is).
        """
        started: bool = self._core.start_task()
        return started

    def require_client_capability(self, name: str) -> None:
        """Raise MissingClientCapability (-32021) unless the client declared capability `name`."""
        declared = self._core.client_capabilities
        if not isinstance(declared, dict) or name not in declared:
            raise MissingClientCapabilityError({name: {}})

    def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> Done:
        """Send notifications/progress (when the client sent a progressToken).

        In a task, `message` also becomes the task's statusMessage (tasks/get), token or not.
        Works with and without `await`. Raises ValueError when progress does not increase.
        """
        self._core.report_progress(float(progress), total, message)
        return Done()

    def log(self, level: str, message: Any, *, logger: str | None = None) -> Done:
        """Log to stderr, and to the client when it asked for `level`; await gives True if sent."""
        return Done(self._core.log(level, message, logger))

    def debug(self, message: Any) -> Done:
        """log("debug", message)."""
        return self.log("debug", message)

    def info(self, message: Any) -> Done:
        """log("info", message)."""
        return self.log("info", message)

    def warning(self, message: Any) -> Done:
        """log("warning", message)."""
        return self.log("warning", message)

    def error(self, message: Any) -> Done:
        """log("error", message)."""
        return self.log("error", message)

    @property
    def logger(self) -> logging.Logger:
        """A stdlib Logger whose records reach stderr and, when asked for, the client."""
        if self._logger is None:
            name = self._runtime.name if self._runtime is not None else "mcpcxx"
            self._logger = _client_logger(self, f"{name}.request")
        return self._logger

    # ----- asking the client -----------------------------------------------------------------

    @overload
    async def elicit(self, message: str, schema: type[M]) -> ElicitResult[M]: ...
    @overload
    async def elicit(
        self, message: str, schema: Mapping[str, Any] | None = None
    ) -> ElicitResult[dict[str, Any]]: ...
    async def elicit(self, message: str, schema: Any = None) -> ElicitResult[Any]:
        """Ask the user to fill a form; the answer typed by `schema` (see elicit_sync)."""
        requested = _asking.requested_schema(schema)
        raw = await _asking.in_thread(self._core.elicit, _text("message", message), requested)
        return _asking.elicit_result(raw, schema)

    @overload
    def elicit_sync(self, message: str, schema: type[M]) -> ElicitResult[M]: ...
    @overload
    def elicit_sync(
        self, message: str, schema: Mapping[str, Any] | None = None
    ) -> ElicitResult[dict[str, Any]]: ...
    def elicit_sync(self, message: str, schema: Any = None) -> ElicitResult[Any]:
        """Ask the user to fill a form (elicitation/create, form mode) and wait for the answer.

        `schema` is a pydantic model class (content comes back as an instance), a JSON-schema
        dict (content is a dict) or None (a plain confirmation). A schema outside the spec's
        restricted subset raises ValueError before anything is sent. Raises
        ClientCapabilityError, ClientRequestTimeoutError or ClientRequestError; on 2026-07-28
        raises InputRequired until the client's answer is there (do not catch it).
        """
        _asking.refuse_on_event_loop("elicit")
        requested = _asking.requested_schema(schema)
        raw = self._core.elicit(_text("message", message), requested)
        return _asking.elicit_result(raw, schema)

    async def elicit_url(self, message: str, url: str, elicitation_id: str) -> ElicitResult[None]:
        """Ask the user to complete a flow at `url` (URL mode); see elicit_url_sync."""
        args = _url_args(message, url, elicitation_id)
        raw = await _asking.in_thread(self._core.elicit_url, *args)
        return cast("ElicitResult[None]", _asking.elicit_result(raw, None))

    def elicit_url_sync(self, message: str, url: str, elicitation_id: str) -> ElicitResult[None]:
        """Ask the user to complete a flow at `url` (elicitation/create, URL mode, 2025-11-25+).

        "accept" means the user agreed to open the URL, not that the flow is finished; the
        client learns that from notifications/elicitation/complete with `elicitation_id`.
        """
        _asking.refuse_on_event_loop("elicit_url")
        raw = self._core.elicit_url(*_url_args(message, url, elicitation_id))
        return cast("ElicitResult[None]", _asking.elicit_result(raw, None))

    async def sample(
        self, messages: Messages, **options: Unpack[SamplingOptions]
    ) -> SamplingResult:
        """Ask the client's model for a completion; see sample_sync."""
        params = _asking.sampling_params(messages, **_sampling_options(options))
        return _asking.sampling_result(await _asking.in_thread(self._core.sample, params))

    def sample_sync(self, messages: Messages, **options: Unpack[SamplingOptions]) -> SamplingResult:
        """Ask the client's model for a completion (sampling/createMessage) and wait for it.

        `messages` is a str (one user text message) or a list of str and SamplingMessage dicts;
        max_tokens defaults to 512. Raises like elicit_sync.
        """
        _asking.refuse_on_event_loop("sample")
        params = _asking.sampling_params(messages, **_sampling_options(options))
        return _asking.sampling_result(self._core.sample(params))

    async def list_roots(self) -> list[Root]:
        """The roots the client exposes; see list_roots_sync."""
        return _asking.roots(await _asking.in_thread(self._core.list_roots))

    def list_roots_sync(self) -> list[Root]:
        """The roots the client exposes (roots/list). Raises like elicit_sync."""
        _asking.refuse_on_event_loop("list_roots")
        return _asking.roots(self._core.list_roots())

    async def ask_all(self, requests: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """Several questions in one round; see ask_all_sync."""
        return await _asking.in_thread(self._core.ask_all, _requests(requests))

    def ask_all_sync(self, requests: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """Put several questions at once and return the client's raw results, in order.

        Each request is {"method": "elicitation/create" | "sampling/createMessage" |
        "roots/list", "params": {...}, "key": "..."}; `key` names it in inputRequests on
        2026-07-28 (default: its position in the run). On 2026-07-28 every unanswered one goes
        out in the same input_required result; a legacy session asks them one after the other.
        The results are not checked beyond the capability (the low-level form of elicit, sample
        and list_roots). Raises like elicit_sync.
        """
        _asking.refuse_on_event_loop("ask_all")
        return self._core.ask_all(_requests(requests))

    # ----- reading this server's resources ---------------------------------------------------

    async def read_resource(self, uri: str) -> list[ResourceContents]:
        """Read one of this server's resources; see read_resource_sync."""
        raw = await _asking.in_thread(self._core.read_resource, _text("uri", uri))
        return [ResourceContents.from_json(item) for item in raw]

    def read_resource_sync(self, uri: str) -> list[ResourceContents]:
        """Read this server's resource `uri` (a concrete one, else the first matching template).

        Its reader runs as for resources/read, with this request's context. Raises
        ResourceNotFoundError when nothing matches or the reader gives no contents (uncaught in
        a tool: an isError result of category not_found); the reader's own errors pass through.
        """
        _asking.refuse_on_event_loop("read_resource")
        raw = self._core.read_resource(_text("uri", uri))
        return [ResourceContents.from_json(item) for item in raw]


def _text(name: str, value: object) -> str:
    if not isinstance(value, str) or not value:
        raise TypeError(f"{name} must be a non-empty str, not {value!r}")
    return value


def _url_args(message: str, url: str, elicitation_id: str) -> tuple[str, str, str]:
    return (
        _text("message", message),
        _text("url", url),
        _text("elicitation_id", elicitation_id),
    )


def _sampling_options(options: SamplingOptions) -> dict[str, Any]:
    return {"max_tokens": 512, **options}


def _requests(requests: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    if isinstance(requests, (str, Mapping)) or not isinstance(requests, Sequence):
        raise TypeError("ask_all takes a list of request dicts")
    return [dict(r) for r in requests]
