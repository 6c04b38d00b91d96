"""The HHT-alpha time step (:mod:`flexpkm.analysis.hht`) on generated code.

One step from t_n to t_n+1 (the numpy driver's arithmetic, see
:func:`flexpkm.analysis.hht.hht_step`): the accelerations are guessed by
linear extrapolation ``a = 2 a_n - a_n-1``, then Newton corrections on the
averaged equation of motion
``R(a) = M(q1) a + (1 - alpha) g(q1, v1) + alpha g_n`` (rows of the
unknown accelerations), ``q1 = q_n + h V_n + h^2 ((1/2 - beta) A_n + beta
(J a + b))``, ``v1 = v_n + h ((1 - gamma) a_n + gamma a)``, ``g = c - [tau;
0]`` (J and b of the previous iterate, as in the numpy step), with the
iteration matrix of the numpy step or the exact derivative ``dR/da`` (AD),
until the residual relative to the step's forces is at most ``tol``
(:func:`flexpkm.analysis.hht.relative_residual`; each correction returns
the relative residual of its iterate) or ``iterations`` corrections: the
corrections after the first are conditional calls (CasADi's
``Function.conditional``: a converged step skips them at the cost of a
branch). One Newton correction is one compiled function
(:func:`newton_function`); the step (:func:`step_function`) and a sample of
``n_sub`` steps
(:func:`sample_function`: loop projection by Newton on the geometric loop
equations with their exact Jacobian, then the recorded outputs) are
composed at run time (CasADi MX), so that one call from Python runs a
whole block of steps; a sample reports the largest relative residual of
its steps and their Newton iterations, and the driver redoes a sample that
did not converge with smaller steps (:mod:`flexpkm.analysis.step_control`).

State vector ``x = [q (n_tot); v; a; a_prev; g (n_r each); b (n_tot); q_ev
(n_tot); v_ev (n_r); S_h; age; evals; J]``: J, b, g of the last
evaluation of the model, at (q_ev, v_ev) (the kept iteration matrix is
not in it: an input of the step, the driver's, :func:`sample_function`;
``S_h``, ``age``, ``evals`` its step length and age and the last step's
model evaluations), J last: on the kernel graph its
structural non-zeros only (:func:`layout`, :class:`Dims`), else n_tot n_r
column-major; drive input per step ``u``
(3 n_a): ``[q_a; qd_a; qdd_a]`` at t_n+1 for a prescribed motion, else
``[tau; q_ref; qd_ref]`` (the effort is ``tau + kp (q_ref - q_a) + kd
(qd_ref - qd_a)``); parameters ``par = [kp; kd (n_a each); h; alpha; g
(3); friction; smoothing; p (n_p); tol]``, where ``p`` is the design vector
(:mod:`flexpkm.compiled.design`) of a graph that takes it as an input
(:func:`design_size`: the parametric kernel graph, whose functions are
compiled once per topology), empty for a graph with its numbers folded in
(the unrolled SX graph, the motors' augmented model).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import casadi as ca

from flexpkm.compiled import corrections
from flexpkm.compiled.kept_sample import closed, kept_sample_function
from flexpkm.compiled.full import SymbolicDynamics, point_acceleration
from flexpkm.compiled.newton_euler import recursive_dynamics
from flexpkm.compiled.recursive import KernelDynamics
from flexpkm.compiled.recursive import point_acceleration as kernel_acceleration


@dataclass(frozen=True)
class Dims:
    """Sizes of a generated model: n_tot, n_r, n_a and the q_tot columns
    ``indep`` of q_r (tuple); ``J_pattern``: the structural sparsity of J
    whose non-zeros the step state stores (the kernel graph's,
    :func:`state_pattern`), None: J dense in the state."""

    n_tot: int
    n_r: int
    n_a: int
    indep: tuple
    n_p: int = 0
    J_pattern: object = field(default=None, compare=False)

    @classmethod
    def of(cls, sm):
        return cls(sm.q.shape[0], sm.qd_r.shape[0], sm.n_a, tuple(int(i) for i in sm.indep),
                   design_size(sm), state_pattern(sm))

    @property
    def n_J(self):
        """The entries of J in the step state (:func:`layout`)."""
        return None if self.J_pattern is None else self.J_pattern.nnz()


def state_pattern(sm):
    """The sparsity of J stored in the step state of the graph ``sm``: the
    kernel graph's structural non-zeros (n_tot n_r entries would make every
    step copy O(n^2) numbers: 5,846 against 444 at 8 elements per body on
    the DualEMPS, 22,046 against 876 at 16), None (dense) on the unrolled SX
    graph."""
    return sm.J.sparsity() if isinstance(sm, KernelDynamics) else None


def state_jacobian(x, sl, n_tot, n_r, pattern=None):
    """J (n_tot, n_r) of the step state ``x``: from its structural non-zeros
    when the slice ``sl["J"]`` holds ``pattern.nnz()`` of them, else its
    n_tot n_r entries column-major (projected on ``pattern`` when given)."""
    xJ = x[sl["J"]]
    if pattern is not None and sl["J"].stop - sl["J"].start == pattern.nnz() != n_tot * n_r:
        return type(x)(pattern, xJ)
    J = ca.reshape(xJ, n_tot, n_r)
    return J if pattern is None else ca.project(J, pattern)


def _symbols(sm):
    """``casadi.SX`` or ``casadi.MX``: the symbol type of a model's expressions
    (:class:`SymbolicDynamics` or :class:`flexpkm.compiled.recursive.KernelDynamics`)."""
    return type(sm.q)


def design_size(sm) -> int:
    """n_p: the entries of the design vector ``p`` in ``par`` for the
    graph ``sm`` (its symbol ``design``, :class:`flexpkm.compiled.recursive.KernelDynamics`),
    0 for a graph with its numbers folded in."""
    p = getattr(sm, "design", None)
    return 0 if p is None else p.shape[0]


def design_part(sm, par):
    """``p`` (n_p,) in ``par`` (just before ``tol``, the last entry)."""
    n = 2 * sm.n_a + 7
    return par[n:n + design_size(sm)]


def graph_inputs(sm) -> list:
    """The graph's inputs ``sm.inputs`` and its design symbol when it has one."""
    return sm.inputs + ([sm.design] if design_size(sm) else [])


