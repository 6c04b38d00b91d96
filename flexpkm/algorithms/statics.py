"""The static model under an external wrench on the platform (Briot &
Khalil Section 6.4, (6.53)) and, for a flexible robot, the static deflection
it causes (the reduced stiffness ``K_r`` of (11.27)).

Wrench convention (the whole package): ``wrench = [F_x, F_y, F_z, M_x, M_y,
M_z]`` (N, N m) is exerted **by the environment on the platform**, at the
platform point P, in base-frame components. The book's ``w_n`` of (6.53) is
the wrench the end effector exerts on the environment (its power is the
actuators' power, (6.54)), ``w_n = -wrench``; hence the efforts that hold
the robot at rest against ``wrench`` are ``tau = J_n^T w_n = -J_n^T wrench``
with ``J_n`` the kinematic Jacobian ``^0t_p = J_n qd_a`` (``S_p`` times the
platform rows of ``J``, (10.114), the elastic coordinates held).

Static deflection (linear, about the assembled configuration with ``q_e =
0``; gravity is not included, add it by superposition): the wrench's
generalized force on ``q_r = [q_a; q_c]`` is ``Q_r = J^T [0; S_p^T wrench]``
and ``K_r dq_r = Q_r + [tau; 0]``:

* actuators locked (``dq_a = 0``): ``K_cc dq_c = Q_c``, and the actuators
  hold ``tau = K_ac dq_c - Q_a``;
* actuator stiffness ``k_a`` (Section 11.4, (11.38)): ``tau = -k_a dq_a``
  and ``(K_r + diag(k_a, 0)) dq_r = Q_r``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from flexpkm.algorithms.conditioning import check_actuator_stiffness
from flexpkm.algorithms.dynamics import full_dynamics, inverse_dynamics
from flexpkm.algorithms.modal import reduced_matrices
from flexpkm.algorithms.platform import external_wrench
from flexpkm.algorithms.reference import build_model
from flexpkm.algorithms.tree import as_batch
from flexpkm.errors import SingularConfigurationError


@dataclass(kw_only=True)
class StaticDeflection:
    """Linear static response to a wrench (one pose; see the module).

    dq_r : (n_r,) deflection of ``q_r = [q_a; q_c]`` (``names``), m / rad /
        elastic coordinates;  dq_tot : (n_tot,) ``J dq_r``, all coordinates;
    dx_p : (n_p,) platform displacement (the ``x_p`` part of ``dq_tot``);
    tau : (n_a,) actuator efforts holding it, N or N m;
    names : the names of q_r
    """

    dq_r: np.ndarray
    dq_tot: np.ndarray
    dx_p: np.ndarray
    tau: np.ndarray
    names: tuple


def kinematic_jacobian(model, full):
    """``J_n`` (B, n_p, n_A): the platform rates ``xd_p`` per actuator rate
    with the elastic coordinates held at their values (the rigid kinematics
    of the state; ``^0t_p = S_p J_n qd_a``, (5.7), (10.114)), from the
    closures' rows of ``full`` (:func:`flexpkm.algorithms.dynamics.full_dynamics`).
    Raises :class:`SingularConfigurationError` when the actuators do not fix
    the other joints and the platform (a singularity, or actuation
    redundancy, whose actuators cannot move independently)."""
    layout = model.layout
    elastic = {c for sl in layout.elastic_slice.values() for c in range(sl.start, sl.stop)}
    act = list(layout.actuated)
    other = [c for c in range(layout.n_tot) if c not in elastic and c not in act]
    J_tot = np.asarray(full.J_tot).reshape((-1,) + np.shape(full.J_tot)[-2:])
    A, D = J_tot[:, :, act], J_tot[:, :, other]
    X = -np.linalg.lstsq(D[0], A[0], rcond=None)[0][None] if len(D) == 1 else \
        -np.linalg.pinv(D) @ A
    scale = max(np.abs(A).max(), 1.0)
    if np.linalg.matrix_rank(D[0]) < len(other) or \
            np.abs(D @ X + A).max() > 1e-9 * scale:
        raise SingularConfigurationError(
            f"static model: {model.name}: the actuators {', '.join(layout.names[c] for c in act)} "
            f"do not fix the other joints and the platform (singularity or actuation redundancy)")
    plat = [other.index(c) for c in range(layout.n_t, layout.n_tot)]
    return X[:, plat, :]


def static_efforts(model, q_tot, wrench):
    """The static model (6.53): actuator efforts (N or N m) holding the
    robot at rest against ``wrench`` (see the module: ``-J_n^T wrench``),
    gravity and elastic deflection left out.

    q_tot : (n_tot,) or (B, n_tot) an assembled state; wrench : (6,) or
    (B, 6). Returns (n_A,) or (B, n_A), actuators in ``layout.actuated``
    order (a rigid robot with actuation redundancy: the minimum-norm
    efforts of (8.148)). Raises :class:`flexpkm.errors.InvalidArgumentError`
    for a wrench along no platform coordinate,
    :class:`SingularConfigurationError` at a singularity.
    """
    model = build_model(model)
    external_wrench(model, wrench, np.atleast_2d(q_tot).shape[0], "static_efforts: wrench")
    full = full_dynamics(model, q_tot, 0.0, gravity=np.zeros(3), friction=False, wrench=wrench)
    if not model.layout.elastic_slice:              # rigid: (10.124) at rest, redundancy too
        return inverse_dynamics(full, np.zeros(np.shape(full.c)[:-1] + (full.n_a,)))[0]
    J_n = kinematic_jacobian(model, full)
    Q = external_wrench(model, wrench, J_n.shape[0])[1]
    tau = -(np.swapaxes(J_n, -1, -2) @ Q[..., None])[..., 0]
    return tau[0] if np.ndim(q_tot) == 1 else tau


def static_deflection(model, q_tot, wrench, actuator_stiffness=None) -> StaticDeflection:
    """Linear static deflection of a flexible robot under ``wrench`` (see the
    module), with the actuators locked or of stiffness ``actuator_stiffness``
    (n_a,) (N/m or N m/rad).

    q_tot : (n_tot,) an assembled configuration (its elastic coordinates
    are set to 0); wrench : (6,). Returns :class:`StaticDeflection`.
    Raises :class:`flexpkm.errors.InvalidArgumentError` (wrench, stiffness),
    :class:`SingularConfigurationError` when the stiffness matrix solved is
    not positive definite (a motion without stiffness: a rigid robot with
    locked actuators has no elastic coordinate to deflect, a singularity).
    """
    model = build_model(model)
    q = as_batch(q_tot, model.layout.n_tot, "static_deflection: q_tot")[0]
    red = reduced_matrices(model, q)
    J, K, na = red.J, red.K_r, red.n_a
    Q_tot = np.zeros(model.layout.n_tot)
    Q_tot[model.layout.n_t:] = external_wrench(model, wrench, 1, "static_deflection: wrench")[1][0]
    Q = J.T @ Q_tot
    if actuator_stiffness is None:
        free, K = slice(na, None), K.copy()
    else:
        k_a = check_actuator_stiffness(actuator_stiffness, red.names[:na], K[None])
        free, K = slice(0, None), K + np.diag(np.r_[k_a, np.zeros(len(Q) - na)])
    dq = np.zeros(len(Q))
    try:
        L = np.linalg.cholesky(K[free, free])
    except np.linalg.LinAlgError:
        raise SingularConfigurationError(
            f"static_deflection: {model.name}: the stiffness matrix of "
            f"{', '.join(red.names[free])} is not positive definite (a motion without "
            f"stiffness)") from None
    dq[free] = np.linalg.solve(L.T, np.linalg.solve(L, Q[free]))
    tau = (K[:na] @ dq - Q[:na]) if actuator_stiffness is None else -k_a * dq[:na]
    dq_tot = J @ dq
    return StaticDeflection(dq_r=dq, dq_tot=dq_tot, dx_p=dq_tot[model.layout.n_t:], tau=tau,
                            names=red.names)
