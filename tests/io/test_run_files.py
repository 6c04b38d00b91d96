"""Outputs that cannot be half-written (atomic renames, killed writers), the
run manifest and its refusal of another run's folder, the incremental XDMF
series read back by meshio."""
import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from flexpkm.errors import OutputError
from flexpkm.io.run_files import Run, atomic_write, check_output_file, check_writable
from flexpkm.checksums import file_sha256 as sha256
from flexpkm.io.xdmf import XdmfSeries


def test_atomic_write_leaves_nothing_on_error(tmp_path):
    target = tmp_path / "a.csv"
    target.write_text("old\n")
    with pytest.raises(RuntimeError):
        with atomic_write(target) as tmp:
            tmp.write_text("half")
            raise RuntimeError("killed")
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv"]
    with atomic_write(target) as tmp:
        tmp.write_text("new\n")
    assert target.read_text() == "new\n"


def test_kill_during_write_leaves_no_final_file(tmp_path):
    """A writer killed (SIGKILL) in the middle of a large file: the final
    name never appears, only a .part file; the next run removes it."""
    code = textwrap.dedent(f"""
        import sys, time
        from flexpkm.io.run_files import atomic_write
        with atomic_write({str(tmp_path / 'big.csv')!r}) as tmp, open(tmp, 'w') as f:
            for i in range(10**9):
                f.write('1,2,3\\n')
                if i == 1000:
                    f.flush(); print('writing', flush=True)
                if i > 1000:
                    time.sleep(0.001)
    """)
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "writing"
    p.send_signal(signal.SIGKILL)
    p.wait()
    names = [q.name for q in tmp_path.iterdir()]
    assert "big.csv" not in names and any(n.startswith(".part-") for n in names)
    Run(tmp_path, "test", {})
    assert not any(q.name.startswith(".part-") for q in tmp_path.iterdir())


@pytest.mark.parametrize("bad", ["/proc/flexpkm-x", "file/x"])
def test_unwritable_folders_are_one_error(tmp_path, bad):
    (tmp_path / "file").write_text("")
    path = bad if bad.startswith("/") else tmp_path / bad
    with pytest.raises(OutputError, match="cannot write"):
        check_writable(path)


def test_a_folder_is_not_an_output_file(tmp_path):
    with pytest.raises(OutputError, match="is a folder"):
        check_output_file(tmp_path)


def test_manifest_refuses_another_runs_folder_and_force_clears_it(tmp_path):
    run = Run(tmp_path, "flexpkm simulate x", {"t_end": 1.0, "k": np.float64(2), "v": (1, 2)},
              owned=["simulation.*"])
    (tmp_path / "simulation.csv").write_text("t\n0\n")
    run.add(tmp_path / "simulation.csv")
    run.finish("completed")
    data = json.loads((tmp_path / "run.json").read_text())
    assert data["status"] == "completed" and data["options"]["v"] == [1, 2]
    assert data["files"] == [{"name": "simulation.csv", "bytes": 4,
                              "sha256": sha256(tmp_path / "simulation.csv")}]
    with pytest.raises(OutputError, match="another run"):
        Run(tmp_path, "again", {}, owned=["simulation.*"])
    assert sorted(p.name for p in tmp_path.iterdir()) == [".run.json.lock", "run.json",
                                                          "simulation.csv"]
    (tmp_path / "mine.txt").write_text("a user's file")
    Run(tmp_path, "again", {}, owned=["simulation.*"], force=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".run.json.lock", "mine.txt", "run.json"]
    assert json.loads((tmp_path / "run.json").read_text())["status"] == "running"


def test_failed_run_leaves_nothing(tmp_path):
    run = Run(tmp_path / "new", "x", {})
    run.fail()
    assert not (tmp_path / "new").exists()


def test_xdmf_series_is_read_back_and_incremental(tmp_path):
    import meshio
    points = np.random.default_rng(0).random((8, 3))
    cells = np.arange(8)[None]
    path = tmp_path / "s.xdmf"
    fields = [np.full((8, 3), k, float) for k in range(5)]
    with XdmfSeries(path, points, cells, {"part": np.array([3])}) as s:
        for k, u in enumerate(fields):
            s.write(0.1 * k, {"displacement": u})
            assert not path.exists()                 # the XML appears only when complete
    with meshio.xdmf.TimeSeriesReader(path) as r:
        p, c = r.read_points_cells()
        assert np.array_equal(p, points) and np.array_equal(c[0].data, cells)
        assert r.num_steps == 5
        for k in range(5):
            t, pd, cd = r.read_data(k)
            assert t == pytest.approx(0.1 * k) and np.array_equal(pd["displacement"], fields[k])
            assert cd["part"][0][0] == 3


