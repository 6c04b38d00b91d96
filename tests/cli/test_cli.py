"""The command line: JSON output, one-line errors and exit status 2."""
import json

import numpy as np
import pytest

from flexpkm.cli.app import main


def test_modal_json_has_ascending_frequencies(capsys):
    assert main(["modal", "dualemps", "--json", "--modes", "4"]) == 0
    out = json.loads(capsys.readouterr().out)
    f = out["frequencies_hz"]
    assert len(f) == 4 and f == sorted(f) and abs(f[0] - 14.207) < 0.01


def test_bad_inputs_give_one_line_and_status_2(capsys, tmp_path):
    for argv in (["modal", "dualemps", "--q-a", "0.5", "0"],
                 ["modal", "navaro", "--pose", "0.3", "0", "0"],
                 ["modal", "dualemps", "--actuator-stiffness", "1e6"],
                 ["simulate", "dualemps", "--maneuver", "edge", "--t-end", "-1", "--out", str(tmp_path)],
                 ["simulate", "dualemps", "--maneuver", "edge", "--step", "0", "--out", str(tmp_path)]):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("flexpkm: error:") and "\n" not in err and "Traceback" not in err


def test_simulate_writes_the_outputs(tmp_path, capsys):
    import numpy as np
    assert main(["simulate", "dualemps", "--maneuver", "fast", "--t-end", "0.01", "--out", str(tmp_path)]) == 0
    d = np.load(tmp_path / "simulation.npz")
    assert d["q_a"].shape == (11, 2) and d["tau"].shape == (11, 2) and d["acc_P_y17"].shape == (11,)
    assert list(d["names"])[:2] == ["q11", "q12"] and d["q"].shape == (11, len(d["names"]))
    for name in ("simulation.csv", "simulation.png"):
        assert (tmp_path / name).stat().st_size > 0
    assert not (tmp_path / "simulation.xdmf").exists()     # opt-in (--xdmf, test_outputs.py)


def test_modal_with_elastic_actuators(capsys):
    assert main(["modal", "dualemps", "--json", "--actuator-stiffness", "1e13", "1e13"]) == 0
    f = json.loads(capsys.readouterr().out)["frequencies_hz"]
    assert len(f) == 11 and abs(f[0] - 14.207) < 0.01


