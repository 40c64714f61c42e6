"""mcpcxx._protocol.traceback: the log's traceback is format_exception's text minus the column markers."""

from __future__ import annotations

import linecache
import re
import sys
import traceback

import pytest

from mcpcxx._protocol.traceback import format_exception_lines

MARKER = re.compile(r"\s*[\^~]+\s*\n?")


def standard_without_markers(exc: BaseException) -> str:
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return "".join(line for line in text.splitlines(True) if not MARKER.fullmatch(line))


def caught(fn: object) -> BaseException:
    try:
        fn()  # type: ignore[operator]
    except BaseException as e:
        return e
    raise AssertionError("no exception")


def deep() -> None:
    def a() -> None:
        b()

    def b() -> None:
        {"k": 1}["missing"]

    a()


def caused() -> None:
    try:
        deep()
    except KeyError as e:
        raise RuntimeError("lookup failed") from e


def during() -> None:
    try:
        deep()
    except KeyError:
        raise ValueError("while handling")  # noqa: B904 - the implicit context is the case


def suppressed() -> None:
    try:
        deep()
    except KeyError:
        raise ValueError("context suppressed") from None


def with_notes() -> None:
    e = RuntimeError("noted")
    if hasattr(e, "add_note"):
        e.add_note("first note")
    raise e


class LocalError(Exception):
    """Defined outside builtins: its line names the module."""


class Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no text")


def module_qualified() -> None:
    raise LocalError("module qualified")


def unprintable() -> None:
    raise Unprintable()


def empty_message_with_cause() -> None:
    try:
        with_notes()
    except RuntimeError as e:
        raise LocalError() from e


def recursive(n: int = 0) -> None:
    recursive(n + 1)


def multi_line_message() -> None:
    raise RuntimeError("line one\nline two")


@pytest.mark.parametrize(
    "fn",
    [
        deep,
        caused,
        during,
        suppressed,
        with_notes,
        recursive,
        multi_line_message,
        module_qualified,
        unprintable,
        empty_message_with_cause,
    ],
)
def test_same_text_as_the_standard_library_without_markers(fn: object) -> None:
    exc = caught(fn)
    assert "".join(format_exception_lines(type(exc), exc, exc.__traceback__)) == (
        standard_without_markers(exc)
    )


def test_no_traceback_is_just_the_exception_line() -> None:
    exc = ValueError("bare")
    assert format_exception_lines(ValueError, exc, None) == ["ValueError: bare\n"]


@pytest.mark.skipif(sys.version_info < (3, 11), reason="exception groups are 3.11+")
def test_exception_groups_keep_the_standard_formatting() -> None:
    def grouped() -> None:
        raise ExceptionGroup("many", [ValueError("a"), KeyError("b")])  # noqa: F821

    exc = caught(grouped)
    assert format_exception_lines(type(exc), exc, exc.__traceback__) == (
        traceback.format_exception(type(exc), exc, exc.__traceback__)
    )


def test_an_explicit_traceback_stands_for_the_outermost_one() -> None:
    exc = caught(caused)
    inner = exc.__traceback__
    assert inner is not None and inner.tb_next is not None
    shorter = inner.tb_next
    expected = "".join(traceback.format_exception(type(exc), exc, shorter))
    expected = "".join(line for line in expected.splitlines(True) if not MARKER.fullmatch(line))
    assert "".join(format_exception_lines(type(exc), exc, shorter)) == expected


def from_source_without_a_file() -> None:
    namespace: dict[str, object] = {}
    exec(compile("def f():\n    raise OSError('no file')\n", "<generated>", "exec"), namespace)
    namespace["f"]()  # type: ignore[operator]


def test_frames_without_source_lines_match_too() -> None:
    exc = caught(from_source_without_a_file)
    text = "".join(format_exception_lines(type(exc), exc, exc.__traceback__))
    assert 'File "<generated>", line 2, in f\n' in text
    assert text == standard_without_markers(exc)


def test_formatting_stats_no_source_file() -> None:
    # linecache.checkcache stats every file of the traceback on every call: half the cost of an
    # unexpected exception before. Lines come from linecache as loaded instead.
    exc = caught(caused)
    expected = standard_without_markers(exc)
    calls: list[object] = []
    real = linecache.checkcache
    linecache.checkcache = lambda *args: calls.append(args)  # only around the one call
    try:
        text = "".join(format_exception_lines(type(exc), exc, exc.__traceback__))
    finally:
        linecache.checkcache = real
    assert calls == []
    assert text == expected


def test_a_traceback_limit_keeps_the_standard_formatting(monkeypatch: pytest.MonkeyPatch) -> None:
    exc = caught(deep)
    monkeypatch.setattr(sys, "tracebacklimit", 1, raising=False)
    assert format_exception_lines(type(exc), exc, exc.__traceback__) == (
        traceback.format_exception(type(exc), exc, exc.__traceback__)
    )


def test_frame_text_is_kept_per_code_and_line_within_its_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from mcpcxx._protocol import traceback as _traceback

    monkeypatch.setattr(_traceback, "_FRAME_TEXT", {})
    monkeypatch.setattr(_traceback, "_FRAME_TEXT_LIMIT", 2)
    exc = caught(caused)
    first = "".join(format_exception_lines(type(exc), exc, exc.__traceback__))
    assert len(_traceback._FRAME_TEXT) <= 2  # emptied when full, never past its bound
    again = "".join(format_exception_lines(type(exc), exc, exc.__traceback__))
    assert first == again == standard_without_markers(exc)


def test_a_repeated_frame_is_collapsed_as_the_standard_library_does() -> None:
    def recurse(n: int) -> None:
        if n == 0:
            raise RecursionError("bottom")
        recurse(n - 1)

    exc = caught(lambda: recurse(8))
    text = "".join(format_exception_lines(type(exc), exc, exc.__traceback__))
    assert "[Previous line repeated" in text
    assert text == standard_without_markers(exc)