def test_xdmf_series_removed_on_error(tmp_path):
    with pytest.raises(KeyError):
        with XdmfSeries(tmp_path / "s.xdmf", np.zeros((8, 3)), np.arange(8)[None]) as s:
            s.write(0.0, {"displacement": np.zeros((8, 3))})
            raise KeyError("stop")
    assert os.listdir(tmp_path) == []


def test_a_running_writers_temporary_file_is_kept(tmp_path):
    """Another process writing into the same folder keeps its temporary file."""
    p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        live = tmp_path / f".part-{p.pid}-other.csv"
        live.write_text("being written")
        dead = tmp_path / ".part-999999999-old.csv"
        dead.write_text("left by a killed run")
        Run(tmp_path, "x", {})
        assert live.exists() and not dead.exists()
    finally:
        p.kill()
        p.wait()


def finished_run(folder, files, **kwargs):
    """A completed run that wrote ``files`` (name -> text) into ``folder``."""
    run = Run(folder, "flexpkm simulate x", {}, **kwargs)
    for name, text in files.items():
        (folder / name).write_text(text)
        run.add(folder / name)
    run.finish("completed")
    return run


def test_force_removes_only_unchanged_files_listed_inside_the_folder(tmp_path):
    """A manifest edited to list files outside the folder (absolute, ``..``,
    a link leading out) or a file changed since: --force leaves them all."""
    d = tmp_path / "o"
    d.mkdir()
    outside = tmp_path / "precious.txt"
    outside.write_text("not flexpkm's")
    finished_run(d, {"simulation.csv": "t\n0\n", "simulation.npz": "npz", "notes.txt": "n"})
    (d / "notes.txt").write_text("edited by the user")           # changed since: hash differs
    (d / "link.csv").symlink_to(outside)
    run = json.loads((d / "run.json").read_text())
    run["files"] += [{"name": str(outside), "bytes": 13, "sha256": sha256(outside)},
                     {"name": "../precious.txt", "bytes": 13, "sha256": sha256(outside)},
                     {"name": "link.csv", "bytes": 13, "sha256": sha256(outside)},
                     {"name": ".run.json.lock", "bytes": 0, "sha256": sha256(d / ".run.json.lock")}]
    (d / "run.json").write_text(json.dumps(run))
    Run(d, "again", {}, owned=["simulation.*"], force=True).finish()
    assert outside.read_text() == "not flexpkm's"
    assert sorted(p.name for p in d.iterdir()) == [".run.json.lock", "link.csv", "notes.txt",
                                                    "run.json"]
    assert (d / "notes.txt").read_text() == "edited by the user"


def test_force_refuses_a_file_in_the_way_that_no_manifest_vouches_for(tmp_path):
    finished_run(tmp_path, {"simulation.csv": "t\n0\n", "simulation.npz": "npz"})
    (tmp_path / "simulation.csv").write_text("t\n1\n")          # changed since the run
    with pytest.raises(OutputError, match="simulation.csv: move or remove it"):
        Run(tmp_path, "again", {}, owned=["simulation.*"], force=True)
    assert (tmp_path / "simulation.npz").read_text() == "npz"  # nothing removed
    assert json.loads((tmp_path / "run.json").read_text())["command"] == "flexpkm simulate x"
    (tmp_path / "run.json").unlink()                            # no manifest at all
    (tmp_path / "simulation.csv").write_text("t\n0\n")
    with pytest.raises(OutputError, match="simulation.csv, simulation.npz: move"):
        Run(tmp_path, "again", {}, owned=["simulation.*"], force=True)


