"""The command line on description files (issue 9 item 7): a file gives the
results of the shipped case it describes, ``--elements`` refines, ``check``
counts the coordinates, ``simulate`` prescribes the actuators, errors are
one line with exit status 2."""
import json
import re
from pathlib import Path

import numpy as np
import pytest

import flexpkm as fp
from flexpkm.cli.app import main

CASES = Path(fp.cases.__file__).parent


def _json(argv, capsys):
    assert main(argv) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_dualemps_file_gives_the_case_results(capsys):
    for q_a in (["0", "0"], ["0.1", "0.05"]):
        f_case = _json(["modal", "dualemps", "--q-a", *q_a, "--json"], capsys)["frequencies_hz"]
        f_file = _json(["modal", str(CASES / "dualemps.toml"), "--q-a", *q_a, "--json"],
                       capsys)["frequencies_hz"]
        np.testing.assert_allclose(f_file, f_case, rtol=1e-10)


def test_navaro_file_at_a_pose_gives_the_case_results(capsys):
    f_case = _json(["modal", "navaro", "--pose", "0.05", "0.02", "-0.3", "--json", "--modes", "10"],
                   capsys)
    f_file = _json(["modal", str(CASES / "navaro.toml"), "--pose", "0.05", "0.02", "0", "0", "0",
                    "-0.3", "--json", "--modes", "10"], capsys)
    np.testing.assert_allclose(f_file["frequencies_hz"], f_case["frequencies_hz"], rtol=1e-10)
    assert f_file["configuration"]["rz"] == pytest.approx(-0.3)


def test_elements_option_is_the_refinement(capsys):
    f_cli = _json(["modal", "dualemps", "--elements", "4", "--json"], capsys)["frequencies_hz"]
    rob = fp.refine(fp.cases.dualemps.robot(), 4)
    f_api = fp.natural_frequencies(rob, fp.cases.dualemps.configuration(rob)).frequencies_hz
    np.testing.assert_allclose(f_cli, f_api, rtol=1e-12)
    assert abs(f_cli[5] - 188.9) < 0.5 and abs(f_cli[0] - 14.18) < 0.01


def test_check_prints_the_counts(capsys):
    assert main(["check", str(CASES / "navaro.toml")]) == 0
    out = capsys.readouterr().out
    assert "elastic 108, platform 6, total 129, constraints 33, actuated 6" in out
    assert "independent, actuators locked 90" in out and "dependent coordinates" in out


def test_check_says_which_platform_coordinates_are_commanded(capsys):
    """Issue 16: the flexible Delta's platform gets rx, ry, rz (dependent);
    the five-bar's point keeps x_P, y_P (no closure fixes its rotation)."""
    assert main(["check", str(CASES / "delta.toml")]) == 0
    out = capsys.readouterr().out
    assert ("platform coordinates: commanded x, y, z (the pose); dependent rx, ry, rz "
            "(solved by the assembly)") in out
    assert "platform 6, total 75, constraints 30" in out
    assert main(["check", str(CASES / "examples" / "five_bar.toml")]) == 0
    out = capsys.readouterr().out
    assert "platform coordinates: commanded x_P, y_P (the pose)\n" in out


def test_simulate_a_file_with_a_csv_trajectory(tmp_path, capsys):
    five_bar = CASES / "examples" / "five_bar.toml"
    csv = tmp_path / "traj.csv"
    t = np.linspace(0, 0.02, 5)
    csv.write_text("t,q11,q21\n" + "".join(f"{a},{1.9 + a},{1.2 - a}\n" for a in t))
    assert main(["simulate", str(five_bar), "--trajectory", str(csv), "--t-end", "0.01",
                 "--out", str(tmp_path / "out"), "--no-xdmf"]) == 0
    d = np.load(tmp_path / "out" / "simulation.npz")
    np.testing.assert_allclose(d["q_a"][:, 0], 1.9 + d["t"], atol=1e-9)   # followed exactly
    assert np.all(np.isfinite(d["tau"]))


