"""Modified Newton for the HHT step on the kernel graph (issue 18): the
residual by the recursive Newton-Euler model
(:mod:`flexpkm.compiled.newton_euler`, no mass matrix), the inverse of the
iteration matrix kept in the step state over several steps.

The iteration matrix is the numpy step's (:func:`flexpkm.compiled.step.iteration_matrix`:
``S = M + (1 - alpha) (gamma h D + beta h^2 K)``), formed from M by
:func:`mass_matrix_function` and inverted (LDL^T, generated) only when it
is stale: at the first step,
after :func:`refresh_age` steps, after a step that needed more than
:data:`SLOW` model evaluations (convergence slows: friction switching, a
fast motion), or for another step length ``h`` (a retried sample). Each
Newton correction is then one recursive evaluation and a product by the
kept inverse; the converged step is the same fixed point (the residual is
the same equation of motion), reached at the same relative residual
``tol``. A step still not converged two corrections short of the
iteration limit goes on as a full Newton (the matrix at each iterate:
quadratic convergence where the kept matrix converges slowly, e.g. a
tight ``tol``), the next step forms it at its first iterate and earlier
again if it is slow too (:func:`flexpkm.compiled.step.step_function`),
then the steps keep it. The kept inverse (n_r x n_r, on the unknown rows and
columns) is an input of the step, formed by the driver (:func:`iteration_function`,
inverted by LAPACK) when :func:`refresh_due`;
state fields ``S_h``, ``age``, ``evals``
(:func:`flexpkm.compiled.step.layout`).
"""
from __future__ import annotations

import casadi as ca

from flexpkm.compiled import loop_functions, step
from flexpkm.compiled.newton_euler import recursive_dynamics

#: steps after which the kept iteration matrix is formed again, up to
#: :data:`REFRESH_SIZE` coordinates q_r (:func:`refresh_age` beyond)
REFRESH_AGE = 64
#: n_r above which the age of a refresh grows as n_r^2 (:func:`refresh_age`)
REFRESH_SIZE = 74
#: a step with more model evaluations than this refreshes it for the next;
#: one not converged after this many corrections, and two short of the
#: iteration limit, makes its next ones with the iteration matrix of
#: their own iterate (a refresh each, ~30 evaluations' worth at 8 elements
#: per body: the numpy step's full Newton), the last one kept for the next
#: steps (:func:`flexpkm.compiled.step.step_function`'s ``mid``)
SLOW = 4


def refresh_age(n_r) -> float:
    """Steps after which the kept iteration matrix of n_r coordinates q_r is
    formed again: :data:`REFRESH_AGE`, times ``(n_r / REFRESH_SIZE)^2``
    above :data:`REFRESH_SIZE`. A refresh costs ~n_r^3 (the dense LDL^T
    inverse) against ~n_r per model evaluation, an older matrix a few more
    evaluations per step (DualEMPS ``square``, interleaved runs at load
    3.7: at 16 elements per body, n_r = 146, age 256 against 64 takes 6 %
    more evaluations and 20 % less CPU, 0.76 against 0.95 s for 0.3 s
    simulated; at 8 elements, n_r = 74, 7 % more evaluations for the same
    CPU). A slow step refreshes it at any age (:data:`SLOW`)."""
    return REFRESH_AGE * max(1.0, n_r / REFRESH_SIZE) ** 2


def model_function(kd, prescribed):
    """``(q, v, a, u, par) -> (M a, g, J, b, forces)`` as
    :func:`flexpkm.compiled.step.model_function` (``g = c - [tau; 0]``,
    ``forces = [c, [tau; 0], J^T K_tot q]``) with ``M a`` by the recursive
    Newton-Euler model; on a parametric graph its design vector ``p`` is
    read from ``par`` (:func:`flexpkm.compiled.step.graph_arguments`)."""
    rd = recursive_dynamics(kd)
    n_a, X = kd.n_a, ca.MX
    u, par = X.sym("u", 3 * n_a), X.sym("par", step.layout(0, 0, n_a, step.design_size(kd))[2])
    tau = step.drive_effort(kd, u, par, prescribed)
    forces = ca.horzcat(rd.c, tau, kd.J.T @ (step.stiffness(kd, par) @ kd.q))
    outs = ca.substitute([rd.M_qdd, rd.c - tau, kd.J, kd.b, forces], step.graph_inputs(kd)[2:],
                         step.graph_arguments(kd, kd.q, kd.qd_r, par)[2:])
    return ca.Function("model_ne", [kd.q, kd.qd_r, rd.qdd_r, u, par], outs)