def graph_arguments(sm, q, v, par) -> list:
    """The arguments of :func:`graph_inputs` at ``(q, v)`` from ``par``."""
    n = 2 * sm.n_a
    return [q, v, par[n + 2:n + 5], par[n + 5], par[n + 6]] + (
        [design_part(sm, par)] if design_size(sm) else [])


def stiffness(sm, par):
    """``K_tot`` (n_tot, n_tot) of the graph: from ``p`` in ``par`` on a
    parametric graph, else the model's numbers (sparse constant)."""
    X = _symbols(sm)
    if design_size(sm):     # flat SX: its entries read from p (not p rebuilt whole, its
        K = ca.Function("stiffness", [sm.design], [sm.K_tot]).expand()     # 5,404
        return K(design_part(sm, par))      # numbers at 8 elements per body, then sliced)
    return X(ca.sparsify(ca.DM(sm.model.K_tot)))


def friction_coefficients(sm, par):
    """``(viscous, coulomb)``: lists of ``(column, coefficient)`` of the
    graph's joint friction, from ``p`` in ``par`` on a parametric graph."""
    if design_size(sm):
        p, lay = design_part(sm, par), sm.design_layout
        return tuple([(c, p[sl][k]) for k, c in enumerate(cols)]
                     for cols, sl in (lay.viscous, lay.coulomb))
    model = sm.model
    return tuple([(model.layout.joint_index[name], f) for name, f in table.items()]
                 for table in (model.viscous_friction, model.coulomb_friction))


def layout(n_tot, n_r, n_a, n_p=0, n_J=None):
    """Slices of the state vector ``x`` and the length of ``par`` (``n_p``:
    the design vector's entries in it, :func:`design_size`; ``n_J``: the
    entries of J, last, default n_tot n_r, :attr:`Dims.n_J`)."""
    sizes = [("q", n_tot), ("v", n_r), ("a", n_r), ("a_prev", n_r), ("g", n_r),
             ("b", n_tot), ("q_ev", n_tot), ("v_ev", n_r), ("S_h", 1),
             ("age", 1), ("evals", 1), ("J", n_tot * n_r if n_J is None else n_J)]
    out, k = {}, 0
    for name, n in sizes:
        out[name] = slice(k, k + n)
        k += n
    return out, k, 2 * n_a + 8 + n_p


