"""``flexpkm examples DIR``: the shipped description files copied from the
installed package into DIR, byte for byte, refusing to overwrite; the copies
run as description files from any folder."""
import pytest

from flexpkm import cases
from flexpkm.cli.app import main


def test_copies_every_shipped_file_and_nothing_else(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["examples", "robots"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["robots"]
    assert sorted(p.name for p in (tmp_path / "robots").iterdir()) == \
        sorted(f"{n}.toml" for n in cases.CASES)
    for name in cases.CASES:
        assert (tmp_path / "robots" / f"{name}.toml").read_bytes() == cases.file_of(name).read_bytes()
    assert capsys.readouterr().out.count("wrote ") == len(cases.CASES)
    assert main(["check", "robots/five_bar.toml"]) == 0
    assert "checked: the description file robots/five_bar.toml" in capsys.readouterr().out


def test_refuses_to_overwrite_without_force(tmp_path, capsys):
    mine = tmp_path / "navaro.toml"
    mine.write_text("# my own navaro\n")
    assert main(["examples", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "navaro.toml" in err[0] and "--force" in err[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["navaro.toml"]    # nothing written
    assert mine.read_text() == "# my own navaro\n"
    assert main(["examples", str(tmp_path), "--force"]) == 0
    assert mine.read_bytes() == cases.file_of("navaro").read_bytes()


@pytest.mark.parametrize("target", ["missing/robots", "a_file"])
def test_bad_folder_is_refused(tmp_path, target, capsys):
    (tmp_path / "a_file").write_text("x")
    assert main(["examples", str(tmp_path / target)]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file"]
