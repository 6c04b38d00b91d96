"""Complete runs, read back: the manifest lists exactly the files of the
folder, with their sizes and hashes; the files hold what the manifest says
(npz shapes, CSV rows, XDMF steps, pictures not blank); a second run into
the same folder is refused, and --force replaces the first run's files."""
import csv
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from PIL import Image

from flexpkm.cli.app import main
from flexpkm.checksums import file_sha256 as sha256
from tests.io.test_run_files import FULL_DISK, folder_held


def manifest_matches_folder(folder, name="run.json", others=()):
    run = json.loads((folder / name).read_text())
    assert run["status"] == "completed" and run["ended"] >= run["started"]
    listed = {f["name"] for f in run["files"]}
    lock = f".{name}.lock"                              # the manifest's lock file stays
    assert listed | {name, lock} | set(others) == {p.name for p in folder.iterdir()}
    for f in run["files"]:
        assert (folder / f["name"]).stat().st_size == f["bytes"]
        assert sha256(folder / f["name"]) == f["sha256"]
    return run


def not_blank(path):
    return np.asarray(Image.open(path).convert("L")).std() > 5


def test_simulation_files_match_the_manifest(tmp_path, capsys):
    d = tmp_path / "o"
    argv = ["simulate", "dualemps", "--maneuver", "edge", "--t-end", "0.025", "--xdmf", "--out",
            str(d)]
    assert main(argv) == 0
    run = manifest_matches_folder(d)
    n = run["samples"]
    assert n == 26 and run["options"]["maneuver"] == "edge" and len(run["description_sha256"]) == 16
    data = np.load(d / "simulation.npz")
    assert set(data) >= {"t", "q_a", "tau", "q", "names", "drift", "energy"}
    assert data["q"].shape == (n, len(data["names"])) and data["tau"].shape == (n, 2)
    with open(d / "simulation.csv") as f:
        rows = list(csv.reader(f))
    assert len(rows) == n + 1 and len(rows[1]) == len(rows[0])
    assert not_blank(d / "simulation.png")
    import meshio
    with meshio.xdmf.TimeSeriesReader(d / "simulation.xdmf") as r:
        points, _ = r.read_points_cells()
        assert r.num_steps == 3                       # 100 Hz of 26 samples at 1 kHz
        t, pd, _ = r.read_data(2)
        assert t == 0.02 and pd["displacement"].shape == points.shape
    assert main(argv) == 2 and "another run" in capsys.readouterr().err
    assert main(argv[:-2] + ["--t-end", "0.01", "--out", str(d), "--force"]) == 0
    assert manifest_matches_folder(d)["samples"] == 11


def test_sweep_files_match_the_manifest(tmp_path, capsys):
    out = tmp_path / "s.csv"
    assert main(["sweep", "dualemps", "--from", "0", "0", "--to", "0.3", "0", "--steps", "7",
                 "--csv", str(out), "--plot", str(tmp_path / "s.png")]) == 0
    run = manifest_matches_folder(tmp_path, "s.csv.run.json")
    with open(out) as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == run["rows"] == 7
    failed = [r for r in rows if r["status"] != "ok"]
    assert len(failed) == run["poses_failed"] == 2                  # q11 > 0.225 m
    assert all(r["f1_hz"] == "nan" and "UnreachablePoseError" in r["status"] for r in failed)
    assert not_blank(tmp_path / "s.png")


def run_cli(argv, timeout=300):
    return subprocess.run([sys.executable, "-m", "flexpkm", *argv], capture_output=True,
                          text=True, timeout=timeout)


def failed_at_the_xdmf(d, r):
    """One error line, exit 2; the manifest says failed and lists the three
    complete files; no HDF5/XDMF file, no temporary left."""
    assert r.returncode == 2, r.stderr[-3000:]
    lines = [ln for ln in r.stderr.splitlines() if not ln.startswith("flexpkm: note:")]
    assert lines == ["flexpkm: error: OSError: [Errno 28] No space left on device"]
    run = json.loads((d / "run.json").read_text())
    assert run["status"] == "failed"
    names = ["simulation.npz", "simulation.csv", "simulation.png"]
    assert [f["name"] for f in run["files"]] == names
    assert sorted(p.name for p in d.iterdir()) == sorted(names + ["run.json", ".run.json.lock"])


def test_a_full_disk_during_the_xdmf_fails_cleanly(tmp_path):
    """ENOSPC from the HDF5 writes (simulated): was a segmentation fault with
    the manifest left 'running'."""
    d = tmp_path / "o"
    code = FULL_DISK.format(left=50_000) + textwrap.dedent(f"""
        import sys
        from flexpkm.cli import main
        sys.exit(main(["simulate", "dualemps", "--maneuver", "edge", "--t-end", "0.2",
                       "--xdmf", "--out", {str(d)!r}, "--no-progress"]))
    """)
    failed_at_the_xdmf(d, subprocess.run([sys.executable, "-c", code], capture_output=True,
                                         text=True, timeout=300))