def model_function(sm: SymbolicDynamics, prescribed):
    """``(q, v, u, par) -> (M, g, J, b, forces)`` with ``g = c - [tau; 0]``
    (the effort of the drive input ``u``; none for a prescribed motion) and
    ``forces = [c, [tau; 0], J^T K_tot q]`` (n_r, 3), the terms that scale
    the residual."""
    n_a, X = sm.n_a, _symbols(sm)
    u, par = X.sym("u", 3 * n_a), X.sym("par", layout(0, 0, n_a, design_size(sm))[2])
    tau = drive_effort(sm, u, par, prescribed)
    forces = ca.horzcat(sm.c, tau, sm.J.T @ (stiffness(sm, par) @ sm.q))
    outs = ca.substitute([sm.M, sm.c - tau, sm.J, sm.b, forces],   # in one call: the
                         graph_inputs(sm)[2:],                     # outputs share their
                         graph_arguments(sm, sm.q, sm.qd_r, par)[2:])      # subexpressions
    return ca.Function("model", [sm.q, sm.qd_r, u, par], outs)


def drive_effort(sm, u, par, prescribed):
    """``[tau; 0]`` (n_r,): the drive's effort on the actuated coordinates
    (none for a prescribed motion): ``tau + kp (q_ref - q_a) + kd (qd_ref -
    qd_a)`` of the input ``u`` and ``par``."""
    n_a, n_r, X = sm.n_a, sm.qd_r.shape[0], _symbols(sm)
    tau = X.zeros(n_r)
    if not prescribed:
        qa, va = sm.q[[int(i) for i in sm.indep[:n_a]]], sm.qd_r[:n_a]
        tau[:n_a] = (u[:n_a] + par[:n_a] * (u[n_a:2 * n_a] - qa)
                     + par[n_a:2 * n_a] * (u[2 * n_a:] - va))
    return tau


def unknowns(n_r, n_a, prescribed):
    """The unknown accelerations' rows (all, or all but the prescribed actuators')."""
    return list(range(n_a if prescribed else 0, n_r))


def iteration_matrix(sm: SymbolicDynamics, M, J, v, par):
    """The numpy driver's iteration matrix (:mod:`flexpkm.analysis.hht`):
    ``S = M + (1 - alpha) (gamma h D + beta h^2 K)``, ``D = J^T C J + K_d``
    (friction derivative C on ``qd_tot = J v``; PD gain), ``K = J^T K_tot J
    + K_p`` (K_tot and the friction coefficients from ``p`` in ``par`` on a
    parametric graph, :func:`stiffness`, :func:`friction_coefficients`)."""
    n_a, X = sm.n_a, _symbols(sm)
    h, alpha = par[2 * n_a], par[2 * n_a + 1]
    fr, eps = par[2 * n_a + 5], ca.fmax(par[2 * n_a + 6], 1e-300)
    gamma, beta = 0.5 + alpha, 0.25 * (1 + alpha) ** 2
    qd = J @ v
    C = X.zeros(sm.q.shape[0])
    viscous, coulomb = friction_coefficients(sm, par)
    for col, fv in viscous:
        C[col] += fr * fv
    for col, fs in coulomb:
        C[col] += ca.if_else(par[2 * n_a + 6] > 0,            # none for the sign
                             fr * fs / eps * (1 - ca.tanh(qd[col] / eps) ** 2), 0)
    D = J.T @ ca.diag(C) @ J
    K = J.T @ stiffness(sm, par) @ J
    gains = ca.vertcat(par[:n_a], X.zeros(J.shape[1] - n_a, 1))
    dgain = ca.vertcat(par[n_a:2 * n_a], X.zeros(J.shape[1] - n_a, 1))
    return M + (1 - alpha) * (gamma * h * (D + ca.diag(dgain)) + beta * h * h * (K + ca.diag(gains)))


