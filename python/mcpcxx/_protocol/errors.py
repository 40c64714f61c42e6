"""The exceptions a handler raises to choose its wire shape, and the error-message helper.

Every exception mcpcxx raises or understands derives from McpcxxError. The engine maps each typed
error to its C++ counterpart in one place (python/bindings/bind_errors.cpp), for every handler
kind; any other exception becomes the sanitized internal error with a reference id.
"""

from __future__ import annotations

import math
from typing import Any, Literal

from mcpcxx import _core

ErrorCategory = Literal[
    "invalid_arguments",
    "not_found",
    "permission_denied",
    "conflict",
    "precondition_failed",
    "rate_limited",
    "unavailable",
    "timeout",
    "internal",
]
ErrorEffect = Literal["not_applied", "unknown", "partial", "applied"]

CATEGORIES: tuple[str, ...] = _core.ERROR_CATEGORIES
"""The category names in the engine's order (ErrorCategory spells the same names for typing)."""
EFFECTS: tuple[str, ...] = _core.ERROR_EFFECTS
"""The effect names in the engine's order (ErrorEffect spells the same names for typing)."""


class McpcxxError(Exception):
    """The base class of every exception mcpcxx defines."""


def compose_error_message(
    operation: str,
    resource: str = "",
    reason: str = "",
    next_step: str = "",
    retry_guidance: str = "",
) -> str:
    """Compose "<operation> failed: <resource>. <reason>. <next step>. <retry guidance>.".

    Empty parts are skipped and no period is doubled. The engine's C++ implementation does the
    composing, so Python and C++ tools word their errors identically.

    Args:
        operation: What was attempted, e.g. "Issue lookup".
        resource: The input, resource or dependency involved, e.g. "issue ENG-42".
        reason: Why it failed, at a level the model can act on.
        next_step: What the model should do next.
        retry_guidance: Whether retrying is safe, e.g. "Do not retry unchanged".
    """
    for label, part in (
        ("operation", operation),
        ("resource", resource),
        ("reason", reason),
        ("next_step", next_step),
        ("retry_guidance", retry_guidance),
    ):
        if not isinstance(part, str):
            raise TypeError(f"{label} must be str, not {type(part).__name__}")
    return _core.compose_tool_error_message(operation, resource, reason, next_step, retry_guidance)