def test_options_of_another_case_are_errors(capsys):
    """Each case has its own sub-parser: a NaVARo option given to the DualEMPS
    is refused instead of silently ignored."""
    assert main(["modal", "dualemps", "--pose", "0.3", "0", "0", "--refined"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("flexpkm: error:") and "--refined" in err and "\n" not in err


@pytest.mark.parametrize("argv", [
    ["modal", "dualemps", "--modes", "0"], ["modal", "dualemps", "--modes", "2.7"],
    ["modal", "dualemps", "--modes", "-1"], ["modal", "dualemps", "--q-a", "nan", "0"],
    ["modal", "navaro", "--pose", "inf", "0", "0"], ["modal", "nocase"],
    ["sweep", "dualemps", "--from", "0", "0", "--to", "0", "0.1", "--steps", "1", "--csv", "x.csv"],
    ["simulate", "dualemps", "--maneuver", "edge", "--step", "nan"],
])
def test_invalid_options_give_one_line(capsys, argv):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("flexpkm: error:") and "\n" not in err and "Traceback" not in err


def test_negative_numbers_are_values(capsys):
    assert main(["modal", "dualemps", "--q-a", "-1e-3", "0", "--modes", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["pose"]["q11"] == -1e-3


def test_version(capsys):
    import flexpkm
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"flexpkm {flexpkm.__version__}"


def test_near_zero_stiffness_is_flagged_and_warned(capsys):
    """A nearly free actuator (0.5 N/m against 1.6e8) leaves a motion of
    0.01 Hz: computed, but flagged in the JSON and warned on stderr; at
    50 N/m (measure 100 times larger) no warning."""
    from flexpkm.algorithms.conditioning import NEAR_SINGULAR_MEASURE
    assert main(["modal", "dualemps", "--actuator-stiffness", "0.5", "0.5", "--json"]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["near_singular"] and out["singularity_measure"] < NEAR_SINGULAR_MEASURE
    assert out["frequencies_hz"][0] < 0.1
    assert captured.err.startswith("flexpkm: warning: near-singular") and captured.err.count("\n") == 1
    assert main(["modal", "dualemps", "--actuator-stiffness", "50", "50", "--json"]) == 0
    captured = capsys.readouterr()
    assert not json.loads(captured.out)["near_singular"] and captured.err == ""


def test_the_issue_pose_near_a_type2_singularity_is_flagged(capsys):
    """NaVARo with q_11, q_21, q_31 actuated: a Type 2 singularity at x = y = 0,
    theta = -0.527572 rad. 7e-5 rad away the first frequency is 0.0087 Hz:
    computed, flagged and warned; at the singularity, one error line."""
    argv = ["modal", "navaro", "--actuation", "111", "--modes", "2", "--json", "--pose", "0", "0"]
    # compiled under auto (issue 18): a cold cache adds the one-time compilation's note
    errors = lambda text: "".join(l for l in text.splitlines(True)   # noqa: E731
                                  if not l.startswith("flexpkm: note: the one-time compilation"))
    assert main(argv + ["-0.5275"]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["frequencies_hz"][0] < 0.01 and out["near_singular"]
    assert 1e-11 < out["singularity_measure"] < 1e-10
    assert errors(captured.err).startswith("flexpkm: warning: near-singular")
    assert main(argv + ["-0.5"]) == 0
    captured = capsys.readouterr()
    assert not json.loads(captured.out)["near_singular"] and errors(captured.err) == ""
    assert main(argv + ["-0.527572"]) == 3             # a numerical refusal
    err = errors(capsys.readouterr().err).strip().splitlines()
    assert len(err) == 1 and "Type 2" in err[0] and "pose 0" in err[0]


def test_modal_backends_agree(capsys):
    """``modal --backend compiled`` (generated M_r, K_r) gives the numpy
    frequencies and the same trust indicators."""
    out = {}
    for backend in ("numpy", "compiled"):
        assert main(["modal", "dualemps", "--q-a", "0.05", "0.1", "--json", "--actuator-stiffness",
                     "1e7", "1e7", "--backend", backend]) == 0
        out[backend] = json.loads(capsys.readouterr().out)
    f, g = (np.array(out[b]["frequencies_hz"]) for b in ("numpy", "compiled"))
    assert np.abs(f - g).max() < 1e-10 * f.max()
    assert out["numpy"]["dependent_coordinates"] == out["compiled"]["dependent_coordinates"]
    assert [out[b]["backend"] for b in ("numpy", "compiled")] == ["numpy", "compiled"]
    assert out["numpy"]["backend_reason"] == out["compiled"]["backend_reason"] == "asked"


def test_backend_refusals_are_one_line(capsys, monkeypatch, tmp_path):
    """``--backend compiled`` that cannot run: one line naming the analysis
    and the reason, exit 2, nothing written; ``auto`` says it chose numpy."""
    monkeypatch.setenv("FLEXPKM_CC", "")
    for argv, why in ((["modal", "dualemps", "--backend", "compiled"], "no C compiler"),
                      (["idm", "rigid_five_bar", "--from", "0", "0.22", "--to", "0.05", "0.28",
                        "--duration", "0.5", "--out", str(tmp_path / "idm"), "--backend",
                        "compiled"], "no compiled path")):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("flexpkm: error:") and "\n" not in err and why in err
        assert "backend='compiled' cannot run" in err
    assert not (tmp_path / "idm").exists()
    assert main(["modal", "dualemps", "--modes", "2"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.endswith("backend: numpy (auto: no C compiler found ($FLEXPKM_CC, $CC or cc))")


def test_the_manifest_records_the_backend(capsys, tmp_path):
    csv = tmp_path / "s.csv"
    assert main(["sweep", "dualemps", "--from", "0", "0", "--to", "0.1", "0", "--steps", "3",
                 "--csv", str(csv), "--backend", "numpy", "--no-progress"]) == 0
    assert "backend: numpy (asked)" in capsys.readouterr().out
    run = json.loads((tmp_path / "s.csv.run.json").read_text())
    assert (run["backend"], run["backend_reason"]) == ("numpy", "asked")


def test_no_compilation_note_without_a_build(monkeypatch, capsys):
    """A child process that ran during the block (not a build: no timed
    function spent time) gives no "one-time compilation" note and 0 s
    subtracted; a build of 0.2 s gives the note and its time."""
    from flexpkm import stopwatch
    from flexpkm.cli import common
    clock = iter([0.0, 1.0, 1.0, 2.0, 2.0])
    monkeypatch.setattr(common, "children_seconds", lambda: next(clock, 2.0))
    with common.compilation_timer("X") as built:
        pass
    assert built["seconds"] == 0.0 and "one-time" not in capsys.readouterr().err
    times = iter([10.0, 10.2])
    monkeypatch.setattr(stopwatch.time, "perf_counter", lambda: next(times, 10.2))
    with common.compilation_timer("X") as built:
        stopwatch.timed(lambda: None)()
    assert abs(built["seconds"] - 0.2) < 1e-12
    assert "X's models took 0.2 s" in capsys.readouterr().err
