"""Compilation and loading (flexpkm.compiled.codegen.compiled) on a small
function (y = 2 x + sin x): a truncated, garbled or foreign cached library,
a library planted in a folder others can write, a full disk, a failing or
hanging compiler and an interrupt each give (at most) one warning line and
the right value, never a crash; build folders never remain."""
import errno
import os
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from flexpkm.compiled import cache, codegen

ca = pytest.importorskip("casadi")
if shutil.which(os.environ.get("FLEXPKM_CC", os.environ.get("CC", "cc")) or "cc") is None:
    pytest.skip("no C compiler", allow_module_level=True)

NAME = "fp_cache_test"
X = 0.7
RIGHT = 2 * X + np.sin(X)


def build(scale=2.0):
    """The function of the tests (``scale`` = 3: a different, 'foreign' one)."""
    x = ca.SX.sym("x")
    return lambda: ca.Function(NAME, [x], [scale * x + ca.sin(x)])


def get(recwarn):
    """compiled() of the test function: (its value at X, the warning lines)."""
    fn = codegen.compiled(build(), NAME, "k" * 24)
    lines = [str(w.message) for w in recwarn]
    recwarn.clear()
    return float(fn(X)), lines


@pytest.fixture
def folder(monkeypatch, tmp_path):
    folder = tmp_path / "cache"
    monkeypatch.setenv("FLEXPKM_CACHE", str(folder))
    monkeypatch.delenv("FLEXPKM_CC", raising=False)
    return folder


def only_library(folder):
    libs = cache.entries(folder).libraries
    assert len(libs) == 1
    return libs[0]


def foreign_library(tmp_path, monkeypatch):
    """The bytes of a valid library of another function (3 x + sin x) built
    under the same name and key in another folder (never loaded from the
    test's folder: a process does not load one path twice)."""
    other = tmp_path / "other"
    monkeypatch.setenv("FLEXPKM_CACHE", str(other))
    fn = codegen.compiled(build(3.0), NAME, "k" * 24)
    assert abs(float(fn(X)) - (3 * X + np.sin(X))) < 1e-15
    monkeypatch.setenv("FLEXPKM_CACHE", str(tmp_path / "cache"))
    lib = only_library(other)
    return lib.name, lib.read_bytes()


def no_build_folders(*folders):
    import tempfile
    for f in (*folders, tempfile.gettempdir()):
        if os.path.isdir(f):
            assert not [n for n in os.listdir(f) if n.startswith(cache.BUILD_PREFIX)
                        and os.stat(os.path.join(f, n)).st_uid == os.geteuid()
                        and os.stat(os.path.join(f, n)).st_mtime > START]


START = time.time()


def test_built_once_then_loaded_after_checking_its_hash(folder, recwarn, monkeypatch):
    assert get(recwarn) == (pytest.approx(RIGHT, abs=1e-15), [])
    lib = only_library(folder)
    assert cache.verify(lib) is None
    assert stat_mode(folder) == 0o700
    monkeypatch.setattr(codegen, "_build", lambda *a: pytest.fail("compiled again"))
    assert get(recwarn) == (pytest.approx(RIGHT, abs=1e-15), [])


def test_a_build_is_announced_on_a_terminal_only(folder, recwarn, monkeypatch):
    """``compiling <name> (<n> C lines, -O1) ... done in <t> s`` on a
    terminal's stderr; nothing on a captured one, nothing when loaded."""
    import io
    import re

    class Terminal(io.StringIO):
        def isatty(self):
            return True
    tty = Terminal()
    monkeypatch.setattr(sys, "stderr", tty)
    assert get(recwarn)[0] == pytest.approx(RIGHT, abs=1e-15)
    assert re.fullmatch(rf"compiling {NAME} \(\d+ C lines, -O1\) \.\.\. done in \d+\.\d s\n",
                        tty.getvalue()), tty.getvalue()
    get(recwarn)                                           # loaded: no build, no line
    assert tty.getvalue().count("compiling") == 1
    plain = io.StringIO()
    monkeypatch.setattr(sys, "stderr", plain)
    codegen.compiled(build(3.0), NAME, "j" * 24)
    assert plain.getvalue() == ""


def stat_mode(path):
    return os.stat(path).st_mode & 0o777


@pytest.mark.parametrize("damage", ["truncated", "garbage", "same size", "no record",
                                    "foreign, no record", "foreign with a forged size"])
