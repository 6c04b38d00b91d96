"""Issue 16 item 8: inputs that ended in a traceback are one line
``flexpkm: error: ...`` with exit status 2 (each with the specific error
class through the API where there is one)."""
import re
from pathlib import Path

import numpy as np
import pytest

import flexpkm as fp
from flexpkm.cli.app import main
from flexpkm.errors import (InvalidArgumentError, InvalidDescriptionError,
                            SingularConfigurationError)
from flexpkm.model import files

CASES = Path(fp.cases.__file__).parent
FIVE_BAR = (CASES / "examples" / "five_bar.toml").read_text()


def one_line(argv, capsys, pattern):
    """``main(argv)`` exits 2 with one line on stderr matching ``pattern``."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("flexpkm: error: "), err
    assert re.search(pattern, err), err


def test_platform_dofs_written_as_floats_are_read(tmp_path, capsys):
    f = tmp_path / "f.toml"
    f.write_text(FIVE_BAR.replace("dofs = [0, 1]", "dofs = [0.0, 1.0]"))
    assert files.load(f).platform.dofs == (0, 1)
    assert main(["check", str(f)]) == 0


def test_a_platform_without_closures_is_refused(tmp_path, capsys):
    text = re.sub(r"\[\[closures\]\].*?(?=\[\[legs\]\])", "", FIVE_BAR, flags=re.S)
    (tmp_path / "f.toml").write_text(text)
    with pytest.raises(InvalidDescriptionError, match="has a platform but no closure reaches it"):
        files.loads(text)
    one_line(["modal", str(tmp_path / "f.toml")], capsys, "no closure reaches it")


@pytest.mark.parametrize("text", [
    'name = "x"\na = ' + "[" * 5000 + "]" * 5000 + "\n",
    'name = "x"\nlegs = [{name = "1", frames = [{j = "1", sigma = 0}]}]\n[variants]\na = '
    + "{a = " * 3000 + "1" + "}" * 3000 + "\n",
])
def test_deeply_nested_files_are_refused(tmp_path, capsys, text):
    (tmp_path / "deep.toml").write_text(text)
    with pytest.raises(InvalidDescriptionError, match="nested too deeply"):
        files.loads(text)
    one_line(["check", str(tmp_path / "deep.toml")], capsys, "deep.toml: .*nested too deeply")


@pytest.mark.parametrize("path, pattern", [
    ("name", "name: not a number"),
    ("legs[9].frames", r"'legs\[9\].frames': no such key path"),
    ("legs[0].frames[0].bodies[0].section", "not a number .dict."),
])
def test_bad_sensitivity_paths(capsys, path, pattern):
    one_line(["modal", str(CASES / "examples" / "five_bar.toml"), "--sensitivities", path],
             capsys, pattern)


def test_a_stiff_joint_spring_on_the_numpy_path(tmp_path, capsys):
    """k = 1e8 N m/rad on the elbow: the numpy HHT's Newton matrix became
    singular (LinAlgError); now the step is retried with smaller steps, then
    refused (StepConvergenceError) in one line, without numpy warnings."""
    f = tmp_path / "stiff.toml"
    f.write_text(FIVE_BAR.replace('j = "12"\n', 'j = "12"\njoint_stiffness = 1e8\n', 1))
    status = main(["simulate", str(f), "--backend", "numpy", "--to", "0.1", "0.45",
                   "--duration", "0.01", "--t-end", "0.01", "--out", str(tmp_path / "o"),
                   "--no-xdmf", "--no-progress"])
    err = capsys.readouterr().err
    assert status in (0, 3) and "Traceback" not in err            # 3: a numerical refusal
    if status == 3:
        assert err.count("\n") == 1 and err.startswith("flexpkm: error: ")


def test_api_calls_raise_specific_errors():
    model = fp.build_model(fp.cases.rigid_five_bar.robot())
    q = fp.reference_configuration(model)
    with pytest.raises(InvalidArgumentError, match="expected a Robot or a Model, got NoneType"):
        fp.natural_frequencies(None, q)
    with pytest.raises(InvalidArgumentError, match=r"platform_pose: q_tot must have shape"):
        fp.platform_pose(model, q)             # (n_tot,) instead of (B, n_tot)
    with pytest.raises(InvalidArgumentError, match=r"platform_pose: q_tot must have shape"):
        fp.platform_pose(model, np.zeros((1, 3)))
    with pytest.raises(InvalidArgumentError, match="must be a str .decode bytes first"):
        fp.loads_robot(FIVE_BAR.encode())
    for tol in (np.nan, -1.0, 0.0, np.inf, "1e-9"):
        with pytest.raises(InvalidArgumentError, match="tol must be a positive finite number"):
            fp.assemble(model, q_a=q[list(model.layout.actuated)], tol=tol)
    with pytest.raises(InvalidArgumentError, match="max_iter must be a whole number"):
        fp.assemble(model, q_a=q[list(model.layout.actuated)], max_iter=0)


@pytest.mark.parametrize("name", ["dualv", str(CASES / "dualv.toml")])
def test_check_of_a_redundantly_actuated_robot(capsys, name):
    """The DualV: 3 independent coordinates, 4 actuators. Locking them leaves
    no motion and one actuator too many (was "actuators locked -1")."""
    assert main(["check", name]) == 0
    out = capsys.readouterr().out
    assert ("independent 3, independent, actuators locked 0, redundant actuators 1\n" in out), out


def test_check_counts_of_a_robot_without_redundancy(capsys):
    assert main(["check", str(CASES / "examples" / "five_bar.toml")]) == 0
    out = capsys.readouterr().out
    assert "actuated 2, independent 14, independent, actuators locked 12\n" in out
    assert "redundant actuators" not in out
