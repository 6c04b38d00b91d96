"""The cache of compiled models (flexpkm.compiled.cache): a key that covers
every source file (checked on a modified COPY of the package), the compiler
and its flags; the trust of the folder; the hash record; the bound (least
recently used) and the clean-up of flexpkm's own files only."""
import os
import shutil
import stat
import time

import pytest

import flexpkm as fp
from flexpkm.cases import dualemps
from flexpkm.compiled import cache, codegen
from flexpkm.errors import InvalidArgumentError


@pytest.fixture(scope="module")
def package_copy(tmp_path_factory):
    """A copy of the installed package's source folders ``{package: folder}``."""
    root = tmp_path_factory.mktemp("copy")
    roots = {}
    for pkg, folder in cache.package_sources().items():
        roots[pkg] = root / pkg
        shutil.copytree(folder, roots[pkg], ignore=shutil.ignore_patterns("__pycache__"))
    return roots


def edited(roots, tmp_path, pkg, relative):
    """A copy of ``roots`` where one line of ``pkg/relative`` is changed."""
    new = {}
    for name, folder in roots.items():
        new[name] = tmp_path / name
        shutil.copytree(folder, new[name])
    path = new[pkg] / relative
    lines = path.read_text().splitlines(keepends=True)
    k = next(i for i, line in enumerate(lines) if line.strip() and not line.startswith("#")
             and "=" in line)
    lines[k] = lines[k].rstrip("\n") + "  # one changed line\n"
    path.write_text("".join(lines))
    return new


def test_the_package_sources_are_the_three_installed_folders():
    roots = cache.package_sources()
    assert set(roots) == {"flexpkm", "flexpkm.elements", "flexpkm.cases"}
    assert (roots["flexpkm.elements"] / "beam.py").exists()
    assert (roots["flexpkm"] / "spatial.py").exists()


def test_a_copy_hashes_as_the_package(package_copy):
    assert cache.tree_digest(package_copy) == cache.source_digest()


@pytest.mark.parametrize("pkg, relative", [("flexpkm.elements", "beam.py"),
                                           ("flexpkm", "spatial.py"),
                                           ("flexpkm", "algorithms/tree.py"),
                                           ("flexpkm", "compiled/symbolic.py"),
                                           ("flexpkm.cases", "dualemps.py")])
def test_one_changed_line_gives_a_new_key(package_copy, tmp_path, pkg, relative):
    model = fp.build_model(dualemps.robot())
    before = codegen.description_key(model, "x", sources=package_copy)
    after = codegen.description_key(model, "x", sources=edited(package_copy, tmp_path, pkg,
                                                                relative))
    assert before == codegen.description_key(model, "x")     # the copy is the package
    assert before != after


def test_a_moved_file_gives_a_new_key(package_copy, tmp_path):
    new = edited(package_copy, tmp_path, "flexpkm", "spatial.py")
    (new["flexpkm"] / "spatial.py").write_bytes((package_copy["flexpkm"] / "spatial.py")
                                                .read_bytes())
    assert cache.tree_digest(new) == cache.tree_digest(package_copy)
    (new["flexpkm"] / "spatial.py").rename(new["flexpkm"] / "io" / "spatial.py")
    assert cache.tree_digest(new) != cache.tree_digest(package_copy)


def test_the_key_covers_the_compiler_and_its_flags(tmp_path):
    cc = shutil.which("cc") or pytest.skip("no C compiler")
    other = tmp_path / "cc"
    other.write_text("#!/bin/sh\necho 'othercc 1.0'\n")
    other.chmod(0o755)
    key = cache.library_key("k", cc, ("-O1", "-fPIC"))
    assert key == cache.library_key("k", cc, ("-O1", "-fPIC"))
    assert key != cache.library_key("k", cc, ("-O0", "-fPIC"))
    assert key != cache.library_key("k", str(other), ("-O1", "-fPIC"))
    assert key != cache.library_key("j", cc, ("-O1", "-fPIC"))
    assert "othercc 1.0" in cache.compiler_identity(str(other))


def test_the_folder_is_created_private(monkeypatch, tmp_path):
    monkeypatch.setenv("FLEXPKM_CACHE", str(tmp_path / "a" / "cache"))
    folder, problem = cache.private_folder()
    assert problem is None and folder == tmp_path / "a" / "cache"
    assert stat.S_IMODE(folder.stat().st_mode) & 0o077 == 0


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o757])
def test_a_folder_others_can_write_is_not_used(monkeypatch, tmp_path, mode):
    (tmp_path / "c").mkdir()
    (tmp_path / "c").chmod(mode)
    monkeypatch.setenv("FLEXPKM_CACHE", str(tmp_path / "c"))
    folder, problem = cache.private_folder()
    assert folder is None and "writable by others" in problem and f"{mode:04o}" in problem


