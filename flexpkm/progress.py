"""A minimal progress bar on stderr (no dependency), silent when stderr is
not a terminal unless forced."""
from __future__ import annotations

import sys
import time


class Progress:
    """``with Progress(total, "simulate") as bar: bar.update(k)``."""

    def __init__(self, total, label="", enabled=None, stream=None):
        self.total = max(float(total), 1e-300)
        self.label = label
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.t0 = time.perf_counter()
        self._last = -1

    def update(self, done):
        if not self.enabled:
            return
        pct = int(100 * min(done / self.total, 1.0))
        if pct == self._last:
            return
        self._last = pct
        el = time.perf_counter() - self.t0
        bar = "#" * (pct // 4) + "." * (25 - pct // 4)
        self.stream.write(f"\r{self.label} [{bar}] {pct:3d}% {el:6.1f} s")
        self.stream.flush()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()
