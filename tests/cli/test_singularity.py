"""``flexpkm singularity`` (text, --json, one-line errors) and the
singularity flags of ``flexpkm idm`` (issue 19 item 1)."""
import json
import subprocess

import numpy as np
import pytest
from scipy.optimize import brentq

from flexpkm.cli.app import main

from ..algorithms.test_singularity import aligned


def test_text_and_json_of_the_five_bar(capsys):
    assert main(["singularity", "rigid_five_bar", "--pose", "0", "0.25"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("five-bar at x = 0, y = 0.25") and "singular: none" in out
    y = brentq(lambda v: aligned(0.03, v), 0.15, 0.3, xtol=1e-15)       # on the Type 2 locus
    assert main(["singularity", "rigid_five_bar", "--pose", "0.03", repr(y), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["singular"] == ["type 2"] and set(data["t_s"]) == {"x", "y"}
    kinds = [m["kind"] for m in data["measures"]]
    assert kinds[:2] == ["type 2", "serial"] and "constraint" in kinds and "type 3" in kinds


def test_spatial_robot_by_q_a_and_by_pose(capsys):
    assert main(["singularity", "orthoglide", "--json"]) == 0
    ref = json.loads(capsys.readouterr().out)
    q_a = [str(ref["q_tot"][n]) for n in ("q11", "q21", "q31")]
    assert main(["singularity", "orthoglide", "--q-a", *q_a, "--json"]) == 0
    by_q_a = json.loads(capsys.readouterr().out)
    for a, b in zip(ref["measures"], by_q_a["measures"]):
        assert a["distance"] == pytest.approx(b["distance"], rel=1e-6)
    assert {m["where"] for m in ref["measures"] if m["kind"] == "LPJTS"} == {"leg 1", "leg 2",
                                                                            "leg 3"}


@pytest.mark.parametrize("argv", [
    ["singularity", "rigid_five_bar", "--pose", "0"],
    ["singularity", "rigid_five_bar", "--q-a", "1", "2", "3"],
    ["singularity", "rigid_five_bar", "--pose", "0", "0.25", "--q-a", "1.8", "1.2"],
    ["singularity", "rigid_five_bar", "--pose", "0", "0.9"],
    ["singularity", "rigid_five_bar", "--pose", "0", "nan"],
    ["singularity", "rigid_five_bar", "--near", "1e-7"]])
def test_bad_inputs_give_one_line(capsys, argv):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("flexpkm: error:") and len(err.strip().splitlines()) == 1


def test_idm_warns_near_and_refuses_across_type_2(tmp_path):
    """The book's 9.4 quintic (P0 = (0, 0.338) to (0.1, 0.1) in 1.5 s) at
    100 Hz: exit 3 with one line; stopped at s = 0.57 before the locus (s = 0.575): a
    warning line, exit 0, the distances in idm.npz."""
    base = ["flexpkm", "idm", "rigid_five_bar", "--from", "0", "0.338", "--duration", "1.5",
            "--rate", "100"]
    run = lambda *a: subprocess.run([*base, *a], capture_output=True, text=True, timeout=120)
    r = run("--to", "0.1", "0.1", "--out", str(tmp_path / "across"))
    assert r.returncode == 3, r.stderr
    assert r.stderr.startswith("flexpkm: error:") and "type 2 singularity between t = " in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    r = run("--to", "0.057", "0.20234", "--out", str(tmp_path / "near"))
    assert r.returncode == 0, r.stderr
    assert "flexpkm: warning:" in r.stderr and "near a type 2 singularity" in r.stderr
    assert "smallest distance to a singularity: type 2" in r.stdout
    d = np.load(tmp_path / "near" / "idm.npz")
    assert list(d["distance_names"])[0] == "type 2" and 0 < d["distances"][:, 0].min() < 1e-2
