"""The output sample of the compiled HHT step with a kept iteration matrix
(issue 18, eighth session): the steps read the kept inverse, an input, and
a sample stops before a step that needs it formed again, so that the
driver forms it (:mod:`flexpkm.analysis.kept_matrix`) and calls the sample
again from that step; its end (loop projection, record) a switch compiled
with the step. Composed at run time (CasADi MX) like
:func:`flexpkm.compiled.step.sample_function`, which calls it."""
from __future__ import annotations

import casadi as ca


def closed(project, x, par):
    """``(x with its q projected on the loops, drift)``: ``project``
    (:func:`flexpkm.compiled.step.project_function`) on the first entries
    of the state ``x``."""
    n_q = project.size1_in(0)
    qp, drift = project(x[:n_q], par)
    return ca.vertcat(qp, x[n_q:]), drift


def finish_function(project, record, name="finish"):
    """``(stopped, x, u, par) -> (x_next, drift, rec)``: the end of an
    output sample (:func:`closed`, then ``record``) when ``stopped`` is 0,
    else ``(x, 0, 0)`` (a sample stopped before a step whose kept matrix
    is due, :func:`kept_sample_function`); a switch compiled with the step (the
    sample's call passes its inputs by pointer)."""
    n_x, n_u, n_par = (record.size1_in(i) for i in range(3))
    x, u, par = ca.MX.sym("x", n_x), ca.MX.sym("u", n_u), ca.MX.sym("par", n_par)
    xp, drift = closed(project, x, par)
    return ca.Function.conditional(name, [
        ca.Function(f"{name}_record", [x, u, par], [xp, drift, record(xp, u, par)])],
        ca.Function(f"{name}_stopped", [x, u, par], [x, 0, ca.MX.zeros(record.size1_out(0))]))


def kept_sample_function(step, project, finish, due, n_sub, project_each):
    """:func:`flexpkm.compiled.step.sample_function` of a step with a kept
    iteration matrix (:func:`flexpkm.compiled.step.step_function`'s ``kept``):
    ``(x, U, par, S_inv, k0) -> (x_next, rec, stop)``, each step called
    with ``go`` 0 before ``k0`` and from the first step due on (``due`` of
    x for the first, then each step's for the next), the end of the sample
    by ``finish`` (:func:`finish_function`); the skipped steps' rho and
    evaluations 0."""
    n_x, n_u, n_par = (step.size1_in(i) for i in range(3))
    x, par, S, k0 = (ca.MX.sym("x", n_x), ca.MX.sym("par", n_par),
                     ca.MX.sym("S", step.sparsity_in(3)), ca.MX.sym("k0"))
    U = ca.MX.sym("U", n_u, n_sub)
    xk, d_k, stopped, stop, rhos, evals = x, due(x, par), ca.MX(0), ca.MX(n_sub), [], []
    for k in range(n_sub):
        active = (k >= k0) * (1 - stopped)
        go, halt = active * (1 - d_k), active * d_k
        stop = ca.if_else(halt, k, stop)
        stopped = stopped + halt
        xk, rho, evaluations, d_k = step(xk, U[:, k], par, S, go)
        if project_each:
            xk = ca.if_else(go, closed(project, xk, par)[0], xk)
        rhos.append(rho)
        evals.append(evaluations)
    rhos, evals = ca.horzcat(*rhos), ca.horzcat(*evals)
    xk, drift, rec = finish(stopped, xk, U[:, -1], par)
    converged = ca.find((rhos > par[-1]).T)             # n_sub when none is above tol
    return ca.Function("sample", [x, U, par, S, k0], [
        xk, ca.vertcat(rec, drift, ca.mmax(rhos), ca.sum2(evals), converged), stop])