def test_a_real_full_disk_fails_cleanly(tmp_path):
    """A 700 kB tmpfs: the npz, CSV and PNG fit (~280 kB), the HDF5 data
    (~1.3 MB) does not. Needs mount permission (root); skipped otherwise."""
    disk = tmp_path / "disk"
    disk.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=700k", "tmpfs", str(disk)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {r.stderr.strip()}")
    try:
        d = disk / "o"
        failed_at_the_xdmf(d, run_cli(["simulate", "dualemps", "--maneuver", "edge", "--t-end",
                                       "0.3", "--xdmf", "--out", str(d), "--no-progress"]))
    finally:
        subprocess.run(["umount", str(disk)], check=True)


SWEEP = ["sweep", "dualemps", "--from", "0", "0", "--to", "0.1", "0", "--steps", "3",
         "--no-progress"]
IDM = ["idm", "rigid_five_bar", "--from", "0", "0.22", "--to", "0.05", "0.28", "--duration", "0.02"]


def test_dev_null_and_fifos_are_written_into_never_replaced(tmp_path, capsys):
    import os
    import stat
    import threading
    before = os.stat(os.devnull)
    assert main(SWEEP + ["--csv", os.devnull]) == 0
    after = os.stat(os.devnull)
    assert stat.S_ISCHR(after.st_mode) and after.st_ino == before.st_ino
    assert not os.path.exists(os.devnull + ".run.json")        # nothing written beside it
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo).read()))
    reader.start()
    assert main(SWEEP + ["--csv", str(fifo), "--plot", str(tmp_path / "s.png")]) == 0
    reader.join(30)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert got[0].startswith("s,q11,q21,f1_hz") and len(got[0].splitlines()) == 4
    run = json.loads((tmp_path / "s.png.run.json").read_text())     # the file anchors it
    assert [f.get("stream", False) for f in run["files"]] == [True, False]


def test_a_folder_or_socket_as_output_file_is_one_line(tmp_path, capsys):
    import socket
    sock = tmp_path / "s.csv"
    socket.socket(socket.AF_UNIX).bind(str(sock))
    for target in (tmp_path, sock):
        assert main(SWEEP + ["--csv", str(target)]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("flexpkm: error:") and "\n" not in err
        assert ("is a folder" if target == tmp_path else "is a socket") in err
    assert sock.is_socket()


def test_force_never_removes_what_a_forged_manifest_lists_outside(tmp_path, capsys):
    precious = tmp_path / "precious.txt"
    precious.write_text("the user's")
    d = tmp_path / "o"
    d.mkdir()
    entry = {"bytes": 10, "sha256": sha256(precious)}
    (d / "run.json").write_text(json.dumps({"files": [
        {"name": str(precious), **entry}, {"name": "../precious.txt", **entry}]}))
    assert main(IDM + ["--out", str(d), "--force"]) == 0
    assert precious.read_text() == "the user's"
    assert manifest_matches_folder(d)["command"].startswith("flexpkm idm")


def test_a_second_cli_run_into_a_busy_folder_names_the_first(tmp_path, capsys):
    d = tmp_path / "o"
    with folder_held(d, "flexpkm simulate dualemps --maneuver square") as pid:
        assert main(IDM + ["--out", str(d)]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith(f"flexpkm: error: '{d}' is being written by another run (pid "
                              f"{pid}, started ") and "flexpkm simulate dualemps" in err
        assert "\n" not in err and not (d / "idm.npz").exists()
    assert main(IDM + ["--out", str(d)]) == 0


def test_modes_guards_its_files_in_a_second_folder(tmp_path, capsys):
    """``modes --png A --vtu B``: the manifest in A lists B's VTU by its
    absolute path; a VTU edited since is not replaced, even with --force."""
    a, b = tmp_path / "A", tmp_path / "B"
    argv = ["modes", "dualemps", "--modes", "1", "--png", str(a), "--vtu", str(b)]
    assert main(argv) == 0
    vtu = b / "dualemps_mode_1.vtu"
    run = json.loads((a / "run.json").read_text())
    assert [f["name"] for f in run["files"]] == ["dualemps_mode_1.png", str(vtu.resolve())]
    assert run["files"][1]["sha256"] == sha256(vtu)
    vtu.write_text("the user's mesh")
    capsys.readouterr()
    assert main(argv + ["--force"]) == 2
    assert "not dualemps_mode_1.vtu: move" in capsys.readouterr().err
    assert vtu.read_text() == "the user's mesh"
