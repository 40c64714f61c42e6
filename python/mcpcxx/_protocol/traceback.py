"""The traceback of an unexpected handler exception, for the server log (bindings call this).

``traceback.format_exception`` reads every frame's column positions (CPython 3.11+) to draw the
``^^^^`` markers under the failing expression, which makes it about three times slower than the
rest of the formatting, and an unexpected exception is formatted on every such call. This module
writes the same text without those marker lines: the chain of causes and contexts, every frame
with its source line, repeated frames collapsed, the exception line and its notes. Exception
groups keep the standard library's formatting (rare, and nested).
"""

from __future__ import annotations

import builtins
import collections.abc
import linecache
import sys
import traceback
from types import CodeType, FrameType, TracebackType

_CAUSE = "\nThe above exception was the direct cause of the following exception:\n\n"
_CONTEXT = "\nDuring handling of the above exception, another exception occurred:\n\n"
_RECURSIVE_CUTOFF = 3  # as the standard library: a frame repeated more often is collapsed


_GROUP: type | None = getattr(builtins, "BaseExceptionGroup", None)  # 3.11+
_SYS = vars(sys)  # read sys.tracebacklimit without raising AttributeError each time


def _is_group(exc: BaseException) -> bool:
    return _GROUP is not None and isinstance(exc, _GROUP)


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


_FRAME_TEXT: dict[tuple[CodeType, int | None], str] = {}
_FRAME_TEXT_LIMIT = 4096  # entries; the cache is emptied when full (it holds code objects)


def _frame_text(frame: FrameType, lineno: int | None) -> str:
    """One frame's lines, its location and its source line, kept for the next time.

    A failing tool fails the same way call after call, so its frames repeat; the text depends
    only on the code object and the line (the source as linecache loaded it).
    """
    code = frame.f_code
    text = f'  File "{code.co_filename}", line {lineno}, in {code.co_name}\n'
    linecache.lazycache(code.co_filename, frame.f_globals)
    source = linecache.getline(code.co_filename, lineno).strip() if lineno is not None else ""
    if source:
        text += f"    {source}\n"
    if len(_FRAME_TEXT) >= _FRAME_TEXT_LIMIT:
        _FRAME_TEXT.clear()
    _FRAME_TEXT[(code, lineno)] = text
    return text


def _frame_lines(tb: TracebackType | None) -> list[str]:
    """StackSummary.extract(...).format() of `tb` without the column markers.

    The standard extraction stats every source file (linecache.checkcache) on each call, which
    was half of an unexpected exception's cost; source lines come from linecache as loaded (the
    code that ran is the code loaded, even if the file changed since). Repeats are counted by
    code object and line (the standard library compares file, line and function name: the same
    unless one source was compiled twice).
    """
    lines: list[str] = []
    last: tuple[CodeType, int | None] | None = None
    count = 0
    while tb is not None:
        frame = tb.tb_frame
        key = (frame.f_code, tb.tb_lineno)
        tb = tb.tb_next
        if key != last:
            if count > _RECURSIVE_CUTOFF:
                lines.append(_repeated(count - _RECURSIVE_CUTOFF))
            last, count = key, 0
        count += 1
        if count <= _RECURSIVE_CUTOFF:
            lines.append(_FRAME_TEXT.get(key) or _frame_text(frame, key[1]))
    if count > _RECURSIVE_CUTOFF:
        lines.append(_repeated(count - _RECURSIVE_CUTOFF))
    return lines


def _repeated(count: int) -> str:
    return f"  [Previous line repeated {count} more time{'s' if count > 1 else ''}]\n"


def _safe_string(value: object, what: str, func: object = str) -> str:
    try:
        return func(value)  # type: ignore[operator, no-any-return]
    except Exception:
        return f"<{what} {getattr(func, '__name__', 'str')}() failed>"


def _exception_only(e: BaseException) -> list[str]:
    """traceback.format_exception_only(type(e), e), without extracting the stacks of e's chain.

    The standard function builds a TracebackException, which walks (and stats the files of)
    every cause and context only to print the last line. SyntaxError keeps the standard path.
    """
    etype = type(e)
    if issubclass(etype, SyntaxError):
        return traceback.format_exception_only(etype, e)
    stype = etype.__qualname__
    module = etype.__module__
    if module not in ("__main__", "builtins"):
        stype = f"{module if isinstance(module, str) else '<unknown>'}.{stype}"
    try:
        notes = getattr(e, "__notes__", None)
    except Exception:
        notes = ()  # the standard library words this case per version: its own path below
    if (notes is not None and not isinstance(notes, collections.abc.Sequence)) or notes == ():
        return traceback.format_exception_only(etype, e)
    value = _safe_string(e, "exception")
    lines = [f"{stype}: {value}\n" if value else f"{stype}\n"]
    for note in notes or []:
        lines.extend(f"{part}\n" for part in _safe_string(note, "note").split("\n"))
    return lines


def format_exception_lines(
    exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None = None
) -> list[str]:
    """The lines ``traceback.format_exception`` gives, without the column-marker lines."""
    chain = _chain(exc)
    if _SYS.get("tracebacklimit") is not None:
        return traceback.format_exception(exc_type, exc, tb)
    lines: list[str] = []
    for e, follows in chain:
        if _is_group(e):
            return traceback.format_exception(exc_type, exc, tb)
        # As in format_exception, `tb` stands for the outermost exception's own traceback.
        frames_of = tb if e is exc and tb is not None else e.__traceback__
        if frames_of is not None:
            lines.append("Traceback (most recent call last):\n")
            lines += _frame_lines(frames_of)
        lines += _exception_only(e)
        if follows:
            lines.append(follows)
    return lines


def format_exception_text(
    exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None = None
) -> str:
    """format_exception_lines joined: the text the server log gets (the bindings call this)."""
    return "".join(format_exception_lines(exc_type, exc, tb))