def newton_function(sm: SymbolicDynamics, prescribed, exact=False):
    """One Newton correction of the accelerations:
    ``(x, a1, J, b, u, par) -> (a1 - S^-1 R, J1, b1, g1, q1, v1, rho)`` where
    (J, b) give ``A1 = J a1 + b``, (J1, b1, g1) are the model at (q1, v1) and
    rho the relative residual of a1 (:func:`relative_residual`);
    ``S = dR/da`` (AD) when ``exact``, else :func:`iteration_matrix`."""
    n_tot, n_r, n_a, X = sm.q.shape[0], sm.qd_r.shape[0], sm.n_a, _symbols(sm)
    sl, n_x, n_par = layout(n_tot, n_r, n_a, design_size(sm), Dims.of(sm).n_J)
    F = model_function(sm, prescribed)
    x, u, par = X.sym("x", n_x), X.sym("u", 3 * n_a), X.sym("par", n_par)
    pattern = structural(sm.J) if X is ca.SX else ca.Sparsity.dense(n_tot, n_r)
    J, b = X.sym("J", pattern), X.sym("b", n_tot)     # SX: products on J's entries alone
    unk = unknowns(n_r, n_a, prescribed)
    a_u = X.sym("a_u", len(unk))
    a1 = X.sym("a1", n_r)
    acc = X(a1)
    acc[unk] = a_u
    q1, v1 = newmark(Dims.of(sm), x, acc, J, b, u, par, prescribed, pattern)
    M, g, J1, b1, forces = F(q1, v1, u, par)
    if X is ca.SX:                     # M symmetric: the lower triangle not generated
        J1, M = ca.project(J1, pattern), upper_symmetric(M)
    alpha = par[2 * n_a + 1]
    Ma = M @ acc
    res = (Ma + (1 - alpha) * g + alpha * x[sl["g"]])[unk]
    rho = relative_residual(res, Ma[unk], forces[unk, :])
    if exact:
        S = ca.jacobian(res, a_u)
    else:
        S = iteration_matrix(sm, M, J1, v1, par)[unk, unk]
    if X is ca.MX and not exact:       # symmetric positive definite: sparse LDL^T, generated
        da = ca.solve(S, res, "ldl", {})
    elif not exact:                    # SX: LDL^T of its upper triangle (the lower unused)
        da = ca.ldl_solve(res, *ca.ldl(S))
    else:
        da = ca.solve(S, res)
    new = X(a1)
    new[unk] = a_u - da
    outs = ca.substitute([new, J1, b1, g, q1, v1, rho], [a_u], [a1[unk]])   # shared terms once
    return ca.Function("newton", [x, a1, J, b, u, par], ca.cse(outs))


def structural(J):
    """The sparsity of the SX matrix ``J`` without its entries that are
    constant zeros (the unrolled graph's ``J = [I; J_d]`` up to the order
    is dense with them: 66 of its 176 entries are not zero on the DualEMPS
    with one element per body; :func:`newton_function` then multiplies on
    those alone, 18,788 -> 17,958 instructions per correction)."""
    return ca.sparsify(J).sparsity()


def upper_symmetric(M):
    """The symmetric SX matrix ``M`` (n, n) from its upper triangle alone
    (``M_ij`` for ``i <= j`` on both sides): the expressions of its lower
    triangle, which equal them up to round-off, are then not generated
    (with :func:`newton_function`'s LDL^T on the upper triangle of ``S``:
    22,238 -> 18,788 instructions per Newton correction of the DualEMPS
    with one element per body)."""
    return ca.triu(M) + ca.triu(M, False).T


def relative_residual(res, inertial, forces):
    """The numpy step's :func:`flexpkm.analysis.hht.relative_residual`:
    ``|res|_inf / (|inertial|_inf + sum_k |forces[:, k]|_inf)`` (SX), 0 for
    a zero residual, inf for a positive one on a zero scale."""
    if res.shape[0] == 0:
        return type(res)(0)
    r = ca.norm_inf(res)
    scale = ca.norm_inf(inertial) + sum(ca.norm_inf(forces[:, k]) for k in range(forces.shape[1]))
    return ca.if_else(scale > 0, r / ca.fmax(scale, 1e-300), ca.if_else(r > 0, ca.inf, 0))


