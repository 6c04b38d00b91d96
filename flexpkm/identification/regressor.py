"""The IDM linear in the standard dynamic parameters (Briot & Khalil
(8.256)-(8.265)): ``tau = D_tot(q_a, qd_a, qdd_a) chi_tot`` for a rigid
robot without actuation redundancy, any robot of a file.

Newton-Euler formulation: the wrench of a link on its own (at O_ij, in
F_ij) is linear in its ten inertial parameters,

    F = M (a - g) + (alpha~ + omega~ omega~) [MX; MY; MZ]
    N = I alpha + omega~ I omega + [MX; MY; MZ]~ (a - g),

and the efforts of the real robot are ``tau = J^T (sum_ij J_ij^T w_ij +
S_p^T w_p + joint terms)`` with J (n_tot, n_a) the velocity map of the
closed loops (10.114) (which holds ``J_d`` and ``J`` of (8.265)), the
joint terms ``IA qdd``, ``FV qd``, ``FS sign(qd)`` of (8.261). The
kinematics are those of :func:`flexpkm.algorithms.dynamics.full_dynamics`,
so that ``W chi`` equals :func:`flexpkm.algorithms.dynamics.inverse_dynamics`
(to round-off; tests/identification/test_regressor.py).
"""
from __future__ import annotations

import numpy as np

from flexpkm.algorithms.assembly import reference_configuration
from flexpkm.algorithms.dynamics import full_dynamics
from flexpkm.algorithms.platform import platform_pose, selection
from flexpkm.algorithms.reference import build_model
from flexpkm.algorithms.tree import as_batch
from flexpkm.errors import InvalidArgumentError
from flexpkm.identification.standard import INERTIAL, standard_parameters
from flexpkm.spatial import skew


def require_rigid(model, what="identification"):
    """Refuse a model the linear IDM does not fit: flexible bodies (their
    elastic parameters are out of the scope of Section 8.7), joint springs,
    actuation redundancy, no actuator. Raises :class:`InvalidArgumentError`; returns
    the full model at the reference configuration."""
    layout = model.layout
    if layout.elastic_slice:
        raise InvalidArgumentError(
            f"{what}: {model.name} has flexible bodies ({', '.join(layout.elastic_slice)}); "
            f"the base parameters and the identification of Section 8.7 are for rigid robots "
            f"(use the file's rigid variant)")
    if not layout.actuated:
        raise InvalidArgumentError(f"{what}: {model.name} has no actuated joint")
    if model.joint_stiffness:
        raise InvalidArgumentError(f"{what}: {model.name} has joint springs "
                                   f"({', '.join(model.joint_stiffness)}); their stiffness is not a "
                                   f"standard dynamic parameter of Section 8.7")
    probe = full_dynamics(model, reference_configuration(model), 0.0)
    _check_actuators(model, probe, what)
    return probe


def _check_actuators(model, full, what):
    n_a = len(model.layout.actuated)
    if full.n_a != n_a or len(full.indep) != n_a:
        raise InvalidArgumentError(
            f"{what}: {model.name} has {n_a} actuators for {len(full.indep)} degrees of "
            f"freedom; the linear IDM of Section 8.7 is written here for robots without "
            f"actuation redundancy")


def _inertial_regressor(a, alpha, omega):
    """``K`` (B, 6, 10): the wrench ``[F; N]`` at O_j in F_j of unit
    inertial parameters (order :data:`INERTIAL`), for the acceleration
    ``a`` of O_j minus gravity, ``alpha``, ``omega`` (B, 3) in F_j."""
    B = a.shape[0]
    K = np.zeros((B, 6, 10))
    w, al = omega, alpha
    Wk, Ak = skew(w), skew(al)
    K[:, :3, 6:9] = Ak + Wk @ Wk
    K[:, :3, 9] = a
    K[:, 3:, 6:9] = -skew(a)                      # ms x a = -a~ ms
    K[:, 3:, :6] = _inertia_map(al) + Wk @ _inertia_map(w)
    return K


def _inertia_map(v):
    """``L(v)`` (..., 3, 6) with ``I v = L(v) [XX XY XZ YY YZ ZZ]``."""
    L = np.zeros(v.shape[:-1] + (3, 6))
    for row, cols in enumerate(((0, 1, 2), (1, 3, 4), (2, 4, 5))):
        L[..., row, list(cols)] = v
    return L


def actuated_order(full, model):
    """Positions in ``full``'s q_r of the actuators of ``model.layout.actuated``."""
    where = {int(c): k for k, c in enumerate(full.indep)}
    return np.array([where[int(c)] for c in model.layout.actuated], dtype=int)


