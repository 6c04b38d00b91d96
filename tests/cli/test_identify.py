"""``flexpkm identify``: a simulated measurement written with --write-csv
and identified again from the file gives the same parameters; the table
and JSON; the refusals (no data, both, a bad CSV, an existing file)."""
import json

import pytest

from flexpkm.cli.app import main


def test_simulated_then_from_the_csv(tmp_path, capsys):
    csv = tmp_path / "m.csv"
    assert main(["identify", "rigid_five_bar", "--simulate", "0.01", "--write-csv", str(csv),
                 "--evaluations", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("five-bar: 15 base parameters from") and "condition number" in out[0]
    assert out[1].split() == ["parameter", "identified", "std", "std", "%", "file"]
    assert out[-1] == f"wrote {csv}" and csv.read_text().startswith("t,q11,q21,tau_q11,tau_q21\n")
    simulated = {line.split()[0]: float(line.split()[1]) for line in out[2:17]}
    assert main(["identify", "rigid_five_bar", str(csv), "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["written"] == [] and len(again["parameters"]) == len(simulated) == 15
    for p in again["parameters"]:                 # the same identification from the file
        assert p["value"] == pytest.approx(simulated[p["symbol"]], rel=1e-5, abs=1e-9)
    fs = [p for p in again["parameters"] if p["symbol"] == "FS11"][0]
    assert fs["file_value"] == 2.94 and abs(fs["value"] - 2.94) < 3 * fs["std"]


@pytest.mark.parametrize("extra, message", [
    ([], "give either DATA.csv or --simulate"),
    (["DATA", "--simulate", "0.01"], "give either DATA.csv or --simulate"),
    (["DATA"], "no column tau_q21"),
    (["--simulate", "0.01", "--write-csv", "DATA"], "exists (not replaced)"),
    (["--simulate", "0.01", "--write-csv", "DATA/m.csv"], "Not a directory")])
def test_refusals(extra, message, tmp_path, capsys):
    data = tmp_path / "d.csv"
    data.write_text("t,q11,q21,tau_q11\n0,1,1,0\n")
    argv = ["identify", "rigid_five_bar"] + [a.replace("DATA", str(data)) for a in extra]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]
    assert data.read_text() == "t,q11,q21,tau_q11\n0,1,1,0\n"
