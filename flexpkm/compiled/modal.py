"""Modal analysis on generated code: ``M_r``, ``K_r`` of Eqs. (11.26)-(11.27)
at ``q_e = 0`` as one compiled function of the configuration, evaluated over
a batch of poses in C (CasADi ``map``), then the generalized eigensolver of
:func:`flexpkm.algorithms.modal.generalized_eigh` (Chapter 11, Step 4).

The dependent coordinates are those of the numpy path at the batch's first
pose (:func:`flexpkm.algorithms.dependent.choose_dependent`); the natural
frequencies do not depend on the choice, ``M_r`` and ``K_r`` do (they are
over ``q_r``).
"""
from __future__ import annotations

import casadi as ca
import numpy as np

from flexpkm.algorithms.closure import check_loops, constraint_jacobian
from flexpkm.algorithms.dependent import choose_dependent
from flexpkm.algorithms.platform import platform_pose
from flexpkm.algorithms.modal import generalized_eigh
from flexpkm.algorithms.tree import as_batch, tree_kinematics
from flexpkm.compiled.robot import CompiledModel
from flexpkm.model.build import build_model
from flexpkm.threads import one_blas_thread

_MODELS = {}


def reduced_function(cm: CompiledModel):
    """``q_tot -> (M_r, K_r)`` (n_r, n_r each) at ``q_e = 0`` (the elastic
    entries of q_tot are ignored), compiled and cached."""
    def build():
        sm = cm.symbolic
        q = ca.SX(sm.q)
        for sl in cm.model.layout.elastic_slice.values():
            for i in range(sl.start, sl.stop):
                q[i] = 0.0
        K = sm.J.T @ ca.SX(cm.model.K_tot) @ sm.J
        M_r, K_r = (ca.substitute(x, sm.q, q) for x in (sm.M, K))
        return ca.Function("flexpkm_reduced", [sm.q], [ca.densify(M_r), ca.densify(K_r)],
                           ["q"], ["M_r", "K_r"])
    return cm._function("flexpkm_reduced", build)


def compiled_model(model, q_tot):
    """The :class:`CompiledModel` of ``model`` with the numpy choice of the
    dependent coordinates at the assembled state ``q_tot`` (n_tot,), reused
    for the same model and choice."""
    kin = tree_kinematics(model, q_tot[:model.layout.n_t])
    J_tot, labels = constraint_jacobian(model, kin, platform_pose(model, q_tot[None])[1])
    dep = choose_dependent(model, J_tot, labels)[0]
    key = (id(model), tuple(dep.tolist()))
    if key not in _MODELS:
        _MODELS[key] = (model, CompiledModel(model, dep=dep))   # model kept: id stays valid
    return _MODELS[key][1]


def reduced_matrices(model, q_tot):
    """``(M_r, K_r, cm)``: (B, n_r, n_r) each over ``q_r = [q_a; q_c]`` of
    ``cm.r_index``, for the assembled configurations ``q_tot`` (B, n_tot)
    (loops checked as in :func:`flexpkm.reduced_matrices`)."""
    model = build_model(model)
    q = as_batch(q_tot, model.layout.n_tot).copy()
    for sl in model.layout.elastic_slice.values():
        q[:, sl] = 0.0
    check_loops(model, q, what="reduced_matrices")
    cm = compiled_model(model, q[0])
    fn = reduced_function(cm)
    B, n = q.shape[0], len(cm.r_index)
    M, K = np.empty((B, n, n)), np.empty((B, n, n))
    buf, evaluate = fn.buffer()         # numpy memory in and out: no DM conversions
    qb = np.empty(q.shape[1])
    Mb, Kb = np.empty(n * n), np.empty(n * n)
    buf.set_arg(0, memoryview(qb))
    buf.set_res(0, memoryview(Mb))
    buf.set_res(1, memoryview(Kb))
    for b in range(B):
        qb[:] = q[b]
        evaluate()
        M[b], K[b] = Mb.reshape(n, n).T, Kb.reshape(n, n).T      # column-major
    return M, K, cm


def natural_frequencies(model, q_tot, n_modes=None):
    """Natural frequencies (Hz) with the actuators locked (11.34), (B, n) for
    configurations (B, n_tot) or (n,) for one (n_tot,), ascending; the
    reduced matrices from generated code (:func:`reduced_matrices`)."""
    M, K, cm = reduced_matrices(model, q_tot)
    na = cm.n_a
    with one_blas_thread():
        lam = generalized_eigh(K[:, na:, na:], M[:, na:, na:], "M_cc", vectors=False)[0]
    f = np.sqrt(np.clip(lam, 0.0, None)) / (2 * np.pi)
    f = f if n_modes is None else f[:, :n_modes]
    return f[0] if np.ndim(q_tot) == 1 else f
