"""simulation.csv (flexpkm/io/sim_output.py): a unit per column from the
joint types (a revolute coordinate in rad, a prismatic one in m, efforts in
N m or N) and the documented drift and energy columns."""
import csv
from pathlib import Path

import numpy as np

import flexpkm as fp
from flexpkm.io.sim_output import csv_columns, write_outputs

ROOT = Path(__file__).resolve().parents[2]


def test_csv_columns_carry_the_joint_units(tmp_path):
    robot = fp.load_robot(ROOT / "cases/examples/three_rpr_flexible.toml")
    layout = robot.layout
    n, n_a = 3, len(layout.actuated)
    res = fp.SimulationResult(t=np.arange(n) * 1e-3, q=np.zeros((n, layout.n_tot)),
                              qd_r=np.zeros((n, 1)), tau=np.ones((n, n_a)), names=layout.names,
                              r_names=(), drift=np.full(n, 1e-15), energy=np.full(n, 2.0))
    cols, table = csv_columns(robot, res)
    assert table.shape == (n, len(cols)) and len(set(cols)) == len(cols)
    assert cols[0] == "t [s]" and "tau_q12 [N]" in cols
    assert "q12 [m]" in cols and "q11 [rad]" in cols and "qe11_1 [1]" in cols
    assert table[:, cols.index("drift [m or rad]")].tolist() == [1e-15] * n
    assert table[:, cols.index("energy [J]")].tolist() == [2.0] * n


def test_written_csv_of_a_revolute_robot(tmp_path):
    model = fp.build_model(fp.load_robot(ROOT / "cases/examples/five_bar.toml"))
    res = fp.simulate(model, fp.assemble(model, pose=[0.15, 0.45]), 0.002, fp.Free(),
                      backend="numpy")
    write_outputs(model.robot, res, tmp_path, xdmf=False)
    with open(tmp_path / "simulation.csv") as f:
        rows = list(csv.reader(f))
    header = rows[0]
    assert "q11 [rad]" in header and "tau_q11 [N m]" in header and "x_P [m]" in header
    assert not any(h.endswith("_m") for h in header)
    assert len(rows) == len(res.t) + 1
    np.testing.assert_allclose([float(r[header.index("q11 [rad]")]) for r in rows[1:]],
                               res.q[:, model.layout.index("q11")], rtol=1e-15)
