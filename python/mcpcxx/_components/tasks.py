"""Server(tasks=...): the engine's task options (docs/tasks.md) as a checked dict."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict


class TaskOptions(TypedDict, total=False):
    """Bounds and timing of tasks; every value is a positive int."""

    max_tasks: int  # records kept, live and terminal (across replicas with store=), default 1000
    default_ttl_ms: int  # a task's life when the client asks for none, default 600000
    max_ttl_ms: int  # the largest ttl a client may ask for, default 3600000
    poll_interval_ms: int  # suggested polling interval, default 500
    threads: int  # threads running task handlers, default 8


# Each option's engine key: "task_" + its name, but for max_tasks (which sizes the task store).
_KEYS = {k: k if k == "max_tasks" else f"task_{k}" for k in TaskOptions.__annotations__}
TASK_OPTION_KEYS = tuple(_KEYS.values())
"""The engine's server_options keys task_options() may set."""


def task_options(tasks: Mapping[str, object] | None) -> dict[str, int]:
    """The engine's server_options keys for `tasks`; ValueError names a bad key or value."""
    if tasks is None:
        return {}
    if not isinstance(tasks, Mapping):
        raise TypeError(f"tasks must be a dict of task options, not {type(tasks).__name__}")
    out: dict[str, int] = {}
    for key, value in tasks.items():
        if key not in _KEYS:
            raise ValueError(f"unknown task option {key!r}; use one of {', '.join(_KEYS)}")
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ValueError(f"task option {key!r} must be a positive int, got {value!r}")
        out[_KEYS[key]] = value
    return out
