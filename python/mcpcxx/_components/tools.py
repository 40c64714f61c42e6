"""Tools as component objects.

Tool.from_function(fn) analyses a function once; to_mcp_tool() is its tools/list entry,
convert_result() turns a return value into a CallToolResult, and handler() is what the engine
calls.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from mcpcxx._components.once import check_at_most_once, engine_form, resolver_handler
from mcpcxx._components.results import content_block, dumps, is_content_list, to_jsonable
from mcpcxx._protocol.content import CONTENT_TYPES, ToolResult
from mcpcxx._protocol.icons import check_icons
from mcpcxx._runtime.invoke import caller, starter
from mcpcxx._schema.signature import ToolSignature, describe_tool

if TYPE_CHECKING:
    from datetime import timedelta

    from mcpcxx._components.once import AtMostOnce, ResolverHandler
    from mcpcxx._core import RequestContext, ToolCompletion
    from mcpcxx._runtime.runtime import Runtime


class ToolOptions(TypedDict, total=False):
    """The keyword options of Tool.from_function, which Server.tool and Server.add_tool pass on."""

    name: str | None
    title: str | None
    description: str | None
    annotations: Mapping[str, Any] | None
    timeout: float | None
    structured_output: bool | None
    icons: Sequence[Mapping[str, Any]] | None
    meta: dict[str, Any] | None
    input_schema: Mapping[str, Any] | None
    task: TaskSupport | None
    task_start: TaskStart
    inline_dispatch: bool
    at_most_once: timedelta | AtMostOnce | None


TaskSupport = Literal["forbidden", "optional", "required"]
TaskStart = Literal["call", "handler"]
_TASK_SUPPORT = ("forbidden", "optional", "required")
_TASK_START = ("call", "handler")


def _check_task(task: object, task_start: object, where: str) -> None:
    if task is not None and task not in _TASK_SUPPORT:
        raise ValueError(
            f"{where}: task must be 'forbidden', 'optional' or 'required', got {task!r}"
        )
    if task_start not in _TASK_START:
        raise ValueError(f"{where}: task_start must be 'call' or 'handler', got {task_start!r}")
    if task_start == "handler" and task in (None, "forbidden"):
        raise ValueError(f"{where}: task_start='handler' needs task='optional' or 'required'")


# The engine refuses an inline task tool itself (tool_spec::inline_dispatch); only what it cannot
# see is checked here.
def _check_inline(fn: object, inline_dispatch: object, where: str) -> None:
    if not isinstance(inline_dispatch, bool):
        raise TypeError(f"{where}: inline_dispatch must be True or False, got {inline_dispatch!r}")
    if inline_dispatch and inspect.iscoroutinefunction(fn):
        raise ValueError(
            f"{where}: inline_dispatch=True needs a plain function; an async def tool waits for "
            "the server's event loop, which would hold the transport thread: drop inline_dispatch"
        )


# Returns the CallToolResult, or the exception the tool raised (the engine renders it as raised).
ToolHandler = Callable[[dict[str, Any], "RequestContext"], "dict[str, Any] | Exception"]
AsyncToolHandler = Callable[[dict[str, Any], "RequestContext", "ToolCompletion"], None]
"""start(arguments, ctx, done): schedules an async tool; done.complete(result | exception)."""

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


class Tool:
    """A function registered as a tool, with everything derived from it at decoration time."""

    __slots__ = (
        "annotations",
        "at_most_once",
        "fn",
        "icons",
        "inline_dispatch",
        "meta",
        "signature",
        "task",
        "task_start",
        "timeout",
        "title",
    )

    def __init__(
        self,
        fn: Callable[..., Any],
        signature: ToolSignature,
        *,
        title: str | None = None,
        annotations: dict[str, Any] | None = None,
        timeout: float | None = None,
        icons: list[dict[str, Any]] | None = None,
        meta: dict[str, Any] | None = None,
        task: TaskSupport | None = None,
        task_start: TaskStart = "call",
        inline_dispatch: bool = False,
        at_most_once: AtMostOnce | None = None,
    ) -> None:
        self.fn = fn
        self.at_most_once = at_most_once
        self.inline_dispatch = inline_dispatch
        self.task = task
        self.task_start = task_start
        self.signature = signature
        self.title = title
        self.annotations = annotations
        self.timeout = timeout
        self.icons = icons
        self.meta = meta

    @classmethod
    def from_function(
        cls,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: Mapping[str, Any] | None = None,
        timeout: float | None = None,
        structured_output: bool | None = None,
        icons: Sequence[Mapping[str, Any]] | None = None,
        meta: dict[str, Any] | None = None,
        input_schema: Mapping[str, Any] | None = None,
        task: TaskSupport | None = None,
        task_start: TaskStart = "call",
        inline_dispatch: bool = False,
        at_most_once: timedelta | AtMostOnce | None = None,
    ) -> Tool:
        """Analyse `fn`; raises TypeError/ValueError for what cannot become a tool.

        Args:
            fn: The function.
            name: The tool's name; default: the function's (1-64 of A-Z a-z 0-9 _ . -).
            title: A display name.
            description: Default: the docstring's text before its first section.
            annotations: ToolAnnotations, snake_case or camelCase keys (read_only_hint,
                destructive_hint, idempotent_hint, open_world_hint, title).
            timeout: Seconds per call; past it the call is cancelled and answered with a
                timeout isError result.
            structured_output: True: always structuredContent (-> str wrapped too); False:
                never; None: from the return annotation.
            icons: Icon dicts ({"src", "mimeType"?, "sizes"?, "theme"?}).
            meta: The tool's _meta in tools/list.
            input_schema: An explicit JSON Schema 2020-12 inputSchema instead of one from the
                type hints; arguments then arrive as plain JSON values.
            task: Whether a call may run as a task: "optional", "required"; None or
                "forbidden": never (docs/tasks.md).
            task_start: "handler": the handler starts in the request and calls
                ctx.start_task() when the rest should run as the task; "call": at once.
            inline_dispatch: True: the function is quick and never blocks, so its calls run on
                the transport thread that read them, not the worker pool.
            at_most_once: Run each operation at most once: a timedelta window (an identical
                call within it gets the first call's result again, or a refusal, and never runs
                the function), or mcpcxx.AtMostOnce(window=..., key=..., status_check=...,
                resolver=...) (docs/python.md, "At-most-once tools").
        """
        where = f"tool {name or getattr(fn, '__name__', fn)!r}"
        _check_task(task, task_start, where)
        _check_inline(fn, inline_dispatch, where)
        once = check_at_most_once(at_most_once, where)
        if once is not None and inline_dispatch and inspect.iscoroutinefunction(once.resolver):
            raise ValueError(
                f"{where}: inline_dispatch=True needs a plain resolver function; an async def "
                "resolver waits for the server's event loop, which would hold the transport "
                "thread: drop inline_dispatch"
            )
        checked_icons = check_icons(icons, where)
        if timeout is not None and (isinstance(timeout, bool) or not timeout > 0):
            raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
        signature = describe_tool(
            fn,
            name=name,
            description=description,
            structured_output=structured_output,
            input_schema=input_schema,
        )
        return cls(
            fn,
            signature,
            title=title,
            annotations=_annotations(annotations),
            timeout=timeout,
            icons=checked_icons,
            meta=meta,
            task=task,
            task_start=task_start,
            inline_dispatch=inline_dispatch,
            at_most_once=once,
        )

    @property
    def name(self) -> str:
        """The tool's name on the wire."""
        return self.signature.name

    def to_mcp_tool(self) -> dict[str, Any]:
        """The Tool object tools/list shows."""
        sig = self.signature
        tool: dict[str, Any] = {"name": sig.name, "inputSchema": sig.input_schema}
        optional = {
            "title": self.title,
            "description": sig.description,
            "outputSchema": sig.output_schema,
            "annotations": self.annotations,
            "icons": self.icons,
            "_meta": self.meta,
        }
        tool.update((k, v) for k, v in optional.items() if v is not None)
        if self.task not in (None, "forbidden"):
            tool["execution"] = {"taskSupport": self.task}
        return tool

    def at_most_once_spec(self) -> dict[str, Any] | None:
        """tool_spec::at_most_once in the form the engine reads; None when not declared."""
        return None if self.at_most_once is None else engine_form(self.at_most_once)

    def resolver(self, runtime: Runtime) -> ResolverHandler | None:
        """The engine's at_most_once resolver; None without one."""
        once = self.at_most_once
        if once is None or once.resolver is None:
            return None
        return resolver_handler(once.resolver, self.convert_result, runtime)

    def convert_result(self, value: Any) -> dict[str, Any]:
        """The CallToolResult for a return value (docs/python.md, "Return values")."""
        return convert_result(
            value, wrap=self.signature.wrap_output, structured=self.signature.structured
        )

    @property
    def is_async(self) -> bool:
        """An `async def` tool: the engine starts it on the server's loop and holds no thread."""
        return inspect.iscoroutinefunction(self.fn)

    def async_handler(self, runtime: Runtime) -> AsyncToolHandler:
        """The engine's start of an async tool: (arguments, request, done) -> None at once.

        done.complete(CallToolResult | exception) runs on the server's loop when the call ends.
        """
        start = starter(self.fn, self.signature.context_param, runtime, self.name)
        convert_args, wrap = self.signature.convert_args, self.signature.wrap_output
        structured = self.signature.structured

        def begin(arguments: dict[str, Any], core: RequestContext, done: ToolCompletion) -> None:
            def finished(task: Any) -> None:
                try:
                    value = task.result()
                except BaseException as e:  # InputRequired and cancellation too
                    done.complete(e)
                    return
                try:
                    result: dict[str, Any] | BaseException = convert_result(
                        value, wrap=wrap, structured=structured
                    )
                except Exception as e:
                    result = e
                done.complete(result)

            try:
                start(convert_args(arguments), core, finished)
            except Exception as e:  # raised before the coroutine existed: answered as raised
                done.complete(e)

        return begin

    def handler(self, runtime: Runtime) -> ToolHandler:
        """The engine's handler: (validated arguments, request) -> CallToolResult."""
        call = caller(self.fn, self.signature.context_param, runtime)
        convert_args, wrap = self.signature.convert_args, self.signature.wrap_output
        structured = self.signature.structured

        def run(arguments: dict[str, Any], core: RequestContext) -> dict[str, Any] | Exception:
            try:
                value = call(convert_args(arguments), core)
            except Exception as e:
                # Handed to the engine as a value: the reply the raised exception gets (the
                # binding translates both alike), without two C++ exception unwinds through the
                # binding. Its traceback starts at this frame, as the raised one's does.
                return e
            return convert_result(value, wrap=wrap, structured=structured)

        return run


