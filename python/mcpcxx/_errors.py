"""The exceptions a handler raises to choose its wire shape, and the error-message helper."""

from __future__ import annotations

import math
from typing import Any, Literal

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

CATEGORIES: tuple[str, ...] = (
    "invalid_arguments",
    "not_found",
    "permission_denied",
    "conflict",
    "precondition_failed",
    "rate_limited",
    "unavailable",
    "timeout",
    "internal",
)
EFFECTS: tuple[str, ...] = ("not_applied", "unknown", "partial", "applied")


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
    from mcpcxx import _core

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


class ToolError(Exception):
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
        """Build a ToolError whose message follows the template (see compose_error_message)."""
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


def is_reserved_code(code: int) -> bool:
    """True for codes the specifications own, which tool code must not raise directly.

    That is [-32768, -32000] except -32602, -32603 and -32002.
    """
    if code in (-32602, -32603, -32002):
        return False
    return -32768 <= code <= -32000


class ProtocolError(Exception):
    """An explicit JSON-RPC error: code, message and data go on the wire unchanged.

    Rarely right for a tool (see ToolError). Codes the specifications reserve for themselves are
    refused here, at the raise site.
    """

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        if isinstance(code, bool) or not isinstance(code, int):
            raise TypeError(f"code must be int, not {type(code).__name__}")
        if not -(2**31) <= code < 2**31:
            raise ValueError(f"code {code} does not fit a 32-bit JSON-RPC error code")
        if is_reserved_code(code):
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


class ResourceNotFound(Exception):
    """Raised by a resource reader for a URI it does not have (the era's not-found error)."""

    def __init__(self, uri: str) -> None:
        super().__init__(f"resource not found: {uri}")
        self.uri = uri


class Cancelled(Exception):
    """Raised by Context.raise_if_cancelled() in a sync tool whose request was cancelled."""


class MissingClientCapability(Exception):
    """The request needs a client capability the client did not declare (-32021 on the wire).

    Raised by Context.require_client_capability(); `required` is the ClientCapabilities object
    the client must declare, e.g. {"elicitation": {}}.
    """

    def __init__(self, required: dict[str, Any]) -> None:
        super().__init__(f"missing client capabilities: {', '.join(required)}")
        self.required = required