def newmark(d: Dims, x, acc, J, b, u, par, prescribed, pattern=None):
    """Positions (n_tot,) and velocities (n_r,) at t_n+1 for the
    accelerations ``acc``, ``qdd_tot = J acc + b`` (prescribed actuators from u);
    ``pattern``: the structural sparsity of J (the state's J_n is projected on
    it, its products skip the structural zeros)."""
    n_tot, n_r, n_a = d.n_tot, d.n_r, d.n_a
    sl = layout(n_tot, n_r, n_a, 0, d.n_J)[0]
    h, alpha = par[2 * n_a], par[2 * n_a + 1]
    gamma, beta = 0.5 + alpha, 0.25 * (1 + alpha) ** 2
    q, v, a = x[sl["q"]], x[sl["v"]], x[sl["a"]]
    J_n = state_jacobian(x, sl, n_tot, n_r, d.J_pattern)
    if pattern is not None:
        J_n = ca.project(J_n, pattern)
    b_n = x[sl["b"]]
    V_n, A_n = J_n @ v, J_n @ a + b_n
    q1 = q + h * V_n + h * h * ((0.5 - beta) * A_n + beta * (J @ acc + b))
    v1 = v + h * ((1 - gamma) * a + gamma * acc)
    if prescribed:
        q1[list(d.indep[:n_a])] = u[:n_a]
        v1 = ca.vertcat(u[n_a:2 * n_a], v1[n_a:])
    return q1, v1


def step_function(newton, d: Dims, prescribed, iterations, name="hht_step", kept=None, mid=0):
    """``(x, u, par) -> (x1, rho, evaluations)``: one HHT step of the
    (compiled) ``newton`` function (:func:`newton_function`): a first
    correction, then up to ``iterations - 1`` more while the relative
    residual rho of the last iterate is above ``tol`` (the last entry of
    ``par``); rho of the last evaluated iterate. Composed at run time (MX:
    no new code to compile per iteration limit). ``kept``: ``(refresh,
    due)`` for a ``newton`` taking the kept inverse iteration matrix as its
    last input and returning the residual last
    (:func:`flexpkm.compiled.modified_newton.newton_function`): the step is
    then ``(x, u, par, S_inv, go) -> (x1, rho, evaluations, due1)`` with the
    kept inverse ``S_inv`` (n_r, n_r) an input, read, not carried in the
    state (the driver forms it when ``due``,
    :func:`flexpkm.compiled.modified_newton.iteration_function`), ``due1``
    whether the next step needs it formed again
    (:func:`flexpkm.compiled.modified_newton.refresh_due` of x1); ``go`` 0:
    no step, ``(x, 0, 0, due of x)`` (a switch in the generated code, so
    that the sample's calls pass S and x by pointer); ``refresh``
    ``(q_ev, v_ev, J, par) -> S_inv``
    (:func:`flexpkm.compiled.modified_newton.refresh_function`) for the full
    Newton corrections: a step not
    converged after ``max(mid, iterations - 2)`` corrections (the last two
    of the budget) makes its next ones with the
    iteration matrix of their own iterate
    (:func:`flexpkm.compiled.corrections.later_corrections`: the numpy
    step's full Newton, quadratic where the kept matrix converges slowly);
    the next step (flagged by ``evals`` -1 in the state) makes all its
    corrections so, and is flagged again if it takes more than ``mid``
    evaluations itself; after it the kept matrix is formed again (a tight
    ``tol``: DualEMPS ``fast``, tol 1e-13, 6 iterations, on the
    kernel graph: 1038 evaluations in 160 steps, the numpy step's full
    Newton 1034; the kept matrix alone 2161, samples redone with h/2)."""
    n_tot, n_r, n_a = d.n_tot, d.n_r, d.n_a
    sl, n_x, n_par = layout(n_tot, n_r, n_a, d.n_p, d.n_J)
    x, u, par = ca.MX.sym("x", n_x), ca.MX.sym("u", 3 * n_a), ca.MX.sym("par", n_par)
    a = x[sl["a"]]
    a1 = 2 * a - x[sl["a_prev"]]
    if prescribed:
        a1 = ca.vertcat(u[2 * n_a:], a1[n_a:])
    pattern = newton.sparsity_in(2)              # J's structural entries (dense on SX graphs)
    J = ca.project(state_jacobian(x, sl, n_tot, n_r, d.J_pattern), pattern)
    b = x[sl["b"]]
    evaluations = 1
    if kept is None:
        ins = [x, u, par]
        state = newton(x, a1, J, b, u, par)
        if iterations > 1:
            *state, more = corrections.newton_corrections(newton, iterations)(x, *state, u, par)
            evaluations += more
    else:               # after a slow step (evals < 0): Newton's matrix at every iterate
        (refresh, due), S_inv = kept, ca.MX.sym("S", n_r, n_r)
        ins = [x, u, par, S_inv]
        slow, mid = mid, max(mid, iterations - 2)     # the kept matrix while the budget allows
        flagged = x[sl["evals"]] < 0
        state = corrections.first_correction(newton, refresh)(flagged, x, a1, J, b, u, par, S_inv)
        if iterations > 1:
            *state, more = corrections.later_corrections(newton, refresh, iterations, mid)(
                x, *state, u, par, S_inv, flagged)
            evaluations += more
    a1, J, b, g, q_ev, v_ev, rho = state
    if kept is None:
        age, slow = x[sl["age"]], evaluations
    else:   # flagged for the next step: it used Newton's matrix (and took > SLOW when flagged)
        newton_used = evaluations > ca.if_else(flagged, slow, mid)
        slow = ca.if_else(newton_used, -1, evaluations)
        age = ca.if_else(flagged, corrections.REFRESH_AFTER_NEWTON, x[sl["age"]] + 1)
    q1, v1 = newmark(d, x, a1, J, b, u, par, prescribed, pattern)
    J = ca.vec(J) if d.J_pattern is None else ca.project(J, d.J_pattern).nz[:]
    parts = (q1, v1, a1, a, g, b, q_ev, v_ev, par[2 * n_a], age, slow, J)
    x1 = ca.vertcat(*[ca.densify(e) for e in parts])
    if kept is None:
        return ca.Function(name, ins, [x1, rho, evaluations])
    due, go = kept[1], ca.MX.sym("go")       # the switch in the generated code: the
    guard = ca.Function.conditional(f"{name}_if", [        # driver's calls read S, x
        ca.Function(f"{name}_skip", ins, [x, 0, 0, due(x, par)])],
        ca.Function(f"{name}_run", ins, [x1, rho, evaluations, due(x1, par)]))
    return ca.Function(name, ins + [go], guard(go, *ins))