def newton_function(kd, prescribed, loops=False):
    """One Newton correction with a kept inverse iteration matrix:
    ``(x, a1, J, b, u, par, S_inv) -> (a1 - S_inv R, J1, b1, g1, q1, v1,
    rho, R)`` (:func:`flexpkm.compiled.step.newton_function`'s outputs and
    the residual R (n_r,), zero on the known rows; J and J1
    on the structural entries of the model's J). Built on the kernel graph,
    then expanded into ONE flat SX function (``Function.expand``: the
    kernels inlined, every product on its structural non-zeros), whose
    instructions grow linearly with the bodies (DualEMPS: 45,000 for the
    model at 8 elements per body, 90,000 at 16) and whose C runs without
    the MX graph's copies, projections and sparse-product bookkeeping
    (0.99 M machine instructions per model evaluation at 8 elements on the
    MX graph); the product by the kept inverse outside it, in the MX call
    (a loop in the C: unrolled, its n_r^2 instructions were 10,000 of the
    flat function's 65,700 at 8 elements per body, 41,000 of 162,000 at 16,
    code that outgrows the instruction cache). ``loops``: the model of
    :func:`flexpkm.compiled.loop_functions.model_function` instead, not
    expanded (each kernel's C once, called for each frame of each chain of
    identical frames: a few C lines per element of a refined body)."""
    n_tot, n_r, n_a, X = kd.q.shape[0], kd.qd_r.shape[0], kd.n_a, ca.MX
    d = step.Dims.of(kd)
    sl, n_x, n_par = step.layout(n_tot, n_r, n_a, d.n_p, d.n_J)
    F = (loop_functions.model_function if loops else model_function)(kd, prescribed)
    x, u, par = X.sym("x", n_x), X.sym("u", 3 * n_a), X.sym("par", n_par)
    pattern = kd.J.sparsity()        # J = [I; J_d] up to the order: products on its entries
    J, b, a1, S_inv = X.sym("J", pattern), X.sym("b", n_tot), X.sym("a1", n_r), X.sym("S", n_r, n_r)
    unk = step.unknowns(n_r, n_a, prescribed)
    q1, v1 = step.newmark(d, x, a1, J, b, u, par, prescribed, pattern)
    if loops:       # the MX around the loops' call as two flat SX functions (fewer copies)
        q1, v1 = ca.Function("newmark", [x, a1, J, b, u, par], [q1, v1]).expand()(
            x, a1, J, b, u, par)
    Ma, g, J1, b1, forces = F(q1, v1, a1, u, par)

    def residual(Ma, g, forces, x, par):
        alpha = par[2 * n_a + 1]
        res = (Ma + (1 - alpha) * g + alpha * x[sl["g"]])[unk]
        R = X(n_r, 1)
        R[unk] = res
        return step.relative_residual(res, Ma[unk], forces[unk, :]), R
    if loops:       # the state's J on the model's pattern; rho, R one flat SX function
        ins = [Ma, g, forces, x, par]
        syms = [X.sym(f"i{k}", v.sparsity()) for k, v in enumerate(ins)]
        rho, R = ca.Function("residual", syms, residual(*syms)).expand()(*ins)
        J1 = ca.project(J1, pattern)
    else:
        rho, R = residual(Ma, g, forces, x, par)
        flat = ca.Function("newton_ne", [x, a1, J, b, u, par], [J1, b1, g, q1, v1, rho, R]).expand()
        J1, b1, g, q1, v1, rho, R = flat(x, a1, J, b, u, par)
    new = a1 - ca.densify(S_inv) @ R       # S_inv zero outside the unknowns' rows and columns
    return ca.Function("newton_kept", [x, a1, J, b, u, par, S_inv],
                       [new, J1, b1, g, q1, v1, rho, R])


