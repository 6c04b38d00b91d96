"""``flexpkm simulate``'s converged steps (issue 16 item 4): the summary and
the run manifest give the largest Newton residual and the retried steps; a
run whose steps do not converge prints one line, exits 2 and keeps the
samples computed so far; Newton's options are checked before anything is
written."""
import json
from pathlib import Path

import numpy as np
import pytest

import flexpkm as fp
from flexpkm.cli.app import main

FIVE_BAR = str(Path(fp.cases.__file__).parent / "examples" / "five_bar.toml")
MOVE = ["simulate", FIVE_BAR, "--to", "2.3", "1.6", "--duration", "0.02", "--no-xdmf",
        "--no-progress"]


def test_summary_and_manifest_report_the_newton_residual(tmp_path, capsys):
    assert main(MOVE + ["--t-end", "0.01", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("largest Newton residual"))
    residual = float(line.split()[3])
    assert 0 < residual <= 1e-6 and "0 steps retried" in line
    run = json.loads((tmp_path / "run.json").read_text())
    assert run["status"] == "completed" and run["retried_steps"] == 0
    assert run["newton_residual_max"] == pytest.approx(residual, rel=0.01)


def test_steps_that_do_not_converge_stop_with_one_line_and_keep_the_samples(tmp_path, capsys):
    """One Newton iteration cannot reach 1e-9: each halving fails too (the
    4 steps of 0.25 ms of the first sample, then 8 of h/2, ... 64 of h/16)."""
    assert main(MOVE + ["--t-end", "0.01", "--iterations", "1", "--tol", "1e-9",
                        "--out", str(tmp_path)]) == 3                # a numerical refusal
    err = capsys.readouterr().err.strip()
    assert err.startswith("flexpkm: error: the time step does not converge at t = ")
    assert "\n" not in err and "> tol = 1e-09" in err and str(tmp_path) in err
    run = json.loads((tmp_path / "run.json").read_text())
    assert run["status"] == "failed" and run["retried_steps"] == 4 * (1 + 2 + 4 + 8 + 16)
    assert {f["name"] for f in run["files"]} >= {"simulation.npz", "simulation.csv"}
    d = np.load(tmp_path / "simulation.npz")
    assert d["t"].tolist() == [0.0] and run["samples"] == 1


@pytest.mark.parametrize("option", [["--tol", "1"], ["--tol", "0"], ["--iterations", "0"],
                                    ["--iterations", "101"], ["--iterations", "2.5"]])
def test_bad_newton_options_are_refused_before_anything_is_written(tmp_path, capsys, option):
    out = tmp_path / "out"
    assert main(MOVE + option + ["--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("flexpkm: error:") and "\n" not in err and "Traceback" not in err
    assert not out.exists()


def test_simulate_wrench_and_energies(tmp_path, capsys):
    """Issue 20: ``--wrench`` on a file's robot (numpy backend) deflects the
    robot statically held by its actuators; the npz has the energies; the
    compiled backend refuses the wrench in one line."""
    hold = ["simulate", FIVE_BAR, "--to", "1.9", "1.2", "--duration", "0.01", "--t-end", "0.01",
            "--no-xdmf", "--no-progress", "--no-friction"]
    wrench = ["--wrench", "3", "-5", "0", "0", "0", "0"]
    assert main(hold + wrench + ["--out", str(tmp_path / "a")]) == 0
    d = np.load(tmp_path / "a" / "simulation.npz")
    np.testing.assert_allclose(d["kinetic"] + d["elastic_energy"], d["energy"], rtol=1e-12)
    np.testing.assert_allclose(d["total_energy"],
                               d["kinetic"] + d["gravity_energy"] + d["elastic_energy"])
    assert d["elastic_energy"].max() > 0
    # the ground reactions of the samples: the legs sum to the total in the plane
    assert d["ground"].shape == (len(d["t"]), 6)
    np.testing.assert_allclose((d["ground_1"] + d["ground_2"])[:, [0, 1, 5]],
                               d["ground"][:, [0, 1, 5]], atol=1e-9)
    capsys.readouterr()
    assert main(hold + wrench + ["--backend", "compiled", "--out", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err.strip()
    assert "does not take an external wrench" in err and "\n" not in err


def test_simulate_with_elastic_transmissions(tmp_path, capsys):
    """Issue 20 item 4: ``--actuator-stiffness``, ``--motor-inertia`` and
    ``--motor-coulomb`` add the motor coordinates (npz ``q_m``, ``qd_m``;
    csv ``q_M_*``): the prescribed motors follow the law while the joints
    lag by tau / k_a (the motor friction is zero at rest); a free drive
    without rotor inertia and a negative friction are refused in one line
    before anything is written (the compiled backend with motors:
    tests/compiled/test_motors.py)."""
    hold = ["simulate", FIVE_BAR, "--to", "1.9", "1.2", "--duration", "0.002", "--t-end", "0.002",
            "--no-xdmf", "--no-progress", "--no-friction"]
    k = np.array([1e4, 2e4])
    motors = ["--actuator-stiffness", "1e4", "2e4", "--motor-inertia", "1e-4",
              "--motor-coulomb", "0.01"]
    assert main(hold + motors + ["--backend", "numpy", "--out", str(tmp_path / "a")]) == 0
    d = np.load(tmp_path / "a" / "simulation.npz")
    np.testing.assert_allclose(d["q_m"], np.broadcast_to([1.9, 1.2], d["q_m"].shape), atol=1e-12)
    stretch = d["q_m"] - d["q_a"]
    np.testing.assert_allclose(d["tau"], k * stretch, rtol=1e-9, atol=1e-9)   # I_a qdd_M = 0 at rest
    assert np.abs(stretch).min() > 5e-7                    # gravity held by the springs
    assert "q_M_q11 [rad]" in (tmp_path / "a" / "simulation.csv").read_text().splitlines()[0]
    for extra, message in ((["--free"], "motor_inertia must be > 0"),
                           (["--motor-coulomb", "-1", "--motor-inertia", "1e-4"],
                            "motor_coulomb must be")):
        capsys.readouterr()
        out = tmp_path / "b"
        assert main(hold + ["--actuator-stiffness", "1e4"] + extra + ["--out", str(out)]) == 2
        err = capsys.readouterr().err.strip()
        assert message in err and "\n" not in err and not out.exists()