#: the loop residual (m or rad, every row) below which the projection stops:
#: near round-off, below :func:`flexpkm.algorithms.closure.project_on_loops`'s
#: 1e-12 (the numpy step's), so that the compiled and numpy projections end
#: on the loops to ~1e-15 whichever takes one iteration more: at 1e-12 a
#: drift left on one side and not the other moved the DualEMPS ``fast``
#: PD run's accelerations by 1e-6 of their largest
LOOP_TOL = 1e-15


def project_function(sm: SymbolicDynamics, iterations=3, equations=None):
    """``(q, par) -> (q_proj, max |residual(q_proj)|)`` (``par`` only for
    the design vector ``p`` of a parametric graph): Newton on the loop equations
    (the independent rows ``sm.kept``) with their exact Jacobian on the
    dependent columns ``sm.dep`` (the independent coordinates do not move),
    while the largest residual over every row (the drift) is at least
    :data:`LOOP_TOL`, at most ``iterations`` times (the numpy projection's
    rule, :func:`flexpkm.algorithms.closure.project_on_loops`, with a
    tighter tol): after an HHT step one iteration, two evaluations of the
    loop equations instead of ``iterations + 1``. On the kernel graph (MX) the loop equations
    and their Jacobian are one flat SX function (expanded:
    :func:`flexpkm.compiled.recursive.block_solve`), called by the
    iterations, which are nested switches (CasADi's ``Function.conditional``,
    as :func:`flexpkm.compiled.corrections.newton_corrections`: the skipped
    ones cost a branch; an MX function around the SX loop equations on the
    unrolled graph); ``equations``: that function given instead (the loop
    model's, :func:`flexpkm.compiled.loop_functions.loop_equations`)."""
    dep = [int(i) for i in sm.dep]
    X = _symbols(sm)
    design = [sm.design] if design_size(sm) else []
    res = equations
    if res is None:
        rows = sm.residual if sm.kept is None else sm.residual[[int(i) for i in sm.kept]]
        if sm.jacobian is not None:
            jac = sm.jacobian if sm.kept is None else sm.jacobian[[int(i) for i in sm.kept], :]
        else:
            jac = ca.jacobian(rows, sm.q)
        res = ca.Function("res", [sm.q] + design, [rows, jac[:, dep], sm.residual])
        if X is ca.MX:          # the kernel graph: expanded, one flat SX function called
            res = res.expand()  # by the iterations (its C once)
    n_q, n_par = sm.q.shape[0], layout(0, 0, sm.n_a, design_size(sm))[2]

    def p_of(par):
        return [design_part(sm, par)] if design else []
    if not sm.residual.shape[0] or not dep:     # nothing to solve: the drift only
        q, par = X.sym("q", n_q), X.sym("par", n_par)
        drift = ca.mmax(ca.fabs(res(q, *p_of(par))[2])) if sm.residual.shape[0] else X(0)
        return ca.Function("project", [q, par], [q, drift])
    q, par = ca.MX.sym("q", n_q), ca.MX.sym("par", n_par)      # the switches: MX
    r, Jr, full = res(q, *p_of(par))
    iterate = _project_iterations(sm, res, dep, iterations, n_par)
    return ca.Function("project", [q, par], list(iterate(q, r, Jr, ca.mmax(ca.fabs(full)), par)))


