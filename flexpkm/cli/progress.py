"""The progress bar of the command line on stderr, with its rate and ETA,
drawn by tqdm (a well-kept library: terminal width, redraw rate, ETA
smoothing, a clean line at the end) from the analyses'
``progress(done, total)`` callbacks."""
from __future__ import annotations

import sys


class ProgressBar:
    """``bar(done, total)``: move a tqdm bar to ``done`` of ``total``
    (closed when ``done == total``): ``simulate  40%|####   | 120/300
    [00:03<00:04, 35.1 it/s]``.

    stream : stderr by default; ``enabled=None`` draws only when the stream
    is a terminal.
    """

    def __init__(self, label: str = "", stream=None, enabled=None):
        self.label = label
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else bool(enabled)
        self.bar = None

    def __call__(self, done: int, total: int):
        if not self.enabled:
            return
        total = max(int(total), 1)
        done = min(int(done), total)
        if self.bar is None:
            from tqdm import tqdm
            self.bar = tqdm(total=total, desc=self.label, file=self.stream, leave=True,
                            dynamic_ncols=True, unit="sample" if self.label == "simulate" else "pose")
        self.bar.total = total
        self.bar.update(done - self.bar.n)
        if done == total:
            self.close()

    def close(self):
        """End the bar's line (also on an interrupt: the caller's ``finally``)."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None
