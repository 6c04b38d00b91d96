"""``flexpkm base-parameters``: the five-bar's groupings (8.275)-(8.276) in
the text and the JSON, the rigid book robots run, and the refusals (a
flexible robot, actuation redundancy: exit 2 with one line)."""
import json

import pytest

from flexpkm import cases
from flexpkm.cli.app import main

EXAMPLES = cases.file_of("orthoglide").parent / "examples"


def test_five_bar_text_and_json(capsys):
    assert main(["base-parameters", "rigid_five_bar"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("five-bar: 15 base parameters of 60 standard ones")
    assert "ZZ11R = ZZ11 + IA11 - 0.24158 MX12 + 0.045369 M12" in out
    assert "MPR = MP + 5.3248 MX12 + 5.3248 MX22" in out
    assert main(["base-parameters", "rigid_five_bar", "--json", "--no-friction"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["n_base"] == 7 and d["n_standard"] == 60
    assert d["base"][0] == {"symbol": "MPR", "value": pytest.approx(0.272 + 0.024 / 0.1878),
                            "relation": "MPR = MP + 5.3248 MX12 + 5.3248 MX22"}
    assert "FV11" in d["no_effect"]


def test_a_rigid_book_robot(capsys):
    assert main(["base-parameters", "three_rpr", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert 0 < d["n_base"] < d["n_standard"]


@pytest.mark.parametrize("argv, message", [
    (["base-parameters", str(EXAMPLES / "orthoglide_flexible.toml")], "flexible bodies"),
    (["base-parameters", "dualv"], "actuation redundancy")])
def test_refusals(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("flexpkm: error:") and message in err[0]