@pytest.mark.parametrize("argv, message", [
    (["modal", "missing.toml"], "cannot read the file"),
    (["modal", "CASES/dualemps.toml", "--q-a", "0.1", "0", "--pose", "0.3", "0.8"], "not both"),
    # the NaVARo's file: a refused pose costs 2.4 s CPU there, 15-18 s on the DualEMPS
    (["modal", "CASES/navaro.toml", "--pose", "0.15", "0", "0", "0", "0", "0"], "unreachable"),
    (["modal", "CASES/dualemps.toml", "--navaro-option"], "unrecognized arguments"),
    (["simulate", "CASES/examples/five_bar.toml", "--to", "2.0"], "2 actuated coordinates"),
])
def test_file_errors_are_one_line(argv, message, capsys):
    argv = [a.replace("CASES", str(CASES)) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("flexpkm: error:") and "\n" not in err and message in err


def test_idm_of_the_delta_writes_its_efforts(tmp_path, capsys):
    """Issue 11: ``flexpkm idm delta`` on the rigid Delta along the line of
    the issue; the efforts are those of the case's own entry point."""
    out = tmp_path / "d"
    assert main(["idm", "delta", "--from", "0", "0", "-0.80", "--to", "0.20", "0.10", "-0.95",
                 "--duration", "0.5", "--out", str(out)]) == 0
    d = np.load(out / "idm.npz")
    assert d["t"].shape == (501,) and d["q_a"].shape == d["tau"].shape == (501, 3)
    model = fp.build_model(fp.cases.delta.robot(flexible=False))
    t, q_a, tau = fp.cases.delta.idm_path(model, (0, 0, -0.8), (0.2, 0.1, -0.95), 0.5)
    np.testing.assert_allclose(d["tau"], tau, atol=1e-9 * np.abs(tau).max())
    assert (out / "idm.png").stat().st_size > 10_000


def test_idm_of_a_file_equals_the_case(tmp_path, capsys):
    """The DualV's file, assembled numerically along the path, gives the
    minimum-norm efforts of the case's closed-form geometric model."""
    a, b = tmp_path / "file", tmp_path / "case"
    assert main(["idm", str(CASES / "dualv.toml"), "--from", "0", "0", "0", "--to", "0.05", "0.03",
                 "0", "--duration", "0.3", "--out", str(a)]) == 0
    assert main(["idm", "dualv", "--from", "0", "0", "--to", "0.05", "0.03", "--duration", "0.3",
                 "--out", str(b)]) == 0
    ta, tb = np.load(a / "idm.npz")["tau"], np.load(b / "idm.npz")["tau"]
    np.testing.assert_allclose(ta, tb, atol=1e-9 * np.abs(tb).max())


@pytest.mark.parametrize("file", ["dualemps.toml", "navaro.toml",
                                  "rigid_five_bar.toml", "dualv.toml", "delta.toml",
                                  "examples/five_bar.toml", "examples/three_rrr.toml"])
def test_every_shipped_file_checks(file, capsys):
    """Each shipped description assembles its reference configuration."""
    assert main(["check", str(CASES / file)]) == 0, capsys.readouterr().err
    assert "the description is valid and its configuration assembles" in capsys.readouterr().out


def _stiff_dualemps(tmp_path, k11="1e6", k21="2e6"):
    text = (CASES / "dualemps.toml").read_text()
    for j, k in (("11", k11), ("21", k21)):
        if k is not None:
            text = text.replace(f'j = "{j}"\nsigma = 1\nmu = 1\n',
                                f'j = "{j}"\nsigma = 1\nmu = 1\nactuator_stiffness = {k}\n')
    (tmp_path / "d.toml").write_text(text)
    return str(tmp_path / "d.toml")


def test_actuator_stiffness_of_a_file_is_used_and_overridden(tmp_path, capsys):
    """Issue 16 item 8: the file's actuator_stiffness gives the frequencies of
    --actuator-stiffness with the same values (modal, modes, sweep); the
    option overrides the file."""
    f = _stiff_dualemps(tmp_path)
    ref = _json(["modal", "dualemps", "--actuator-stiffness", "1e6", "2e6", "--json"], capsys)
    got = _json(["modal", f, "--json"], capsys)
    # the file's reference is assembled by Newton (1e-16 rad from the closed
    # form of the case `dualemps`): the frequencies agree to ~1e-11
    np.testing.assert_allclose(got["frequencies_hz"], ref["frequencies_hz"], rtol=1e-10)
    locked = _json(["modal", f, "--json", "--actuator-stiffness", "1e6", "1e6"], capsys)
    other = _json(["modal", "dualemps", "--json", "--actuator-stiffness", "1e6", "1e6"], capsys)
    np.testing.assert_allclose(locked["frequencies_hz"], other["frequencies_hz"], rtol=1e-10)
    assert abs(got["frequencies_hz"][0] - other["frequencies_hz"][0]) > 1e-3
    assert main(["modes", f, "--png", str(tmp_path / "p"), "--modes", "1"]) == 0
    assert f"mode 1: {ref['frequencies_hz'][0]:.3f} Hz" in capsys.readouterr().out
    assert main(["sweep", f, "--from", "0", "0", "--to", "0", "0", "--steps", "2", "--modes", "1",
                 "--csv", str(tmp_path / "s.csv")]) == 0
    capsys.readouterr()
    row = (tmp_path / "s.csv").read_text().splitlines()[1].split(",")
    at_pose = _json(["modal", f, "--pose", "0", "0", "--json", "--actuator-stiffness",
                     "1e6", "2e6"], capsys)
    assert float(row[3]) == pytest.approx(at_pose["frequencies_hz"][0], rel=1e-9)


@pytest.mark.parametrize("k11, k21, message", [
    ("1e6", "-1", r"legs\[1\].frames\[0\].actuator_stiffness: expected a positive stiffness"),
    ("1e6", "0", "expected a positive stiffness"),
    ("1e6", None, r"must be given for each actuated joint \(11, 21\) and no other: missing for 21"),
])
def test_bad_actuator_stiffness_in_a_file(tmp_path, capsys, k11, k21, message):
    f = _stiff_dualemps(tmp_path, k11, k21)
    for argv in (["modal", f], ["modes", f, "--png", str(tmp_path / "p")],
                 ["sweep", f, "--from", "0", "0", "--to", "0.1", "0", "--csv", str(tmp_path / "c")]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and re.search(message, err), err
    assert not (tmp_path / "c").exists() and not (tmp_path / "p").exists()


def test_sensitivities_refuse_a_file_with_elastic_actuators(tmp_path, capsys):
    """--sensitivities are those of the locked robot: not silently so when
    the file makes the actuators elastic."""
    assert main(["modal", _stiff_dualemps(tmp_path), "--sensitivities", "gravity[2]"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the file gives actuator_stiffness" in err, err


def test_actuator_stiffness_of_a_limb_applies_to_each_placement(tmp_path, capsys):
    """The NaVARo file's representative limb: actuator_stiffness on its local
    frames 1 and 2 is that of joints 11, 12, 21, 22, 31, 32 (was ignored)."""
    text = (CASES / "navaro.toml").read_text()
    for j, k in (("1", "3e4"), ("2", "5e4")):
        text = text.replace(f'[[limbs.RL.frames]]\nj = "{j}"\n',
                            f'[[limbs.RL.frames]]\nj = "{j}"\nactuator_stiffness = {k}\n', 1)
    (tmp_path / "n.toml").write_text(text)
    got = _json(["modal", str(tmp_path / "n.toml"), "--json", "--modes", "4"], capsys)
    ref = _json(["modal", str(CASES / "navaro.toml"), "--json", "--modes", "4",
                 "--actuator-stiffness", *["3e4", "5e4"] * 3], capsys)
    locked = _json(["modal", str(CASES / "navaro.toml"), "--json", "--modes", "4"], capsys)
    np.testing.assert_allclose(got["frequencies_hz"], ref["frequencies_hz"], rtol=1e-12)
    assert abs(got["frequencies_hz"][0] / locked["frequencies_hz"][0] - 1) > 1e-3
