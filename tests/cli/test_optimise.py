"""``flexpkm optimise`` (issue 21 item 3): the five-bar's two tied sections at
equal mass (the optimum at a vertex of the bounds: the proximal side up, the
distal side down, as the signs of df1/db say), one-line refusals."""
from pathlib import Path

import pytest

from flexpkm import cases
from flexpkm.cli.app import main

pytest.importorskip("casadi")
FIVE_BAR = str(Path(cases.__file__).parent / "examples" / "five_bar.toml")
OPT = """poses = [[0.1, 0.35], [0.05, 0.4], [0.15, 0.3]]
equal_mass = true
[[parameters]]
paths = ["legs[0].frames[0].bodies[0].section.b_y", "legs[1].frames[0].bodies[0].section.b_y"]
low = 0.003
high = 0.008
[[parameters]]
paths = ["legs[0].frames[1].bodies[1].section.b_y", "legs[1].frames[1].bodies[1].section.b_y"]
low = 0.003
high = 0.008
"""


def test_optimise_prints_the_optimum(tmp_path, capsys):
    (tmp_path / "opt.toml").write_text(OPT, encoding="utf-8")
    status = main(["optimise", FIVE_BAR, str(tmp_path / "opt.toml")])
    out, err = capsys.readouterr()
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("worst f1 7.26395 -> 13.5466 Hz") and "mass 1.804 -> 1.804" in out
    # equal mass: b_prox + b_dist = 10 mm, the distal side at its lower bound
    assert "section.b_y = 0.007 (was 0.005)" in lines[1] and "= 0.003 (was 0.005)" in lines[2]
    assert float(lines[3].split()[-1]) < 1e-6
    assert list(tmp_path.iterdir()) == [tmp_path / "opt.toml"]     # nothing written


@pytest.mark.parametrize("text, message", [
    ("poses = [[0.1, 0.35]]\n", "[[parameters]]"),
    ("mass_limit = 2.0\n" + OPT, "not both"),
    (OPT.replace("legs[0].frames[0]", "legs[0].frames[7]"), "no such key path"),
])
def test_optimise_refusals_are_one_line(text, message, tmp_path, capsys):
    (tmp_path / "opt.toml").write_text(text, encoding="utf-8")
    status = main(["optimise", FIVE_BAR, str(tmp_path / "opt.toml")])
    err = capsys.readouterr().err
    assert status == 2 and message in err and len(err.strip().splitlines()) == 1, err


FRONT = "poses = [[0.15, 0.3]]\n" + OPT[OPT.index("[[parameters]]"):]   # one pose, no mass limit


def test_optimise_front_writes_the_table_in_the_folder(tmp_path, capsys):
    (tmp_path / "opt.toml").write_text(FRONT, encoding="utf-8")
    status = main(["optimise", FIVE_BAR, str(tmp_path / "opt.toml"), "--front", "3",
                   "--out", str(tmp_path / "front"), "--no-plot"])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "epsilon: 3 designs" in out
    names = sorted(p.name for p in (tmp_path / "front").iterdir())
    assert "front.csv" in names and "front.json" in names and "front.png" not in names
    rows = (tmp_path / "front" / "front.csv").read_text(encoding="utf-8").splitlines()
    assert rows[0].startswith("method,min_f1,mass,") and len(rows) == 4


@pytest.mark.parametrize("extra, text, message", [
    ([], FRONT, "--out"),
    (["--out", "x"], "equal_mass = true\n" + FRONT, "equal_mass"),
    (["--out", "x"], FRONT + "[front]\nmethod = 'genetic'\n", "front method"),
])
def test_optimise_front_refusals_are_one_line(extra, text, message, tmp_path, capsys,
                                              monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "opt.toml").write_text(text, encoding="utf-8")
    status = main(["optimise", FIVE_BAR, "opt.toml", "--front", "3"] + extra)
    err = capsys.readouterr().err
    assert status == 2 and message in err and len(err.strip().splitlines()) == 1, err