def _project_iterations(sm, res, dep, iterations, n_par):
    """``(q, r, Jr, drift, par) -> (q, drift)``: :func:`project_function`'s
    iterations on MX as nested switches from the loop equations' value
    ``r``, Jacobian ``Jr`` and drift at ``q`` (``par`` (n_par,))."""
    q, r, Jr = (ca.MX.sym(f"i{k}", res.sparsity_in(0) if k == 0 else res.sparsity_out(k - 1))
                for k in range(3))
    drift, pars = ca.MX.sym("drift"), ca.MX.sym("par", n_par)
    p = [design_part(sm, pars)] if design_size(sm) else []
    args = [q, r, Jr, drift, pars]
    tail = None
    for k in reversed(range(iterations)):
        q1 = ca.MX(q)
        q1[dep] = q[dep] - ca.solve(Jr, r)
        r1, Jr1, full = res(q1, *p)
        d1 = ca.mmax(ca.fabs(full))
        out = [q1, d1] if tail is None else list(tail(q1, r1, Jr1, d1, pars))
        cases = [ca.Function(f"project_done{k}", args, [q, drift]),
                 ca.Function(f"project_again{k}", args, out)]
        switch = ca.Function.conditional(f"project_if{k}", cases[:1], cases[1])
        tail = ca.Function(f"project_tail{k}", args, switch(drift >= LOOP_TOL, *args))
    return tail


