"""The old import paths of modules that moved: each warns once, naming the new path."""

from __future__ import annotations

import warnings


def warn_moved(old: str, new: str) -> None:
    """DeprecationWarning for importing module `old`, attributed to the importing code.

    Called at the top level of the module at the old path: stacklevel 3 is the statement that
    imported it (warnings skips the frames of the import machinery in between).
    """
    warnings.warn(
        f"{old} moved to {new}; import it from there ({old} will be removed in a later release)",
        DeprecationWarning,
        stacklevel=3,
    )
