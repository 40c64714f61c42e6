"""Asking the client from a handler: elicitation, sampling and roots as typed Python values.

The engine does the asking (python/bindings/bind_context.cpp over request_context::elicit,
sample, list_roots): a live request on a legacy session, an input_required round trip on
2026-07-28. This module builds the request parameters from Python values and types the answers.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar, cast

if TYPE_CHECKING:
    import asyncio

ElicitAction = Literal["accept", "decline", "cancel"]
T = TypeVar("T")

_ACTIONS = ("accept", "decline", "cancel")


@dataclass(frozen=True)
class ElicitResult(Generic[T]):
    """The user's answer to ctx.elicit: the action and, when accepted, the content.

    `content` is an instance of the pydantic model given as schema (a dict for a dict schema);
    None unless action == "accept" (and always None for URL elicitation).
    """

    action: ElicitAction
    content: T | None = None

    @property
    def accepted(self) -> bool:
        """True when the user submitted the form (action "accept")."""
        return self.action == "accept"


@dataclass(frozen=True)
class SamplingResult:
    """The client's CreateMessageResult: role, content, model, stopReason and the raw dict."""

    role: str
    content: Any
    model: str
    stop_reason: str | None
    raw: dict[str, Any] = field(repr=False)

    @property
    def text(self) -> str:
        """The text of the content: a text block's text, text blocks joined, else ""."""
        blocks = self.content if isinstance(self.content, list) else [self.content]
        return "".join(
            b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text"
        )


@dataclass(frozen=True)
class Root:
    """A root the client exposes: its URI (file:// today) and optional name."""

    uri: str
    name: str | None = None
    meta: dict[str, Any] | None = None


# ----- elicitation -----------------------------------------------------------------------------


def _is_model(schema: object) -> bool:
    return isinstance(schema, type) and callable(getattr(schema, "model_json_schema", None))


def _flatten(schema: dict[str, Any]) -> dict[str, Any]:
    """Bring pydantic's output into the elicitation subset's shape.

    Enums live under $defs (the subset has no $ref: inlined) and `X | None` fields are
    anyOf [X, null] (the subset has no anyOf: the field is simply optional, X is kept).
    """
    defs = schema.pop("$defs", None) or {}
    props = schema.get("properties")
    if not isinstance(props, dict):
        return schema
    for name, prop in list(props.items()):
        if isinstance(prop, dict):
            props[name] = _flat_property(prop, defs)
    return schema


