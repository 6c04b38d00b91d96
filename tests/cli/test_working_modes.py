"""Working modes on the command line (issue 16 item 2): `modal` and the last
row of a `sweep` at the five-bar's (0.2, 0.45) keep the reference's elbows
(f1 = 14.497 Hz), a refused pose is one line and exit status 2, and `check --pose [--working-modes]` prints a
[reference] table that reproduces the pose's frequencies (compared with the
frequencies at the configuration of the five-bar's geometry, written in
tests/algorithms/test_modes.py)."""
import csv
import json
import re

import numpy as np
import pytest

import flexpkm as fp
from flexpkm.algorithms.modes import mode_signature
from flexpkm.cli.app import main
from tests.algorithms.test_modes import FILE, configuration


def _json(argv, capsys):
    assert main(argv) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_modal_and_the_sweep_keep_the_reference_elbows(tmp_path, capsys):
    f = _json(["modal", str(FILE), "--pose", "0.2", "0.45", "--json"], capsys)["frequencies_hz"]
    assert f[0] == pytest.approx(14.497, abs=5e-4)
    out = tmp_path / "sweep.csv"
    assert main(["sweep", str(FILE), "--from", "0.15", "0.45", "--to", "0.2", "0.45",
                 "--steps", "3", "--csv", str(out)]) == 0
    last = list(csv.DictReader(out.open()))[-1]
    assert last["status"] == "ok"
    assert float(last["f1_hz"]) == pytest.approx(f[0], rel=1e-8)     # CSV: 10 digits


def test_a_pose_out_of_reach_is_one_line_and_exit_2(capsys):
    assert main(["check", str(FILE), "--pose", "0.0", "0.7", "--working-modes", "+", "-"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("flexpkm: error:") and "\n" not in err and "unreachable" in err


def _reference_of(argv, capsys, tmp_path):
    """A copy of the five-bar file with the [reference] table that
    ``check`` prints instead of its own."""
    assert main(argv) == 0
    text = capsys.readouterr().out
    table = text[text.index("[reference]"):]
    new = re.sub(r"\[reference\]\n(.+\n)+?\n", table + "\n", FILE.read_text(), count=1)
    path = tmp_path / "five_bar.toml"
    path.write_text(new)
    return path


@pytest.mark.parametrize("modes", [[], ["+", "-"], ["-", "-"]])
def test_check_prints_a_reference_that_reproduces_the_pose(modes, tmp_path, capsys):
    model = fp.build_model(fp.load_robot(FILE))
    P = np.array([0.2, 0.45])
    extra = ["--working-modes", *modes] if modes else []
    path = _reference_of(["check", str(FILE), "--pose", "0.2", "0.45", *extra], capsys, tmp_path)
    f_ref = _json(["modal", str(path), "--json"], capsys)["frequencies_hz"]
    f_pose = _json(["modal", str(path), "--pose", "0.2", "0.45", "--json"], capsys)["frequencies_hz"]
    # the geometry's configuration in the modes asked for (default: the file's)
    want = tuple({"+": 1, "-": -1}[m] for m in modes)
    q_ref = fp.assemble(model, pose=P)
    for sides in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
        q = configuration(model, P, sides)
        sig = mode_signature(model, q).at(0)
        if (sig["1"], sig["2"]) == (want if modes else
                                    tuple(mode_signature(model, q_ref).at(0)[k] for k in "12")):
            break
    f_geo = fp.natural_frequencies(model, q, shapes=False).frequencies_hz
    np.testing.assert_allclose(f_ref, f_geo[:len(f_ref)], rtol=1e-9)
    np.testing.assert_allclose(f_pose, f_ref, rtol=1e-9)


def _stated(tmp_path, table):
    path = tmp_path / "five_bar_modes.toml"
    path.write_text(FILE.read_text().replace("plane_normal = [0.0, 0.0, 1.0]\n",
                                             f"plane_normal = [0.0, 0.0, 1.0]\n{table}\n"))
    return path


def test_a_file_states_its_working_modes(tmp_path, capsys):
    model = fp.build_model(fp.load_robot(FILE))
    P = np.array([0.2, 0.45])
    ref = mode_signature(model, fp.assemble(model, pose=P)).at(0)
    path = _stated(tmp_path, f'working_modes = {{"1" = "{"+" if ref["1"] < 0 else "-"}"}}')
    assert fp.load_robot(path).working_modes == {"1": -ref["1"]}
    f = _json(["modal", str(path), "--pose", "0.2", "0.45", "--json"], capsys)["frequencies_hz"]
    for sides in ((1, 1), (1, -1), (-1, 1), (-1, -1)):       # the geometry's configuration
        q = configuration(model, P, sides)
        sig = mode_signature(model, q).at(0)
        if (sig["1"], sig["2"]) == (-ref["1"], ref["2"]):
            break
    f_geo = fp.natural_frequencies(model, q, shapes=False).frequencies_hz
    np.testing.assert_allclose(f, f_geo[:len(f)], rtol=1e-9)
    assert fp.loads_robot(fp.dumps_robot(fp.load_robot(path))).working_modes == {"1": -ref["1"]}


@pytest.mark.parametrize("table, message", [('working_modes = {"9" = "+"}', "unknown leg '9'"),
                                            ('working_modes = {"1" = "up"}', "working_modes")])
def test_a_wrong_working_modes_table_is_one_line(table, message, tmp_path, capsys):
    assert main(["check", str(_stated(tmp_path, table))]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and message in err