class ToolError(McpcxxError):
    """An expected tool failure: the client gets isError:true with exactly `message` as text.

    The category, retryability, resource, effect and retry delay travel as machine-readable
    details in the result's _meta["mcpcxx/error"] (and in structuredContent when the tool
    declares no outputSchema).
    """

    def __init__(
        self,
        message: str,
        *,
        category: ErrorCategory = "internal",
        retryable: bool | None = None,
        resource: str | None = None,
        effect: ErrorEffect = "not_applied",
        retry_after: float | None = None,
    ) -> None:
        """Check every field (TypeError/ValueError naming it).

        Args:
            message: The exact text the model gets: what failed, which input, why, what to do
                next, whether to retry (ToolError.compose builds it from those parts).
            category: What kind of failure; details.category.
            retryable: Whether an unchanged retry can succeed; default: True when retry_after
                is given, else False.
            resource: The id of the input or resource that failed (an issue key, a URI):
                details.resource, left out when None. Data, not text: the message must name
                the resource itself.
            effect: What the failed call changed: "not_applied", "unknown", "partial" or
                "applied".
            retry_after: Seconds to wait before retrying; details.retryAfterSeconds.
        """
        if not isinstance(message, str) or not message.strip():
            raise TypeError("ToolError needs a non-empty str message the model can act on")
        if category not in CATEGORIES:
            raise ValueError(f"unknown category {category!r}; use one of {', '.join(CATEGORIES)}")
        if effect not in EFFECTS:
            raise ValueError(f"unknown effect {effect!r}; use one of {', '.join(EFFECTS)}")
        if resource is not None and not isinstance(resource, str):
            raise TypeError(f"resource must be str or None, not {type(resource).__name__}")
        if retry_after is not None:
            if isinstance(retry_after, bool) or not isinstance(retry_after, (int, float)):
                raise TypeError("retry_after must be a number of seconds or None")
            if not math.isfinite(retry_after) or retry_after < 0:
                raise ValueError(f"retry_after must be >= 0 seconds, got {retry_after!r}")
        super().__init__(message)
        self.message = message
        self.category: str = category
        self.retryable = bool(retry_after is not None if retryable is None else retryable)
        self.resource = resource
        self.effect: str = effect
        self.retry_after = None if retry_after is None else float(retry_after)

    @classmethod
    def compose(
        cls,
        operation: str,
        *,
        resource: str = "",
        reason: str = "",
        next_step: str = "",
        retry_guidance: str = "",
        category: ErrorCategory = "internal",
        retryable: bool | None = None,
        effect: ErrorEffect = "not_applied",
        retry_after: float | None = None,
        resource_id: str | None = None,
    ) -> ToolError:
        """Build a ToolError whose message follows the template (see compose_error_message).

        Args:
            operation: What was attempted, e.g. "Issue lookup" (the message starts "<operation>
                failed").
            resource: A phrase naming the input or resource in the message, e.g. "issue
                ENG-42"; text, not the id.
            reason: Why it failed, at a level the model can act on.
            next_step: What the model should do next.
            retry_guidance: Whether retrying is safe, e.g. "Do not retry unchanged".
            category: As ToolError(category=).
            retryable: As ToolError(retryable=).
            effect: As ToolError(effect=).
            retry_after: As ToolError(retry_after=).
            resource_id: The id that becomes details.resource: ToolError(resource=).
        """
        message = compose_error_message(operation, resource, reason, next_step, retry_guidance)
        return cls(
            message,
            category=category,
            retryable=retryable,
            resource=resource_id,
            effect=effect,
            retry_after=retry_after,
        )

    def __repr__(self) -> str:
        return f"ToolError({self.message!r}, category={self.category!r})"


class ProtocolError(McpcxxError):
    """An explicit JSON-RPC error: code, message and data go on the wire unchanged.

    Rarely right for a tool (see ToolError). Codes the specifications reserve for themselves are
    refused here, at the raise site.
    """

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        if isinstance(code, bool) or not isinstance(code, int):
            raise TypeError(f"code must be int, not {type(code).__name__}")
        if not -(2**31) <= code < 2**31:
            raise ValueError(f"code {code} does not fit a 32-bit JSON-RPC error code")
        if _core.is_reserved_code(code):
            raise ValueError(
                f"code {code} is reserved for the JSON-RPC/MCP specifications; use -32602 "
                "(invalid params), -32603 (internal error), or a code outside "
                "[-32768, -32000] for your own protocol errors"
            )
        if not isinstance(message, str):
            raise TypeError(f"message must be str, not {type(message).__name__}")
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def __repr__(self) -> str:
        return f"ProtocolError({self.code}, {self.message!r})"


class ResourceNotFoundError(McpcxxError):
    """A URI that does not exist.

    Raised by a resource reader: the era's not-found error (-32002 legacy, -32602 under
    2026-07-28). Raised by a tool: an isError result of category not_found.
    """

    def __init__(self, uri: str) -> None:
        super().__init__(f"resource not found: {uri}")
        self.uri = uri


class ConvertedArgumentsError(McpcxxError):
    """Arguments the inputSchema accepted but the tool's own conversion (pydantic) refused.

    Answered by the engine as row T1 (docs/error-model.md): `violations` is a list of
    {"instanceLocation", "keyword", "message"} dicts that never hold argument values.
    """

    def __init__(self, violations: list[dict[str, str]]) -> None:
        super().__init__("invalid arguments")
        self.violations = violations


class LifespanError(McpcxxError, RuntimeError):
    """The server's lifespan failed to start: nothing is served (the original is __cause__)."""


class RequestCancelledError(McpcxxError):
    """Raised by Context.raise_if_cancelled() in a sync tool whose request was cancelled."""


