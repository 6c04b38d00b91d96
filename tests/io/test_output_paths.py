"""Output paths that are not regular files are written into or refused,
never replaced: FIFOs, /dev/null, terminals, links; folders, sockets,
block and other character devices refused."""
import os
import socket
import stat
import threading

import pytest

from flexpkm.errors import OutputError
from flexpkm.io.output_paths import atomic_write, check_output_file, output_kind


def write(path, text):
    with atomic_write(path) as tmp:
        tmp.write_text(text)


def test_a_fifo_is_written_into(tmp_path):
    fifo = tmp_path / "out.csv"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo).read()))
    reader.start()
    write(fifo, "a,b\n1,2\n")
    reader.join(10)
    assert got == ["a,b\n1,2\n"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)              # still the FIFO
    assert os.listdir(tmp_path) == ["out.csv"]                 # no temporary left


def test_dev_null_and_a_link_to_it_stay_what_they_are(tmp_path):
    before = os.lstat(os.devnull)
    link = tmp_path / "null.csv"
    link.symlink_to(os.devnull)
    for path in (os.devnull, link):
        assert output_kind(path) == "stream"
        write(path, "x" * 1000)
        check_output_file(path)
    after = os.lstat(os.devnull)
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (before.st_ino,
                                                                             before.st_rdev)
    assert link.is_symlink() and os.readlink(link) == os.devnull
    assert os.listdir(tmp_path) == ["null.csv"]


def test_a_link_to_a_file_is_written_through(tmp_path):
    target = tmp_path / "data" / "t.csv"
    target.parent.mkdir()
    target.write_text("old")
    link = tmp_path / "l.csv"
    link.symlink_to(target)
    write(link, "new")
    assert link.is_symlink() and target.read_text() == "new"


@pytest.mark.parametrize("kind", ["folder", "socket", "link to a folder", "block device",
                                  "character device"])
def test_other_kinds_are_refused_before_writing(tmp_path, kind):
    path = tmp_path / "out.csv"
    if kind == "folder":
        path.mkdir()
    elif kind == "socket":
        s = socket.socket(socket.AF_UNIX)
        s.bind(str(path))
    elif kind == "link to a folder":
        path.symlink_to(tmp_path)
    else:
        dev = "/dev/loop0" if kind == "block device" else "/dev/zero"
        if not os.path.exists(dev):
            pytest.skip(f"no {dev}")
        path.symlink_to(dev)
    mode = os.lstat(path).st_mode
    with pytest.raises(OutputError, match="is a|folder"):
        write(path, "x")
    with pytest.raises(OutputError):
        check_output_file(path)
    assert os.lstat(path).st_mode == mode
    assert sorted(os.listdir(tmp_path)) == ["out.csv"]


def test_a_planted_temporary_link_is_not_followed(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    (tmp_path / "out").mkdir()
    planted = tmp_path / "out" / f".part-{os.getpid()}-a.csv"
    planted.symlink_to(victim)
    write(tmp_path / "out" / "a.csv", "data")
    assert victim.read_text() == "keep" and (tmp_path / "out" / "a.csv").read_text() == "data"
