"""``flexpkm plan``: the five-bar's crossing of Section 9.4, its files, the
refusal of the unplanned quintic, one-line errors."""
import json

import numpy as np
import pytest

from flexpkm.cli.app import main

BASE = ["plan", "rigid_five_bar", "--from", "0", "0.338", "--to", "0.1", "0.1",
        "--duration", "1.5", "--rate", "200"]


def test_plan_cross_writes_csv_and_json(tmp_path, capsys):
    out = tmp_path / "o"
    assert main(BASE + ["--cross", "--crossing-time", "0.75", "--through", "free", "0.2",
                        "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Type 2 singularity crossed at t = 0.75 s, x_p = 0.0544 0.2000" in text
    table = np.loadtxt(out / "plan.csv", delimiter=",", skiprows=1)
    header = (out / "plan.csv").read_text().splitlines()[0]
    assert header == "t,x,y,q11,q21,tau_q11,tau_q21" and table.shape == (301, 7)
    assert np.isfinite(table).all() and np.abs(table[:, 5:]).max() < 20
    facts = json.loads((out / "plan.json").read_text())
    assert facts["degree"] == 8 and facts["kind"] == "Type 2" and facts["t_s"] == 0.75
    assert json.loads((out / "run.json").read_text())["status"] == "completed"


def test_plan_json_on_stdout(tmp_path, capsys):
    assert main(["--json"] + BASE + ["--cross", "--out", str(tmp_path)]) == 0
    facts = json.loads(capsys.readouterr().out)
    assert facts["t_s"] == pytest.approx(0.8183, abs=1e-4) and len(facts["written"]) == 2


def test_unplanned_quintic_refused_with_exit_3(tmp_path, capsys):
    assert main(BASE + ["--out", str(tmp_path)]) == 3
    err = capsys.readouterr().err.strip()
    assert err.startswith("flexpkm: error:") and "\n" not in err and "(9.11)" in err


@pytest.mark.parametrize("extra", [
    ["--cross", "--through", "free", "free"],
    ["--cross", "--crossing-time", "2"],
    ["--cross", "--through", "0.1"]])
def test_bad_inputs_one_line(tmp_path, capsys, extra):
    assert main(BASE + extra + ["--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("flexpkm: error:") and "\n" not in err and "Traceback" not in err


def test_flexible_robot_refused(tmp_path, capsys):
    assert main(["plan", "cases/examples/five_bar.toml", "--from", "0", "0.45", "--to", "0.2",
                 "0.12", "--duration", "1.5", "--cross", "--out", str(tmp_path)]) == 2
    assert "rigid model" in capsys.readouterr().err
