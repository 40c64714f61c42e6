"""`python -m mcpcxx COMMAND ...`: the same command line as the `mcpcxx` script (mcpcxx.cli)."""

from __future__ import annotations

import sys

from mcpcxx.cli import main

if __name__ == "__main__":
    sys.exit(main())
