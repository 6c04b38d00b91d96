"""Design sensitivities of the natural frequencies (Chapter 11):
derivatives of ``f_i`` with respect to the numbers of a description file:
materials, sections, masses and inertias (exact: AD), and lengths and other
parameters that move the frames (the configuration is assembled anew at the
same platform pose, or the same ``q_a``: Richardson-extrapolated central
differences of the reduced matrices).

For mass-normalised modes of ``(K_cc - lambda M_cc) phi = 0`` (11.34),
``d lambda_i / dp = phi_i^T (dK/dp - lambda_i dM/dp) phi_i`` and
``df_i/dp = phi_i^T (dK/dp - lambda_i dM/dp) phi_i / (8 pi^2 f_i)``. At a
fixed configuration ``J`` does not depend on such a parameter, so
``dM_r/dp = J^T (dM_tot/dp) J`` (11.26); ``M_tot`` (10.99), (10.102) and
``K_tot`` (11.22) are linear in the bodies' invariants, whose symbolic form
(CasADi, :mod:`flexpkm.compiled.symbolic`: ``M_tot = sum J_j^T M_j(0) J_j``
with the body Jacobians by AD) gives ``dM_tot/dp = dM_tot/dI . dI/dp``
exactly. ``dI/dp`` (I the invariants) is the central difference of the
element model (:mod:`flexpkm.elements`) at p +- ``rel_step`` p: exact up to
round-off for the parameters that enter linearly (E, rho, a rigid body's
mass and inertia), second-order accurate otherwise (section sides).

A parameter that moves frames (a length, an MDH ``d``, ``r``, angle...)
also moves the assembled configuration: ``dM_cc/dp``, ``dK_cc/dp`` are then
the derivatives of the matrices of :func:`flexpkm.algorithms.modal.reduced_matrices`
of the robot re-assembled (:func:`flexpkm.assemble`, same q_dep) at
``p +- h``, ``p +- h/2`` (Richardson: error O(h^4), h = 3e-4 p); the
eigen-derivative formula above stays exact.
"""
from __future__ import annotations

import copy

import casadi as ca
import numpy as np

from flexpkm.algorithms.assembly import assemble
from flexpkm.algorithms.conditioning import REPEATED, repeated_flags
from flexpkm.algorithms.modal import generalized_eigh, reduced_matrices
from flexpkm.compiled import symbolic as sym
from flexpkm.errors import InvalidArgumentError
from flexpkm.model.build import build_model
from flexpkm.model.files import from_dict

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
    """``data`` (nested dict/list) with the key path ``a.b[2].c`` set to value."""
    keys = [k for part in path.replace("]", "").split(".") for k in part.split("[")]
    node = data
    for k in keys[:-1]:
        node = node[int(k)] if isinstance(node, list) else node[k]
    last = keys[-1]
    if last in DISCRETE:
        raise InvalidArgumentError(f"{path}: not a continuous parameter (no derivative)")
    old = node[int(last)] if isinstance(node, list) else node[last]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return float(old)


def frequency_sensitivities(data, paths, q_tot, n_modes=None, rel_step=1e-4, hold=None):
    """Natural frequencies (actuators locked, (11.34)) and their derivatives
    with respect to description-file parameters.

    data : the description as a dict (:func:`flexpkm.model.files.parse`);
    paths : key paths of numbers in it, e.g.
        ``"legs[0].frames[2].bodies[0].material.E"``, ``...section.b_y``,
        ``...bodies[0].length`` (a discrete key, e.g. ``elements``, raises
        :class:`InvalidArgumentError`);
    q_tot : (n_tot,) an assembled configuration (q_e ignored);
    hold : for parameters that move frames, what stays fixed while the robot
        is re-assembled: ``"pose"`` (the platform coordinates; default when
        the robot has a platform) or ``"q_a"`` (the actuated coordinates).
    Returns ``(f (n,), df (n, len(paths)))``: Hz and Hz per unit of each
    parameter (at a repeated frequency, the slopes of its sorted branches
    for increasing p: :func:`eigenvalue_derivatives`).
    Raises :class:`flexpkm.errors.UnreachablePoseError` when a perturbed
    robot cannot reach the held pose.
    """
    model = build_model(from_dict(data))
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
    lam, X = generalized_eigh(K[None], M[None], "M_cc")
    lam, X = lam[0], X[0]
    f = np.sqrt(np.clip(lam, 0.0, None)) / (2 * np.pi)
    n = len(f) if n_modes is None else min(int(n_modes), len(f))
    df = np.zeros((n, len(paths)))
    for k, path in enumerate(paths):
        dI_p = _invariant_derivative(data, path, model, rel_step)
        if dI_p is None:
            dM, dK = _matrix_derivative(data, path, model, q_tot, red, hold)
        else:
            dM, dK = (np.array(x) for x in F(np.concatenate(I0), dI_p)[2:])
        df[:, k] = eigenvalue_derivatives(lam, X, dK, dM)[:n] / (8 * np.pi ** 2 * f[:n])
    return f[:n], df


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


