"""The simulation's functions on the loop model of
:mod:`flexpkm.compiled.loop_model` (issue 18, item 1): the Newton
correction's model, the refresh's mass matrix, the recorder's terms and the
projection's loop equations, each the function of the flat path it replaces
(:mod:`flexpkm.compiled.modified_newton`, :mod:`flexpkm.compiled.step`),
equal to it to 1e-12 (``tests/compiled/test_loop_model.py``)."""
from __future__ import annotations

import casadi as ca
import numpy as np

from flexpkm.compiled import step
from flexpkm.compiled.loop_model import frame_column, design_input, loop_model
from flexpkm.compiled.recursive import design_matrices

X = ca.MX


def model_function(kd, prescribed):
    """``(q, v, a, u, par) -> (M a, g, J, b, forces)``: the function of
    :func:`flexpkm.compiled.modified_newton.model_function` on the loops
    (one forward and one backward fold per chain for ``[b, J a]``)."""
    lm = loop_model(kd)
    n_a = kd.n_a
    a = X.sym("a", kd.qd_r.shape[0])
    u, par = X.sym("u", 3 * n_a), X.sym("par", step.layout(0, 0, n_a, step.design_size(kd))[2])
    J = lm.J
    T = lm.tau(ca.horzcat(lm.b, J.times(a)), True)
    c, Ma = J.transpose_times(T[:, 0]), J.transpose_times(T[:, 1])
    tau = step.drive_effort(kd, u, par, prescribed)
    K_tot = design_matrices(kd.model, design_input(kd), kd.design_layout)[0]
    forces = ca.horzcat(c, tau, J.transpose_times(lm.kernels.sparse_product(K_tot, kd.q)))
    outs = ca.substitute([Ma, c - tau, J.on(kd.J.sparsity()), lm.b, forces],
                         step.graph_inputs(kd)[2:],
                         step.graph_arguments(kd, kd.q, kd.qd_r, par)[2:])
    return ca.Function("model_loops", [kd.q, kd.qd_r, a, u, par], outs)


def mass_matrix_function(kd):
    """``(graph inputs) -> M`` (n_r, n_r): the mass matrix of the full model
    (10.123) at the graph's inputs (:func:`flexpkm.compiled.step.graph_inputs`)
    as :func:`flexpkm.compiled.modified_newton.mass_matrix_function`: ``J^T
    M_tot J`` by the loops, the n_r columns of ``J`` as the unit
    accelerations of one forward and one backward fold per chain."""
    lm = loop_model(kd)
    J, n_r = lm.J, lm.J.n_r
    M = J.transpose_times(lm.tau(J.times(X.eye(n_r)), False, n_r))
    ins = step.graph_inputs(kd)
    return ca.Function("mass_matrix_loops", ins, [M])


def record_function(kd, sensors=()):
    """``(graph inputs, a, v) -> (M a, M v, c, sensors...)`` (n_r, n_r, n_r,
    then (3,) or (1,) per sensor) by the loops: one forward and one backward
    fold per chain for the columns ``[b, J a, J v]``; a sensor ``(frame,
    axis_frame, axis)`` is the absolute acceleration of the frame's origin
    (:func:`flexpkm.compiled.recursive.point_acceleration`): the forward
    fold's ``da`` of ``b`` and ``J a`` plus the frame's acceleration at
    ``qdd = 0`` and ``g``, along ``axis`` of ``axis_frame`` when given."""
    lm = loop_model(kd)
    model = kd.model
    n_r = kd.qd_r.shape[0]
    a, v = X.sym("a", n_r), X.sym("v", n_r)
    J = lm.J
    Tv = lm.tau(J.times(v), False)        # the mass matrix's products: no new kernels
    T = lm.tau(ca.horzcat(lm.b, J.times(a)), True)
    outs = [J.transpose_times(x) for x in (T[:, 1], Tv, T[:, 0])]
    acc, where = lm.acc
    for frame, axis_frame, axis in sensors:
        j = model.frame_index[frame]
        da = ca.reshape(frame_column(acc, where, j), 6, 2)
        value = da[:3, 0] + da[:3, 1] + frame_column(lm.motion, where, j)[6:9] + kd.g
        if axis_frame is not None:
            R = ca.reshape(frame_column(lm.poses, where, model.frame_index[axis_frame])[:9], 3, 3)
            value = ca.dot(value, R @ ca.DM(np.asarray(axis, float)))
        outs.append(value)
    return ca.Function("record_loops", step.graph_inputs(kd) + [a, v], outs)


def loop_equations(kd):
    """``(q[, p]) -> (residual rows kept (c_k,), their Jacobian on the
    dependent columns (c_k, n_dep), residual (c,))``: the loop equations and
    their exact Jacobian by the pose fold (:func:`flexpkm.compiled.step.project_function`'s
    ``res``; the platform's rotation-vector columns by ``J_l``)."""
    lm = loop_model(kd)
    jac = lm.J_tot if lm.rates is None else lm.J_tot @ lm.rates
    kept = None if kd.kept is None else [int(i) for i in kd.kept]
    rows = lm.residual if kept is None else lm.residual[kept]
    jac = jac if kept is None else jac[kept, :]
    design = [kd.design] if step.design_size(kd) else []
    return ca.Function("res_loops", [kd.q] + design,
                       [rows, jac[:, [int(i) for i in kd.dep]], lm.residual])
