"""mcpcxx.Context: the typed interface handlers annotate to receive their request's context."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

from mcpcxx._runtime.context import BaseContext

if TYPE_CHECKING:
    from mcpcxx._api.server import Server


@runtime_checkable
class Context(BaseContext, Protocol):
    """The request a handler serves: ids, client, progress, logging and cancellation.

    Declare a parameter annotated `Context` to receive it; it never appears in the schema. It is
    valid while the handler runs (and may be used from threads the handler starts meanwhile).
    Progress and logging calls work with and without `await`.
    """

    @property
    def server(self) -> Server | None:
        """The Server serving this request."""
        ...
