"""Testing kit for tool authors: an in-process client and the error-contract checker."""

from __future__ import annotations

from mcpcxx.testing._client import LEGACY, MODERN, Client, text_of
from mcpcxx.testing._contract import Deviation, assert_error_contract, check_error_contract

__all__ = [
    "LEGACY",
    "MODERN",
    "Client",
    "Deviation",
    "assert_error_contract",
    "check_error_contract",
    "text_of",
]