def test_a_damaged_or_foreign_library_is_rebuilt(folder, recwarn, monkeypatch, tmp_path, damage):
    foreign_name, foreign = foreign_library(tmp_path, monkeypatch)
    get(recwarn)
    lib = only_library(folder)
    assert lib.name == foreign_name                  # same name: only the bytes tell them apart
    body = lib.read_bytes()
    rec = cache.record_path(lib)
    if damage == "truncated":
        lib.write_bytes(body[:len(body) // 3])
    elif damage == "garbage":
        lib.write_bytes(os.urandom(5000))
    elif damage == "same size":
        lib.write_bytes(body[:4000] + bytes(len(body) - 4000))
    elif damage == "no record":
        rec.unlink()
    elif damage == "foreign, no record":
        rec.unlink()
        lib.write_bytes(foreign)
    else:                                            # a record of the right size, another hash
        lib.write_bytes(foreign)
        rec.write_text(f"{'0' * 64} {len(foreign)}\n")
    value, lines = get(recwarn)
    assert value == pytest.approx(RIGHT, abs=1e-15)
    assert len(lines) == 1 and "rebuilt" in lines[0] and "\n" not in lines[0], lines
    assert cache.verify(only_library(folder)) is None
    assert get(recwarn) == (pytest.approx(RIGHT, abs=1e-15), [])     # healed


def test_a_recorded_library_that_does_not_load_is_rebuilt(folder, recwarn):
    get(recwarn)
    lib = only_library(folder)
    lib.write_bytes(b"not an ELF file" * 100)        # a record that matches it
    cache.write_record(lib, cache.file_sha256(lib))
    value, lines = get(recwarn)
    assert value == pytest.approx(RIGHT, abs=1e-15)
    assert len(lines) == 1 and "could not be loaded: rebuilt" in lines[0], lines
    assert cache.verify(only_library(folder)) is None


@pytest.mark.parametrize("mode", [0o777, 0o1777, 0o775])
def test_a_library_planted_where_others_can_write_is_not_loaded(folder, recwarn, monkeypatch,
                                                                   tmp_path, mode):
    name, foreign = foreign_library(tmp_path, monkeypatch)
    folder.mkdir()
    (folder / name).write_bytes(foreign)             # planted, with a matching record
    cache.write_record(folder / name, cache.file_sha256(folder / name))
    folder.chmod(mode)
    value, lines = get(recwarn)
    assert value == pytest.approx(RIGHT, abs=1e-15)
    assert len(lines) == 1 and "writable by others" in lines[0], lines
    assert (folder / name).read_bytes() == foreign   # nothing written there either
    assert sorted(p.name for p in folder.iterdir()) == sorted([name, name + ".sha256"])
    no_build_folders(folder)


def enospc(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize("where", ["write_source", "write_record", "run"])
def test_a_full_disk_falls_back_to_the_virtual_machine(folder, recwarn, monkeypatch, where):
    if where == "write_source":
        monkeypatch.setattr(codegen, "write_source", enospc)
    elif where == "write_record":
        monkeypatch.setattr(cache, "write_record", enospc)
    else:                                            # the compiler's own write fails
        monkeypatch.setattr(codegen.subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(
            a, 1, "", "f.so: No space left on device\ncollect2: error: ld returned 1"))
    fn = codegen.compiled(build(), NAME, "k" * 24)
    lines = [str(w.message) for w in recwarn]
    assert fn.class_name() == "SXFunction"           # CasADi's virtual machine
    assert float(fn(X)) == pytest.approx(RIGHT, abs=1e-15)
    assert len(lines) == 1 and "virtual machine" in lines[0], lines
    assert ("No space left on device" in lines[0]) or ("ld returned 1" in lines[0])
    assert cache.entries(folder).libraries == ()     # no library without its record
    no_build_folders(folder)


@pytest.mark.parametrize("size", ["4k", "12k"])
def test_a_really_full_disk(folder, recwarn, tmp_path, size):
    """A tiny tmpfs as the cache (root only; skipped where mounting is not
    allowed): 4 kB fails writing the C source, 12 kB the linker's output."""
    folder.mkdir()
    mount = ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(folder)]
    if os.geteuid() != 0 or subprocess.run(mount, capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        fn = codegen.compiled(build(), NAME, "k" * 24)
        lines = [str(w.message) for w in recwarn]
        assert fn.class_name() == "SXFunction" and float(fn(X)) == pytest.approx(RIGHT, abs=1e-15)
        assert len(lines) == 1 and "virtual machine" in lines[0], lines
        assert "No space left on device" in lines[0]
        assert os.listdir(folder) == []
    finally:
        subprocess.run(["umount", str(folder)], check=True)


def script(tmp_path, body):
    cc = tmp_path / "fakecc"
    cc.write_text(f"#!/bin/sh\nif [ \"$1\" = --version ]; then echo fakecc 1; exit 0; fi\n{body}\n")
    cc.chmod(0o755)
    return str(cc)


def test_a_failing_compiler_falls_back_with_one_line(folder, recwarn, monkeypatch, tmp_path):
    monkeypatch.setenv("FLEXPKM_CC", script(tmp_path, "echo 'f.c:1: error: boom' >&2; exit 1"))
    value, lines = get(recwarn)
    assert value == pytest.approx(RIGHT, abs=1e-15)
    assert len(lines) == 1 and "boom" in lines[0] and "virtual machine" in lines[0], lines
    no_build_folders(folder)


def test_a_hanging_compiler_is_stopped_at_its_time_limit(folder, recwarn, monkeypatch, tmp_path):
    monkeypatch.setenv("FLEXPKM_CC", script(tmp_path, "exec sleep 60"))
    monkeypatch.setenv("FLEXPKM_CC_TIMEOUT", "0.5")
    t0 = time.perf_counter()
    value, lines = get(recwarn)
    assert time.perf_counter() - t0 < 20
    assert value == pytest.approx(RIGHT, abs=1e-15)
    assert len(lines) == 1 and "exceeded 0.5 s" in lines[0] and "FLEXPKM_CC_TIMEOUT" in lines[0]
    no_build_folders(folder)


def test_an_interrupt_during_the_build_removes_its_folder(folder, monkeypatch):
    def interrupted(*args):
        assert [n for n in os.listdir(folder) if n.startswith(cache.BUILD_PREFIX)]
        raise KeyboardInterrupt
    monkeypatch.setattr(codegen, "run_compiler", interrupted)
    with pytest.raises(KeyboardInterrupt):
        codegen.compiled(build(), NAME, "k" * 24)
    assert os.listdir(folder) == []


def test_sigterm_during_the_compiler_removes_the_build_folder(folder, tmp_path):
    """A separate process compiles with a compiler that hangs; SIGTERM ends
    it (as an interrupt, so that the clean-up runs), leaving nothing."""
    code = ("import casadi as ca; from flexpkm.compiled import codegen\n"
            "x = ca.SX.sym('x')\n"
            f"codegen.compiled(lambda: ca.Function('{NAME}', [x], [2 * x]), '{NAME}', 'k' * 24)\n")
    env = dict(os.environ, FLEXPKM_CACHE=str(folder),
               FLEXPKM_CC=script(tmp_path, "touch started; exec sleep 60"))
    proc = subprocess.Popen([sys.executable, "-c", code], env=env, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.time() + 60
    while time.time() < deadline and not any(
            (p / "started").exists() for p in folder.glob(cache.BUILD_PREFIX + "*")):
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    err = proc.communicate(timeout=60)[1]
    assert proc.returncode != 0 and "flexpkm.signals.Stopped: SIGTERM" in err   # a KeyboardInterrupt
    assert os.listdir(folder) == []


def test_functions_compiled_together_share_one_library(folder, recwarn):
    """``names``: two functions in one library, one compiler run; a second
    call loads both from it (no build) with the right values."""
    x = ca.SX.sym("x")

    def pair():
        return ca.Function("fp_one", [x], [2 * x]), ca.Function("fp_two", [x], [ca.sin(x)])
    before = codegen.COMPILE_SECONDS["total"]
    one, two = codegen.compiled(pair, "fp_pair", "p" * 24, names=("fp_one", "fp_two"))
    built = codegen.COMPILE_SECONDS["total"]
    assert built > before and only_library(folder).name.startswith("fp_pair_")
    again = codegen.compiled(pair, "fp_pair", "p" * 24, names=("fp_one", "fp_two"))
    assert codegen.COMPILE_SECONDS["total"] == built
    for f, g in zip((one, two), again):
        assert f.class_name() == g.class_name() == "External"
    assert float(again[0](X)) == 2 * X and abs(float(again[1](X)) - np.sin(X)) < 1e-15
    assert not recwarn.list


def test_large_files_are_compiled_on_the_cores_by_gcc_only(monkeypatch, tmp_path):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    gnu = tmp_path / "gnucc"
    gnu.write_text("#!/bin/sh\necho 'gcc (GCC) 12.2.0'; echo 'Copyright (C) 2022 Free Software "
                   "Foundation, Inc.'\n")
    gnu.chmod(0o755)
    big = codegen.PARALLEL_LINES + 1
    assert codegen.parallel_flags(str(gnu), big) == ["-flto=2", "-flto-partition=balanced"]
    assert codegen.parallel_flags(str(gnu), big - 1) == []                  # small: as before
    assert codegen.parallel_flags(script(tmp_path, "exit 0"), big) == []   # not GCC (clang...)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0}, raising=False)
    assert codegen.parallel_flags(str(gnu), big) == []                      # one core


def test_a_compiler_refusing_the_parallel_flags_builds_without_them(folder, recwarn, monkeypatch,
                                                                    tmp_path):
    real = shutil.which("cc") or shutil.which("gcc")
    calls = tmp_path / "calls"
    monkeypatch.setenv("FLEXPKM_CC", script(
        tmp_path, f"echo \"$@\" >> {calls}\ncase \"$*\" in *-flto*) echo 'lto1: fatal error: "
                  f"no plugin' >&2; exit 1;; esac\nexec {real} \"$@\""))
    monkeypatch.setattr(codegen, "parallel_flags", lambda cc, lines: ["-flto=2"])
    value, lines = get(recwarn)
    assert value == pytest.approx(RIGHT, abs=1e-15) and lines == []         # built, no warning
    argv = calls.read_text().splitlines()
    assert len(argv) == 2 and "-flto=2" in argv[0] and "-flto" not in argv[1]
    only_library(folder)
