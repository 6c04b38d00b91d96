"""Energy model of a rigid or flexible parallel robot (Briot & Khalil
Section 8.6.2, (8.216)-(8.220); Section 10.2 for the flexible bodies).

At a state ``(q_tot, qd_tot)`` (all coordinates and their rates, SI):

* kinetic energy ``E = sum_ij 1/2 [t_ij; qd_eij]^T M_ij(q_eij) [t_ij; qd_eij]
  + sum_k 1/2 Ia_k qd_k^2 + E_p`` (8.216)-(8.218), (10.61): every body of the
  virtual tree with its twist ``t_ij`` at O_ij in F_ij, the rotor inertia of
  the actuators (8.217) and the platform (twist at P, ``^0t_p = S_p xd_p``);
* gravity energy ``U = -sum_ij g^T (m_ij O_ij + R_0ij ms_ij(q_eij)) - g^T (m_p P
  + R_0p ms_p)`` (8.219)-(8.220), with the first moment of a flexible body
  ``ms = ms_r + MS_de q_e`` (10.40); zero at the base origin;
* elastic energy ``1/2 q_tot^T K_tot q_tot`` (11.18), (11.22): the bodies'
  ``K_ee`` and the joint springs.

The kinetic energy is summed body by body with the bodies' own mass
matrices, not from the assembled ``M_tot``: ``E = 1/2 qd_r^T M qd_r`` of the
full model (10.123) is then a check (tests/algorithms/test_energy.py), and so
is the power balance ``dE_total/dt = qd_a^T tau + t_p^T w - friction power``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from flexpkm.algorithms.platform import platform_pose, selection
from flexpkm.algorithms.tree import as_batch, tree_kinematics
from flexpkm.elements import newton_euler as ne
from flexpkm.errors import InvalidArgumentError
from flexpkm.model.build import build_structure


@dataclass(kw_only=True)
class Energy:
    """Energies of a state (J): scalars for one state, (B,) for a batch.

    kinetic : (8.218) bodies, rotors and platform;  gravity : (8.220);
    elastic : ``1/2 q_tot^T K_tot q_tot``;  total = kinetic + gravity + elastic
    """

    kinetic: np.ndarray
    gravity: np.ndarray
    elastic: np.ndarray

    @property
    def total(self):
        """``kinetic + gravity + elastic`` (J)."""
        return self.kinetic + self.gravity + self.elastic


def _gravity_vector(model, gravity):
    """Base-frame g (3,), m/s^2; InvalidArgumentError unless a finite 3-vector."""
    g = np.asarray(model.gravity if gravity is None else gravity, float)
    if g.shape != (3,) or not np.isfinite(g).all():
        raise InvalidArgumentError(f"energy: gravity must be a finite 3-vector (m/s^2), "
                                   f"got {gravity!r}")
    return g


def kinetic_energy(model, q_tot, qd_tot):
    """Kinetic energy (8.218) (J), scalar or (B,).

    q_tot, qd_tot : (n_tot,) or (B, n_tot) coordinates and their rates (the
        platform's as ``xd_p``, ``^0t_p = S_p xd_p`` at P, base frame).
    Raises :class:`InvalidArgumentError` on shapes or non-finite values.
    """
    model = build_structure(model)
    n_t, n_tot = model.layout.n_t, model.layout.n_tot
    q, qd = as_batch(q_tot, n_tot, "energy: q_tot"), as_batch(qd_tot, n_tot, "energy: qd_tot")
    q, qd = np.broadcast_arrays(q, qd)
    kin = tree_kinematics(model, q[:, :n_t])
    E = np.zeros(q.shape[0])
    for e in model.body_entries:
        Rt = np.swapaxes(kin.R[:, e.frame], -1, -2)
        v = Rt @ (kin.Jv[:, e.frame] @ qd[:, :n_t, None])
        w = Rt @ (kin.Jw[:, e.frame] @ qd[:, :n_t, None])
        t = np.concatenate([v, w], axis=1)[..., 0]
        sl = e.elastic
        E += ne.kinetic_energy(e.body.invariants, t, None if sl is None else q[:, sl],
                               None if sl is None else qd[:, sl])
    for name, inertia in model.rotor_inertia.items():
        E += 0.5 * inertia * qd[:, model.layout.joint_index[name]] ** 2
    if model.platform is not None and model.platform.body is not None:
        R_0p, _ = platform_pose(model, q)
        t_p = qd[:, n_t:] @ selection(model.platform).T
        Rt = np.swapaxes(R_0p, -1, -2)
        t = np.concatenate([(Rt @ t_p[:, :3, None])[..., 0], (Rt @ t_p[:, 3:, None])[..., 0]], -1)
        E += ne.kinetic_energy(model.platform.body.invariants, t)
    return E[0] if np.ndim(q_tot) == 1 and np.ndim(qd_tot) == 1 else E


def gravity_energy(model, q_tot, gravity=None):
    """Gravity energy (8.219)-(8.220) (J), scalar or (B,), zero for every
    mass at the base origin O. gravity : base-frame g (3,), default the
    model's. Raises :class:`InvalidArgumentError`."""
    model = build_structure(model)
    g = _gravity_vector(model, gravity)
    n_t, n_tot = model.layout.n_t, model.layout.n_tot
    q = as_batch(q_tot, n_tot, "energy: q_tot")
    kin = tree_kinematics(model, q[:, :n_t], jacobians=False)   # the poses alone
    U = np.zeros(q.shape[0])
    for e in model.body_entries:
        inv = e.body.invariants
        ms = inv.ms_r if e.elastic is None else inv.ms_r + q[:, e.elastic] @ inv.MS_de.T
        U -= (inv.m * kin.p[:, e.frame] + (kin.R[:, e.frame] @ np.broadcast_to(
            ms, (q.shape[0], 3))[..., None])[..., 0]) @ g
    if model.platform is not None and model.platform.body is not None:
        inv = model.platform.body.invariants
        R_0p, P = platform_pose(model, q)
        U -= (inv.m * P + R_0p @ inv.ms_r) @ g
    return U[0] if np.ndim(q_tot) == 1 else U


def elastic_energy(model, q_tot):
    """``1/2 q_tot^T K_tot q_tot`` (J), scalar or (B,) (11.18), (11.22)."""
    model = build_structure(model)
    q = as_batch(q_tot, model.layout.n_tot, "energy: q_tot")
    U = 0.5 * np.einsum("bi,ij,bj->b", q, model.K_tot, q)
    return U[0] if np.ndim(q_tot) == 1 else U


def energy(model, q_tot, qd_tot, gravity=None) -> Energy:
    """The energy model ``H = E + U`` (Section 8.6.2) of a state.

    model : Model or Robot; q_tot, qd_tot : (n_tot,) or (B, n_tot), all
    coordinates and their rates (``qd_tot = full.J @ qd_r``, (10.114));
    gravity : base-frame g (3,), m/s^2, default the model's.
    Returns :class:`Energy` (scalars for one state, (B,) for a batch).
    Raises :class:`InvalidArgumentError` on shapes or non-finite values.
    """
    model = build_structure(model)
    return Energy(kinetic=kinetic_energy(model, q_tot, qd_tot),
                  gravity=gravity_energy(model, q_tot, gravity),
                  elastic=elastic_energy(model, q_tot))


def recorded_energies(model, q_tot, kinetic_elastic, gravity=None, known_gravity=None) -> Energy:
    """The energies of recorded states whose kinetic + elastic energy is
    known (a simulation's ``energy``, ``1/2 qd_r^T M qd_r + 1/2 q^T K_tot q``):
    q_tot (B, n_tot), kinetic_elastic (B,) J; the elastic and gravity parts
    from the coordinates, or the gravity part ``known_gravity`` (B,) J when
    given (the compiled simulation's, :mod:`flexpkm.compiled.energies`).
    Returns :class:`Energy` of (B,) arrays."""
    model = build_structure(model)
    elastic = elastic_energy(model, np.atleast_2d(q_tot))
    return Energy(kinetic=np.asarray(kinetic_elastic, float) - elastic, elastic=elastic,
                  gravity=gravity_energy(model, np.atleast_2d(q_tot), gravity)
                  if known_gravity is None else np.asarray(known_gravity, float))
