"""ServerOptions: every option of Server(...), declared once.

Each field is a keyword of Server (its name, type and default) and says, in its metadata, which
key of the engine's server_options (cpp/include/mcpcxx/server.hpp, in its JSON form) it becomes
and how its value is checked and converted. Server.__init__ takes exactly these parameters
(takes_options_of), and to_core() is the dict the engine reads. The engine's own list of keys is
_core.SERVER_OPTION_KEYS, read from its JSON parser: every key there is either some field's
`core` key or in CORE_ONLY (tests/python/test_server_options.py holds the two equal).
"""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import KW_ONLY, dataclass, field, fields
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, cast

from mcpcxx._components.cache import cache_args
from mcpcxx._components.once import at_most_once_options
from mcpcxx._components.tasks import TASK_OPTION_KEYS, task_options
from mcpcxx._protocol.icons import check_icons

if TYPE_CHECKING:
    from mcpcxx._components.cache import CacheScope
    from mcpcxx._components.once import AtMostOnceOptions
    from mcpcxx._components.tasks import TaskOptions
    from mcpcxx._runtime.lifespan import LifespanFunction

P = ParamSpec("P")

Convert = Callable[[Any, str], Any]
"""convert(value, where) -> the engine's value; TypeError/ValueError naming `where` when bad."""

CORE_ONLY: dict[str, str] = {
    "max_depth": "JSON nesting limit of a message; the engine's default (row P3's sibling)",
    "long_handler_after": "when a running handler is logged as long-running; engine default",
    "assert_formats": "JSON Schema `format` assertion; off, as the specification advises",
    "log_requests": "one log line per request outcome; always on from Python",
    "extra_capabilities": "Server.add_extension() declares extensions instead",
    "request_state_ttl_s": "requestState lifetime; the engine's default (600 s)",
    "request_state_key_configured": "written by the engine's to_json only (ignored on input)",
    "store_configured": "written by the engine's to_json only (ignored on input)",
}
"""The engine's server_options keys no Server keyword sets, with the reason."""


def _core(key: str | tuple[str, ...] | None, convert: Convert | None = None) -> dict[str, Any]:
    """A field's metadata: its engine key and its converter (None: the value as it is).

    "info.title" is a member of info; a tuple names the keys of the dict `convert` returns; None
    marks an option outside the engine's server_options JSON form (checked by `convert`): one of
    the Python side, or one Server hands to _core.Server as an argument of its own (log_writer,
    at_most_once).
    """
    return {"core": key, "convert": convert}


