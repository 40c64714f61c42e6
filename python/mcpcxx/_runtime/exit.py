"""Interpreter exit while engine threads still run Python handlers (issue 10).

serve_http/serve_stdio return once their drain answered every request, but a handler the drain
cancelled (or a disconnect did) may still be inside Python for a moment, and one that ignores
cancellation may never leave. Python 3.11 ends a thread that takes the GIL during finalization
with pthread_exit(), which unwinds through the C++ call mid-way: a crash ("FATAL: exception not
rethrown", or a segfault). So before finalization this hook closes Python to engine threads,
tells running handlers they are cancelled (ctx.cancelled), and waits for them to leave; if some
never do, it flushes and exits without finalizing, with the status of the last run().
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys

from mcpcxx import _core

#: How long interpreter exit waits for handlers still running Python code to return.
WAIT_SECONDS = 5.0

_status = [1]  # the exit status when handlers never return: run()'s result once it returned


def record_run_status(status: int) -> None:
    """Remember what run() returned: the status of an exit that cannot wait for hung handlers."""
    _status[0] = status


def _wait_for_handlers() -> None:
    still = _core.close_python_entries(WAIT_SECONDS)
    if still == 0:
        return
    sys.stderr.write(
        f"mcpcxx: {still} handler(s) still running Python code {WAIT_SECONDS:g} s after exit "
        "began (they ignore ctx.cancelled); exiting without interpreter finalization\n"
    )
    for stream in (sys.stdout, sys.stderr):
        # A closed or broken stream: nothing more can be written anyway.
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(_status[0])


atexit.register(_wait_for_handlers)
