"""``flexpkm assemble`` (flexpkm.cli.assemble): the present assembly, and
with ``--all`` every assembly mode (at ``--q-a``) or working mode (at
``--pose``) of the rigid five-bar, compared with the closed forms of
tests/algorithms/test_all_modes.py written from the book; bad input is one
line on stderr and exit status 2, nothing on stdout."""
import json
from pathlib import Path

import numpy as np
import pytest

import flexpkm as fp
from flexpkm.cli.app import main
from tests.algorithms.test_all_modes import five_bar_fgm, five_bar_igm, wrap

FILE = str(Path(fp.cases.__file__).parent / "rigid_five_bar.toml")


def _json(argv, capsys):
    assert main(argv + ["--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_the_present_assembly_and_its_modes(capsys):
    data = _json(["assemble", FILE], capsys)
    q = data["q_tot"]
    assert (q["x"], q["y"]) == pytest.approx((0.0, 0.25), abs=1e-12)    # the file's held pose
    assert data["modes"] == {"1": -1, "2": 1, "assembly": -1}
    assert main(["assemble", FILE]) == 0
    out = capsys.readouterr().out
    assert out.startswith("five-bar: assembled, loops closed; modes leg 1 -, leg 2 +, assembly -")


def test_all_assembly_modes_at_q_a(capsys):
    data = _json(["assemble", FILE, "--q-a", "1.8", "1.4", "--all"], capsys)
    assert data["problem"] == "forward" and data["count"] == 2 and data["complete"]
    got = np.array([[s["q_tot"]["x"], s["q_tot"]["y"]] for s in data["solutions"]])
    for P in five_bar_fgm(1.8, 1.4):
        assert np.abs(got - P).max(axis=1).min() < 1e-10
    assert main(["assemble", FILE, "--q-a", "1.8", "1.4", "--all"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == ("five-bar at q11 = 1.8, q21 = 1.4: 2 assembly modes from 65 Newton "
                        "starts (complete: the bound is 2)")
    assert lines[1].split() == ["#", "x", "y", "distance", "modes"] and len(lines) == 5


def test_all_working_modes_at_a_pose(capsys):
    data = _json(["assemble", FILE, "--pose", "0.03", "0.22", "--all"], capsys)
    assert data["problem"] == "inverse" and data["count"] == 4 and data["bound"] == 4
    got = np.array([[s["q_tot"][n] for n in ("q11", "q12", "q21", "q22")]
                    for s in data["solutions"]])
    for q in five_bar_igm(np.array([0.03, 0.22])):
        assert np.abs(wrap(got - q)).max(axis=1).min() < 1e-10


@pytest.mark.parametrize("argv, words", [
    (["--q-a", "1.7", "1.2", "--all"], "no real solution at the actuated coordinates"),
    (["--q-a", "1.7"], "expected 2 arguments"),
    (["--pose", "0.0", "0.9", "--all", "--starts", "32"], "no real solution at the pose"),
    (["--all", "--starts", "0"], "not a positive whole number"),
    (["--starts", "8"], "--starts and --bound go with --all"),
])
def test_bad_input_is_one_line_and_exit_2(argv, words, capsys):
    assert main(["assemble", FILE] + argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("flexpkm: error:") and err.count("\n") == 1
    assert words in err


def test_the_tutorials_output_is_the_real_one(capsys, tmp_path, monkeypatch):
    """docs/tutorial.md shows what `flexpkm assemble robots/five_bar.toml
    --q-a 1.9 1.2 --all` prints."""
    import re
    text = (Path(__file__).parents[2] / "docs" / "tutorial.md").read_text()
    cmd, shown = re.search(r"^```bash\n(flexpkm assemble [^\n]*)\n```\n\n```text\n(.*?)^```",
                           text, flags=re.M | re.S).groups()
    monkeypatch.chdir(tmp_path)
    assert main(["examples", "robots"]) == 0
    capsys.readouterr()
    assert main(cmd.split()[1:]) == 0
    assert capsys.readouterr().out == shown
