"""``flexpkm cache info|clear``: the folder, its trust, entries, size and
bound; clear removes flexpkm's files only; bad settings are one line."""
from flexpkm.cli.app import main
from flexpkm.compiled import cache


def plant(folder, names):
    folder.mkdir(mode=0o700, exist_ok=True)
    for name in names:
        lib = folder / f"{name}_{'a' * 24}.so"
        lib.write_bytes(b"x" * 500_000)
        cache.write_record(lib, cache.file_sha256(lib))


def test_info_shows_folder_entries_size_and_limit(monkeypatch, tmp_path, capsys):
    folder = tmp_path / "c"
    monkeypatch.setenv("FLEXPKM_CACHE", str(folder))
    monkeypatch.setenv("FLEXPKM_CACHE_MAX_MB", "20")
    assert main(["cache", "info"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"folder: {folder} (not created yet)"
    assert out[1] == "entries: 0 libraries, 0.0 MB (limit 20.0 MB, FLEXPKM_CACHE_MAX_MB)"
    plant(folder, ["f", "g"])
    assert main(["cache", "info"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"folder: {folder} (private)"
    assert out[1].startswith("entries: 2 libraries, 1.0 MB (limit 20.0 MB")
    assert out[2].startswith("compiler: ") and "FLEXPKM_CC_TIMEOUT" in out[2]
    folder.chmod(0o777)
    assert main(["cache", "info"]) == 0
    assert "(NOT USED: the cache folder" in capsys.readouterr().out


def test_clear_removes_flexpkm_files_only(monkeypatch, tmp_path, capsys):
    folder = tmp_path / "c"
    monkeypatch.setenv("FLEXPKM_CACHE", str(folder))
    plant(folder, ["f", "g", "h"])
    (folder / "notes.txt").write_text("mine")
    assert main(["cache", "clear"]) == 0
    assert capsys.readouterr().out == f"removed 3 libraries (1.5 MB) from {folder}\n"
    assert [p.name for p in folder.iterdir()] == ["notes.txt"]
    assert main(["cache", "clear"]) == 0
    assert capsys.readouterr().out.startswith("removed 0 libraries (0.0 MB)")


def test_bad_action_and_settings_are_one_line(monkeypatch, capsys):
    assert main(["cache", "purge"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("flexpkm: error:") and err.count("\n") == 1
    monkeypatch.setenv("FLEXPKM_CACHE_MAX_MB", "-3")
    assert main(["cache", "info"]) == 2
    assert capsys.readouterr().err == ("flexpkm: error: FLEXPKM_CACHE_MAX_MB='-3': expected a "
                                       "positive number or 0\n")


def test_cache_warnings_are_one_line_on_stderr(monkeypatch, tmp_path, capsys):
    """A compiled sweep with a cache folder others can write: one warning
    line, the same frequencies as the numpy backend."""
    folder = tmp_path / "c"
    folder.mkdir()
    folder.chmod(0o777)
    monkeypatch.setenv("FLEXPKM_CACHE", str(folder))
    argv = ["sweep", "dualemps", "--from", "0", "0", "--to", "0.1", "0.05", "--steps", "2"]
    assert main(argv + ["--backend", "compiled", "--csv", str(tmp_path / "c.csv")]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err == [f"flexpkm: warning: the cache folder {folder} is writable by others (mode "
                   "0777): not used; the models are compiled in a private temporary folder (set "
                   "FLEXPKM_CACHE to a folder of yours)"]
    assert main(argv + ["--csv", str(tmp_path / "n.csv")]) == 0
    import numpy as np
    c, n = (np.genfromtxt(tmp_path / f, delimiter=",", names=True) for f in ("c.csv", "n.csv"))
    for name in [k for k in c.dtype.names if k.endswith("_hz")]:      # 10 digits printed
        assert np.allclose(c[name], n[name], rtol=1e-9, atol=0), name
    assert list(folder.iterdir()) == []
