"""Design sensitivities of the natural frequencies (Chapter 11):
derivatives of ``f_i`` with respect to any number of a description file
(materials, sections, masses and inertias, lengths and MDH parameters,
platform joint points, joint springs, rotor inertia).

For mass-normalised modes of ``(K_cc - lambda M_cc) phi = 0`` (11.34),
``d lambda_i / dp = phi_i^T (dK/dp - lambda_i dM/dp) phi_i`` and
``df_i/dp = phi_i^T (dK/dp - lambda_i dM/dp) phi_i / (8 pi^2 f_i)``
(repeated frequencies: :func:`eigenvalue_derivatives`). ``dM_cc/dp``,
``dK_cc/dp`` are exact derivatives (CasADi AD) of the matrices with respect
to what Step 0 builds from the description (:func:`_built`), times the
derivative of those with respect to p (central differences of the
builder, :func:`_builder_derivative`: exact up to round-off where p enters
linearly):

* the bodies' invariants I: ``M_tot`` (10.99), (10.102) and ``K_tot``
  (11.22) are linear in them (:func:`parametric_matrices`: ``M_tot = sum
  J_j^T M_j(0) J_j`` with the body Jacobians by AD, at the fixed
  configuration: J does not depend on I);
* the frame constants (MDH transforms, tip shapes) and the platform's joint
  frames: they move the configuration too, re-assembled holding the
  platform pose or ``q_a`` (:mod:`flexpkm.compiled.geometric`);
* the joint springs and the rotor inertia: ``J^T dK J``, ``J^T dM J``.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

import casadi as ca
import numpy as np

from flexpkm.algorithms.conditioning import REPEATED, repeated_flags
from flexpkm.algorithms.modal import generalized_eigh, reduced_matrices
from flexpkm.compiled import symbolic as sym
from flexpkm.compiled.geometric import frame_derivatives, frame_vector
from flexpkm.errors import InvalidArgumentError
from flexpkm.model.build import build_structure
from flexpkm.model.files import from_dict
from flexpkm.model.key_paths import locate, set_number

#: keys that are not continuous parameters
DISCRETE = {"elements", "planar", "sigma", "mu"}


def invariant_vector(body):
    """The invariants of a body (m, ms_r, I_rr, MS_de, J_re, J_ee, K_ee) flattened."""
    inv = body.invariants
    return np.concatenate([[inv.m], inv.ms_r, inv.I_rr.ravel(), inv.MS_de.ravel(),
                           inv.J_re.ravel(), inv.J_ee.ravel(), inv.K_ee.ravel()])


def _bodies(model):
    """Every body whose invariants enter: the tree's, then the platform's."""
    out = [e.body for e in model.body_entries]
    if model.platform is not None and model.platform.body is not None:
        out.append(model.platform.body)
    return out


def symbolic_mass(I, n):
    """``(M_j(0) (6 + n, 6 + n), K_ee (n, n))`` of (10.61) at ``q_e = 0`` from
    the SX vector I of :func:`invariant_vector` (derived invariants (10.55),
    (10.60): ``beta[k]_p = eps_pab J_re[k]_ab``, ``M_ee[i, k] = tr J_ee[i, k]``)."""
    m, ms, I_rr = I[0], I[1:4], ca.reshape(I[4:13], 3, 3).T
    k = 13
    MS_de = ca.reshape(I[k:k + 3 * n], n, 3).T
    J_re = I[k + 3 * n:k + 12 * n]
    J_ee = I[k + 12 * n:k + 12 * n + 9 * n * n]
    K_ee = ca.reshape(I[k + 12 * n + 9 * n * n:], n, n).T
    Jr = lambda kk, a, b: J_re[9 * kk + 3 * a + b]                     # noqa: E731
    beta = ca.horzcat(*[ca.vertcat(Jr(kk, 1, 2) - Jr(kk, 2, 1), Jr(kk, 2, 0) - Jr(kk, 0, 2),
                                   Jr(kk, 0, 1) - Jr(kk, 1, 0)) for kk in range(n)]) \
        if n else ca.SX.zeros(3, 0)
    M_ee = ca.SX.zeros(n, n)
    for i in range(n):
        for j in range(n):
            base = 9 * (n * i + j)
            M_ee[i, j] = J_ee[base] + J_ee[base + 4] + J_ee[base + 8]
    S = sym.hat(ms)
    M = ca.vertcat(ca.horzcat(m * ca.SX.eye(3), S.T, MS_de), ca.horzcat(S, I_rr, beta),
                   ca.horzcat(MS_de.T, beta.T, M_ee))
    return M, K_ee


def parametric_matrices(model, q_tot, J):
    """``(I, M_tot(I), K_tot(I))``: the symbols I of every body's invariants
    (list, order of :func:`_bodies`) and the virtual system's mass and
    stiffness (10.99), (10.102), (11.22) at the configuration ``q_tot``
    (numbers; q_e = 0) as SX expressions of I, projected ``J^T (.) J``
    with the numeric J (n_tot, n_r)."""
    layout = model.layout
    n_t = layout.n_t
    q, qd = ca.SX.sym("q", n_t), ca.SX.sym("qd", n_t)
    R, p = sym.frame_poses(model, q)
    Jx = []
    for e in model.body_entries:
        v, w = sym.twist(R[e.frame], p[e.frame], q, qd)
        x = ca.vertcat(R[e.frame].T @ v, R[e.frame].T @ w,
                       qd[e.elastic.start:e.elastic.stop] if e.elastic else ca.SX.zeros(0, 1))
        Jx.append(ca.jacobian(x, qd))
    q_t = np.array(q_tot[:n_t], float)
    for sl in layout.elastic_slice.values():
        q_t[sl] = 0.0
    Jx = ca.Function("Jx", [q], Jx).call([ca.DM(q_t)])
    I = [ca.SX.sym(f"I{k}", len(invariant_vector(b))) for k, b in enumerate(_bodies(model))]
    M = ca.SX.zeros(layout.n_tot, layout.n_tot)
    K = ca.SX(model.K_tot)
    for k, e in enumerate(model.body_entries):
        Mj, Kj = symbolic_mass(I[k], e.body.invariants.n_e)
        Jk = ca.SX(Jx[k])
        M[:n_t, :n_t] += Jk.T @ Mj @ Jk
        if e.elastic is not None:
            K[e.elastic.start:e.elastic.stop, e.elastic.start:e.elastic.stop] = Kj
    for name, inertia in model.rotor_inertia.items():
        c = layout.joint_index[name]
        M[c, c] += inertia
    if len(I) > len(model.body_entries):          # the platform (8.97), rigid
        pose = np.zeros(6)
        pose[list(model.platform.dofs)] = q_tot[n_t:]
        Rp = ca.SX(sym.rodrigues(ca.DM(pose[3:])))
        Rb = ca.diagcat(Rp, Rp)
        S = ca.SX(np.eye(6)[:, list(model.platform.dofs)])
        M[n_t:, n_t:] = S.T @ Rb @ symbolic_mass(I[-1], 0)[0] @ Rb.T @ S
    J = ca.SX(J)
    return I, J.T @ M @ J, J.T @ K @ J


def _set(data, path, value):
    """``data`` (nested dict/list) with the key path ``a.b[2].c`` set to
    value (:func:`flexpkm.model.key_paths.set_number`); returns the old
    value. Raises :class:`InvalidArgumentError` for a discrete key (no
    derivative) and as ``set_number``."""
    _, key, _ = locate(data, path)
    if key in DISCRETE:
        raise InvalidArgumentError(f"{path}: not a continuous parameter (no derivative)")
    return set_number(data, path, value)


def frequency_sensitivities(data, paths, q_tot, n_modes=None, rel_step=1e-4, hold=None):
    """Natural frequencies (actuators locked, (11.34)) and their derivatives
    with respect to description-file parameters.

    data : the description as a dict (:func:`flexpkm.model.files.parse`);
    paths : key paths of numbers in it, e.g.
        ``"legs[0].frames[2].bodies[0].material.E"``, ``...section.b_y``,
        ``...bodies[0].length`` (a discrete key, e.g. ``elements``, raises
        :class:`InvalidArgumentError`);
    q_tot : (n_tot,) an assembled configuration (q_e ignored);
    hold : for parameters that move frames, what stays fixed while the
        configuration follows: ``"pose"`` (the platform coordinates; default
        when the robot has a platform) or ``"q_a"`` (the actuated coordinates).
    Returns ``(f (n,), df (n, len(paths)))``: Hz and Hz per unit of each
    parameter (SI; at a repeated frequency, the slopes of its sorted
    branches for increasing p: :func:`eigenvalue_derivatives`).
    Raises :class:`InvalidArgumentError` for a discrete key, a parameter
    that changes the coordinates or the model's structure, a bad ``hold``;
    :class:`flexpkm.errors.SingularConfigurationError` when the held
    coordinates do not determine the configuration (geometric parameters);
    what :func:`flexpkm.algorithms.modal.reduced_matrices` raises for
    ``q_tot`` (an open loop...).
    """
    return modal_derivatives(matrix_derivatives(data, paths, q_tot, rel_step, hold), n_modes)


def modal_derivatives(d, n_modes=None):
    """``(f (n,), df (n, n_p))`` of :func:`frequency_sensitivities` from the
    :class:`MatrixDerivatives` ``d`` (Hz, Hz per unit)."""
    lam, X = generalized_eigh(d.K_cc[None], d.M_cc[None], "M_cc")
    lam, X = lam[0], X[0]
    f = np.sqrt(np.clip(lam, 0.0, None)) / (2 * np.pi)
    n = len(f) if n_modes is None else min(int(n_modes), len(f))
    df = np.zeros((n, len(d.dK)))
    for k, (dM, dK) in enumerate(zip(d.dM, d.dK)):
        df[:, k] = eigenvalue_derivatives(lam, X, dK, dM)[:n] / (8 * np.pi ** 2 * f[:n])
    return f[:n], df


@dataclass
class MatrixDerivatives:
    """What :func:`matrix_derivatives` returns (actuators locked, (11.34)).

    reduced : :class:`flexpkm.algorithms.modal.ReducedMatrices` at ``q_tot``
    M_cc, K_cc : (m, m) the matrices on q_c (kg, m, rad; N/m, N m/rad)
    dM, dK : (len(paths), m, m) their total derivatives per unit of each
        parameter (the configuration following, ``hold``)
    moves : indices of the parameters that move frames (the Jacobian J of
        ``reduced`` depends on them; it does not on the others)
    dmass : (len(paths),) kg per unit: the derivative of the mass of the
        bodies and the platform (the sum of their invariants m)"""

    reduced: object
    M_cc: np.ndarray
    K_cc: np.ndarray
    dM: np.ndarray
    dK: np.ndarray
    moves: tuple
    dmass: np.ndarray


def matrix_derivatives(data, paths, q_tot, rel_step=1e-4, hold=None) -> MatrixDerivatives:
    """``M_cc``, ``K_cc`` and their derivatives with respect to the key
    paths of :func:`frequency_sensitivities` (same arguments, same errors),
    the matrices behind its ``df``: CasADi AD with respect to the bodies'
    invariants, the geometric terms re-assembled (``hold``), the joint
    springs and rotor inertia projected ``J_c^T (.) J_c``."""
    model = build_structure(from_dict(data))
    hold = hold or ("pose" if model.platform is not None and model.platform.dofs else "q_a")
    if hold not in ("pose", "q_a"):
        raise InvalidArgumentError(f"hold must be 'pose' or 'q_a', got {hold!r}")
    red = reduced_matrices(model, q_tot)
    na = red.n_a
    I, M_r, K_r = parametric_matrices(model, q_tot, red.J)
    I0 = [invariant_vector(b) for b in _bodies(model)]
    dI = [ca.SX.sym(f"dI{k}", x.shape[0]) for k, x in enumerate(I)]
    Iall, dIall = ca.vertcat(*I), ca.vertcat(*dI)
    M_cc, K_cc = M_r[na:, na:], K_r[na:, na:]
    F = ca.Function("dMK", [Iall, dIall], [M_cc, K_cc, ca.jtimes(M_cc, Iall, dIall),
                                           ca.jtimes(K_cc, Iall, dIall)])
    M, K = (np.array(x) for x in F(np.concatenate(I0), np.zeros(sum(len(x) for x in I0)))[:2])
    J_c = red.J[:, na:]
    built = [_builder_derivative(data, path, model, rel_step) for path in paths]
    moves = [k for k, b in enumerate(built) if np.any(b[1])]
    geometric = dict(zip(moves, frame_derivatives(model, q_tot, red, [built[k][1] for k in moves],
                                                  hold) if moves else []))
    dMs, dKs = np.zeros((len(paths),) + M.shape), np.zeros((len(paths),) + K.shape)
    for k, (dI_p, _, dK_joint, d_rotor) in enumerate(built):
        dM, dK = (np.array(x) for x in F(np.concatenate(I0), dI_p)[2:])
        if k in geometric:
            dM, dK = dM + geometric[k][0], dK + geometric[k][1]
        dKs[k] = dK + J_c.T @ dK_joint @ J_c
        dMs[k] = dM + J_c.T @ (d_rotor[:, None] * J_c)
    m_at = np.cumsum([0] + [len(x) for x in I0[:-1]])          # m opens each body's vector
    return MatrixDerivatives(reduced=red, M_cc=M, K_cc=K, dM=dMs, dK=dKs, moves=tuple(moves),
                             dmass=np.array([b[0][m_at].sum() for b in built]))


def eigenvalue_derivatives(lam, X, dK, dM):
    """``d lambda_i / dp`` (n,) of ``K x = lambda M x`` (ascending ``lam``
    (n,), M-orthonormal ``X`` (m, n)) for the matrix derivatives ``dK``,
    ``dM`` (m, m): ``x_i^T (dK - lambda_i dM) x_i`` for a simple eigenvalue;
    for a repeated one (relative gap below
    :data:`flexpkm.algorithms.conditioning.REPEATED`), the ascending
    eigenvalues of ``X_c^T (dK - lambda dM) X_c`` over its eigenspace: the
    slopes of the sorted branches for increasing p (a right derivative:
    the branches may cross, and a central difference then gives their mean)."""
    out = np.empty(len(lam))
    flags = repeated_flags(lam[None])[0]
    start = 0
    while start < len(lam):
        stop = start + 1
        while stop < len(lam) and flags[stop] and abs(lam[stop] - lam[stop - 1]) \
                <= REPEATED * abs(lam[stop]):
            stop += 1
        Xc = X[:, start:stop]
        G = Xc.T @ (dK - lam[start:stop].mean() * dM) @ Xc
        out[start:stop] = np.linalg.eigvalsh(0.5 * (G + G.T))
        start = stop
    return out


def _perturbed(data, path, model, value):
    """The model of ``data`` with ``path`` set to ``value`` (same coordinates)."""
    trial = copy.deepcopy(data)
    _set(trial, path, value)
    m = build_structure(from_dict(trial))
    if m.layout.names != model.layout.names or m.layout.actuated != model.layout.actuated:
        raise InvalidArgumentError(f"{path}: the parameter changes the coordinates")
    return m


def _built(m):
    """What Step 0 builds from the description and the matrices depend on:
    the bodies' invariants, the frame constants (:func:`frame_vector`), the
    joint springs (``K_tot`` outside the elastic blocks), the rotor
    inertia on the diagonal of ``M_tot`` (n_tot,)."""
    K = m.K_tot.copy()
    for sl in m.layout.elastic_slice.values():
        K[sl, sl] = 0.0
    rotor = np.zeros(m.layout.n_tot)
    for name, inertia in m.rotor_inertia.items():
        rotor[m.layout.joint_index[name]] = inertia
    return (np.concatenate([invariant_vector(b) for b in _bodies(m)]), frame_vector(m), K, rotor)


def _builder_derivative(data, path, model, rel_step):
    """Central differences (p +- ``rel_step`` p) of :func:`_built`: exact
    up to round-off where p enters linearly (E, rho, masses, MDH ``d``,
    ``b``, ``r``, joint springs), O(rel_step^2) otherwise (angles, section
    sides, a beam's length)."""
    p0 = _set(copy.deepcopy(data), path, 0.0)
    step = rel_step * abs(p0) if p0 else rel_step
    ends = [_built(_perturbed(data, path, model, p0 + s)) for s in (step, -step)]
    if any(a.shape != b.shape for a, b in zip(*ends)) or ends[0][0].shape != _built(model)[0].shape:
        raise InvalidArgumentError(f"{path}: the parameter changes the structure of the model")
    return [(a - b) / (2 * step) for a, b in zip(*ends)]


def design_gradient(model, q_tot, n_modes=None):
    """Natural frequencies (actuators locked, (11.34)) at ``q_tot`` and their
    exact derivatives with respect to every design parameter: the entries of
    ``p`` (:func:`flexpkm.compiled.design.design_vector`, layout
    :func:`flexpkm.compiled.design.design_layout`), by reverse-mode AD of the
    parametric kernel graph (:func:`flexpkm.compiled.modal.modal_graph`), no
    finite differences: ``d lambda_i / dp = x_i^T (dK_cc/dp - lambda_i
    dM_cc/dp) x_i`` in one sweep per mode.

    model : Model with its reference state (or a Robot, built here);
    q_tot : (n_tot,) an assembled configuration (q_e ignored).
    Returns ``(f (n,), df_dp (n, n_p))``, Hz and Hz per unit of each entry.
    At fixed ``q_tot``: the total derivative for the entries that do not
    move the configuration (the bodies' invariants, the platform's inertia,
    the stiffness, the rotor inertia; zero for the friction); for the
    frames' and the platform joints' constants, the partial derivative at
    fixed coordinates (the loops open; :func:`frequency_sensitivities`
    re-assembles). At a repeated frequency, the rows of its cluster are the
    diagonal terms (their sum is the derivative of the cluster's sum).
    Raises what :func:`flexpkm.compiled.modal.reduced_matrices` raises
    (:class:`flexpkm.errors.BackendUnavailableError`, an open loop...)."""
    from flexpkm.algorithms.reference import build_model
    from flexpkm.compiled import modal
    model = build_model(model)
    q = np.array(q_tot, float)
    red = modal.reduced_matrices(model, q)
    cm, _, _ = modal.compiled_robot(model)
    na = cm.n_a
    lam, X = generalized_eigh(red.K_r[None, na:, na:], red.M_r[None, na:, na:], "M_cc")
    n = lam.shape[1] if n_modes is None else min(int(n_modes), lam.shape[1])
    lam, X = lam[0, :n], X[0, :, :n]
    F = modal.modal_graph(cm, True)
    qs, ps = ca.MX.sym("q", q.size), ca.MX.sym("p", cm.design.size)
    M_r, K_r = F(qs, ps)[:2]
    Xs, ls = ca.MX.sym("X", X.shape[0], n), ca.MX.sym("lam", n)
    s = ca.sum1(Xs * (K_r[na:, na:] @ Xs)).T - ls * ca.sum1(Xs * (M_r[na:, na:] @ Xs)).T
    G = ca.Function("design_gradient", [qs, ps, Xs, ls], [ca.jacobian(s, ps)])
    f = np.sqrt(np.clip(lam, 0.0, None)) / (2 * np.pi)
    dlam = np.array(G(q, cm.design, X, lam))
    return f, dlam / (8 * np.pi ** 2 * f[:, None])
