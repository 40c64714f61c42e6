"""mcpcxx._traceback: the log's traceback is format_exception's text minus the column markers."""

from __future__ import annotations

import re
import sys
import traceback

import pytest

from mcpcxx._traceback import format_exception_lines

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


def recursive(n: int = 0) -> None:
    recursive(n + 1)


def multi_line_message() -> None:
    raise RuntimeError("line one\nline two")


@pytest.mark.parametrize(
    "fn", [deep, caused, during, suppressed, with_notes, recursive, multi_line_message]
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
