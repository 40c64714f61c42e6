"""Testing kit for tool authors: an in-process client and the error-contract checker."""

from __future__ import annotations

from mcpcxx.testing._answers import NO_REPLY, accept, cancel, decline, sampled
from mcpcxx.testing._client import LEGACY, MODERN, Client, text_of
from mcpcxx.testing._contract import Deviation, assert_error_contract, check_error_contract

__all__ = [
    "LEGACY",
    "MODERN",
    "NO_REPLY",
    "Client",
    "Deviation",
    "accept",
    "assert_error_contract",
    "cancel",
    "check_error_contract",
    "decline",
    "sampled",
    "text_of",
]
