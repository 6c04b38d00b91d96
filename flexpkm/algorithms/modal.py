"""Stiffness and inertia matrices of the PKM and its natural frequencies
(Briot & Khalil Chapter 11; Steps 0-4 of Section 11.5).

At a nominal configuration (q_a, q_d, q_e = 0):

* Step 1-2: ``M_tot``, ``K_tot`` of the virtual system (11.21)-(11.23);
* Step 3: ``J`` from the closures (10.114); ``M_r = E_q J^T M_tot J E_q^T``,
  ``K_r = E_q J^T K_tot J E_q^T`` (11.26)-(11.27), ordered ``q_r = [q_a, q_c]``;
* Step 4: actuators locked -> ``(omega^2 M_cc - K_cc) q_c = 0`` (11.34); with
  actuator elasticity ``K_a`` -> ``(omega^2 M_r - (K_r + diag(K_a, 0))) q_r = 0``
  (11.38)-(11.41).
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np

from flexpkm.algorithms.closure import check_loops, constraint_jacobian, expand, solve_closure
from flexpkm.algorithms.conditioning import (NEAR_SINGULAR_COND, NEAR_SINGULAR_MEASURE,
                                             canonical_shapes, check_actuator_stiffness,
                                             check_modes_count, closure_condition,
                                             pencil_measures, repeated_flags)
from flexpkm.algorithms.eigen import generalized_eigh, graded_generalized_eigh
from flexpkm.algorithms.platform import platform_pose
from flexpkm.errors import InvalidArgumentError, SingularConfigurationError
from flexpkm.algorithms.tree import as_batch, tree_kinematics
from flexpkm.algorithms.virtual_system import virtual_mass_matrix
from flexpkm.algorithms.reference import build_model

#: a locked robot whose lowest eigenvalue of K is below this fraction of the
#: largest is at a singular configuration (a zero-stiffness motion)
ZERO_STIFFNESS = 1e-11
#: an actuator stiffness above this many times the structure's stiffness
#: scale is solved by :func:`flexpkm.algorithms.eigen.graded_generalized_eigh`
#: (the lowest frequencies keep their digits up to the locked limit)
STIFF_ACTUATOR = 1e3


@dataclass(kw_only=True)
class ReducedMatrices:
    """``M_r``, ``K_r`` of Eqs. (11.26)-(11.27) over ``q_r = [q_a, q_c]``.

    M_r, K_r : (B, n_q, n_q)
    names    : names of q_r (actuated first)
    n_a      : number of actuated coordinates
    choice   : how q_dep was chosen (``"book"``, ``"rank-revealing"``...)
    dep_names: the dependent coordinates
    indep, dep, J_d : q_tot columns of q_r (the independent coordinates, in
               q_r order) and of q_dep, and ``J_d`` (B, c, n_q)
    cond_closure : (B,) condition number of ``J_t^f`` (10.110) at each pose
    scales   : (B, 3) largest diagonal term of ``K_tot`` and largest ``|M_tot|``
               term over the non-actuated coordinates, largest actuated
               diagonal term of ``M_tot`` without rotor inertia (SI): the
               stiffness and inertia scales of the Type 2 measure, which do
               not depend on the choice of q_dep
    J        : (B, n_tot, n_q) maps q_r to all coordinates q_tot (columns in
               q_r order), i.e. ``J E_q^T`` (10.114); built on each access
    rows     : :class:`flexpkm.algorithms.constraint_rows.RowSelection`: the
               independent constraint rows used and the redundant ones
               dropped (``rows.summary()`` is a text report)
    backend  : what computed them: ``"numpy"`` (:func:`reduced_matrices`) or
               ``"compiled"`` (:func:`flexpkm.compiled.modal.reduced_matrices`)

    For one pose (``q_tot`` of shape (n_tot,)) the leading axis B is absent.
    """

    M_r: np.ndarray
    K_r: np.ndarray
    names: tuple
    n_a: int
    choice: str
    dep_names: tuple
    indep: np.ndarray
    dep: np.ndarray
    J_d: np.ndarray
    rows: object = None
    cond_closure: np.ndarray = None
    scales: np.ndarray = None
    backend: str = "numpy"

    @property
    def J(self) -> np.ndarray:
        """(B, n_tot, n_q) or (n_tot, n_q): ``J E_q^T`` (10.114), built on each access."""
        return expand(self.indep, self.dep, self.J_d)


def reduced_matrices(model, q_tot, q_dep=None) -> ReducedMatrices:
    """Steps 0-3 of Section 11.5 at ``q_tot`` (all coordinates of the
    assembled robot, :func:`flexpkm.assemble`; elastic coordinates are set
    to 0).

    q_tot : (n_tot,) or (B, n_tot): one pose gives a :class:`ReducedMatrices`
    without the batch axis, a batch one with it.
    Raises :class:`InvalidArgumentError` for another shape, an empty batch
    or a non-finite value (naming the pose), :class:`OpenLoopError` when a
    loop is open by more than :data:`flexpkm.algorithms.closure.LOOP_TOL`,
    :class:`SingularConfigurationError` when the closure cannot be solved (see
    :func:`flexpkm.algorithms.dependent.choose_dependent`).
    """
    model = build_model(model)
    layout = model.layout
    q = as_batch(q_tot, layout.n_tot).copy()
    for sl in layout.elastic_slice.values():
        q[:, sl] = 0.0
    kin = tree_kinematics(model, q[:, :layout.n_t])
    check_loops(model, q, kin, what="reduced_matrices")
    pose = platform_pose(model, q)
    J_tot, labels = constraint_jacobian(model, kin, pose)
    sol = solve_closure(model, J_tot, labels, q_dep=q_dep)
    act = [k for k, i in enumerate(sol.indep) if i in layout.actuated]
    rest = [k for k, i in enumerate(sol.indep) if i not in layout.actuated]
    order = act + rest                                   # E_q
    indep, dep, J_d = sol.indep[order], sol.dep, sol.J_d[:, :, order]
    M_tot = virtual_mass_matrix(model, q[:, :layout.n_t], pose.R, kin, undeformed=True)
    M_r = project(M_tot, indep, dep, J_d)
    K_r = project(model.K_tot[None], indep, dep, J_d)
    names = tuple(layout.names[i] for i in indep)
    J_f = J_tot[:, sol.kept][:, :, dep] if sol.rows is not None else J_tot[:, :, dep]
    red = ReducedMatrices(M_r=M_r, K_r=K_r, names=names, n_a=len(act), choice=sol.choice,
                          dep_names=tuple(layout.names[i] for i in sol.dep), indep=indep, dep=dep,
                          J_d=J_d,
                          rows=sol.rows, cond_closure=closure_condition(J_f),
                          scales=passive_scale(model, M_tot))
    return single_pose(red) if np.ndim(q_tot) == 1 else red


def single_pose(result, fields_=("M_r", "K_r", "J_d", "frequencies_hz", "shapes_q", "shapes_tot",
                                 "cond_closure", "scales", "cond_pencil", "singularity_measure",
                                 "repeated", "near_singular")):
    """``result`` (a :class:`ReducedMatrices` or :class:`Modes` of a batch of
    one pose) without its batch axis: one pose in, one pose out."""
    out = {f.name: getattr(result, f.name)[0] for f in fields(result)
           if f.name in fields_ and getattr(result, f.name) is not None}
    if "reduced" in {f.name for f in fields(result)}:
        out["reduced"] = single_pose(result.reduced)
    return replace(result, **out)


def project(A, indep, dep, J_d):
    """``J^T A J`` for ``J`` = identity on the independent rows ``indep`` and
    ``J_d`` on the dependent rows ``dep`` (10.114), without forming J:
    ``A_ii + J_d^T A_di + A_id J_d + J_d^T A_dd J_d``. A (B or 1, n_tot,
    n_tot) symmetric, J_d (B, c, n_q). Returns (B, n_q, n_q)."""
    n = len(indep)
    perm = np.concatenate([indep, dep])
    Ap = np.take(np.take(A, perm, axis=1), perm, axis=2)
    AJ = Ap[:, :n, n:] @ J_d
    out = Ap[:, :n, :n] + AJ
    out += np.swapaxes(AJ, -1, -2)
    out += np.swapaxes(J_d, -1, -2) @ (Ap[:, n:, n:] @ J_d)
    return out


@dataclass(kw_only=True)
class Modes:
    """Natural frequencies and mode shapes (B poses, n modes).

    For one pose (``q_tot`` of shape (n_tot,)) the leading axis B is absent.

    frequencies_hz : (B, n) ascending, Hz
    shapes_q : (B, n_q, n) mass-normalised eigenvectors over ``names``
               (None when computed with ``shapes=False``)
    shapes_tot : (B, n_tot, n) the same expanded to every coordinate through J
               (None when computed with ``shapes=False``)
    names : coordinates of ``shapes_q``
    reduced : the :class:`ReducedMatrices` they come from
    cond_closure : (B,) condition number of ``J_t^f`` (closure)
    cond_pencil : (B,) ``lambda_max / lambda_min`` of the stiffness/mass
               pencil (all modes, before ``n_modes``; inf if lambda_min <= 0)
    singularity_measure : (B,) ``lambda_min / (max diag K_tot / max |M_tot|)``
               over the non-actuated coordinates (:attr:`ReducedMatrices.scales`;
               with elastic actuators the actuator stiffness and the actuated
               inertia join them), the Type 2 distance measure (singular below
               ``ZERO_STIFFNESS``); it does not depend on the q_dep choice
    near_singular : (B,) cond_closure above
               :data:`flexpkm.algorithms.conditioning.NEAR_SINGULAR_COND` (1e8)
               or the measure below ``NEAR_SINGULAR_MEASURE`` (1e-8): the
               lowest frequencies are unreliable
    repeated : (B, n) frequency repeated (relative gap < 1e-6); its shapes are
               an M-orthonormal basis of the eigenspace chosen from the
               eigenspace alone; every shape is signed so that the
               largest-magnitude component of ``shapes_tot`` is positive
               (:func:`flexpkm.algorithms.conditioning.canonical_shapes`):
               ``shapes_tot`` of a pose does not depend on the other poses of
               the batch, ``shapes_q`` is over the batch's q_dep choice
    backend  : what computed the reduced matrices, ``"numpy"`` or
               ``"compiled"`` (``reduced.backend``; the eigen step is LAPACK's
               on both)
    backend_reason : why that backend (``"asked"``, ``"auto: ..."``;
               :mod:`flexpkm.analysis.backend`), ``""`` from :func:`solve_modes`
    """

    frequencies_hz: np.ndarray
    shapes_q: np.ndarray
    shapes_tot: np.ndarray
    names: tuple
    reduced: ReducedMatrices
    cond_closure: np.ndarray = None
    cond_pencil: np.ndarray = None
    singularity_measure: np.ndarray = None
    near_singular: np.ndarray = None
    repeated: np.ndarray = None
    backend: str = "numpy"
    backend_reason: str = ""


def stiffness_scale(model) -> float:
    """The largest diagonal term of ``K_tot`` over the non-actuated
    coordinates (N/m or N m/rad): the stiffness scale of the Type 2 measure."""
    free = np.setdiff1d(np.arange(model.layout.n_tot), np.asarray(model.layout.actuated, int))
    return float(np.abs(np.diagonal(model.K_tot)[free]).max(initial=0.0))


def passive_scale(model, M_tot) -> np.ndarray:
    """(B, 3): the largest diagonal term of ``K_tot`` and the largest
    ``|M_tot|`` term over the non-actuated coordinates, and the largest
    actuated diagonal term of ``M_tot`` without rotor inertia (see
    ReducedMatrices)."""
    layout = model.layout
    act = np.asarray(layout.actuated, int)
    free = np.setdiff1d(np.arange(layout.n_tot), act)
    k = stiffness_scale(model)
    m = np.abs(M_tot[:, free][:, :, free]).max(axis=(1, 2), initial=0.0)
    rotor = np.array([model.rotor_inertia.get(layout.frame_of(i), 0.0) for i in act])
    m_a = np.abs(M_tot[:, act, act] - rotor).max(axis=1, initial=0.0)
    return np.column_stack([np.full(len(m), k), m, m_a])


def _check_type2(measure, cond, red, actuator_stiffness):
    """SingularConfigurationError at the first pose whose lowest eigenvalue
    is below ``ZERO_STIFFNESS`` of the stiffness scale."""
    low = np.flatnonzero(measure <= ZERO_STIFFNESS)
    if not low.size:
        return
    b = int(low[0])
    facts = (f"pose {b}: lowest eigenvalue / stiffness scale = {measure[b]:.3g} "
             f"(threshold {ZERO_STIFFNESS:g}), cond(J_t^f) = {red.cond_closure[b]:.3g}")
    if actuator_stiffness is None:
        why = ("with the actuators locked the robot has a zero-stiffness motion: "
               "a Type 2 (parallel) singularity")
    else:
        why = ("with elastic actuators the robot has a zero-stiffness motion: a Type 2 "
               "singularity, or an actuator stiffness negligible against the structure's")
    raise SingularConfigurationError(f"singular configuration at {facts}; {why}",
                                     matrix="K_r" if actuator_stiffness is not None else "K_cc",
                                     where=f"pose {b}", cond=float(cond[b]))


def solve_modes(model, reduced: ReducedMatrices, n_modes=None, actuator_stiffness=None,
                allow_zero=False, shapes=True) -> Modes:
    """Step 4 of Section 11.5, the public eigen step of both backends:
    natural frequencies and mode shapes of the reduced matrices ``reduced``
    (:func:`reduced_matrices` or :func:`flexpkm.compiled.modal.reduced_matrices`,
    one pose or a batch) of ``model`` (the Model they come from).

    Actuators locked (``actuator_stiffness`` None): ``(omega^2 M_cc - K_cc)
    q_c = 0`` (11.34). Elastic actuators (``actuator_stiffness`` (n_A,), N/m
    or N m/rad): the rotor inertia leaves ``M_aa``, ``diag(k)`` joins
    ``K_aa`` (11.38)-(11.42); with actuation redundancy the springs act on
    ``qd_A = J_A qd_r``: ``K_r + J_A^T diag(k) J_A``. ``shapes=False`` skips
    the mode shapes. BLAS threads are left as they are (the caller limits
    them: :func:`flexpkm.natural_frequencies` runs it on one thread).
    Returns :class:`Modes` (without the batch axis when ``reduced`` has
    none; ``backend`` = ``reduced.backend``). Raises
    :class:`InvalidArgumentError` for a bad ``n_modes`` or
    ``actuator_stiffness`` or a rigid robot with locked actuators,
    :class:`SingularConfigurationError` for a zero-stiffness motion (Type 2
    singularity) unless ``allow_zero``, :class:`IndefiniteMassMatrixError`
    for a mass matrix that is not positive definite.
    """
    n_modes = check_modes_count(n_modes)
    one = np.ndim(reduced.M_r) == 2
    red = batched(reduced) if one else reduced
    M, K, names, J, where = _pencil(model, red, actuator_stiffness)
    if K.shape[-1] == 0:
        raise InvalidArgumentError(f"{model.name} has no coordinate left with the actuators "
                                   f"locked (a rigid robot): no natural frequencies; give "
                                   f"the actuator stiffness")
    k_scale, m_scale = red.scales[:, 0], red.scales[:, 1]
    solve = generalized_eigh
    if actuator_stiffness is not None:                  # the actuated coordinates move too
        # a very stiff actuator is the locked limit, not a singularity: the
        # scale of the Type 2 measure stays the structure's (the actuators'
        # only for a structure without stiffness: a rigid robot)
        k_max = float(np.max(actuator_stiffness))
        if k_max > STIFF_ACTUATOR * k_scale.max():
            solve = graded_generalized_eigh
        k_scale = np.where(k_scale > 0, k_scale, k_max)
        m_scale = np.maximum(m_scale, red.scales[:, 2])
    lam, X = solve(K, M, where, vectors=shapes)
    cond, measure = pencil_measures(lam, k_scale / m_scale)
    if not allow_zero:
        _check_type2(measure, cond, red, actuator_stiffness)
    near = (red.cond_closure > NEAR_SINGULAR_COND) | (measure < NEAR_SINGULAR_MEASURE)
    f = np.sqrt(np.clip(lam, 0.0, None)) / (2 * np.pi)
    n = f.shape[1] if n_modes is None else min(int(n_modes), f.shape[1])
    extra = dict(cond_closure=red.cond_closure, cond_pencil=cond, singularity_measure=measure,
                 near_singular=near)
    if X is None:
        modes = Modes(frequencies_hz=f[:, :n], shapes_q=None, shapes_tot=None, names=names,
                      reduced=red, repeated=repeated_flags(lam)[:, :n], backend=red.backend,
                      **extra)
    else:
        X, T, rep = canonical_shapes(lam, X, J() @ X)
        modes = Modes(frequencies_hz=f[:, :n], shapes_q=X[:, :, :n], shapes_tot=T[:, :, :n],
                      names=names, reduced=red, repeated=rep[:, :n], backend=red.backend,
                      **extra)
    return single_pose(modes) if one else modes


def _pencil(model, red, actuator_stiffness):
    """``(M, K, names, J, where)`` of the eigenproblem of :func:`solve_modes`:
    the locked (M_cc, K_cc) or elastic-actuator (M_r, K_r) pencil over
    ``names``, ``J()`` the matching columns of ``J E_q^T``, ``where`` the mass
    matrix's name for the errors."""
    act = list(model.layout.actuated)
    act_names = [model.layout.names[c] for c in act]
    if actuator_stiffness is not None:
        check_actuator_stiffness(actuator_stiffness, act_names, None)
    na = red.n_a
    if actuator_stiffness is None:
        M, K, names = red.M_r[:, na:, na:], red.K_r[:, na:, na:], red.names[na:]
        J = lambda: red.J[:, :, na:]  # noqa: E731
        where = "M_cc"
    else:
        # (11.36)-(11.39): the rotors sit on the motor side, which is locked
        # (delta q_M = 0): their inertia leaves M_aa, the gearbox spring K_a
        # joins K_aa.
        M, K, names = red.M_r.copy(), red.K_r.copy(), red.names
        J = lambda: red.J  # noqa: E731
        K_cc = red.K_r[:, na:, na:]
        k_a = check_actuator_stiffness(actuator_stiffness, act_names,
                                       K_cc if K_cc.shape[-1] else None)
        if len(act) > na:           # actuation redundancy: springs on qd_A = J_A qd_r
            J_A = red.J[:, act, :]
            rotor = np.array([model.rotor_inertia.get(model.layout.frame_of(c), 0.0) for c in act])
            K += np.swapaxes(J_A, -1, -2) @ (k_a[:, None] * J_A)
            M -= np.swapaxes(J_A, -1, -2) @ (rotor[:, None] * J_A)
        else:
            K[:, range(na), range(na)] += k_a
            for k, c in enumerate(red.indep[:na]):
                M[:, k, k] -= model.rotor_inertia.get(model.layout.frame_of(c), 0.0)
        where = "M_r"
    return M, K, names, J, where


def batched(red: ReducedMatrices) -> ReducedMatrices:
    """A one-pose :class:`ReducedMatrices` with the batch axis (of length 1):
    the inverse of :func:`single_pose`."""
    out = {name: getattr(red, name)[None] for name in ("M_r", "K_r", "J_d", "cond_closure",
                                                       "scales")
           if getattr(red, name) is not None}
    return replace(red, **out)
