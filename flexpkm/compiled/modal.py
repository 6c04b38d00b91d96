"""Modal analysis on generated code (Section 11.5, Steps 0-3 in C, Step 4
by LAPACK): one compiled function of the configuration gives, at
``q_e = 0``, everything the numpy :func:`flexpkm.algorithms.modal.reduced_matrices`
gives (``M_r``, ``K_r`` of (11.26)-(11.27), ``J_d`` of (10.110), ``J_t^f``
for its condition number, the loop residual for the loop check, the
inertia scales of the Type 2 measure); a batch of poses is one call (a
CasADi ``map``), numpy memory in and out.

Why it is fast (issue 10 item 3): no dense ``M_tot``, ``J``: the products
``J^T M_tot J`` and ``J^T K_tot J`` run over the structural non-zeros of
``M_tot`` (limb blocks), ``K_tot`` and ``J`` (identity on ``q_r``, limb blocks
of ``J_d``), and only their lower triangles are computed; the loop check
reads the residual computed with them.

The dependent coordinates are those of the numpy path (chosen once at the
robot's reference configuration by :func:`flexpkm.build_model`:
``Model.reference_state``; the compiled function is held by the model,
``Model.compiled``);
when that choice is ill-conditioned at a pose of the batch, or when the
robot has no reference or redundant constraint rows, the batch runs on the
numpy path, which then chooses at the batch's first pose: both paths give
the same result.
"""
from __future__ import annotations

import casadi as ca
import numpy as np

from flexpkm.algorithms.closure import LOOP_TOL, RCOND_KEEP_REFERENCE, check_loops
from flexpkm.algorithms.conditioning import closure_condition
from flexpkm.algorithms.modal import (ReducedMatrices, modes_of, single_pose,
                                      stiffness_scale)
from flexpkm.algorithms.modal import reduced_matrices as numpy_reduced_matrices
from flexpkm.algorithms.tree import as_batch
from flexpkm.compiled.robot import CompiledRobot
from flexpkm.algorithms.reference import build_model
from flexpkm.threads import one_blas_thread

#: outputs of :func:`modal_function`
OUTPUTS = ("M_r", "K_r", "J_d", "J_f", "residual", "scales")


def _lower_product(J, A):
    """``J^T A J`` (SX, symmetric): the lower triangle over the structural
    non-zeros of ``A`` and ``J``, mirrored."""
    J, A = ca.sparsify(J), ca.sparsify(A)
    return ca.densify(ca.tril2symm(ca.tril(J.T @ (A @ J))))


def modal_function(cm: CompiledRobot):
    """``q (n_tot,) -> (M_r, K_r (n_r, n_r), J_d (c, n_r), J_f (c, c),
    residual (c,), scales (2,))`` at ``q_e = 0`` (elastic entries of ``q``
    ignored): the reduced matrices over ``q_r = [q_a; q_c]`` (``cm.indep``),
    the closure's dependent rows of ``J`` and ``J_t^f``, the loop equations,
    and the largest ``|M_tot|`` term over the non-actuated coordinates and
    the largest actuated diagonal term without rotor inertia
    (:func:`flexpkm.algorithms.modal.passive_scale`). Compiled and cached."""
    def build():
        sm, model = cm.symbolic, cm.model
        q = ca.SX(sm.q)
        for sl in model.layout.elastic_slice.values():
            for i in range(sl.start, sl.stop):
                q[i] = 0.0
        dep = cm.dep.tolist()
        J, M_tot, J_f, res = (ca.substitute(x, sm.q, q) for x in
                              (sm.J, sm.M_tot, sm.J_tot[:, dep], sm.residual))
        act = list(model.layout.actuated)
        free = [i for i in range(model.layout.n_tot) if i not in set(act)]
        rotor = [model.rotor_inertia.get(model.layout.frame_of(i), 0.0) for i in act]
        m_free = ca.mmax(ca.fabs(ca.vertcat(0.0, ca.vec(ca.sparsify(M_tot[free, free])))))
        m_act = ca.mmax(ca.vertcat(0.0, *[ca.fabs(M_tot[i, i] - r) for i, r in zip(act, rotor)]))
        outputs = [_lower_product(J, M_tot), _lower_product(J, ca.SX(model.K_tot)),
                   ca.densify(J[dep, :]), ca.densify(J_f), ca.densify(res),
                   ca.vertcat(m_free, m_act)]
        return ca.Function("flexpkm_modal", [sm.q], outputs, ["q"], list(OUTPUTS))
    return cm.function("flexpkm_modal", build, opt="-O2", merge=False)


