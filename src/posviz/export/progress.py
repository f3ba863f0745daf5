"""Long work said as pip says it: on a terminal one line that moves, elsewhere plain lines.

A first build fetches Pyodide (npm) and wheels (PyPI) and pre-renders every
page: minutes, on a slow link. On a terminal the build shows one status line
rewritten in place: its step out of how many, and the seconds so far; a
download shows the bytes it has received so far. Off a terminal (CI, a log
file, a docs tool's output) nothing is rewritten: each step is one line, as it
always was, and each download one line when it is done. Both end with a line
that gives the size and the time.

Stdlib only: ``distribution`` and ``wheels`` use it before panel or numpy load.
"""

from __future__ import annotations

import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

TICK = 0.5  # s between two redraws of a moving line
CLEAR = "\r\x1b[K"  # back to the line's start, erase to its end


def human(size: float) -> str:
    """Bytes as a reader reads them: ``812 B``, ``3.4 MB``."""
    for unit in ("B", "kB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    raise AssertionError("unreachable")


def size_of(folder: Path) -> int:
    """The bytes of every file under ``folder`` now (files may come and go meanwhile)."""
    total = 0
    for path in Path(folder).rglob("*"):
        try:
            total += path.stat().st_size if path.is_file() else 0
        except OSError:
            pass
    return total


class Line:
    """A status line rewritten in place, with a clock, on a terminal; off one, silent."""

    def __init__(self, stream=None):
        # sys.stdout as it is now (a test or a docs tool may have replaced it).
        self.stream = stream if stream is not None else sys.stdout
        self.live = bool(getattr(self.stream, "isatty", lambda: False)())
        self.text = None  # what to show: a function of the seconds since started
        self.started = time.monotonic()
        self._stop = threading.Event()
        self._thread = None
        self._lock = threading.Lock()

    def show(self, text) -> None:
        """Show ``text(seconds)`` from now on, redrawn every ``TICK`` s."""
        if not self.live:
            return
        with self._lock:
            self.text = text
            self._draw()
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()

    def print(self, message: str) -> None:
        """A line of its own above the moving one (which is drawn again below it)."""
        with self._lock:
            if self.live and self.text is not None:
                self.stream.write(CLEAR)
            self.stream.write(message + "\n")
            if self.live and self.text is not None:
                self._draw()
            self.stream.flush()

    def close(self) -> None:
        """Stop redrawing and erase the moving line."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        with self._lock:
            if self.live and self.text is not None:
                self.stream.write(CLEAR)
                self.stream.flush()
            self.text = None

    def _draw(self) -> None:
        self.stream.write(CLEAR + self.text(time.monotonic() - self.started))
        self.stream.flush()

    def _run(self) -> None:
        while not self._stop.wait(TICK):
            with self._lock:
                if self.text is not None:
                    self._draw()


class Steps:
    """A command's steps: ``[3/6] message · 12 s`` on a terminal, else ``label: message`` lines.

    ``start`` begins a run (its line, its count); outside a run each step is a plain line.
    """

    def __init__(self, label: str):
        self.label = label
        self.line = None
        self.done = 0
        self.total = 0

    def start(self, total: int, stream=None) -> None:
        """A run of ``total`` steps begins, shown on ``stream`` (default: stdout now)."""
        self.line, self.total, self.done = Line(stream), total, 0

    def step(self, message: str) -> None:
        """The next step begins."""
        self.done += 1
        if self.line is None or not self.line.live:
            self.say(message)
            return
        count = f"[{self.done}/{self.total}] " if self.total else ""
        self.line.show(lambda seconds: f"{self.label} {count}{message} · {seconds:.0f} s")

    def say(self, message: str) -> None:
        """A line that stays (a warning, a result), the moving line kept below it."""
        if self.line is None:
            print(f"{self.label}: {message}", flush=True)
        else:
            self.line.print(f"{self.label}: {message}")

    def finish(self) -> None:
        """The run ends: its moving line is erased; later lines are plain."""
        if self.line is not None:
            self.line.close()
        self.line = None


@contextmanager
def fetching(what: str, folder: Path, stream=None):
    """While the block runs, ``what · <bytes under folder> · <s> s`` on a terminal; then a line.

    The last line, on a terminal or not, gives what arrived and how long it took:
    ``posviz: fetched pyodide@0.27.7 from npm: 13.9 MB in 41 s``.
    """
    line = Line(stream)
    line.show(lambda seconds: f"posviz: {what} · {human(size_of(folder))} · {seconds:.0f} s")
    try:
        yield
    finally:
        line.close()
    line.print(
        f"posviz: {what}: {human(size_of(folder))} in {time.monotonic() - line.started:.0f} s"
    )
