"""Ctrl-C, SIGTERM and SIGHUP keep what was computed (docs/robustness.md): a
real process is sent the signal while it computes; it prints one line on
stderr, exits with status 128 + the signal (130, 143, 129), and leaves
complete, readable files whose manifest says ``interrupted`` and matches
their content."""
import csv
import json
import signal
import subprocess
import sys
import time

import numpy as np
import pytest


def default_sigint():
    """In the child: SIGINT, SIGTERM and SIGHUP to their default action, so
    that Python installs its Ctrl-C handler and flexpkm its SIGTERM and
    SIGHUP ones (a signal ignored by the parent, e.g. by a library loaded by
    an earlier test or by nohup, would be inherited and left alone)."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


def interrupt(argv, folder, manifest="run.json", after=2.0, sig=signal.SIGINT):
    """Run ``flexpkm argv``, wait until its manifest exists (the work has
    started), then ``after`` s, send ``sig``; (status, stdout, stderr, manifest)."""
    p = subprocess.Popen([sys.executable, "-m", "flexpkm", *argv], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint)
    t0 = time.monotonic()
    while not (folder / manifest).exists():
        assert p.poll() is None, p.communicate()
        assert time.monotonic() - t0 < 60
        time.sleep(0.05)
    time.sleep(after)
    p.send_signal(sig)
    out, err = p.communicate(timeout=120)
    return p.returncode, out, err, json.loads((folder / manifest).read_text())


@pytest.mark.parametrize("sig,status", [(signal.SIGINT, 130), (signal.SIGTERM, 143),
                                        (signal.SIGHUP, 129)])
def test_interrupted_simulation_keeps_its_samples(tmp_path, sig, status):
    d = tmp_path / "sim"
    # the numpy backend: the compiled one runs 'square' in ~1 s (or is still
    # compiling after 4 s on a cold cache)
    code, out, err, run = interrupt(["simulate", "dualemps", "--maneuver", "square",
                                     "--backend", "numpy", "--xdmf", "--out", str(d),
                                     "--no-progress"],
                                    d, after=4.0, sig=sig)
    assert code == status and out == ""
    by = "" if sig == signal.SIGINT else f" ({sig.name})"
    assert len(err.strip().splitlines()) == 1 and err.startswith(f"flexpkm: interrupted{by}: ")
    assert run["status"] == "interrupted" and run["ended"] and run["signal"] == sig.name
    names = {f["name"] for f in run["files"]}
    assert names == {"simulation.npz", "simulation.csv", "simulation.png", "simulation.h5",
                     "simulation.xdmf"}
    assert {p.name for p in d.iterdir()} == names | {"run.json", ".run.json.lock"}
    n = run["samples"]
    assert 1 < n < 12001                           # the square maneuver has 12001 samples
    data = np.load(d / "simulation.npz")
    assert data["t"].shape == (n,) and data["q"].shape[0] == n and data["tau"].shape == (n, 2)
    assert np.isfinite(data["q"]).all() and data["t"][-1] == pytest.approx(run["t_end_s"])
    assert np.diff(data["t"]) == pytest.approx(np.full(n - 1, 1e-3))
    with open(d / "simulation.csv") as f:
        assert sum(1 for _ in f) == n + 1
    from PIL import Image
    assert np.asarray(Image.open(d / "simulation.png").convert("L")).std() > 5   # not blank
    import meshio
    with meshio.xdmf.TimeSeriesReader(d / "simulation.xdmf") as r:
        r.read_points_cells()
        assert r.num_steps == len(range(0, n, 10))
        t, pd, _ = r.read_data(r.num_steps - 1)
        assert np.isfinite(pd["displacement"]).all()


def test_interrupted_sweep_keeps_the_finished_poses(tmp_path):
    out_csv = tmp_path / "sweep.csv"
    for after in (5.0, 20.0, 60.0):          # a loaded machine may not finish a chunk in 5 s
        for old in (out_csv, tmp_path / "sweep.csv.run.json"):
            old.unlink(missing_ok=True)
        # numpy: under auto the NaVARo compiles first (issue 18), and a cold cache
        # could be interrupted in the compiler or announce its build on stderr
        status, out, err, run = interrupt(["sweep", "navaro", "--from", "0", "0", "0", "--to",
                                           "0", "0", "-1.0472", "--steps", "20000", "--csv",
                                           str(out_csv), "--no-progress", "--backend", "numpy"],
                                          tmp_path,
                                          "sweep.csv.run.json", after)
        if run.get("rows"):
            break
    assert status == 130 and err.startswith("flexpkm: interrupted: ")
    assert len(err.strip().splitlines()) == 1
    assert run["status"] == "interrupted"
    with open(out_csv) as f:
        rows = list(csv.DictReader(f))
    assert 0 < len(rows) == run["rows"] < 20000 and len(rows) % 256 == 0   # whole chunks
    assert [f["name"] for f in run["files"]] == ["sweep.csv"]
    assert all(r["status"] == "ok" for r in rows)
    f1 = np.array([float(r["f1_hz"]) for r in rows])
    assert np.isfinite(f1).all() and abs(f1[0] - 44.10) < 0.01       # Table 11.4, pose 1
    s = np.array([float(r["s"]) for r in rows])
    assert s == pytest.approx(np.arange(len(rows)) / 19999)          # from the start of the path


def test_a_write_error_is_one_line_and_the_manifest_lists_the_whole_files(tmp_path, monkeypatch,
                                                                          capsys):
    """A full disk while the third file is written: exit 2, one line; the
    manifest says failed and lists the two complete files; no partial file."""
    import flexpkm.io.sim_output as so
    from flexpkm.cli import main

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(so, "plot_simulation", full)
    d = tmp_path / "o"
    assert main(["simulate", "dualemps", "--maneuver", "edge", "--t-end", "0.003", "--out",
                 str(d), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "No space left on device" in err[0]
    run = json.loads((d / "run.json").read_text())
    assert run["status"] == "failed"
    assert [f["name"] for f in run["files"]] == ["simulation.npz", "simulation.csv"]
    assert sorted(p.name for p in d.iterdir()) == [".run.json.lock", "run.json", "simulation.csv",
                                                   "simulation.npz"]


def test_a_signal_while_files_are_written_waits_for_them():
    """SIGTERM inside interrupts_deferred is raised when the block ends (as
    Stopped, exit status 143); an ignored SIGHUP (nohup) stays ignored."""
    import os

    from flexpkm.cli.runs import exit_status, interrupts_deferred
    from flexpkm.signals import Stopped, stop_on_signals
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    done = []
    try:
        with pytest.raises(Stopped) as caught:
            with stop_on_signals():
                assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
                with interrupts_deferred():
                    os.kill(os.getpid(), signal.SIGTERM)
                    os.kill(os.getpid(), signal.SIGHUP)
                    time.sleep(0.05)
                    done.append(True)                # the block was not cut short
        assert done and exit_status(caught.value) == 143
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    finally:
        signal.signal(signal.SIGHUP, previous)