def test_a_named_target_outside_the_folder_is_replaced_only_if_unchanged(tmp_path):
    """``sweep --csv a/s.csv --plot b/s.png``: the manifest in a/ lists b/s.png
    by its absolute path; --force replaces it when its hash matches."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    csv, png = tmp_path / "a" / "s.csv", tmp_path / "b" / "s.png"
    run = Run(tmp_path / "a", "sweep", {}, manifest="s.csv.run.json", targets=[csv, png])
    for p in (csv, png):
        p.write_text(p.name)
        run.add(p)
    run.finish()
    assert json.loads((tmp_path / "a" / "s.csv.run.json").read_text())["files"][1]["name"] \
        == str(png.resolve())
    Run(tmp_path / "a", "sweep", {}, manifest="s.csv.run.json", targets=[csv, png],
        force=True).finish()
    assert png.exists() and not csv.exists()            # the outside one is replaced later
    png.write_text("edited")
    with pytest.raises(OutputError, match="s.png"):
        Run(tmp_path / "a", "sweep", {}, manifest="s.csv.run.json", targets=[csv, png],
            force=True)


@contextlib.contextmanager
def folder_held(folder, command):
    """Another process holding a run in ``folder`` (its manifest says
    ``command``) for the block; yields its pid, kills it afterwards."""
    code = textwrap.dedent(f"""
        import time
        from flexpkm.io.run_files import Run
        run = Run({str(folder)!r}, {command!r}, {{}})
        print("ready", flush=True)
        time.sleep(60)
    """)
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "ready"
        yield p.pid
    finally:
        p.kill()
        p.wait()


def test_a_second_process_is_refused_naming_the_first(tmp_path):
    """Two processes, one folder: the second run exits with an error naming
    the first's pid, start time and command; once the first has ended the
    folder can be used."""
    with folder_held(tmp_path, "flexpkm simulate first") as pid:
        with pytest.raises(OutputError, match=rf"being written by another run \(pid {pid}, "
                                              r"started 20.*: flexpkm simulate first\)"):
            Run(tmp_path, "flexpkm simulate second", {})
    run = Run(tmp_path, "flexpkm simulate third", {})       # the killed run's lock is gone
    run.finish()
    assert json.loads((tmp_path / "run.json").read_text())["pid"] == os.getpid()


def test_the_same_process_cannot_open_a_folder_twice(tmp_path):
    first = Run(tmp_path, "one", {})
    with pytest.raises(OutputError, match=f"pid {os.getpid()}"):
        Run(tmp_path, "two", {})
    first.finish()
    Run(tmp_path, "three", {}).finish()


def test_a_full_disk_still_marks_the_manifest_failed(tmp_path, monkeypatch):
    """No room for a temporary file: the manifest is rewritten in place."""
    import errno

    import flexpkm.io.run_files as rf
    run = finished_run(tmp_path, {"a.csv": "1"}) and Run(tmp_path, "x", {}, force=True)
    (tmp_path / "b.csv").write_text("2")
    run.add(tmp_path / "b.csv")

    def full(path):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(rf, "atomic_write", full)
    run.fail(OSError(errno.ENOSPC, "No space left on device"))
    data = json.loads((tmp_path / "run.json").read_text())
    assert data["status"] == "failed" and [f["name"] for f in data["files"]] == ["b.csv"]
    assert not any(p.name.startswith(".part-") for p in tmp_path.iterdir())


#: Python code that makes the HDF5 bytes of flexpkm.io.xdmf go to a disk
#: with ``left`` bytes free (ENOSPC after them), for a child process
FULL_DISK = textwrap.dedent("""
    import errno
    import flexpkm.io.xdmf as xdmf

    class Full:
        def __init__(self, f):
            self.f, self.left = f, {left}
        def write(self, b):
            if len(b) > self.left:
                raise OSError(errno.ENOSPC, "No space left on device")
            self.left -= len(b)
            return self.f.write(b)
        def __getattr__(self, name):
            return getattr(self.f, name)

    xdmf.open = lambda *a, **k: Full(open(*a, **k))
""")


def test_a_full_disk_while_the_hdf5_data_is_written_is_one_oserror(tmp_path):
    """ENOSPC from the HDF5 file's writes (after 200 kB): XdmfSeries raises
    that OSError, closes cleanly and leaves nothing (HDF5 crashed the
    process when it saw the failed write). In a child process: a crash
    would end it, not the test session."""
    code = FULL_DISK.format(left=200_000) + textwrap.dedent(f"""
        import os
        import numpy as np
        try:
            with xdmf.XdmfSeries({str(tmp_path / 's.xdmf')!r}, np.zeros((800, 3)),
                                 np.arange(800).reshape(100, 8)) as s:
                for k in range(100):
                    s.write(0.01 * k, {{"displacement": np.ones((800, 3))}})
        except OSError as e:
            print(e.errno == errno.ENOSPC, k, sorted(os.listdir({str(tmp_path)!r})))
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stderr == "", r.stderr[-2000:]
    ok, k, left = r.stdout.split(" ", 2)
    assert ok == "True" and 0 < int(k) < 99 and left.strip() == "[]"
