"""Outputs of ``flexpkm idm``: ``idm.npz`` and ``idm.png`` (matplotlib
``Figure`` of its own: the global backend is left alone), each written
whole or not at all (:func:`flexpkm.io.run_files.atomic_write`)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from flexpkm.io.plots import figure
from flexpkm.io.run_files import atomic_write


def write_idm(result, directory, title: str = "", run=None, plot: bool = True) -> list:
    """Write ``DIR/idm.npz`` (``t`` (n,) s, ``q_a`` (n, n_a), ``tau`` (n, n_a),
    ``qd_a``, ``qdd_a``, ``x_p`` (n, n_p), ``names``; when the result has them,
    ``wrench`` (n, 6) the external wrench on the platform, ``ground`` (n, 6)
    the base's wrench on the robot at O (8.206) and ``ground_<leg>`` per leg,
    ``kinetic``, ``gravity_energy``, ``elastic_energy``, ``energy`` (n,) J,
    ``distances`` (n, k) to the singularities ``distance_names``)
    and ``DIR/idm.png`` (actuator
    positions and efforts against time) for an
    :class:`flexpkm.analysis.idm.IdmResult`; ``run`` (a
    :class:`flexpkm.io.run_files.Run`) records each complete file; no PNG
    when not ``plot`` (matplotlib not installed). Returns the paths."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    files = [d / "idm.npz", d / "idm.png"]
    data = dict(t=result.t, q_a=result.q_a, tau=result.tau, qd_a=result.qd_a,
                qdd_a=result.qdd_a, x_p=result.x_p, names=np.array(result.names))
    if result.ground is not None:
        data.update(wrench=result.wrench, ground=result.ground.total,
                    **{f"ground_{leg}": w for leg, w in result.ground.legs.items()})
    if result.energy is not None:
        e = result.energy
        data.update(kinetic=e.kinetic, gravity_energy=e.gravity, elastic_energy=e.elastic,
                    energy=e.total)
    if result.distances is not None:
        data.update(distances=result.distances, distance_names=np.array(result.distance_names))
    with atomic_write(files[0]) as tmp, open(tmp, "wb") as f:
        np.savez(f, **data)
    if run is not None:
        run.add(files[0])
    if not plot:
        return files[:1]
    fig = figure(figsize=(7.5, 5.6), dpi=110)
    top, bottom = fig.subplots(2, 1, sharex=True)
    top.plot(result.t, result.q_a)
    top.set_ylabel("q_a (rad or m)")
    top.legend(result.names, loc="best", fontsize=8)
    bottom.plot(result.t, result.tau)
    bottom.set_ylabel("tau (N m or N)")
    bottom.set_xlabel("t (s)")
    for ax in (top, bottom):
        ax.grid(True, alpha=0.3)
    top.set_title(f"{title}: inverse dynamic model along the path" if title
                  else "inverse dynamic model along the path")
    fig.tight_layout()
    with atomic_write(files[1]) as tmp:
        fig.savefig(tmp, format="png")
    if run is not None:
        run.add(files[1])
    return files