def _name(value: object, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise TypeError("Server needs a non-empty str name")
    return value


def _flag(value: object, where: str) -> bool:
    return bool(value)


def _workers(value: object, where: str) -> object:
    if not isinstance(value, int) or value < 0:
        raise ValueError(f"workers must be an int >= 0 (0 picks a default), got {value!r}")
    return value  # True passes here and is refused by the engine, which wants an integer


def _max_workers(value: object, where: str) -> object:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise ValueError(
            "max_workers must be an int >= 1 (the most worker threads for plain def handlers "
            f"that wait), got {value!r}"
        )
    return value


def _seconds(value: Any, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not value > 0:
        raise ValueError(
            f"client_request_timeout must be a positive number of seconds, got {value!r}"
        )
    return float(max(1, round(value * 1000)) / 1000)  # whole milliseconds, the engine's resolution


def _positive_seconds(name: str) -> Convert:
    def check(value: object, where: str) -> float | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            raise ValueError(f"{name} must be a positive number of seconds, got {value!r}")
        return float(value)

    return check


def _callable(what: str) -> Convert:
    def check(value: object, where: str) -> None:
        if value is not None and not callable(value):
            raise TypeError(f"{what}, not {type(value).__name__}")

    return check


def _text(what: str) -> Convert:
    def check(value: object, where: str) -> object:
        if value is not None and not isinstance(value, str):
            raise TypeError(f"{what}, not {type(value).__name__}")
        return value

    return check


def _keys(value: object, where: str) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, (list, tuple)) and all(isinstance(k, str) for k in value):
        return [str(k) for k in value]
    raise TypeError("request_state_previous_keys must be a list of str (base64 keys)")


def _tasks(value: Mapping[str, object] | None, where: str) -> dict[str, int]:
    return task_options(value)


def _at_most_once(value: Mapping[str, object] | None, where: str) -> dict[str, Any] | None:
    return at_most_once_options(value)


@dataclass(frozen=True)
class ServerOptions:
    """The options of Server(...); each is checked when the options are built.

    Args:
        name: The server's name in serverInfo (required, non-empty).
        version: Its version in serverInfo.
        title: A display name in serverInfo.
        description: A one-line description in serverInfo.
        instructions: Text the client may give the model about using this server
            (InitializeResult / server/discover).
        expose_exception_details: Put the text of an unexpected exception (never its
            traceback) into the sanitized isError result; off by default.
        website_url: serverInfo.websiteUrl.
        icons: serverInfo icons: Icon dicts {"src", "mimeType"?, "sizes"?, "theme"?}.
        workers: Threads running def handlers; 0 picks max(2, CPUs).
        max_workers: The most worker threads: while every worker waits inside a handler
            and calls are queued, the pool grows past workers up to this (default 64).
        logging: Advertise the logging capability and send notifications/message.
        log_writer: Receives each server-log line (JSON, no newline) instead of stderr;
            called from any thread.
        log_level: Server-log lines below this level ("debug" ... "emergency") are not
            written.
        page_size: Items per tools/resources/prompts list page (default 100).
        max_message_bytes: Largest JSON-RPC message accepted (default 4 MiB; row P3).
        max_stuck_workers: Replacement workers for handlers still running past their
            deadline (default 16).
        max_batch_members: Largest 2025-03-26 batch (default 1000; row P28).
        max_batch_reply_bytes: Largest batch reply in bytes (default 16 MiB; row P29).
        client_request_timeout: Seconds a legacy ctx.elicit/sample/list_roots waits for
            the client (default 300).
        lifespan: lifespan(server) -> an async context manager held while serving; what it
            yields is ctx.lifespan_context.
        max_listeners: Open 2026-07-28 subscriptions/listen streams (default 10000; row P43).
        max_listen_uris: resourceSubscriptions URIs per listen (default 1000; row P42).
        listener_queue: Notifications one listen stream holds for a slow client before it
            is ended (default 256).
        list_ttl_ms: 2026-07-28 ttlMs of server/discover and the default of every
            primitive's list entry (default 60000; an official client reuses tools/list that
            long).
        cache_scope: 2026-07-28 cacheScope default, "public" or "private".
        tasks: Task bounds and timing: {"max_tasks", "default_ttl_ms", "max_ttl_ms",
            "poll_interval_ms", "threads"} (docs/tasks.md).
        store: Where replicas share state: "memory:" (this process; the default),
            "redis://[user:password@]host[:port][/db]", "rediss://..." or "unix:///path"
            (docs/scale-out.md). None: run("http") reads MCPCXX_STORE_URL.
        store_key_prefix: Prefix of every Redis key (default "mcpcxx:<name>:").
        store_timeout: Seconds one store round trip may take before what needs the store is
            refused (row P57; default 1.5).
        task_lease: Seconds a task stays working after its replica stopped renewing it; it
            is then failed, within twice this (default 5).
        request_state_key: The key sealing 2026-07-28 requestState, base64 of 32 bytes
            (`openssl rand -base64 32`); every replica needs the same one. None: the
            environment's MCPCXX_REQUEST_STATE_KEY, else a fresh key per Server.
        request_state_previous_keys: Earlier keys still accepted (rotation); None: the
            environment's MCPCXX_REQUEST_STATE_PREVIOUS_KEYS (comma separated).
        at_most_once: How the records of at-most-once tools are kept: {"max_result_bytes"
            (a larger result is not kept; default 65536), "max_records" (kept in this process;
            default 100000), "lease" (a timedelta: how long a running call's claim in a shared
            store outlives its replica; default 5 s), "warn_destructive" (False: no warning for
            destructiveHint tools without at_most_once)} (docs/python.md, "At-most-once
            tools").
    """

    name: str = field(metadata=_core("info.name", _name))
    version: str = field(default="0.0.0", metadata=_core("info.version"))
    _: KW_ONLY
    title: str | None = field(default=None, metadata=_core("info.title"))
    description: str | None = field(default=None, metadata=_core("info.description"))
    instructions: str | None = field(default=None, metadata=_core("instructions"))
    expose_exception_details: bool = field(
        default=False, metadata=_core("expose_exception_details", _flag)
    )
    website_url: str | None = field(default=None, metadata=_core("info.websiteUrl"))
    icons: list[dict[str, Any]] | None = field(
        default=None, metadata=_core("info.icons", check_icons)
    )
    workers: int = field(default=0, metadata=_core("worker_threads", _workers))
    max_workers: int | None = field(
        default=None, metadata=_core("max_worker_threads", _max_workers)
    )
    logging: bool = field(default=True, metadata=_core("logging", _flag))
    log_writer: Callable[[str], None] | None = field(
        default=None, metadata=_core(None, _callable("log_writer must be a function(line: str)"))
    )
    log_level: str | None = field(default=None, metadata=_core("log_threshold"))
    page_size: int | None = field(default=None, metadata=_core("page_size"))
    max_message_bytes: int | None = field(default=None, metadata=_core("max_message_bytes"))
    max_stuck_workers: int | None = field(default=None, metadata=_core("max_stuck_workers"))
    max_batch_members: int | None = field(default=None, metadata=_core("max_batch_members"))
    max_batch_reply_bytes: int | None = field(default=None, metadata=_core("max_batch_reply_bytes"))
    client_request_timeout: float | None = field(
        default=None, metadata=_core("client_request_timeout", _seconds)
    )
    lifespan: LifespanFunction | None = field(
        default=None,
        metadata=_core(
            None,
            _callable(
                "lifespan must be a function taking the server and returning an async context "
                "manager (e.g. an @asynccontextmanager function)"
            ),
        ),
    )
    max_listeners: int | None = field(default=None, metadata=_core("max_listeners"))
    max_listen_uris: int | None = field(default=None, metadata=_core("max_listen_uris"))
    listener_queue: int | None = field(default=None, metadata=_core("listener_queue"))
    list_ttl_ms: int | None = field(
        default=None,
        metadata=_core(
            "list_ttl_ms", lambda v, where: cache_args(v, None, where, "list_ttl_ms")[0]
        ),
    )
    cache_scope: CacheScope | None = field(
        default=None, metadata=_core("cache_scope", lambda v, where: cache_args(None, v, where)[1])
    )
    tasks: TaskOptions | None = field(default=None, metadata=_core(TASK_OPTION_KEYS, _tasks))
    store: str | None = field(
        default=None, metadata=_core("store", _text("store must be a URL str, e.g. 'redis://host'"))
    )
    store_key_prefix: str | None = field(
        default=None, metadata=_core("store_key_prefix", _text("store_key_prefix must be a str"))
    )
    store_timeout: float | None = field(
        default=None, metadata=_core("store_timeout", _positive_seconds("store_timeout"))
    )
    task_lease: float | None = field(
        default=None, metadata=_core("task_lease", _positive_seconds("task_lease"))
    )
    request_state_key: str | None = field(
        default=None,
        metadata=_core("request_state_key", _text("request_state_key must be a base64 str")),
    )
    request_state_previous_keys: list[str] | None = field(
        default=None, metadata=_core("request_state_previous_keys", _keys)
    )
    at_most_once: AtMostOnceOptions | None = field(
        default=None, metadata=_core("at_most_once", _at_most_once)
    )

    def __post_init__(self) -> None:
        self.to_core()  # every option is checked when the options are built

    def to_core(self) -> dict[str, Any]:
        """The engine's server_options in their JSON form; None leaves the engine's default."""
        where = f"Server {self.name!r}"
        out: dict[str, Any] = {}
        for f in fields(self):
            key, convert = f.metadata["core"], f.metadata["convert"]
            value = getattr(self, f.name)
            if convert is not None:
                value = convert(value, where)
            if key is None or value is None:
                continue
            if isinstance(key, tuple):
                out.update(value)
            elif "." in key:
                outer, inner = key.split(".", 1)
                out.setdefault(outer, {})[inner] = value
            else:
                out[key] = value
        return out


def core_keys() -> set[str]:
    """The engine keys the fields set ("info" for its members)."""
    keys: set[str] = set()
    for f in fields(ServerOptions):
        key = f.metadata["core"]
        if isinstance(key, tuple):
            keys.update(key)
        elif key is not None:
            keys.add(key.split(".", 1)[0])
    return keys


def takes_options_of(
    options: Callable[P, Any],
) -> Callable[[Callable[..., None]], Callable[Concatenate[Any, P], None]]:
    """Gives `__init__(self, *args, **kwargs)` the parameters of `options`.

    Type checkers see them through P; inspect.signature and help() through the __signature__ and
    the Args section (the one of `options`' docstring) set here.
    """

    def decorate(init: Callable[..., None]) -> Callable[Concatenate[Any, P], None]:
        self_param = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
        params = inspect.signature(options).parameters.values()
        target = cast("Any", init)
        target.__signature__ = inspect.Signature([self_param, *params], return_annotation=None)
        # cleandoc first: Python 3.13 strips docstring indentation at compile time, older ones
        # keep it, so the heading is found on the cleaned text in both.
        doc = inspect.cleandoc(options.__doc__ or "")
        args = textwrap.dedent(doc.partition("\nArgs:\n")[2]).strip("\n")
        summary = inspect.cleandoc(init.__doc__ or "")
        target.__doc__ = f"{summary}\n\nArgs:\n{textwrap.indent(args, '    ')}"
        return cast("Callable[Concatenate[Any, P], None]", init)

    return decorate