def record_function(sm: SymbolicDynamics, model, prescribed, sensors=(), terms=None):
    """``(x, u_last, par) -> rec``: the outputs of a sample at the projected
    state ``x``: ``[tau (n_a); kinetic + elastic energy; sensors]`` with the
    model of the last evaluation (q_ev, v_ev) as the numpy recorder
    (on the unrolled graph, ``c`` there is the state's ``g = c - [tau; 0]``
    of that evaluation, whose drive effort is zero for a prescribed motion:
    not computed again, the recorder 12,974 -> 10,374 instructions on the
    DualEMPS with one element per body).
    sensors : ``(frame, axis_frame, axis)`` point accelerations. ``terms``:
    ``(graph inputs, a, v) -> (M a, M v, c, sensors...)`` given instead (the
    loop model's, :func:`flexpkm.compiled.loop_functions.record_function`)."""
    n_tot, n_r, n_a, X = sm.q.shape[0], sm.qd_r.shape[0], sm.n_a, _symbols(sm)
    sl, n_x, n_par = layout(n_tot, n_r, n_a, design_size(sm), Dims.of(sm).n_J)
    x, u, par = X.sym("x", n_x), X.sym("u", 3 * n_a), X.sym("par", n_par)
    a, v, q = x[sl["a"]], x[sl["v"]], x[sl["q"]]
    args = graph_arguments(sm, x[sl["q_ev"]], x[sl["v_ev"]], par)
    if terms is not None:     # the loop model, one call
        Ma, Mv, c, *vals = terms(*args, a, v)
    elif isinstance(sm, KernelDynamics):           # M a, M v by the recursive model, no M
        rd = recursive_dynamics(sm)        # one function (its code once) called twice
        sens = ca.Function("sens", graph_inputs(sm) + [rd.qdd_r], [rd.M_qdd, rd.c] + [
            kernel_acceleration(model, sm, rd.qdd_r, *s) for s in sensors]).expand()  # flat SX
        Ma, c, *vals = sens.call([*args, a])
        Mv = sens.call([*args, v])[0]
    else:      # c (read when prescribed) is the state's g: its drive effort is zero
        qdd = X.sym("qdd", n_r)
        outs = [point_acceleration(model, sm, qdd, *s) for s in sensors]
        M, *vals = ca.Function("sens", sm.inputs + [qdd], [upper_symmetric(sm.M)] + outs).call(
            [*args, a])
        Ma, Mv, c = M @ a, M @ v, x[sl["g"]]
    if prescribed:
        tau = (Ma + c)[:n_a]
    else:
        qa = q[[int(i) for i in sm.indep[:n_a]]]
        tau = u[:n_a] + par[:n_a] * (u[n_a:2 * n_a] - qa) + par[n_a:2 * n_a] * (u[2 * n_a:] - v[:n_a])
    energy = 0.5 * ca.dot(v, Mv) + 0.5 * ca.bilin(stiffness(sm, par), q, q)
    return ca.Function("record", [x, u, par], [ca.vertcat(tau, energy, *vals)])


def sample_function(step, project, record, n_sub, project_each, finish=None, due=None):
    """``(x, U (3 n_a, n_sub), par) -> (x_next, rec)`` composed at run time
    (MX, no code generation) from the compiled ``step`` (:func:`step_function`),
    ``project`` (:func:`project_function`) and ``record``
    (:func:`record_function`): ``n_sub`` steps to the next output sample, the
    loops closed after every step when ``project_each``, else at the sample;
    ``rec = [tau; energy; sensors; drift; rho; evaluations; converged]``
    (the largest relative residual of the steps, their Newton evaluations,
    the number of steps before the first one whose residual is above tol:
    n_sub when all converged).

    A ``step`` with a kept iteration matrix (five inputs), the ``finish``
    compiled with it (:func:`flexpkm.compiled.kept_sample.finish_function`)
    and ``due`` (``(x, par) -> 1`` when the kept matrix must be formed
    before the step from x, :func:`flexpkm.compiled.modified_newton.refresh_due`)
    give
    ``(x, U, par, S_inv, k0) -> (x_next, rec, stop)``
    (:func:`flexpkm.compiled.kept_sample.kept_sample_function`): the steps
    from ``k0`` on with the kept inverse
    ``S_inv``, stopped before a step that needs it formed again: ``stop``
    that step's index and ``x_next`` its state (neither projected nor
    recorded; the driver forms the matrix and calls again from ``k0 =
    stop``), else ``stop = n_sub``."""
    if step.n_in() == 5:
        return kept_sample_function(step, project, finish, due, n_sub, project_each)
    n_x, n_u, n_par = (step.size1_in(i) for i in range(3))
    x, par = ca.MX.sym("x", n_x), ca.MX.sym("par", n_par)
    U = ca.MX.sym("U", n_u, n_sub)
    xk, rhos, evals = x, [], []
    for k in range(n_sub):        # the calls chained, not mapaccum: no copies of the states
        xk, rho, evaluations = step(xk, U[:, k], par)
        xk = closed(project, xk, par)[0] if project_each else xk
        rhos.append(rho)
        evals.append(evaluations)
    rhos, evals = ca.horzcat(*rhos), ca.horzcat(*evals)
    xk, drift = closed(project, xk, par)
    rec = record(xk, U[:, -1], par)
    converged = ca.find((rhos > par[-1]).T)             # n_sub when none is above tol
    return ca.Function("sample", [x, U, par],
                       [xk, ca.vertcat(rec, drift, ca.mmax(rhos), ca.sum2(evals), converged)])
