"""The progress bar (tqdm): count, total, elapsed time and ETA on the
stream; nothing when disabled; closed at the end."""
import io

from flexpkm.cli.progress import ProgressBar


def test_bar_shows_count_rate_and_eta():
    stream = io.StringIO()
    bar = ProgressBar("sweep", stream=stream, enabled=True)
    for k in range(1, 5):
        bar(k, 4)
    text = stream.getvalue()
    assert "sweep" in text and "4/4" in text and "pose" in text
    assert "<" in text                      # elapsed<remaining, tqdm's ETA
    assert text.endswith("\n") and bar.bar is None      # closed: the line ends


def test_bar_follows_a_changing_total_and_clamps():
    stream = io.StringIO()
    bar = ProgressBar("simulate", stream=stream, enabled=True)
    bar(1, 10)
    bar(30, 20)                             # past the end: clamped, then closed
    assert "20/20" in stream.getvalue() and "sample" in stream.getvalue()


def test_disabled_bar_writes_nothing():
    stream = io.StringIO()
    bar = ProgressBar("sweep", stream=stream)          # a StringIO is not a terminal
    bar(1, 2)
    bar(2, 2)
    assert stream.getvalue() == ""
