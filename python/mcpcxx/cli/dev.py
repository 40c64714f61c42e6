"""`mcpcxx dev TARGET`: serve TARGET over stdio through a proxy that restarts it on edits.

A watcher polls the modification times of the server's file and of the .py files under its
directory. On a change it first loads the new code in a trial process (`mcpcxx run --check`); if
that fails the running server keeps serving and the error goes to stderr, else the proxy swaps
the server (mcpcxx.cli._dev_proxy). Every frame is printed to stderr in the inspector's format.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import signal
import subprocess
import sys
import threading
from types import FrameType

from mcpcxx.cli._dev_proxy import Child, Proxy
from mcpcxx.cli._target import (
    LoadError,
    UsageError,
    absolute_target,
    add_env_flags,
    env_from_flags,
    is_file_target,
    split_target,
)

# Directories whose .py files are not the server's source.
SKIPPED_DIRS = {"__pycache__", "node_modules", "venv", "site-packages", "build", "dist"}
MAX_WATCHED = 10_000

EPILOG = """Point the host at `mcpcxx dev server.py` instead of `mcpcxx run server.py` while you
work: the host keeps one stdio session while the server behind it is replaced. Frames are printed to
stderr as `--> ` (toward the server), `<-- ` (toward the client) and `# ` (what the proxy did).
"""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of `mcpcxx dev`."""
    parser = argparse.ArgumentParser(
        prog="mcpcxx dev",
        description="Run a server over stdio and restart it when its source files change.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("target", metavar="TARGET", help="PATH.py[:OBJECT] or MODULE[:OBJECT]")
    parser.add_argument(
        "--interval", type=float, default=0.5, metavar="SECONDS", help="how often to poll files"
    )
    parser.add_argument(
        "--drain-grace",
        type=float,
        default=2.0,
        metavar="SECONDS",
        help="on a restart, how long in-flight requests may finish (default 2)",
    )
    parser.add_argument(
        "--watch",
        action="append",
        default=[],
        metavar="DIR",
        help="also watch the .py files under this directory (repeatable)",
    )
    add_env_flags(parser)
    return parser


def source_root(target: str) -> str:
    """The directory whose .py files are watched: the file's own, or the module's package's."""
    location, _ = split_target(target)
    if is_file_target(location):
        path = os.path.abspath(location)
        if not os.path.isfile(path):
            raise LoadError(f"no such file: {location}")
        return os.path.dirname(path)
    sys.path.insert(0, os.getcwd())
    try:
        spec = importlib.util.find_spec(location)
    except ModuleNotFoundError:
        spec = None
    if spec is None or not spec.origin:
        raise LoadError(f"cannot find module {location!r} (give a path to a .py file)")
    return os.path.dirname(os.path.abspath(spec.origin))


def snapshot(roots: list[str]) -> dict[str, tuple[int, int]]:
    """(mtime_ns, size) of every .py file under the roots (hidden and build dirs skipped)."""
    seen: dict[str, tuple[int, int]] = {}
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS]
            for name in files:
                if name.endswith(".py") and len(seen) < MAX_WATCHED:
                    path = os.path.join(folder, name)
                    try:
                        st = os.stat(path)
                    except OSError:
                        continue
                    seen[path] = (st.st_mtime_ns, st.st_size)
    return seen


def changed(old: dict[str, tuple[int, int]], new: dict[str, tuple[int, int]]) -> list[str]:
    """The files added, removed or modified between two snapshots."""
    return sorted(p for p in old.keys() | new.keys() if old.get(p) != new.get(p))


class Dev:
    """The dev session: the proxy, the command that starts a child, and the file watcher."""

    def __init__(self, args: argparse.Namespace, env: dict[str, str]) -> None:
        self.args = args
        self.target = absolute_target(args.target)
        self.env = {**os.environ, **env}
        for folder in args.watch:
            if not os.path.isdir(folder):
                raise UsageError(f"--watch {folder}: not a directory")
        self.roots = [source_root(args.target), *(os.path.abspath(d) for d in args.watch)]
        self.proxy = Proxy(sys.stdout.buffer, sys.stderr, self.spawn)
        self.stopped = threading.Event()

    def command(self, *extra: str) -> list[str]:
        """`python -m mcpcxx run TARGET ...` with this interpreter."""
        return [sys.executable, "-m", "mcpcxx", "run", self.target, *extra]

    def spawn(self, number: int) -> Child:
        """Start server number `number` (a Child of the proxy)."""
        grace = str(self.args.drain_grace)
        return Child(self.command("--drain-grace", grace), self.env, number)

    def trial(self) -> str | None:
        """Load the new code in a separate process; None when it loads, else what it printed."""
        try:
            done = subprocess.run(
                self.command("--check"),
                env=self.env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return "loading the new code took longer than 60 s"
        if done.returncode == 0:
            return None
        return (done.stderr or done.stdout).strip() or f"exit code {done.returncode}"

    def settle(self, seen: dict[str, tuple[int, int]]) -> dict[str, tuple[int, int]]:
        """Wait until the files stop changing (an editor may write in several steps)."""
        while not self.stopped.wait(min(self.args.interval, 0.2)):
            again = snapshot(self.roots)
            if again == seen:
                break
            seen = again
        return seen

    def watch(self, seen: dict[str, tuple[int, int]]) -> None:
        """Poll the files; on a change, trial-load the new code, then restart or report."""
        while not self.stopped.wait(self.args.interval):
            now = snapshot(self.roots)
            edits = changed(seen, now)
            if not edits:
                continue
            seen = self.settle(now)
            names = ", ".join(os.path.relpath(p) for p in edits[:3])
            self.proxy.note(f"changed: {names}{' ...' if len(edits) > 3 else ''}; loading it")
            failure = self.trial()
            if failure is not None:
                self.proxy.note("the new code does not load; the running server keeps serving:")
                print(failure, file=sys.stderr, flush=True)
                continue
            self.proxy.restart(self.args.drain_grace)

    def serve(self) -> int:
        """Start the first server, forward the client's stdin until EOF, then stop."""
        seen = snapshot(self.roots)  # before the first start: an edit from now on is seen
        self.proxy.note(f"serving {self.target}; watching {', '.join(self.roots)}")
        self.proxy.start()
        threading.Thread(target=self.watch, args=(seen,), daemon=True).start()
        try:
            for line in sys.stdin.buffer:
                self.proxy.from_client(line)
        finally:
            self.stopped.set()
        return self.proxy.close(self.args.drain_grace)


def _stop_on_signal(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)


def main(argv: list[str]) -> int:
    """Entry point of `mcpcxx dev`; returns the exit code."""
    args = build_parser().parse_args(argv)
    try:
        dev = Dev(args, env_from_flags(args))
    except (UsageError, LoadError) as e:
        print(f"mcpcxx dev: {e}", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, _stop_on_signal)
    try:
        return dev.serve()
    except (SystemExit, KeyboardInterrupt):
        dev.proxy.close(0.0)
        return 0
