"""A one-line text progress bar on stderr, drawn by the command line from
the analyses' ``progress(done, total)`` callbacks (no dependency)."""
from __future__ import annotations

import sys
import time


class ProgressBar:
    """``bar(done, total)``: redraw the bar when the percentage changes,
    end the line when ``done == total``.

    stream : stderr by default; ``enabled=None`` draws only when the stream
    is a terminal.
    """

    def __init__(self, label: str = "", stream=None, enabled=None, width: int = 30):
        self.label, self.width = label, width
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else bool(enabled)
        self.percent, self.t0 = -1, time.perf_counter()

    def __call__(self, done: int, total: int):
        total = max(int(total), 1)
        done = min(int(done), total)
        percent = 100 * done // total
        if not self.enabled or percent == self.percent:
            return
        self.percent = percent
        k = self.width * done // total
        self.stream.write(f"\r{self.label} [{'#' * k}{'.' * (self.width - k)}] "
                          f"{done}/{total} {time.perf_counter() - self.t0:.1f} s")
        if done == total:
            self.stream.write("\n")
        self.stream.flush()
