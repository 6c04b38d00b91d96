"""The kept iteration matrix of the compiled simulation's step, formed by
the driver (issue 18): the steps take its inverse as an input
(:func:`flexpkm.compiled.step.step_function`), read, not copied through
every step's state; a sample stops before a step that needs it formed
(every :func:`flexpkm.compiled.modified_newton.refresh_age` steps and after
slow steps), the driver forms it there (the iteration matrix by generated
code, :func:`flexpkm.compiled.modified_newton.iteration_function`, its
inverse by LAPACK, :func:`spd_inverse`) and the sample goes on from that
step (:class:`KeptSample`). DualEMPS ``square``, 8 elements per body: a
refresh 1.74 ms with CasADi's generated LDL^T inverse, the LAPACK inverse
0.07 ms of it; the step's compiled instructions 962k -> 772k (the n_r^2
copies of the state and the generated inverse gone), the same Newton
iterations (docs/simulation.md, "The kept matrix out of the step's
state", eighth session).
"""
from __future__ import annotations

import numpy as np

#: rows of a compiled sample's record after the sensors
#: (:func:`flexpkm.compiled.step.sample_function`)
RHO, EVALUATIONS, CONVERGED = -3, -2, -1


class KeptSample:
    """One output sample with a kept iteration matrix (``sample(S) -> (S,
    start)``): the sample function (``call = (buf, evaluate, ins, outs)``:
    its buffer, inputs ``[x, U, par, S, k0]``, outputs ``[x_next, rec,
    stop]``, :func:`flexpkm.compiled.step.sample_function`) called from its
    first step with the kept inverse S (n_r n_r, column-major; None: not
    formed yet); when it stops before a step that needs S formed (``stop <
    n_sub``: every :func:`flexpkm.compiled.modified_newton.refresh_age`
    steps and after slow ones), S is formed at that step's state (the
    iteration matrix on the unknown rows by ``iteration``,
    :meth:`CompiledRobot.iteration`, inverted by :func:`spd_inverse`), the
    state that goes with it written into ``ins[0]`` (``age`` -1: the step
    counts it to 0, ``evals`` 0, ``S_h`` the step's h, as
    :func:`flexpkm.compiled.modified_newton.refresh_due` reads them), and
    the sample called again from that step; its record then holds the
    largest residual of the calls, their evaluations and their first step
    above tol. A new S is a new array (the one a sample started with,
    :attr:`start_matrix`, stays as it was); ``start``: the state the
    sample started from when ``ins[0]`` was overwritten (else None). A step
    due again right after its matrix was formed (a state that is not
    finite) ends the sample as not converged."""

    def __init__(self, iteration, call, n_sub, cm, prescribed):
        self.buf, self.evaluate, self.ins, self.outs = call
        self.n_sub, self.n_r = n_sub, len(cm.indep)
        self.unknown, self.at, self.h = where(cm, prescribed)
        self.iteration, (self.ibuf, self.ievaluate) = iteration, iteration.buffer()
        m = len(self.unknown[0])
        self.A = np.zeros(m * m)
        self.ibuf.set_arg(0, memoryview(self.outs[0]))
        self.ibuf.set_arg(1, memoryview(self.ins[2]))
        self.ibuf.set_res(0, memoryview(self.A))
        self.S = self.start_matrix = None

    def formed(self):
        """The kept inverse at the state ``outs[0]`` (a new array) and that
        state, fresh, in ``ins[0]``."""
        self.ievaluate()
        self.ins[0][:] = self.outs[0]
        return formed(self.A, self.unknown, self.n_r, self.ins[0], self.at, self.ins[2][self.h])

    def __call__(self, S):
        ins, rec = self.ins, self.outs[1]
        S = np.zeros(self.n_r * self.n_r) if S is None else S
        self.start_matrix, start, k0, done = S, None, 0, None
        while True:
            if S is not self.S:                 # the sample reads it where it is
                self.S = S
                self.buf.set_arg(3, memoryview(S))
            ins[4][0] = k0
            self.evaluate()
            stop = int(self.outs[2][0])
            if done is not None:                # the calls before: one record
                rec[RHO] = max(rec[RHO], done[0])
                rec[EVALUATIONS] += done[1]
                rec[CONVERGED] = min(rec[CONVERGED], done[2])
                if stop == k0 < self.n_sub:     # due again at once: not finite
                    rec[RHO] = np.inf
                    return S, start
            if stop >= self.n_sub:
                return S, start
            done = (rec[RHO], rec[EVALUATIONS], rec[CONVERGED])
            start = ins[0].copy() if start is None else start
            S, k0 = self.formed(), stop


def where(cm, prescribed):
    """``(unknown, at, h)``: the unknown accelerations' rows and columns of
    the kept matrix (``numpy.ix_``, :func:`flexpkm.compiled.step.unknowns`),
    the entries S_h, age, evals of the step state, h's in ``par``."""
    n_r, sl = len(cm.indep), cm.state_slices()
    unknown = np.ix_(*[np.arange(cm.n_a if prescribed else 0, n_r)] * 2)
    return unknown, (sl["S_h"].start, sl["age"].start, sl["evals"].start), 2 * cm.n_a


def formed(A, unknown, n_r, x, at, h):
    """The kept inverse (n_r n_r, column-major) of the iteration matrix ``A``
    (m m numbers, the ``unknown`` rows and columns, ``numpy.ix_``) by
    :func:`spd_inverse`, zero elsewhere; the state ``x`` made fresh in
    place (its entries ``at`` = S_h, age, evals: h, -1, 0)."""
    m = len(unknown[0])
    S = np.zeros((n_r, n_r), order="F")
    S[unknown] = spd_inverse(np.reshape(A, (m, m)))
    x[list(at)] = h, -1.0, 0.0
    return S.reshape(-1, order="F")


def kept_step(cm, config, x, u, par, S=None):
    """One step of the kept-matrix sample ``cm.sample(*config)``
    (:func:`flexpkm.compiled.step.step_function`) called alone as the driver
    calls it (:class:`KeptSample`): the kept inverse S formed first when the
    step is due (None: not formed yet). ``config`` = ``(prescribed,
    iterations, sensors, exact)``; -> ``(x1, rho, evaluations, S)``."""
    step, x, n_r = cm.simulation(*config)[0], np.array(x, float), len(cm.indep)
    S = np.zeros(n_r * n_r) if S is None else S
    if float(step(x, u, par, S.reshape(n_r, n_r, order="F"), 0)[3]):
        unknown, at, h = where(cm, config[0])
        S = formed(np.array(cm.iteration(*config)(x, par)), unknown, n_r, x, at, par[h])
    x1, rho, evaluations, _ = step(x, u, par, S.reshape(n_r, n_r, order="F"), 1)
    return np.array(x1).ravel(), float(rho), float(evaluations), S


def spd_inverse(A):
    """The inverse of the symmetric matrix A (m, m) by LAPACK: Cholesky
    (``dpotrf``, ``dpotri``) when it is positive definite (the iteration
    matrix ``M + (1 - alpha) (gamma h D + beta h^2 K)``), else LU
    (``numpy.linalg.inv``; NaN entries give NaN)."""
    from scipy.linalg import lapack
    c, info = lapack.dpotrf(A, lower=1, clean=0)
    if info == 0:
        inv, info = lapack.dpotri(c, lower=1)
    if info != 0:
        return np.linalg.inv(A) if np.isfinite(A).all() else np.full(A.shape, np.nan)
    return np.tril(inv) + np.tril(inv, -1).T