def test_a_folder_of_another_user_is_not_used(monkeypatch, tmp_path):
    monkeypatch.setattr(os, "geteuid", lambda: os.stat(tmp_path).st_uid + 1)
    assert "belongs to another user" in cache.folder_problem(tmp_path)


def test_a_cache_path_that_cannot_be_a_folder(monkeypatch, tmp_path):
    (tmp_path / "file").write_text("x")
    monkeypatch.setenv("FLEXPKM_CACHE", str(tmp_path / "file" / "cache"))
    folder, problem = cache.private_folder()
    assert folder is None and "cannot write the cache" in problem


def library(folder, name="f", body=b"\x7fELF" + bytes(range(256)) * 40):
    lib = folder / f"{name}_{'0' * 24}.so"
    lib.write_bytes(body)
    cache.write_record(lib, cache.file_sha256(lib))
    return lib


def test_verify_accepts_only_the_recorded_bytes(tmp_path):
    lib = library(tmp_path)
    assert cache.verify(lib) is None
    body = lib.read_bytes()
    lib.write_bytes(body[:1000])
    assert "truncated" in cache.verify(lib)
    lib.write_bytes(body[:-1] + b"x")                       # same size, other bytes
    assert "does not match the hash" in cache.verify(lib)
    cache.record_path(lib).unlink()
    assert "no record" in cache.verify(lib)
    cache.record_path(lib).write_bytes(b"\xff\xfe garbage")
    assert "unreadable record" in cache.verify(lib)
    assert cache.verify(tmp_path / "absent.so") == "missing"
    lib.unlink()
    lib.symlink_to(tmp_path / "elsewhere.so")
    assert "not a regular file" in cache.verify(lib)


def test_eviction_keeps_the_most_recently_used_within_the_bound(monkeypatch, tmp_path):
    libs = [library(tmp_path, name=f"f{i}") for i in range(5)]
    size = cache._size(libs[0])
    now = time.time()
    for i, lib in enumerate(libs):
        os.utime(lib, (now - 100 + i, now - 100 + i))
    cache.touch(libs[0])                                    # just used: the newest
    (tmp_path / "mine.txt").write_text("not flexpkm's")
    old_build = tmp_path / f"{cache.BUILD_PREFIX}old"
    new_build = tmp_path / f"{cache.BUILD_PREFIX}new"
    for d in (old_build, new_build):
        d.mkdir()
    os.utime(old_build, (now - 1e5, now - 1e5))
    monkeypatch.setenv("FLEXPKM_CACHE_MAX_MB", str(2.5 * size / 1e6))
    cache.evict(tmp_path, keep=libs[1])
    assert [lib.exists() for lib in libs] == [True, True, False, False, False]
    assert not any(cache.record_path(lib).exists() for lib in libs[2:])
    assert (tmp_path / "mine.txt").exists() and new_build.exists() and not old_build.exists()
    monkeypatch.setenv("FLEXPKM_CACHE_MAX_MB", "0")
    cache.evict(tmp_path, keep=libs[1])
    assert [lib.exists() for lib in libs[:2]] == [False, True]


def test_clear_removes_only_flexpkm_files(tmp_path):
    libs = [library(tmp_path, name=f"f{i}") for i in range(3)]
    (tmp_path / f"{cache.BUILD_PREFIX}x").mkdir()
    (tmp_path / f"g_{'1' * 24}.so.sha256").write_text("orphan")
    keep = [tmp_path / "notes.txt", tmp_path / "other.so", tmp_path / f"h_{'2' * 24}.so.bak"]
    for p in keep:
        p.write_text("user's")
    expected = sum(cache._size(lib) for lib in libs) + len("orphan")
    assert cache.clear(tmp_path) == (3, expected)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in keep)
    assert cache.clear(tmp_path / "absent") == (0, 0)


@pytest.mark.parametrize("name, value", [("FLEXPKM_CACHE_MAX_MB", "-1"),
                                         ("FLEXPKM_CACHE_MAX_MB", "lots"),
                                         ("FLEXPKM_CC_TIMEOUT", "0"),
                                         ("FLEXPKM_CC_TIMEOUT", "nan"),
                                         ("FLEXPKM_CC_TIMEOUT", "inf")])
def test_bad_settings_are_refused_naming_the_variable(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    with pytest.raises(InvalidArgumentError, match=name):
        cache.max_bytes() if name.endswith("MB") else cache.compile_timeout()


def test_settings_defaults(monkeypatch):
    monkeypatch.delenv("FLEXPKM_CACHE_MAX_MB", raising=False)
    monkeypatch.delenv("FLEXPKM_CC_TIMEOUT", raising=False)
    assert cache.max_bytes() == int(cache.DEFAULT_MAX_MB * 1e6)
    assert cache.compile_timeout() == cache.DEFAULT_TIMEOUT
    monkeypatch.setenv("FLEXPKM_CC_TIMEOUT", "2.5")
    assert cache.compile_timeout() == 2.5
