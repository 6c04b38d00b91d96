"""A one-line text progress bar on stderr (no dependency)."""
from __future__ import annotations

import sys
import time


class ProgressBar:
    """A one-line text progress bar on a stream (stderr by default).

    ``enabled=None`` shows it only when the stream is a terminal. Use as a
    context manager; :meth:`update` adds done items.
    """

    def __init__(self, total: int, label: str = "", stream=None, enabled=None, width: int = 30):
        self.total, self.label, self.width = max(int(total), 1), label, width
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else bool(enabled)
        self.done, self.t0 = 0, time.perf_counter()

    def update(self, n: int = 1):
        before = 100 * self.done // self.total
        self.done = min(self.done + int(n), self.total)
        if self.enabled and (100 * self.done // self.total != before or self.done == self.total):
            k = int(self.width * self.done / self.total)
            self.stream.write(f"\r{self.label} [{'#' * k}{'.' * (self.width - k)}] "
                              f"{self.done}/{self.total} {time.perf_counter() - self.t0:.1f} s")
            self.stream.flush()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()

    def set(self, done):
        """Move the bar to ``done`` items (absolute)."""
        self.update(int(done) - self.done)