def mass_matrix_function(kd):
    """``(graph inputs) -> M`` (n_r, n_r, kg m^2 or kg per unit of the
    coordinates): the mass matrix of the full model (10.123) at the graph's
    inputs (:func:`flexpkm.compiled.step.graph_inputs`), column by column,
    ``M e_k`` by the recursive Newton-Euler model
    (:mod:`flexpkm.compiled.newton_euler`) in two flat SX functions: the
    terms that do not depend on the accelerations (the frames' poses and
    local Jacobian columns, the bodies' mass terms: CasADi's
    ``extract_parametric``), once, then the product linear in ``qdd_r``,
    called on each unit acceleration with the terms, the state and the
    design vector by pointer (CasADi's ``map``, ``reduce_in`` included,
    copies its inputs n_r times: the design vector alone is 5,404 numbers at
    8 elements per body on the DualEMPS). There: 12,360 + 74 x 7,432 SX
    instructions against 74 x 17,564 for whole Newton-Euler columns (2.3x
    fewer; 2.6x at 16 elements); the C holds the two functions once."""
    rd = recursive_dynamics(kd)
    column = ca.Function("mass_column", step.graph_inputs(kd) + [rd.qdd_r], [rd.M_qdd]).expand()
    ins = column.sx_in()
    product, symbols, terms = ca.extract_parametric(column.call(ins)[0], ins[:-1])
    t = ca.SX.sym("t", len(symbols))
    product = ca.substitute([product], [ca.vertcat(*symbols)], [t])[0]
    shared = ca.Function("mass_terms", ins[:-1], [ca.vertcat(*terms)])
    linear = ca.Function("mass_product", [t, *ins[:-1], ins[-1]], [product])
    args = [ca.MX.sym(f"i{k}", column.sparsity_in(k)) for k in range(len(ins) - 1)]
    n_r, terms = kd.qd_r.shape[0], shared(*args)
    unit = ca.DM.eye(n_r)               # one call per column: its inputs by pointer (a
    return ca.Function("mass_matrix", args, [ca.horzcat(*[     # map repeats them)
        linear(terms, *args, unit[:, k]) for k in range(n_r)])])


def mass_function(kd, loops=False):
    """The mass matrix's function of the graph inputs: :func:`mass_matrix_function`,
    or with ``loops`` :func:`flexpkm.compiled.loop_functions.mass_matrix_function`.
    Built once per library and given to :func:`refresh_function` and
    :func:`iteration_function` (``mass``), so that the generated C holds it
    once: two builds were two copies in the C (DualEMPS, 8 elements per
    link, flat graph: 92,031 -> 78,772 lines, first compile 13.4-13.9 -> 11.9 s)."""
    return (loop_functions.mass_matrix_function if loops else mass_matrix_function)(kd)


