"""Outputs of a simulation: ``simulation.npz``, ``simulation.csv``, PNG
plots and an XDMF time series of the deformed robot (for ParaView)."""
from __future__ import annotations

from pathlib import Path

from flexpkm.datasets import coordinate_units, effort_unit
from flexpkm.io.plots import plot_simulation
from flexpkm.io.run_files import atomic_write
from flexpkm.io.xdmf import XdmfSeries

import numpy as np


def arrays(robot, res) -> dict:
    """The named arrays of a :class:`flexpkm.analysis.simulate.SimulationResult`:
    t (s), q_a (m or rad, (n, n_a)), tau ((n, n_a)), each sensor, q (all
    coordinates (n, n_tot)), names, drift, energy (kinetic + elastic) and,
    when the result has them, kinetic, gravity_energy, elastic_energy,
    total_energy (J), ground (n, 6) the base's wrench on the robot at O
    (8.206) and ground_<leg> per leg (N, N m); with elastic transmissions
    (Section 10.5) q_m, qd_m (n, n_a) the motor positions and velocities."""
    layout = robot.layout
    qa = res.q[:, list(layout.actuated)]
    out = {"t": res.t, "q_a": qa, "tau": res.tau, "q": res.q,
           "names": np.array(res.names), "drift": res.drift, "energy": res.energy}
    if getattr(res, "energies", None) is not None:
        e = res.energies
        out.update(kinetic=e.kinetic, gravity_energy=e.gravity, elastic_energy=e.elastic,
                   total_energy=e.total)
    if getattr(res, "ground", None) is not None:
        out.update(ground=res.ground.total,
                   **{f"ground_{leg}": w for leg, w in res.ground.legs.items()})
    if getattr(res, "q_m", None) is not None:
        out.update(q_m=res.q_m, qd_m=res.qd_m)
    out.update(res.sensors)
    return out


def write_outputs(robot, res, directory, xdmf=True, xdmf_rate=100.0, run=None,
                  plot=True) -> list:
    """Write ``simulation.npz``, ``.csv``, ``.png`` (when ``plot``; matplotlib)
    and ``.xdmf`` + ``.h5`` (when ``xdmf``; h5py) into ``directory``; return
    the paths. Each file is written under a
    temporary name and renamed when complete
    (:func:`flexpkm.io.run_files.atomic_write`); ``run`` (a
    :class:`flexpkm.io.run_files.Run`) records each complete file."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    data = arrays(robot, res)
    act = [robot.layout.names[i] for i in robot.layout.actuated]
    cols, table = csv_columns(robot, res)
    a_units = [coordinate_units(robot)[i] for i in robot.layout.actuated]
    writers = [("simulation.npz", lambda f: np.savez(f, **data)),
               ("simulation.csv", lambda f: np.savetxt(f, table, delimiter=",",
                                                       header=",".join(cols), comments="")),
               ("simulation.png", lambda f: plot_simulation(res, data, act, f, a_units))]
    files = []
    for name, write in writers[:None if plot else 2]:
        with atomic_write(d / name) as tmp, open(tmp, "wb") as f:
            write(f)
        files.append(_record(run, d / name))
    if xdmf:
        path = write_xdmf(robot, res, d / "simulation.xdmf", xdmf_rate)
        _record(run, path.with_suffix(".h5"))
        files.append(_record(run, path))
    return files


def csv_columns(robot, res):
    """Header and table (n, k) of ``simulation.csv``, one row per sample:
    ``t [s]``, ``tau_<actuator> [N m]`` (revolute) or ``[N]`` (prismatic),
    the sensors, ``drift [m or rad]``, ``energy [J]``, then every coordinate
    of ``q`` with its unit (``q11 [rad]`` for a revolute joint, ``[m]`` for a
    prismatic joint or a platform translation, ``[1]`` for an elastic
    coordinate: :func:`flexpkm.datasets.coordinate_units`), then with elastic
    transmissions the motor positions ``q_M_<actuator>``."""
    units = coordinate_units(robot)
    layout = robot.layout
    act = [layout.names[i] for i in layout.actuated]
    cols = (["t [s]"] + [f"tau_{n} [{effort_unit(units[i])}]" for n, i in zip(act, layout.actuated)]
            + list(res.sensors) + ["drift [m or rad]", "energy [J]"]
            + [f"{n} [{units[layout.names.index(n)]}]" for n in res.names])
    motors = [] if getattr(res, "q_m", None) is None else [res.q_m]
    cols += [f"q_M_{n} [{units[i]}]" for n, i in zip(act, layout.actuated)] if motors else []
    n = len(res.t)
    extra = [np.full(n, np.nan) if v is None else v for v in (res.drift, res.energy)]
    table = np.column_stack([res.t, res.tau] + [res.sensors[k] for k in res.sensors] + extra
                            + [res.q] + motors)
    return cols, table


def _record(run, path):
    return run.add(path) if run is not None else path


def write_xdmf(robot, res, path, rate=100.0):
    """XDMF time series of the deformed robot sampled at ``rate`` Hz: the
    undeformed mesh at t = 0 with the point data "displacement" and
    "rotation" (m, rad) of each sample (readable by meshio and ParaView),
    heavy data in ``path.with_suffix(".h5")``, written step by step
    (:class:`flexpkm.io.xdmf.XdmfSeries`: memory independent of the length)."""
    from flexpkm.io.export import point_data
    from flexpkm.io.geometry import robot_geometry
    from flexpkm.algorithms.reference import build_model
    robot = build_model(robot)              # once, not per frame: 4.4 s -> 2.0 s (DualEMPS, 31 frames)
    dt = res.t[1] - res.t[0] if len(res.t) > 1 else 1.0
    idx = np.arange(0, len(res.t), max(1, int(round(1.0 / (rate * dt)))))
    ref = res.q[0]
    mesh = robot_geometry(robot, ref, reference=ref).mesh()
    cells = {"part": mesh.cell_part, "kind": mesh.cell_kind}
    with XdmfSeries(path, mesh.reference, mesh.cells, cells) as series:
        for k in idx:
            g = robot_geometry(robot, res.q[k], reference=ref)
            series.write(float(res.t[k]), point_data(g, 1.0))
    return Path(path)
