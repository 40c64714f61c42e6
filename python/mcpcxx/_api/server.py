"""Server: the decorator API over the C++ engine (mcpcxx._core.Server)."""

from __future__ import annotations

import functools
import inspect
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, overload

from mcpcxx import _core
from mcpcxx._api.options import ServerOptions, takes_options_of
from mcpcxx._runtime import exit as _exit
from mcpcxx._runtime.runtime import Runtime

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from mcpcxx._components.apps import Csp, Permission, Visibility
    from mcpcxx._components.cache import CacheScope
    from mcpcxx._components.middleware import Middleware
    from mcpcxx._components.resources import ResourceOptions
    from mcpcxx._components.skills import SkillsChanges, SymlinkPolicy
    from mcpcxx._components.tools import Tool, ToolOptions
    from mcpcxx.auth._rules import VisibleTo

# The component modules (mcpcxx._components) and what they need (schema
# generation, docstrings, pydantic, inspect, re, json, ...) load on first registration, keeping
# `import mcpcxx` small.

F = TypeVar("F", bound=Callable[..., Any])


class Server:
    """An MCP server: register tools, resources and prompts, then run() it.

    Framing, sessions, both protocol eras, argument and output validation and every error's wire
    shape are handled by the C++ engine; Python runs only the handlers.
    """

    @takes_options_of(ServerOptions)
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Create a server; every option is checked here (TypeError/ValueError naming it).

        The options are declared once, as the fields of ServerOptions (mcpcxx._api.options).
        """
        options = ServerOptions(*args, **kwargs)
        self.name = options.name
        self.version = options.version
        self.expose_exception_details = bool(options.expose_exception_details)
        core = _core.Server(options.to_core(), options.log_writer)
        self._runtime = Runtime(core, self, options.name, options.lifespan)
        self._mounted: list[Server] = []  # kept alive: their handlers run on their event loops

    @property
    def runtime(self) -> Runtime:
        """The engine handle, event loop, tracing switch and lifespan of this server.

        What its components, every Context and the adapters (mcpcxx.asgi, mcpcxx.testing,
        mcpcxx.observability) use; handlers do not need it.
        """
        return self._runtime

    # ----- tools -----------------------------------------------------------------------------

    @overload
    def tool(self, fn: F, /) -> F: ...

    @overload
    def tool(
        self,
        fn: None = None,
        /,
        *,
        ttl_ms: int | None = None,
        cache_scope: CacheScope | None = None,
        scopes: Sequence[str] | None = None,
        visible_to: VisibleTo | None = None,
        ui: str | None = None,
        visibility: Sequence[Visibility] | None = None,
        **options: Unpack[ToolOptions],
    ) -> Callable[[F], F]: ...

    def tool(
        self,
        fn: F | None = None,
        /,
        *,
        ttl_ms: int | None = None,
        cache_scope: CacheScope | None = None,
        scopes: Sequence[str] | None = None,
        visible_to: VisibleTo | None = None,
        ui: str | None = None,
        visibility: Sequence[Visibility] | None = None,
        **options: Unpack[ToolOptions],
    ) -> F | Callable[[F], F]:
        """Register a function as a tool: `@server.tool` or `@server.tool(name=..., ...)`.

        The name comes from the function, the description from its docstring (per-parameter text
        from Google or NumPy sections), inputSchema from its type hints and outputSchema from its
        return annotation. The options are Tool.from_function's
        (mcpcxx._components.tools.ToolOptions); unsupported signatures raise TypeError here, not
        at call time.

        Args:
            fn: The function, when the decorator is used bare (@server.tool).
            ttl_ms: This tool's 2026-07-28 ttlMs in tools/list (an int >= 0); None: the
                server's list_ttl_ms.
            cache_scope: Its cacheScope, "public" or "private"; None: the server's.
            scopes: OAuth scopes a caller must all hold (run("http", auth=...)); without them
                the tool is left out of tools/list and refused (docs/auth.md).
            visible_to: A rule on the caller's Principal besides the scopes: a callable
                returning True when it may see and use the tool, or require_roles(...) /
                require_claims(...) (mcpcxx.auth); otherwise hidden and refused
                (docs/middleware.md, "Authorization").
            ui: The ui:// URI of a UI resource registered before (ui_resource) that hosts with
                MCP Apps render for this tool's results (docs/apps.md).
            visibility: With ui: who may call the tool, "model" and/or "app"; None: both.
            **options: Tool.from_function's keywords (ToolOptions): name, title, description,
                annotations, timeout, structured_output, icons, meta, input_schema, task,
                task_start, inline_dispatch, at_most_once.
        """

        def register(f: F) -> F:
            self.add_tool(
                f,
                ttl_ms=ttl_ms,
                cache_scope=cache_scope,
                scopes=scopes,
                visible_to=visible_to,
                ui=ui,
                visibility=visibility,
                **options,
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
        ttl_ms: int | None = None,
        cache_scope: CacheScope | None = None,
        scopes: Sequence[str] | None = None,
        visible_to: VisibleTo | None = None,
        ui: str | None = None,
        visibility: Sequence[Visibility] | None = None,
        **options: Unpack[ToolOptions],
    ) -> None:
        """Register `fn` as a tool (the non-decorator form of tool(), with the same options).

        Args:
            fn: The function (a lambda needs name=).
            ttl_ms: As tool().
            cache_scope: As tool().
            scopes: As tool().
            visible_to: As tool().
            ui: As tool().
            visibility: As tool().
            **options: As tool().
        """
        from mcpcxx._components.cache import cache_args
        from mcpcxx._components.tools import Tool

        tool = Tool.from_function(fn, **options)
        where = f"tool {tool.name!r}"
        if ui is None and visibility is not None:
            raise TypeError(f"{where}: visibility applies to a tool linked to a UI: give ui= too")
        self._add_tool(
            tool,
            cache_args(ttl_ms, cache_scope, where),
            _tool_scopes(scopes, where),
            None if ui is None else (ui, visibility),
            visible_to=visible_to,
        )

    def _add_tool(
        self,
        tool: Tool,
        cache: tuple[int | None, str | None] = (None, None),
        scopes: list[str] | None = None,
        ui: tuple[str, Sequence[str] | None] | None = None,
        *,
        visible_to: VisibleTo | None = None,
    ) -> None:
        from mcpcxx.auth._rules import engine_rule, rule_requirement

        runtime = self._runtime
        rule = engine_rule(visible_to, f"tool {tool.name!r}")
        spec = tool.to_mcp_tool()
        if ui is not None:
            from mcpcxx._components.apps import link_tool

            spec = link_tool(runtime.core, spec, *ui)
        if tool.is_async:
            code = getattr(inspect.unwrap(tool.fn), "__code__", None)
            if code is not None:
                runtime.loop.name_handler(code, f"tool {tool.name}")
        try:
            runtime.core.add_tool(
                spec,
                tool.async_handler(runtime) if tool.is_async else tool.handler(runtime),
                tool.timeout,
                *cache,
                task_started_by_handler=tool.task_start == "handler",
                scopes=scopes or [],
                inline_dispatch=tool.inline_dispatch,
                is_async=tool.is_async,
                at_most_once=tool.at_most_once_spec(),
                resolver=tool.resolver(runtime),
                visible_to=rule,
                requirement=rule_requirement(visible_to),
            )
        except ValueError as e:
            raise ValueError(f"tool {tool.name!r} cannot be registered: {e}") from None

    def remove_tool(self, name: str) -> bool:
        """Unregister a tool; False when there was none by that name."""
        return self._runtime.core.remove_tool(name)

    # ----- resources, prompts, completion --------------------------------------------------

    def resource(
        self,
        uri: str,
        *,
        ttl_ms: int | None = None,
        cache_scope: CacheScope | None = None,
        scopes: Sequence[str] | None = None,
        visible_to: VisibleTo | None = None,
        **options: Unpack[ResourceOptions],
    ) -> Callable[[F], F]:
        """Register a resource reader for `uri`, or for a template such as "issues://{key}".

        Templates are RFC 6570 ({var}, {+var}, {#var}, {.var}, {/var}, {;var}, {?var,x},
        {&var}, prefixes {var:3}; not the explode modifier {var*}); a malformed one raises
        ValueError here. Its variables become the function's parameters (all str); a variable
        that may be absent from a matching URI (all but the first of a {var} or {+var}
        expression) needs a default. The function returns
        str (text), bytes (blob) or JSON-compatible data; raise ResourceNotFoundError for a URI
        that does not exist. The other options are Resource.from_function's (ResourceOptions).

        Args:
            uri: The resource URI, or an RFC 6570 URI template.
            ttl_ms: The 2026-07-28 ttlMs of its list entry and of resources/read; None: the
                server's list_ttl_ms.
            cache_scope: Its cacheScope, "public" or "private"; None: the server's.
            scopes: OAuth scopes a caller must all hold; without them the resource (a template:
                it and every URI read through it) is left out of its list and refused on
                resources/read, resources/subscribe and completion/complete.
            visible_to: A rule on the caller's Principal besides the scopes, as tool()'s.
            **options: Resource.from_function's keywords (ResourceOptions): name, title,
                description, mime_type, annotations, size, icons.
        """
        if not isinstance(uri, str) or not uri:
            raise TypeError("@server.resource needs the resource URI or URI template as a str")
        from mcpcxx._components.cache import cache_args

        where = f"resource {uri!r}"
        cache = cache_args(ttl_ms, cache_scope, where)
        guard = _guard_args(scopes, visible_to, where)

        def register(fn: F) -> F:
            from mcpcxx._components.resources import Resource

            resource = Resource.from_function(fn, uri, **options)
            spec, reader = resource.to_mcp_resource(), resource.handler(self._runtime)
            if resource.is_template:
                self._runtime.core.add_resource_template(spec, reader, *cache, **guard)
            else:
                self._runtime.core.add_resource(spec, reader, *cache, **guard)
            return fn

        return register

    def ui_resource(
        self,
        uri: str,
        *,
        html: str | None = None,
        path: str | os.PathLike[str] | None = None,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        csp: Csp | None = None,
        permissions: Sequence[Permission] | None = None,
        domain: str | None = None,
        prefers_border: bool | None = None,
        icons: Sequence[Mapping[str, Any]] | None = None,
        ttl_ms: int | None = None,
        cache_scope: CacheScope | None = None,
    ) -> None:
        """Register an MCP Apps UI resource: an HTML document hosts render in a sandboxed iframe.

        Served at `uri` (ui:// only) with MIME type text/html;profile=mcp-app and `_meta.ui`
        (on its list entry and its read contents); the first one declares the extension
        io.modelcontextprotocol/ui. Register it before the tools that link it
        (@server.tool(ui=uri)). Every bad value raises ValueError/TypeError here (docs/apps.md).

        Args:
            uri: "ui://..." (any other scheme is refused).
            html: The HTML document as a str (or give path).
            path: An HTML file (UTF-8), read once, here (or give html).
            name: Its name in resources/list; default: the URI.
            title: A display name.
            description: What the UI shows.
            csp: Origins it needs: connect_domains, resource_domains, frame_domains,
                base_uri_domains (each "https://host[:port]"; "https://*.host" for subdomains).
            permissions: Browser features: "camera", "microphone", "geolocation",
                "clipboardWrite".
            domain: A dedicated sandbox origin, in the format the host documents.
            prefers_border: Ask the host for a visible border and background (None: its choice).
            icons: Icon dicts.
            ttl_ms: The 2026-07-28 ttlMs of its list entry and reads; None: the server's.
            cache_scope: Its cacheScope, "public" or "private"; None: the server's.
        """
        from mcpcxx._components.apps import add_ui_resource
        from mcpcxx._components.cache import cache_args

        add_ui_resource(
            self._runtime.core,
            uri,
            html=html,
            path=path,
            name=name,
            title=title,
            description=description,
            csp=csp,
            permissions=permissions,
            domain=domain,
            prefers_border=prefers_border,
            icons=icons,
            cache=cache_args(ttl_ms, cache_scope, f"UI resource {uri!r}"),
        )

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
        icons: Sequence[Mapping[str, Any]] | None = None,
        ttl_ms: int | None = None,
        cache_scope: CacheScope | None = None,
        scopes: Sequence[str] | None = None,
        visible_to: VisibleTo | None = None,
    ) -> Callable[[F], F]: ...

    def prompt(
        self,
        fn: F | None = None,
        /,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        icons: Sequence[Mapping[str, Any]] | None = None,
        ttl_ms: int | None = None,
        cache_scope: CacheScope | None = None,
        scopes: Sequence[str] | None = None,
        visible_to: VisibleTo | None = None,
    ) -> F | Callable[[F], F]:
        """Register a prompt: its str parameters are the prompt's arguments.

        The function returns a str (one user message) or a list of str / PromptMessage / dicts.

        Args:
            fn: The function, when the decorator is used bare (@server.prompt).
            name: The prompt's name; default: the function's.
            title: A display name.
            description: Default: the docstring's text before its first section.
            icons: Icon dicts ({"src": "https://...", "mimeType"?, "sizes"?, "theme"?}).
            ttl_ms: Its 2026-07-28 ttlMs in prompts/list; None: the server's list_ttl_ms.
            cache_scope: Its cacheScope, "public" or "private"; None: the server's.
            scopes: OAuth scopes a caller must all hold; without them the prompt is left out
                of prompts/list and refused on prompts/get and completion/complete.
            visible_to: A rule on the caller's Principal besides the scopes, as tool()'s.
        """

        def register(f: F) -> F:
            from mcpcxx._components.cache import cache_args
            from mcpcxx._components.prompts import Prompt

            prompt = Prompt.from_function(
                f, name=name, title=title, description=description, icons=icons
            )
            where = f"prompt {prompt.name!r}"
            cache = cache_args(ttl_ms, cache_scope, where)
            self._runtime.core.add_prompt(
                prompt.to_mcp_prompt(),
                prompt.handler(self._runtime),
                *cache,
                **_guard_args(scopes, visible_to, where),
            )
            return f

        return register(fn) if fn is not None else register

    def remove_resource(self, uri: str) -> bool:
        """Unregister a resource (or a template, by its URI template); False when absent.

        Clients that follow the resource list get notifications/resources/list_changed.
        """
        return self._runtime.core.remove_resource(uri)

    def remove_prompt(self, name: str) -> bool:
        """Unregister a prompt; False when there was none by that name."""
        return self._runtime.core.remove_prompt(name)

    def notify_resource_updated(self, uri: str) -> None:
        """Tell clients watching `uri` that it changed (notifications/resources/updated).

        Reaches legacy sessions that sent resources/subscribe for it and 2026-07-28
        subscriptions/listen streams whose resourceSubscriptions name it. Any thread.
        """
        if not isinstance(uri, str) or not uri:
            raise TypeError("notify_resource_updated needs the resource URI as a non-empty str")
        self._runtime.core.notify_resource_updated(uri)

    def add_extension(self, id: str, settings: Mapping[str, Any] | None = None) -> None:
        """Declare extension `id` ("com.example/feature") with its settings dict.

        Advertised in ServerCapabilities `extensions` (server/discover on 2026-07-28, initialize
        on legacy revisions). ValueError for a bad id, settings that are not a dict, or an id
        already declared. Handlers read the client's side with ctx.client_extension(id).
        """
        if settings is not None and not isinstance(settings, Mapping):
            raise ValueError(
                f"extension {id!r} settings must be a dict (or None for {{}}), "
                f"not {type(settings).__name__}"
            )
        self._runtime.core.add_extension(id, dict(settings or {}))

    def remove_extension(self, id: str) -> bool:
        """Withdraw a declared extension; False when it was not declared."""
        return self._runtime.core.remove_extension(id)

    def mount(self, server: Server, prefix: str) -> None:
        """Serve `server`'s tools, resources and prompts from this server under `prefix`.

        Tools and prompts are served as ``<prefix>_<name>``, resource URIs and templates as
        ``scheme://<prefix>/<rest>``. Calls run `server`'s handlers (sync or async) with this
        server's Context, this server's middleware and then `server`'s; `server`'s scopes hold.
        Later registrations on either server are mirrored (list_changed is sent). `server` can
        still be run on its own. ValueError for a bad or reused prefix, mounting a server into
        itself or into a server mounted in it, or names that would collide (all named, with what
        to do instead); TypeError when `server` is not a Server (docs/composition.md).
        """
        if not isinstance(server, Server):
            raise TypeError(
                f"mount takes an mcpcxx.Server to serve under {prefix!r}, "
                f"not {type(server).__name__}"
            )
        if not isinstance(prefix, str):
            raise TypeError(f"mount prefix must be a str such as 'billing', not {prefix!r}")
        self._runtime.core.mount(server.runtime.core, prefix)
        self._mounted.append(server)

    def add_middleware(
        self,
        middleware: Middleware,
        *,
        name: str | None = None,
        methods: Sequence[str] | None = None,
        tools: Sequence[str] | None = None,
    ) -> None:
        """Run `middleware` around the requests it names, after those added before it.

        `methods`/`tools` override the instance's own. ValueError for a method the server does
        not serve; TypeError for an object that is not a `Middleware` (docs/middleware.md).
        """
        from mcpcxx._components.middleware_register import add_middleware

        add_middleware(self._runtime.core, self._runtime, middleware, name, methods, tools)

    def add_skills(
        self,
        root: str | os.PathLike[str],
        *,
        directory_read: bool = False,
        symlinks: SymlinkPolicy = "refuse",
        include_hidden: bool = False,
        max_file_bytes: int | None = None,
        max_skill_bytes: int | None = None,
        max_skill_files: int | None = None,
        max_total_bytes: int | None = None,
        max_depth: int | None = None,
        ttl_ms: int | None = None,
        cache_scope: CacheScope | None = None,
    ) -> None:
        """Serve the skills below `root` (the Skills extension, docs/skills.md).

        Each directory holding a SKILL.md is a skill; its files become skill:// resources with
        sha256 digests, and skills/list, skills/get (and with directory_read=True
        resources/directory/read) are served. The tree is read once into memory, within the
        limits (None: the defaults: 8 MiB per file, 16 MiB and 512 files per skill, 64 MiB in
        all, 16 levels deep). ValueError names the file and the problem (frontmatter, a name
        differing from its directory, a symlink, a limit); nothing is served then.

        Args:
            root: The directory holding the skill directories (a str or path).
            directory_read: Serve resources/directory/read (advertised as directoryRead).
            symlinks: "refuse" any symlink in the tree, or "follow_inside": follow a link only
                when its target lies inside the root.
            include_hidden: Also serve names starting with "." (.git, .env, ...).
            max_file_bytes: Limit of one file; None: 8 MiB.
            max_skill_bytes: Limit of one skill's files together; None: 16 MiB.
            max_skill_files: Limit of one skill's file count; None: 512.
            max_total_bytes: Limit of every served file together (kept in memory); None: 64 MiB.
            max_depth: Limit of directory levels below the root; None: 16.
            ttl_ms: The 2026-07-28 ttlMs of skills/list and skills/get; None: the server's
                list_ttl_ms.
            cache_scope: Their cacheScope, "public" or "private"; None: the server's.
        """
        from mcpcxx._components import skills

        options = skills.skills_options(
            directory_read=directory_read,
            symlinks=symlinks,
            include_hidden=include_hidden,
            ttl_ms=ttl_ms,
            cache_scope=cache_scope,
            sizes={
                "max_file_bytes": max_file_bytes,
                "max_skill_bytes": max_skill_bytes,
                "max_skill_files": max_skill_files,
                "max_total_bytes": max_total_bytes,
                "max_depth": max_depth,
            },
        )
        skills.add_skills(self._runtime.core, root, options)

    def reload_skills(self) -> SkillsChanges:
        """Re-read the tree add_skills loaded and serve what it holds now.

        Clients get notifications/resources/list_changed when files were added, removed or
        resized, and notifications/resources/updated for each file whose bytes changed. A tree
        that no longer loads raises ValueError and the old one stays served. Any thread.
        """
        from mcpcxx._components import skills

        return skills.reload_skills(self._runtime.core)

    def completion(self, fn: F) -> F:
        """Install the completion handler: fn(request: CompletionRequest) -> list[str]."""
        from mcpcxx._components.completion import Completer

        self._runtime.core.set_completion_handler(
            Completer.from_function(fn).handler(self._runtime)
        )
        return fn

    # ----- running -------------------------------------------------------------------------

    def capabilities(self) -> dict[str, Any]:
        """The ServerCapabilities object currently advertised."""
        caps: dict[str, Any] = self._runtime.core.capabilities()
        return caps

    def metrics(self) -> dict[str, Any]:
        """Outcome counters since start, and stuck_handlers (handlers past their deadline now)."""
        m: dict[str, Any] = self._runtime.core.metrics()
        m["event_loop_blocked"] = self._runtime.loop.blocked_count
        return m

    def enable_tracing(self, tracer_provider: Any = None) -> None:
        """One OpenTelemetry span per request (needs opentelemetry-api: ``mcpcxx[otel]``).

        Spans come from `tracer_provider` (default: the global one); a handler's own spans are
        children of its request span. Call before serving. ImportError without the API.
        """
        self._runtime.enable_tracing(tracer_provider)

    def metrics_text(self) -> str:
        """Every metric in the Prometheus text format 0.0.4 (docs/observability.md)."""
        text: str = self._runtime.core.metrics_text()
        return text

    @property
    def lifespan_context(self) -> Any:
        """What the lifespan yielded (ctx.lifespan_context in handlers); None without one.

        RuntimeError when the Server has a lifespan that is not running.
        """
        return self._runtime.lifespan.value

    def run(self, transport: str = "stdio", **options: Any) -> int:
        """Serve until the client goes away; returns 0 on a clean end.

        "stdio" reads stdin and writes stdout; fd 1 points at stderr meanwhile (and sys.stdout is
        sys.stderr), so a stray print() cannot corrupt the stream. On SIGTERM or SIGINT it stops
        reading, lets in-flight calls finish for drain_grace_seconds (default 5), answers the rest
        with a -32603 "shutting down" error (row P27), flushes and returns 0. request_poll=0.00005
        (seconds, at most 0.01; 0 turns it off): how long the reading thread polls stdin for the
        next request, after everything it read was answered, before it sleeps.
        "http" serves Streamable HTTP (both eras) until SIGINT/SIGTERM; the options are the members
        of the engine's http_options (docs/python.md): host="127.0.0.1", port=8000, path="/mcp",
        io_threads=1, inline_dispatch=False (True runs every tool on the I/O thread that read the
        request: no hand-off to a worker, for servers whose tools are all quick and never block),
        reply_poll=0.00005 (seconds, at most 0.01; 0 turns it off: how long an idle I/O thread
        polls for a tool's reply before it sleeps),
        legacy=True, max_body_bytes, max_header_bytes, max_headers, max_connections,
        max_sessions, allowed_hosts, allowed_origins, replay_buffer_events, and the durations in
        seconds header_timeout, body_timeout, idle_timeout, session_idle_timeout, sse_keepalive;
        expose_headers=["authorization", ...] lets handlers read those credential headers in
        ctx.headers (withheld by default).
        store="redis://host:6379/0" shares sessions, events, tasks and listen delivery with the
        other replicas given the same URL (docs/scale-out.md); without it the environment's
        MCPCXX_STORE_URL is read, and with neither state stays in this process.
        auth=mcpcxx.auth.BearerAuth(verifier, ...) (or a JWTVerifier alone) requires a bearer
        access token on every request and serves the RFC 9728 metadata (docs/auth.md).
        The lifespan (if any) starts before serving (LifespanError, nothing served, when it
        fails) and stops after it, also when serving failed.
        """
        if transport == "http":
            serve: Callable[[], int] = functools.partial(self._serve_http, options)
        elif transport == "stdio":
            unknown = set(options) - {"drain_grace_seconds", "request_poll"}
            if unknown:
                raise TypeError(f"unexpected stdio option(s): {', '.join(sorted(unknown))}")
            stdio_options = {"drain_grace": float(options.get("drain_grace_seconds", 5.0))}
            if "request_poll" in options:
                stdio_options["request_poll"] = options["request_poll"]
            serve = functools.partial(self._serve_stdio, stdio_options)
        else:
            raise ValueError(f"unknown transport {transport!r}; use 'stdio' or 'http'")
        self._runtime.lifespan.acquire()
        try:
            rc = serve()
        except BaseException as e:
            self._runtime.lifespan.release(e)
            raise
        self._runtime.lifespan.release()
        _exit.record_run_status(rc)
        return rc

    def _serve_stdio(self, stdio_options: dict[str, Any]) -> int:
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
            rc: int = _core.serve_stdio(
                self._runtime.core, {"protect_stdout": True, **stdio_options}
            )
        finally:
            sys.stdout = saved_stdout
            if restore_sigint is not None:
                signal.signal(signal.SIGINT, restore_sigint)
        return rc

    def _serve_http(self, options: dict[str, Any]) -> int:
        # The engine checks the options (http_options' JSON form): TypeError names a bad one.
        auth = options.pop("auth", None)
        hook = None
        if auth is not None:
            from mcpcxx.auth import BearerAuth

            hook = BearerAuth.of(auth).hook(self._runtime.loop)
        rc: int = _core.serve_http(self._runtime.core, {"port": 8000, **options}, hook)
        return rc

    def close(self) -> None:
        """Stop the asyncio loop this server owns (the engine stops when the Server is freed)."""
        self._runtime.close()

    def __repr__(self) -> str:
        return f"Server({self.name!r}, version={self.version!r})"


def _guard_args(scopes: Sequence[str] | None, visible_to: object, where: str) -> dict[str, Any]:
    """The engine registration keywords of a primitive's scopes and principal rule."""
    from mcpcxx.auth._rules import engine_rule, rule_requirement

    return {
        "scopes": _tool_scopes(scopes, where),
        "visible_to": engine_rule(visible_to, where),
        "requirement": rule_requirement(visible_to),
    }


def _tool_scopes(scopes: Sequence[str] | None, where: str) -> list[str]:
    if scopes is None:
        return []
    if isinstance(scopes, str) or not all(isinstance(s, str) for s in scopes):
        raise TypeError(f"{where}: scopes must be a list of str, e.g. scopes=['issues:write']")
    return list(scopes)
