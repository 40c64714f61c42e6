"""The traceback of an unexpected handler exception, for the server log (bindings call this).

``traceback.format_exception`` reads every frame's column positions (CPython 3.11+) to draw the
``^^^^`` markers under the failing expression, which makes it about three times slower than the
rest of the formatting, and an unexpected exception is formatted on every such call. This module
writes the same text without those marker lines: the chain of causes and contexts, every frame
with its source line, repeated frames collapsed, the exception line and its notes. Exception
groups keep the standard library's formatting (rare, and nested).
"""

from __future__ import annotations

import sys
import traceback
from types import TracebackType

_CAUSE = "\nThe above exception was the direct cause of the following exception:\n\n"
_CONTEXT = "\nDuring handling of the above exception, another exception occurred:\n\n"


def _is_group(exc: BaseException) -> bool:
    group = getattr(sys.modules["builtins"], "BaseExceptionGroup", None)
    return group is not None and isinstance(exc, group)


def _chain(exc: BaseException) -> list[tuple[BaseException, str]]:
    """`exc` and the exceptions before it, oldest first, each with the text that follows it."""
    out: list[tuple[BaseException, str]] = []
    seen: set[int] = set()
    current: BaseException | None = exc
    follows = ""
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        out.append((current, follows))
        if current.__cause__ is not None:
            current, follows = current.__cause__, _CAUSE
        elif current.__context__ is not None and not current.__suppress_context__:
            current, follows = current.__context__, _CONTEXT
        else:
            current = None
    out.reverse()
    return out


def format_exception_lines(
    exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None = None
) -> list[str]:
    """The lines ``traceback.format_exception`` gives, without the column-marker lines."""
    chain = _chain(exc)
    if any(_is_group(e) for e, _ in chain):
        return traceback.format_exception(exc_type, exc, tb)
    lines: list[str] = []
    for e, follows in chain:
        # As in format_exception, `tb` stands for the outermost exception's own traceback.
        frames_of = tb if e is exc and tb is not None else e.__traceback__
        if frames_of is not None:
            lines.append("Traceback (most recent call last):\n")
            # lookup_lines=False: lines are read when formatted, without a stat() per file.
            frames = traceback.StackSummary.extract(
                traceback.walk_tb(frames_of), lookup_lines=False
            )
            lines.extend(frames.format())
        lines.extend(traceback.format_exception_only(type(e), e))
        lines.append(follows)
    return [line for line in lines if line]