def refresh_function(kd, prescribed, loops=False, mass=None):
    """``(q_ev, v_ev, J, par) -> S_inv`` (n_r, n_r): the inverse iteration
    matrix on the unknown rows and columns at an evaluation ``(q_ev (n_tot),
    v_ev (n_r), J (n_tot, n_r) on the structural entries of the model's J)``
    (zero elsewhere; CasADi's LDL^T, generated: the full Newton corrections
    of a slow step, :func:`flexpkm.compiled.corrections.corrected`); M by
    :func:`mass_matrix_function` (whole Newton-Euler
    columns took 27 us each at 8 elements per body on the DualEMPS, where
    the MX graph's M took 5 ms); ``loops``: M by
    :func:`flexpkm.compiled.loop_functions.mass_matrix_function`; ``mass``
    that function already built (:func:`mass_function`)."""
    mass = mass_function(kd, loops) if mass is None else mass
    n_tot, n_r, n_a, X = kd.q.shape[0], kd.qd_r.shape[0], kd.n_a, ca.MX
    n_par = step.layout(n_tot, n_r, n_a, step.design_size(kd))[2]
    q_ev, v_ev, par = X.sym("q_ev", n_tot), X.sym("v_ev", n_r), X.sym("par", n_par)
    J = X.sym("J", kd.J.sparsity())
    S = _iteration_matrix(kd, prescribed, mass, q_ev, v_ev, J, par)
    unk = step.unknowns(n_r, n_a, prescribed)
    S_inv = X(n_r, n_r)
    S_inv[unk, unk] = ca.solve(S, X.eye(len(unk)), "ldl", {})
    return ca.Function("refresh", [q_ev, v_ev, J, par], [ca.densify(S_inv)])


def _iteration_matrix(kd, prescribed, mass, q_ev, v_ev, J, par):
    """The iteration matrix (:func:`flexpkm.compiled.step.iteration_matrix`)
    on the unknown rows and columns at an evaluation (MX), M by the
    function ``mass`` (:func:`mass_function`)."""
    M = mass(*step.graph_arguments(kd, q_ev, v_ev, par))
    unk = step.unknowns(kd.qd_r.shape[0], kd.n_a, prescribed)
    return step.iteration_matrix(kd, M, J, v_ev, par)[unk, unk]


def iteration_function(kd, prescribed, d, loops=False, name="iteration", mass=None):
    """``(x, par) -> S`` (m, m, dense; m the unknown accelerations,
    :func:`flexpkm.compiled.step.unknowns`): the iteration matrix at the
    last evaluation ``q_ev, v_ev, J`` of the step state x (``d`` the
    :class:`flexpkm.compiled.step.Dims`), generated code. The simulation's
    driver inverts it by LAPACK (:mod:`flexpkm.analysis.compiled_simulate`)
    when a step is :func:`refresh_due` and gives the inverse to the steps
    as an input (:func:`flexpkm.compiled.step.step_function`): the matrix
    then neither goes through every step's state (n_r^2 numbers copied in
    and out) nor is inverted by CasADi's generated LDL^T (its solve with m
    right-hand sides: 1.7 ms per refresh with the mass matrix at 8 elements
    per body on the DualEMPS, LAPACK's dpotrf + dpotri 0.07 ms). ``mass``:
    as :func:`refresh_function`'s."""
    mass = mass_function(kd, loops) if mass is None else mass
    sl, n_x, n_par = step.layout(d.n_tot, d.n_r, d.n_a, d.n_p, d.n_J)
    x, par = ca.MX.sym("x", n_x), ca.MX.sym("par", n_par)
    J = step.state_jacobian(x, sl, d.n_tot, d.n_r, d.J_pattern)
    S = _iteration_matrix(kd, prescribed, mass, x[sl["q_ev"]], x[sl["v_ev"]], J, par)
    return ca.Function(name, [x, par], [ca.densify(S)])


def refresh_due(x, par, sl, n_r, n_a):
    """Whether the kept iteration matrix must be formed before the step
    from the state ``x`` with ``par`` (MX scalar, 1 or 0; ``sl`` the
    state's slices, :func:`flexpkm.compiled.step.layout`, for n_r
    coordinates q_r and n_a actuators): at :func:`refresh_age`, after a
    step of more than :data:`SLOW` model evaluations, for another step
    length h than its own, never after a step with Newton's matrix (``evals``
    -1: that step's corrections form it at each iterate,
    :func:`flexpkm.compiled.step.step_function`)."""
    return (((x[sl["age"]] >= refresh_age(n_r)) + (x[sl["evals"]] > SLOW)
             + (x[sl["S_h"]] != par[2 * n_a])) > 0) * (x[sl["evals"]] >= 0)