def _flat_property(prop: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    options = prop.get("anyOf")
    if isinstance(options, list) and len(options) == 2 and {"type": "null"} in options:
        [kept] = [o for o in options if o != {"type": "null"}]
        rest = {k: v for k, v in prop.items() if k != "anyOf"}
        if rest.get("default", 0) is None:
            del rest["default"]
        prop = {**kept, **rest}
    prefix = "#/$defs/"
    ref = prop.get("$ref")
    if isinstance(ref, str) and ref.startswith(prefix) and ref[len(prefix) :] in defs:
        target = dict(defs[ref[len(prefix) :]])
        target.pop("title", None)  # the enum class's name is not the field's title
        prop = {**target, **{k: v for k, v in prop.items() if k != "$ref"}}
    return prop


def requested_schema(schema: object) -> dict[str, Any]:
    """The requestedSchema for `schema`: a pydantic model class, a JSON-schema dict, or None.

    The engine checks it against the spec's restricted subset (flat object of string, number,
    integer, boolean and enum properties) and raises ValueError naming what is not allowed; a
    model's enums and `X | None` fields are first brought into that shape.
    """
    if schema is None:
        return {"type": "object", "properties": {}}
    if _is_model(schema):
        generated = cast("Any", schema).model_json_schema()
        return _flatten(dict(generated))
    if isinstance(schema, Mapping):
        return dict(schema)
    raise TypeError(
        f"schema must be a pydantic model class or a JSON-schema dict, not {type(schema).__name__}"
    )


def elicit_result(raw: Mapping[str, Any], schema: object) -> ElicitResult[Any]:
    """Types the engine's {"action", "content"}: content parsed into the model when given."""
    action = raw.get("action")
    if action not in _ACTIONS:
        raise ValueError(f"elicitation answer has action {action!r}; expected one of {_ACTIONS}")
    content = raw.get("content")
    if action != "accept" or content is None:
        return ElicitResult(cast("ElicitAction", action))
    if _is_model(schema):
        content = cast("Any", schema).model_validate(content)
    return ElicitResult("accept", content)


# ----- sampling --------------------------------------------------------------------------------


def _message(item: object) -> dict[str, Any]:
    if isinstance(item, str):
        return {"role": "user", "content": {"type": "text", "text": item}}
    if isinstance(item, Mapping) and "role" in item and "content" in item:
        return dict(item)
    raise TypeError(
        "each sampling message must be a str (a user text message) or a SamplingMessage dict "
        f'{{"role": ..., "content": ...}}, not {item!r}'
    )


def sampling_params(
    messages: str | Sequence[str | Mapping[str, Any]],
    *,
    max_tokens: int,
    system_prompt: str | None = None,
    temperature: float | None = None,
    stop_sequences: Sequence[str] | None = None,
    model_preferences: Mapping[str, Any] | Sequence[str] | None = None,
    include_context: Literal["none", "thisServer", "allServers"] | None = None,
    tools: Sequence[Mapping[str, Any]] | None = None,
    tool_choice: Mapping[str, Any] | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """CreateMessageRequest params from Python values (a str or str items = user text)."""
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise ValueError(f"max_tokens must be a positive int, got {max_tokens!r}")
    items: list[object] = [messages] if isinstance(messages, str) else list(messages)
    if not items:
        raise ValueError("sample() needs at least one message")
    params: dict[str, Any] = {"messages": [_message(m) for m in items], "maxTokens": max_tokens}
    preferences: dict[str, Any] | None = None
    if isinstance(model_preferences, Mapping):
        preferences = dict(model_preferences)
    elif model_preferences is not None:
        names = [model_preferences] if isinstance(model_preferences, str) else model_preferences
        preferences = {"hints": [{"name": n} for n in names]}
    optional = {
        "systemPrompt": system_prompt,
        "temperature": temperature,
        "stopSequences": list(stop_sequences) if stop_sequences is not None else None,
        "modelPreferences": preferences,
        "includeContext": include_context,
        "tools": [dict(t) for t in tools] if tools is not None else None,
        "toolChoice": dict(tool_choice) if tool_choice is not None else None,
        "metadata": dict(metadata) if metadata is not None else None,
    }
    params.update((k, v) for k, v in optional.items() if v is not None)
    return params


def sampling_result(raw: Mapping[str, Any]) -> SamplingResult:
    """Types a CreateMessageResult."""
    return SamplingResult(
        role=str(raw.get("role", "assistant")),
        content=raw.get("content"),
        model=str(raw.get("model", "")),
        stop_reason=raw.get("stopReason"),
        raw=dict(raw),
    )


def roots(raw: Sequence[Any]) -> list[Root]:
    """Types the roots array of a ListRootsResult."""
    return [Root(r["uri"], r.get("name"), r.get("_meta")) for r in raw if isinstance(r, Mapping)]


# ----- running the blocking engine call ----------------------------------------------------------


def refuse_on_event_loop(name: str) -> None:
    """RuntimeError when a *_sync ask would block a running event loop (an async handler)."""
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise RuntimeError(
        f"ctx.{name}_sync() would block the event loop; in an async handler use "
        f"`await ctx.{name}(...)`"
    )


async def in_thread(fn: Callable[..., T], *args: Any) -> T:
    """Runs the blocking `fn(*args)` on a thread of its own and awaits it.

    A dedicated thread, not the loop's executor: an ask may wait for a person for minutes, and a
    bounded pool would make unrelated asks queue behind it. Exceptions, including BaseException
    signals such as InputRequired, reach the awaiting coroutine unchanged.
    """
    import asyncio

    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def run() -> None:
        try:
            value = fn(*args)
        except BaseException as e:  # the signal must reach the coroutine too
            _settle(loop, future, None, e)
        else:
            _settle(loop, future, value, None)

    threading.Thread(target=run, name="mcpcxx-ask", daemon=True).start()
    return await future


def _settle(
    loop: asyncio.AbstractEventLoop,
    future: asyncio.Future[Any],
    value: Any,
    error: BaseException | None,
) -> None:
    def apply() -> None:
        if future.cancelled():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)

    # RuntimeError: the loop closed while the client was answering; nobody awaits the result.
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(apply)