def _same_geometry(m, model):
    """The frames of ``m`` (their constants, and the tip shapes (10.8) that
    carry a flexible body's deflection to its successors) and the
    platform's joint points are those of ``model``: J does not change."""
    same = lambda x, y: np.array_equal(np.asarray(x, float), np.asarray(y, float),  # noqa: E731
                                       equal_nan=True)
    tips = lambda fc: () if fc.shapes is None else fc.shapes[1:]               # noqa: E731
    frames = all(same(a.R_fix, b.R_fix) and same(a.p_att, b.p_att) and a.r == b.r
                 and len(tips(a)) == len(tips(b)) and all(map(same, tips(a), tips(b)))
                 for a, b in zip(m.frame_constants, model.frame_constants))
    closures = all(same(a.platform_point, b.platform_point)
                   and same(a.platform_rotation, b.platform_rotation)
                   for a, b in zip(m.closures, model.closures))
    return frames and closures


def _bodies_only(m, model):
    """The change from ``model`` to ``m`` is in the bodies' invariants alone
    (what :func:`parametric_matrices` differentiates): same geometry, same
    joint springs (``K_tot`` outside the elastic blocks), rotor inertia and
    actuators."""
    K0, K1 = model.K_tot.copy(), m.K_tot.copy()
    for sl in model.layout.elastic_slice.values():
        K0[sl, sl] = K1[sl, sl] = 0.0
    return (_same_geometry(m, model) and np.array_equal(K0, K1)
            and dict(m.rotor_inertia) == dict(model.rotor_inertia)
            and tuple(m.layout.actuated) == tuple(model.layout.actuated))


def _perturbed(data, path, model, value):
    """The model of ``data`` with ``path`` set to ``value`` (same coordinates)."""
    trial = copy.deepcopy(data)
    _set(trial, path, value)
    m = build_model(from_dict(trial))
    if m.layout.names != model.layout.names:
        raise InvalidArgumentError(f"{path}: the parameter changes the coordinates")
    return m


def _invariant_derivative(data, path, model, rel_step):
    """``dI/dp`` (all bodies' invariants stacked) by central differences of
    the element models at ``p (1 +- rel_step)``, or None when the parameter
    changes more than the bodies (it moves frames, or it is a joint spring,
    a rotor inertia...: :func:`_matrix_derivative`)."""
    p0 = _set(copy.deepcopy(data), path, 0.0)
    step = rel_step * abs(p0) if p0 else rel_step
    out = []
    for value in (p0 + step, p0 - step):
        m = _perturbed(data, path, model, value)
        if not _bodies_only(m, model):
            return None
        out.append(np.concatenate([invariant_vector(b) for b in _bodies(m)]))
    return (out[0] - out[1]) / (2 * step)


def _matrix_derivative(data, path, model, q_tot, red, hold, rel_step=3e-4):
    """``(dM_cc/dp, dK_cc/dp)`` of a parameter that moves frames (or any
    other that is not a body's): the robot re-assembled at ``p +- h`` and ``p +- h/2`` (h = ``rel_step`` p) holding
    the platform pose or ``q_a`` (started from ``q_tot``, so in the same
    assembly mode), its reduced matrices over the same q_dep, and the
    Richardson extrapolation of the two central differences."""
    p0 = _set(copy.deepcopy(data), path, 0.0)
    h = rel_step * abs(p0) if p0 else rel_step
    na, n_t = red.n_a, model.layout.n_t
    act = list(model.layout.actuated)

    def matrices(value):
        m = _perturbed(data, path, model, value)
        q = (assemble(m, pose=q_tot[n_t:], guess=q_tot) if hold == "pose" else
             assemble(m, q_a=q_tot[act], guess=q_tot))
        r = reduced_matrices(m, q, q_dep=red.dep_names)
        return np.stack([r.M_r[na:, na:], r.K_r[na:, na:]])

    d = [(matrices(p0 + s) - matrices(p0 - s)) / (2 * s) for s in (h, h / 2)]
    return (4 * d[1] - d[0]) / 3
