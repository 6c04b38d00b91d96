"""The Newton corrections of an HHT step with a kept inverse iteration
matrix (:mod:`flexpkm.compiled.modified_newton`, issue 18), composed at run
time (CasADi MX): with the kept matrix, or, for a slow step, with the
iteration matrix at each iterate (the numpy step's full Newton), and the
nested switches of a step's later corrections
(:func:`flexpkm.compiled.step.step_function` calls them); without a kept
matrix, the full Newton's later corrections (:func:`newton_corrections`)."""
from __future__ import annotations

import casadi as ca


#: the age given to the kept matrix after a step with Newton's matrix at
#: every iterate (its kept matrix unused): formed again at the next step
#: that does not (:func:`flexpkm.compiled.step.step_function`)
REFRESH_AFTER_NEWTON = 1e9


def corrected(newton, refresh, ins):
    """The outputs ``(a1, J, b, g, q_ev, v_ev, rho)`` of one correction from
    the symbols ``ins`` = ``(x, a1, J, b, u, par, S_inv)``: with the kept
    ``S_inv``, and with Newton's matrix at the iterate (``newton`` of the
    kept matrix, its last output the residual R (n_r,); then ``a1 - S R``
    with ``S = refresh(q_ev, v_ev, J, par)`` at that evaluation: the numpy
    step's full Newton): a list of both."""
    x, a1, J, b, u, par, S_inv = ins
    out = newton(x, a1, J, b, u, par, S_inv)
    fresh = refresh(out[4], out[5], out[1], par)
    return [list(out[:7]), [a1 - fresh @ out[7], *out[1:7]]]


def first_correction(newton, refresh):
    """``(full, x, a1, J, b, u, par, S_inv) -> (a1, J, b, g, q_ev, v_ev,
    rho)``: a step's first correction (:func:`corrected`), with Newton's
    matrix when ``full`` (CasADi's switch: only that case runs)."""
    ins = [ca.MX.sym(f"i{k}", newton.sparsity_in(k)) for k in range(newton.n_in())]
    cases = [ca.Function(f"newton_first{i}", ins, out) for i, out in
             enumerate(corrected(newton, refresh, ins))]
    return ca.Function.conditional("newton_first", cases[:1], cases[1])


def later_corrections(newton, refresh, iterations, mid):
    """``(x, a1, J, b, g, q_ev, v_ev, rho, u, par, S_inv, flagged) -> (a1,
    J, b, g, q_ev, v_ev, rho, evaluations)``: the corrections after a step's
    first, while rho is above tol (the last entry of ``par``), at most
    ``iterations - 1``: with the kept matrix, or Newton's
    (:func:`corrected`) after ``mid`` corrections, every one when
    ``flagged``. Nested switches: a converged step leaves them at once (one
    copy of the state, not one per remaining iteration); the kept inverse
    is only read."""
    ins = [ca.MX.sym(f"i{k}", newton.sparsity_in(k)) for k in range(newton.n_in())]
    x, a1, J, b, u, par, S_inv = ins
    kept = [ca.MX.sym(f"o{k}", newton.sparsity_out(k)) for k in range(7)]
    flagged = ca.MX.sym("flagged")
    args = [x, *kept, u, par, S_inv, flagged]
    tail = None
    for k in reversed(range(1, iterations)):          # the (k + 1)-th evaluation
        cases = [ca.Function(f"newton_done{k}", args, kept + [ca.MX(0)])]
        for i, st in enumerate(corrected(newton, refresh, [x, *kept[:3], u, par, S_inv])):
            res = [*st, 0] if tail is None else list(tail(x, *st, u, par, S_inv, flagged))
            res[-1] += 1
            cases.append(ca.Function(f"newton_{k}_{i}", args, res))
        switch = ca.Function.conditional(f"newton_case{k}", cases[:2], cases[2])
        full = 1 if k >= mid else flagged
        tail = ca.Function(f"newton_tail{k}", args,
                           switch((kept[6] > par[-1]) * (1 + full), *args))
    return tail


def newton_corrections(newton, iterations):
    """``(x, a1, J, b, g, q_ev, v_ev, rho, u, par) -> (a1, J, b, g, q_ev,
    v_ev, rho, evaluations)``: the corrections after a step's first, while
    rho is above tol (the last entry of ``par``), at most ``iterations -
    1``, each with the iteration matrix at its iterate (``newton`` of
    :func:`flexpkm.compiled.step.newton_function`), as nested switches
    (CasADi's ``Function.conditional``, as :func:`later_corrections`),
    for :func:`flexpkm.compiled.step.step_function` without a kept
    matrix. A converged step leaves them at once, instead of a flat chain
    of switches that copied the correction's outputs at every skipped one
    (DualEMPS, one element per body: 16.2 against 16.7 us per step, the
    same state)."""
    x, a1, J, b, u, par = (ca.MX.sym(f"i{k}", newton.sparsity_in(k)) for k in range(6))
    kept = [ca.MX.sym(f"o{k}", newton.sparsity_out(k)) for k in range(7)]
    args = [x, *kept, u, par]
    tail = None
    for k in reversed(range(1, iterations)):          # the (k + 1)-th evaluation
        st = list(newton(x, *kept[:3], u, par))[:7]
        res = [*st, 0] if tail is None else list(tail(x, *st, u, par))
        res[-1] += 1
        cases = [ca.Function(f"newton_done{k}", args, kept + [ca.MX(0)]),
                 ca.Function(f"newton_again{k}", args, res)]
        switch = ca.Function.conditional(f"newton_if{k}", cases[:1], cases[1])
        tail = ca.Function(f"newton_tail{k}", args, switch(kept[6] > par[-1], *args))
    return tail
