"""mcpcxx: MCP servers in Python on a C++ engine.

Write tools with decorators; the engine does framing, sessions, both protocol eras, schema
validation and the exact wire shape of every error. See docs/python.md.
"""

from __future__ import annotations

from mcpcxx import _core
from mcpcxx._api.context import Context
from mcpcxx._api.server import Server
from mcpcxx._components.middleware import Middleware, Refusal, Reply
from mcpcxx._components.once import NOT_APPLIED, AtMostOnce, PriorCall, StatusCheck
from mcpcxx._protocol.asking import ElicitResult, Root, SamplingResult
from mcpcxx._protocol.content import (
    Annotations,
    Audio,
    Completion,
    CompletionRequest,
    EmbeddedResource,
    Image,
    PromptMessage,
    ResourceContents,
    ResourceLink,
    Text,
    ToolResult,
)
from mcpcxx._protocol.errors import (
    Cancelled,
    ClientAnswerInvalidError,
    ClientCapabilityError,
    ClientRequestError,
    ClientRequestTimeoutError,
    ErrorCategory,
    ErrorEffect,
    InputRequired,
    LifespanError,
    McpcxxError,
    MissingClientCapability,
    MissingClientCapabilityError,
    ProtocolError,
    RequestCancelledError,
    ResourceNotFound,
    ResourceNotFoundError,
    ToolError,
    UrlElicitationRequiredError,
    compose_error_message,
)

UriTemplate = _core.UriTemplate
"""An RFC 6570 template: .variables, .match(uri) -> dict | None, .expand(values) -> str."""

__version__: str = _core.__version__  # project(VERSION) in CMakeLists.txt, via the extension

__all__ = [
    "NOT_APPLIED",
    "Annotations",
    "AtMostOnce",
    "Audio",
    "Cancelled",
    "ClientAnswerInvalidError",
    "ClientCapabilityError",
    "ClientRequestError",
    "ClientRequestTimeoutError",
    "Completion",
    "CompletionRequest",
    "Context",
    "ElicitResult",
    "EmbeddedResource",
    "ErrorCategory",
    "ErrorEffect",
    "Image",
    "InputRequired",
    "LifespanError",
    "McpcxxError",
    "Middleware",
    "MissingClientCapability",
    "MissingClientCapabilityError",
    "PriorCall",
    "PromptMessage",
    "ProtocolError",
    "Refusal",
    "Reply",
    "RequestCancelledError",
    "ResourceContents",
    "ResourceLink",
    "ResourceNotFound",
    "ResourceNotFoundError",
    "Root",
    "SamplingResult",
    "Server",
    "StatusCheck",
    "Text",
    "ToolError",
    "ToolResult",
    "UriTemplate",
    "UrlElicitationRequiredError",
    "compose_error_message",
]