class MissingClientCapabilityError(McpcxxError):
    """The request needs a client capability the client did not declare (-32021 on the wire).

    Raised by Context.require_client_capability(); `required` is the ClientCapabilities object
    the client must declare, e.g. {"elicitation": {}}.
    """

    def __init__(self, required: dict[str, Any]) -> None:
        super().__init__(f"missing client capabilities: {', '.join(required)}")
        self.required = required


# The names of releases before 0.2, documented in docs/python.md; kept as aliases.
ResourceNotFound = ResourceNotFoundError
Cancelled = RequestCancelledError
MissingClientCapability = MissingClientCapabilityError


# ----- asking the client (ctx.elicit, ctx.sample, ctx.list_roots) ---------------------------------


class ClientCapabilityError(MissingClientCapabilityError):
    """The client did not declare the capability an ask needs; nothing was sent to it.

    Raised by ctx.elicit / elicit_url / sample / list_roots. `method` is the request that was
    not sent ("elicitation/create"), `capability` the dotted capability the client lacks
    ("elicitation", "elicitation.url", "sampling", "sampling.tools", "roots"). Uncaught, it is
    answered like MissingClientCapabilityError (-32021 with data.requiredCapabilities).
    """

    def __init__(self, method: str, capability: str) -> None:
        required: dict[str, Any] = {}
        for part in reversed(capability.split(".")):
            required = {part: required}
        super().__init__(required)
        self.args = (
            f"the client did not declare capability {capability!r}, which {method} needs; "
            "nothing was sent",
        )
        self.method = method
        self.capability = capability


class ClientRequestTimeoutError(McpcxxError):
    """The client did not answer an ask in time; the engine sent notifications/cancelled."""

    def __init__(self, method: str, timeout: float) -> None:
        super().__init__(f"the client did not answer {method} within {timeout:g} s")
        self.method = method
        self.timeout = timeout


class ClientRequestError(McpcxxError):
    """The client answered an ask with a JSON-RPC error; its code, message and data are kept."""

    def __init__(self, method: str, code: int, message: str, data: Any = None) -> None:
        super().__init__(f"the client answered {method} with error {code}: {message}")
        self.method = method
        self.code = code
        self.message = message
        self.data = data


class ClientAnswerInvalidError(McpcxxError):
    """The client's answer to an ask does not have the shape the request demands.

    For example accepted elicitation content that does not match the requested schema;
    `reason` says what was wrong.
    """

    def __init__(self, method: str, reason: str) -> None:
        super().__init__(f"the client's answer to {method} is invalid: {reason}")
        self.method = method
        self.reason = reason


class UrlElicitationRequiredError(McpcxxError):
    """Raise it from a tool that cannot go on until the user completes URL elicitation(s).

    The request gets JSON-RPC -32042 with data.elicitations, each {"mode": "url",
    "elicitationId", "url", "message"} (2025-11-25 sessions that declared elicitation.url).
    """

    def __init__(self, elicitations: list[dict[str, Any]]) -> None:
        if not isinstance(elicitations, list) or not elicitations:
            raise TypeError("elicitations must be a non-empty list of URL elicitation dicts")
        for e in elicitations:
            if not isinstance(e, dict):
                raise TypeError(f"each URL elicitation must be a dict, not {e!r}")
            missing = [k for k in ("elicitationId", "url", "message") if k not in e]
            if missing:
                raise ValueError(f"URL elicitation {e!r} lacks {', '.join(missing)}")
        super().__init__(f"the user must complete {len(elicitations)} URL elicitation(s) first")
        self.elicitations = [{"mode": "url", **e} for e in elicitations]


class InputRequired(BaseException):  # a control-flow signal, not an error
    """The 2026-07-28 signal that stops a handler run until the client answers an ask.

    ctx.elicit/sample/list_roots raise it on a modern request whose answer is not there yet; the
    engine turns it into an input_required result and re-runs the handler on the retry. It is a
    BaseException, not an Exception, so `except Exception` in a tool cannot swallow it; code that
    catches BaseException must re-raise it.
    """