def _mapped(cm, fn, B):
    """``fn`` over B poses in one call (kept on ``cm`` per batch size)."""
    maps = cm.maps
    if B not in maps:
        maps[B] = fn.map(B)
    return maps[B]


def evaluate(cm: CompiledRobot, q):
    """The outputs of :func:`modal_function` for the batch ``q`` (B, n_tot):
    dict of arrays with the batch axis first (one C call)."""
    fn = modal_function(cm)
    B = q.shape[0]
    q = np.ascontiguousarray(q, dtype=float)         # (B, n_tot) C = (n_tot, B) column-major
    # column-major (r, c) blocks, pose after pose: (B, c, r) in C order
    out = [np.empty((B, fn.size2_out(k), fn.size1_out(k))) for k in range(len(OUTPUTS))]
    buf, run = _mapped(cm, fn, B).buffer()
    buf.set_arg(0, memoryview(q))
    for k, o in enumerate(out):
        buf.set_res(k, memoryview(o))
    run()
    res = dict(zip(OUTPUTS, out))                    # M_r, K_r symmetric: no transpose
    for k in ("J_d", "J_f"):
        res[k] = np.swapaxes(res[k], 1, 2)
    for k in ("residual", "scales"):
        res[k] = res[k][:, 0]
    return res


def compiled_robot(model):
    """``(cm, sol, blocks)`` of ``model`` (a Model with its reference state,
    :func:`flexpkm.build_model`): the :class:`CompiledRobot` for the numpy
    choice of the dependent coordinates at the robot's reference
    configuration (``model.reference_state``: that
    :class:`flexpkm.algorithms.closure.ClosureSolution` and the limb blocks
    of ``J_t^f``); cm is None (numpy path) without a reference or with
    redundant rows. The CompiledRobot is made once per model, held by its
    :class:`flexpkm.model.build.CompiledFunctions` slot ``model.compiled``."""
    state = model.reference_state
    sol = None if state is None else state.solution
    if sol is None or (sol.rows is not None and len(sol.rows.dropped)):
        return None, None, None
    if model.compiled.modal is None:
        model.compiled.modal = CompiledRobot(model, dep=sol.dep)
    return model.compiled.modal, sol, state.blocks


def reduced_matrices(model, q_tot, q_dep=None) -> ReducedMatrices:
    """:func:`flexpkm.algorithms.modal.reduced_matrices` from generated code:
    the same :class:`ReducedMatrices` (same q_dep choice, loop check and
    condition numbers, same errors) for ``q_tot`` (n_tot,) or (B, n_tot).
    ``q_dep`` given, a redundant constraint row or a pose where the reference
    choice of q_dep is ill-conditioned: the numpy path."""
    model = build_model(model)
    q = as_batch(q_tot, model.layout.n_tot).copy()
    for sl in model.layout.elastic_slice.values():
        q[:, sl] = 0.0
    cm, sol, blocks = (None,) * 3 if q_dep is not None else compiled_robot(model)
    if cm is None:
        return numpy_reduced_matrices(model, q_tot, q_dep=q_dep)
    out = evaluate(cm, q)
    gap = np.abs(out["residual"]).max(axis=1, initial=0.0)
    if not np.all(gap <= LOOP_TOL):                  # the numpy check names the closure
        check_loops(model, q, what="reduced_matrices")
    cond = closure_condition(out["J_f"], blocks)
    if not np.all(cond < 1.0 / RCOND_KEEP_REFERENCE):
        return numpy_reduced_matrices(model, q_tot)
    scales = np.column_stack([np.full(len(q), stiffness_scale(model)), out["scales"]])
    names = tuple(model.layout.names[i] for i in cm.indep)
    red = ReducedMatrices(M_r=out["M_r"], K_r=out["K_r"], names=names, n_a=cm.n_a, choice=sol.choice,
                          dep_names=tuple(model.layout.names[i] for i in cm.dep),
                          indep=np.asarray(cm.indep), dep=cm.dep, J_d=out["J_d"], rows=sol.rows,
                          cond_closure=cond, scales=scales)
    return single_pose(red) if np.ndim(q_tot) == 1 else red


def natural_frequencies(model, q_tot, n_modes=None, actuator_stiffness=None, allow_zero=False,
                        shapes=True):
    """:func:`flexpkm.natural_frequencies` with the reduced matrices from
    generated code (:func:`reduced_matrices`): the same :class:`Modes`
    (frequencies, shapes, condition numbers, flags) and errors."""
    with one_blas_thread():
        return modes_of(model, q_tot, n_modes, actuator_stiffness, None, allow_zero,
                                    shapes, reduce=reduced_matrices)