def _result(content: list[Any], structured: Any = None) -> dict[str, Any]:
    if structured is None:
        return {"content": content}
    return {"content": content, "structuredContent": structured}


def _explicit(result: ToolResult) -> dict[str, Any]:
    content = [content_block(c) for c in result.content]
    out = _result(content)
    if result.structured_content is not None:
        out["structuredContent"] = to_jsonable(result.structured_content)
        if not content:
            out["content"] = [{"type": "text", "text": dumps(out["structuredContent"])}]
    if result.is_error:
        out["isError"] = True
    if result.meta is not None:
        out["_meta"] = to_jsonable(result.meta)
    return out


def convert_result(value: Any, *, wrap: bool, structured: bool) -> dict[str, Any]:
    """The CallToolResult for a tool's return value under the documented rules."""
    if isinstance(value, ToolResult):
        return _explicit(value)
    if wrap:
        data = to_jsonable(value)
        text = value if isinstance(value, str) else dumps(data)
        return _result([{"type": "text", "text": text}], {"result": data})
    if isinstance(value, str):
        return _result([{"type": "text", "text": value}])
    if value is None:
        return _result([])
    if isinstance(value, (*CONTENT_TYPES, bytes, bytearray)):
        return _result([content_block(value)])
    if is_content_list(value):
        return _result([content_block(v) for v in value])
    data = to_jsonable(value)
    text_block = [{"type": "text", "text": dumps(data)}]
    if not structured or isinstance(value, (bool, int, float)):
        return _result(text_block)
    return _result(text_block, data if isinstance(data, dict) else {"result": data})
