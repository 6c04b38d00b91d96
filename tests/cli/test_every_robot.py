"""Every shipped robot and example file through ``check``, ``singularity``, ``modal``,
``modes --png``, a three-pose ``sweep`` and ``assemble`` (alone, and with
``--all`` from one start: the path on every robot, not the search; issue 16
item 8: ``modes navaro --png`` ended in a traceback and no test ran
``modes`` on every robot). In-process through ``main(argv)``, 2 modes, small pictures: about
a second per robot (docs/robustness.md gives the measured time)."""
import json
from pathlib import Path

import numpy as np
import pytest

from flexpkm import cases
from flexpkm.cli.app import main
from flexpkm.io import viz
from flexpkm.model.build import build_structure

ROOT = Path(cases.__file__).parent
ROBOTS = list(cases.CASES) + sorted(str(p) for p in ROOT.glob("*.toml")) \
    + sorted(str(p) for p in (ROOT / "examples").glob("*.toml"))


def _start_pose(case):
    """The case's commanded pose components (a flexible model's platform
    also has dependent ones) at its default (else reference) configuration."""
    if case.pose_default is not None:
        return np.asarray(case.pose_default, float)
    options = {o.name: o.default for o in case.options}
    model = build_structure(case.robot(options))
    q = case.configure(model, None, options)
    cols = model.layout.commanded if case.pose_option == "pose" else model.layout.actuated
    return q[list(cols)]


def _elastic_actuators(case):
    """``--actuator-stiffness`` for a rigid robot (no frequency with the
    actuators locked), else nothing."""
    robot = case.robot({o.name: o.default for o in case.options})
    if robot.layout.elastic_slice:
        return []
    return ["--actuator-stiffness"] + ["1e5"] * len(robot.layout.actuated)


@pytest.mark.parametrize("name", ROBOTS, ids=lambda n: Path(n).name)
def test_every_robot_runs_every_command(name, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(viz, "window_for", lambda cam, pts: (320, 240))
    case = cases.get(name)
    stiff = _elastic_actuators(case)
    start = _start_pose(case)
    stop = start.copy()
    stop[0] += 0.002                      # m or rad: a short path near the start
    runs = [["check", name], ["singularity", name],
            ["modal", name, "--modes", "2", *stiff],
            ["modes", name, "--modes", "1", "--png", str(tmp_path / "png"), *stiff],
            ["sweep", name, "--from", *(repr(float(x)) for x in start), "--to",
             *(repr(float(x)) for x in stop),
             "--steps", "3", "--modes", "2", "--csv", str(tmp_path / "s.csv"), *stiff],
            ["map", name, "--grid", f"{float(start[0])!r}:{float(stop[0])!r}:2",    # issue 21
             "--modes", "2", "--netcdf", str(tmp_path / "m.nc"), *stiff]
            + (["--fixed", *(repr(float(x)) for x in start[1:len(case.pose_names)])]
               if len(case.pose_names) > 1 else []),
            ["assemble", name], ["assemble", name, "--all", "--starts", "1"]]
    for argv in runs:
        status = main(argv)
        out, err = capsys.readouterr()
        assert status == 0, (argv, err)
        assert "Traceback" not in err
    assert (tmp_path / "png" / f"{case.name}_mode_1.png").stat().st_size > 1000
    rows = (tmp_path / "s.csv").read_text().splitlines()
    assert len(rows) == 4 and all(r.endswith('"ok"') for r in rows[1:]), rows


@pytest.mark.parametrize("name", ROBOTS, ids=lambda n: Path(n).name)
def test_every_robot_base_parameters(name, capsys):
    """``base-parameters`` (Section 8.7) on every robot: computed for a rigid
    one without actuation redundancy, else one line and exit 2."""
    case = cases.get(name)
    robot = case.robot({o.name: o.default for o in case.options})
    status = main(["base-parameters", name, "--json"])
    out, err = capsys.readouterr()
    if robot.layout.elastic_slice or Path(name).stem == "dualv":     # DualV: 4 actuators, 3 dof
        assert status == 2 and len(err.strip().splitlines()) == 1, err
        assert "flexible bodies" in err or "actuation redundancy" in err
    else:
        assert status == 0, err
        assert 0 < json.loads(out)["n_base"] < json.loads(out)["n_standard"]