def regressor(model, q_tot, qd_a, qdd_a, friction=True, full=None):
    """``W`` with ``tau = W chi`` (8.265): (B, n_a, n_st) for a batch of
    states, (n_a, n_st) for one.

    model : a rigid model (or Robot); q_tot (n_tot,) or (B, n_tot)
        assembled; qd_a, qdd_a (n_a,) or (B, n_a) in the order of
        ``model.layout.actuated`` (m, rad per s, per s^2).
    friction : False leaves the FV, FS columns at zero.
    full : the :class:`flexpkm.algorithms.dynamics.FullDynamics` of the
        state when already computed (velocities in its q_r order).
    Columns: :func:`flexpkm.identification.standard.standard_parameters`.
    Raises :class:`InvalidArgumentError` (flexible bodies, actuation
    redundancy, shapes) and what ``full_dynamics`` raises.
    """
    model = build_model(model)
    if model.layout.elastic_slice or not model.layout.actuated or model.joint_stiffness:
        require_rigid(model, "regressor")
    layout = model.layout
    single = np.ndim(q_tot) == 1
    q = as_batch(q_tot, layout.n_tot)
    B, n_a = q.shape[0], len(layout.actuated)
    qd_a = as_batch(qd_a, n_a, "qd_a") * np.ones((B, 1))
    qdd_a = as_batch(qdd_a, n_a, "qdd_a") * np.ones((B, 1))
    probe = full or full_dynamics(model, q[:1], 0.0)
    _check_actuators(model, probe, "regressor")
    if full is None:
        perm = np.argsort(actuated_order(probe, model))
        full = full_dynamics(model, q, qd_a[:, perm], dep=probe.dep)
    order = actuated_order(full, model)
    J = full.J[:, :, order] if full.J.ndim == 3 else full.J[None][:, :, order]
    b = full.b if full.b.ndim == 2 else full.b[None]
    qd = (J @ qd_a[..., None])[..., 0]
    qdd = (J @ qdd_a[..., None])[..., 0] + b
    Q = _generalized_columns(model, full.kin, q, qd, qdd, friction)   # (B, n_tot, n_st)
    W = np.swapaxes(J, -1, -2) @ Q
    return W[0] if single else W


def _generalized_columns(model, kin, q, qd, qdd, friction):
    """Generalized forces on q_tot of unit standard parameters, (B, n_tot, n_st)."""
    layout = model.layout
    std = standard_parameters(model)
    n_t = layout.n_t
    B = q.shape[0]
    Q = np.zeros((B, layout.n_tot, len(std.symbols)))
    cols = {}
    for k, (j, kind) in enumerate(zip(std.frames, std.kinds)):
        cols.setdefault(j, {})[kind] = k
    for j, where in cols.items():
        ks = [where[kind] for kind in INERTIAL]
        if j < 0:
            Q[:, n_t:, ks] = _platform_columns(model, q, qd, qdd, kin.gravity)
            continue
        Rt = np.swapaxes(kin.R[:, j], -1, -2)
        a = Rt @ ((kin.Jv[:, j] @ qdd[:, :n_t, None])[..., 0] + kin.a_bias[:, j])[..., None]
        al = Rt @ ((kin.Jw[:, j] @ qdd[:, :n_t, None])[..., 0] + kin.alpha_bias[:, j])[..., None]
        om = Rt @ (kin.Jw[:, j] @ qd[:, :n_t, None])
        K = _inertial_regressor(a[..., 0], al[..., 0], om[..., 0])
        Q[:, :n_t, ks] = np.swapaxes(kin.body_jacobian(j), -1, -2) @ K
        c = layout.joint_index.get(model.frames[j].name)
        terms = {"IA": qdd, "FV": qd if friction else 0 * qd,
                 "FS": np.sign(qd) if friction else 0 * qd}
        for kind in ("IA", "FV", "FS"):
            if kind in where:
                Q[:, c, where[kind]] = terms[kind][:, c]
    return Q


def _platform_columns(model, q, qd, qdd, gravity):
    """Generalized forces on x_p (B, n_p, 10) of the platform's unit
    inertial parameters (at P, in F_p)."""
    n_t = model.layout.n_t
    S = selection(model.platform)
    R = platform_pose(model, q).R
    Rt = np.swapaxes(R, -1, -2)
    t = qd[:, n_t:] @ S.T
    td = qdd[:, n_t:] @ S.T
    a = (Rt @ (td[:, :3] - np.asarray(gravity, float))[..., None])[..., 0]
    al = (Rt @ td[:, 3:, None])[..., 0]
    om = (Rt @ t[:, 3:, None])[..., 0]
    K = _inertial_regressor(a, al, om)
    K = np.concatenate([R @ K[:, :3], R @ K[:, 3:]], axis=1)           # base frame, at P
    return S.T @ K
