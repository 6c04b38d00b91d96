"""Outputs of a simulation: ``simulation.npz``, ``simulation.csv``, PNG
plots and an XDMF time series of the deformed robot (for ParaView)."""
from __future__ import annotations

from pathlib import Path

from flexpkm.io.plots import plot_simulation

import numpy as np


def arrays(robot, res) -> dict:
    """The named arrays of a :class:`flexpkm.analysis.simulate.SimulationResult`:
    t (s), q_a (m or rad, (n, n_a)), tau ((n, n_a)), each sensor, q (all
    coordinates (n, n_tot)), names, drift, energy."""
    layout = robot.layout
    qa = res.q[:, list(layout.actuated)]
    out = {"t": res.t, "q_a": qa, "tau": res.tau, "q": res.q,
           "names": np.array(res.names), "drift": res.drift, "energy": res.energy}
    out.update(res.sensors)
    return out


def write_outputs(robot, res, directory, xdmf=True, xdmf_rate=100.0) -> list:
    """Write npz, csv, png (and xdmf) files into ``directory``; return paths."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    data = arrays(robot, res)
    files = [d / "simulation.npz", d / "simulation.csv", d / "simulation.png"]
    np.savez(files[0], **data)
    act = [robot.layout.names[i] for i in robot.layout.actuated]
    cols = (["t"] + [f"{n}_m" for n in act] + [f"tau_{n}" for n in act]
            + list(res.sensors) + list(res.names))
    table = np.column_stack([res.t, data["q_a"], res.tau] + [res.sensors[k] for k in res.sensors]
                            + [res.q])
    np.savetxt(files[1], table, delimiter=",", header=",".join(cols), comments="")
    plot_simulation(res, data, act, files[2])
    if xdmf:
        files.append(write_xdmf(robot, res, d / "simulation.xdmf", xdmf_rate))
    return files


def write_xdmf(robot, res, path, rate=100.0):
    """XDMF time series of the deformed robot sampled at ``rate`` Hz: the
    undeformed mesh at t = 0 with the point data "displacement" and
    "rotation" (m, rad) of each sample (readable by meshio and ParaView)."""
    import meshio

    from flexpkm.io.export import HEX, cell_data, point_data
    from flexpkm.io.geometry import robot_geometry
    dt = res.t[1] - res.t[0] if len(res.t) > 1 else 1.0
    idx = np.arange(0, len(res.t), max(1, int(round(1.0 / (rate * dt)))))
    ref = res.q[0]
    path = Path(path)
    mesh = robot_geometry(robot, ref, reference=ref).mesh()
    with meshio.xdmf.TimeSeriesWriter(path, data_format="XML") as writer:
        writer.write_points_cells(mesh.reference, [(HEX, mesh.cells)])
        for k in idx:
            g = robot_geometry(robot, res.q[k], reference=ref)
            writer.write_data(float(res.t[k]), point_data=point_data(g, 1.0), cell_data=cell_data(g))
    return path
