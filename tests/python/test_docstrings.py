"""Docstring parsing: descriptions and per-parameter text, Google and NumPy styles."""

from __future__ import annotations

from mcpcxx._schema.docstrings import parse_docstring


def test_google_style() -> None:
    doc = parse_docstring(
        """Search issues.

        Longer explanation
        over two lines.

        Args:
            query (str): What to find,
                continued here.
            limit: How many results.

        Returns:
            The issues.
        """
    )
    assert doc.description == "Search issues.\n\nLonger explanation\nover two lines."
    assert doc.params == {"query": "What to find, continued here.", "limit": "How many results."}


def test_numpy_style_with_shared_names() -> None:
    doc = parse_docstring(
        """Add numbers.

        Parameters
        ----------
        a, b : int
            The numbers
            to add.
        scale : float, optional
            Factor.

        Returns
        -------
        int
        """
    )
    assert doc.description == "Add numbers."
    assert doc.params == {
        "a": "The numbers to add.",
        "b": "The numbers to add.",
        "scale": "Factor.",
    }


def test_plain_and_empty() -> None:
    assert parse_docstring("Just text.").description == "Just text."
    assert parse_docstring(None).description == ""
    assert parse_docstring("").params == {}


def test_non_parameter_sections_are_not_parameters() -> None:
    doc = parse_docstring("Do it.\n\nRaises:\n    ValueError: when bad.\n")
    assert doc.params == {}
    assert doc.description == "Do it."


def test_kwargs_section_and_entries_without_text() -> None:
    doc = parse_docstring("X.\n\nKeyword Args:\n    flag: Turn on.\n    empty:\n")
    assert doc.params == {"flag": "Turn on."}
