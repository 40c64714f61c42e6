"""Server: the decorator API over the C++ engine (mcpcxx._core.Server)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar, overload

from mcpcxx import _core
from mcpcxx._aio import LoopThread
from mcpcxx._context import Context

if TYPE_CHECKING:
    from mcpcxx._results import WireResult
    from mcpcxx._schema import ToolSignature

# Schema generation, docstrings, primitives and result conversion (and the stdlib modules they
# need: inspect, re, json, ...) load on first registration, keeping `import mcpcxx` small.

F = TypeVar("F", bound=Callable[..., Any])

_ANNOTATION_KEYS = {
    "title": "title",
    "read_only_hint": "readOnlyHint",
    "destructive_hint": "destructiveHint",
    "idempotent_hint": "idempotentHint",
    "open_world_hint": "openWorldHint",
}


def _annotations(value: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise TypeError(f"annotations must be a dict, not {type(value).__name__}")
    return {_ANNOTATION_KEYS.get(k, k): v for k, v in value.items()}


class Server:
    """An MCP server: register tools, resources and prompts, then run() it.

    Framing, sessions, both protocol eras, argument and output validation and every error's wire
    shape are handled by the C++ engine; Python runs only the handlers.
    """

    def __init__(
        self,
        name: str,
        version: str = "0.0.0",
        *,
        title: str | None = None,
        description: str | None = None,
        instructions: str | None = None,
        expose_exception_details: bool = False,
        website_url: str | None = None,
        icons: list[dict[str, Any]] | None = None,
        workers: int = 0,
        logging: bool = True,
        log_writer: Callable[[str], None] | None = None,
        page_size: int | None = None,
        max_message_bytes: int | None = None,
    ) -> None:
        if not isinstance(name, str) or not name:
            raise TypeError("Server needs a non-empty str name")
        if not isinstance(workers, int) or workers < 0:
            raise ValueError(f"workers must be an int >= 0 (0 picks a default), got {workers!r}")
        options: dict[str, Any] = {
            "name": name,
            "version": version,
            "title": title,
            "description": description,
            "instructions": instructions,
            "expose_exception_details": bool(expose_exception_details),
            "website_url": website_url,
            "workers": workers,
            "logging": bool(logging),
        }
        if icons is not None:
            options["icons"] = icons
        if page_size is not None:
            options["page_size"] = page_size
        if max_message_bytes is not None:
            options["max_message_bytes"] = max_message_bytes
        self.name = name
        self.version = version
        self.expose_exception_details = bool(expose_exception_details)
        self._core = _core.Server(options, log_writer)
        self._loop = LoopThread(name)

    # ----- tools -----------------------------------------------------------------------------

    @overload
    def tool(self, fn: F, /) -> F: ...

    @overload
    def tool(
        self,
        fn: None = None,
        /,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: Mapping[str, Any] | None = None,
        timeout: float | None = None,
        structured_output: bool | None = None,
        icons: list[dict[str, Any]] | None = None,
        meta: dict[str, Any] | None = None,
    ) -> Callable[[F], F]: ...

    def tool(
        self,
        fn: F | None = None,
        /,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: Mapping[str, Any] | None = None,
        timeout: float | None = None,
        structured_output: bool | None = None,
        icons: list[dict[str, Any]] | None = None,
        meta: dict[str, Any] | None = None,
    ) -> F | Callable[[F], F]:
        """Register a function as a tool: `@server.tool` or `@server.tool(name=..., ...)`.

        The name comes from the function, the description from its docstring (per-parameter text
        from Google or NumPy sections), inputSchema from its type hints and outputSchema from its
        return annotation. Unsupported signatures raise TypeError here, not at call time.
        """

        def register(f: F) -> F:
            self.add_tool(
                f,
                name=name,
                title=title,
                description=description,
                annotations=annotations,
                timeout=timeout,
                structured_output=structured_output,
                icons=icons,
                meta=meta,
            )
            return f

        if fn is not None:
            if isinstance(fn, str):
                raise TypeError("use @server.tool(name=...) to name a tool, not @server.tool('x')")
            return register(fn)
        return register

    def add_tool(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: Mapping[str, Any] | None = None,
        timeout: float | None = None,
        structured_output: bool | None = None,
        icons: list[dict[str, Any]] | None = None,
        meta: dict[str, Any] | None = None,
    ) -> None:
        """Register `fn` as a tool (the non-decorator form of tool())."""
        if timeout is not None and (isinstance(timeout, bool) or not timeout > 0):
            raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
        from mcpcxx._schema import describe_tool

        sig = describe_tool(
            fn, name=name, description=description, structured_output=structured_output
        )
        spec: dict[str, Any] = {
            "name": sig.name,
            "title": title,
            "description": sig.description,
            "inputSchema": sig.input_schema,
            "outputSchema": sig.output_schema,
            "timeout": timeout,
        }
        if annotations is not None:
            spec["annotations"] = _annotations(annotations)
        if icons is not None:
            spec["icons"] = icons
        if meta is not None:
            spec["_meta"] = meta
        try:
            self._core.add_tool(spec, self._tool_invoker(fn, sig))
        except ValueError as e:
            raise ValueError(f"tool {sig.name!r} cannot be registered: {e}") from None

    def remove_tool(self, name: str) -> bool:
        """Unregister a tool; False when there was none by that name."""
        return self._core.remove_tool(name)

    def _tool_invoker(
        self, fn: Callable[..., Any], sig: ToolSignature
    ) -> Callable[[dict[str, Any], _core.RequestContext], WireResult]:
        import inspect

        from mcpcxx._results import convert_result

        convert, ctx_name = sig.convert_args, sig.context_param
        wrap, structured = sig.wrap_output, sig.structured
        is_async = inspect.iscoroutinefunction(fn)
        isawaitable = inspect.isawaitable
        loop = self._loop

        def invoke(args: dict[str, Any], core: _core.RequestContext) -> WireResult:
            kwargs = convert(args)
            if ctx_name is not None:
                kwargs[ctx_name] = Context(core, self)
            value = fn(**kwargs)
            if is_async or (type(value) is not str and isawaitable(value)):
                value = loop.run(value, core)
            return convert_result(value, wrap=wrap, structured=structured)

        return invoke

    # ----- resources, prompts, completion --------------------------------------------------

    def resource(
        self,
        uri: str,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        annotations: dict[str, Any] | None = None,
        size: int | None = None,
    ) -> Callable[[F], F]:
        """Register a resource reader for `uri`, or for a template such as "issues://{key}".

        A template's variables become the function's parameters (all str). The function returns
        str (text), bytes (blob) or JSON-compatible data; raise ResourceNotFound for a URI that
        does not exist.
        """
        if not isinstance(uri, str) or not uri:
            raise TypeError("@server.resource needs the resource URI or URI template as a str")

        def register(fn: F) -> F:
            from mcpcxx._primitives import resource_spec, resource_wrapper

            spec, is_template = resource_spec(
                fn, uri, name, title, description, mime_type, annotations, size
            )
            reader = resource_wrapper(fn, uri, mime_type, self._loop, self)
            if is_template:
                self._core.add_resource_template(spec, reader)
            else:
                self._core.add_resource(spec, reader)
            return fn

        return register

    @overload
    def prompt(self, fn: F, /) -> F: ...

    @overload
    def prompt(
        self,
        fn: None = None,
        /,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
    ) -> Callable[[F], F]: ...

    def prompt(
        self,
        fn: F | None = None,
        /,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
    ) -> F | Callable[[F], F]:
        """Register a prompt: its str parameters are the prompt's arguments.

        The function returns a str (one user message) or a list of str / PromptMessage / dicts.
        """

        def register(f: F) -> F:
            from mcpcxx._primitives import prompt_spec, prompt_wrapper

            spec = prompt_spec(f, name, title, description)
            self._core.add_prompt(spec, prompt_wrapper(f, spec, self._loop, self))
            return f

        return register(fn) if fn is not None else register

    def completion(self, fn: F) -> F:
        """Install the completion handler: fn(request: CompletionRequest) -> list[str]."""
        from mcpcxx._primitives import completion_wrapper

        self._core.set_completion_handler(completion_wrapper(fn, self._loop, self))
        return fn

    # ----- running -------------------------------------------------------------------------

    def capabilities(self) -> dict[str, Any]:
        """The ServerCapabilities object currently advertised."""
        caps: dict[str, Any] = self._core.capabilities()
        return caps

    def metrics(self) -> dict[str, Any]:
        """Outcome counters since start: requests, protocol_errors, tool_errors, by_category."""
        m: dict[str, Any] = self._core.metrics()
        return m

    def run(self, transport: str = "stdio", **options: Any) -> int:
        """Serve until the client goes away; returns 0 on a clean end.

        "stdio" reads stdin and writes stdout; fd 1 points at stderr meanwhile (and sys.stdout is
        sys.stderr), so a stray print() cannot corrupt the stream.
        "http" serves Streamable HTTP (both eras) until SIGINT/SIGTERM: options host="127.0.0.1",
        port=8000, path="/mcp", io_threads=1, legacy=True, max_body_bytes, max_connections,
        allowed_hosts, allowed_origins, session_idle_timeout (seconds).
        """
        if transport == "http":
            return self._serve_http(options)
        if transport != "stdio":
            raise ValueError(f"unknown transport {transport!r}; use 'stdio' or 'http'")
        unknown = set(options) - {"drain_grace_seconds"}
        if unknown:
            raise TypeError(f"unexpected stdio option(s): {', '.join(sorted(unknown))}")
        return self._serve_stdio(float(options.get("drain_grace_seconds", 5.0)))

    def _serve_stdio(self, grace: float) -> int:
        import signal
        import threading

        sys.stdout.flush()
        saved_stdout = sys.stdout
        restore_sigint = None
        if threading.current_thread() is threading.main_thread():
            # The engine blocks this thread outside Python, so Python's own SIGINT handler would
            # never run; the default action ends the process as a user expects.
            restore_sigint = signal.signal(signal.SIGINT, signal.SIG_DFL)
        sys.stdout = sys.stderr
        try:
            rc: int = _core.serve_stdio(self._core, True, grace)
        finally:
            sys.stdout = saved_stdout
            if restore_sigint is not None:
                signal.signal(signal.SIGINT, restore_sigint)
        return rc

    def _serve_http(self, options: dict[str, Any]) -> int:
        from mcpcxx.asgi import http_options

        opts = http_options(options, default_port=8000)
        rc: int = _core.serve_http(self._core, opts)
        return rc

    def close(self) -> None:
        """Stop the asyncio loop this server owns (the engine stops when the Server is freed)."""
        self._loop.close()

    def __repr__(self) -> str:
        return f"Server({self.name!r}, version={self.version!r})"
