"""The loop model's ``J`` (n_tot, n_r) of (10.114) (issue 18, item 1):
the identity on the independent rows, ``J_d`` on the dependent ones, used
by its products without forming it (:mod:`flexpkm.compiled.loop_model`)."""
from __future__ import annotations

import casadi as ca
import numpy as np

X = ca.MX


class LoopJacobian:
    """``J`` (n_tot, n_r) of (10.114): the identity on the rows ``indep``,
    ``J_d`` (n_dep, n_r, MX) on the rows ``dep``; its products without
    forming it (a permutation of ``[x; J_d x]``; ``y[indep] + J_d^T
    y[dep]``) and its non-zeros on a given pattern (the state's)."""

    def __init__(self, n_tot, indep, dep, J_d, kernels=None):
        self.indep, self.dep, self.n_r = list(indep), list(dep), len(indep)
        self.J_d = None if J_d is None else ca.densify(J_d)
        self.kernels = kernels
        order = np.empty(n_tot, dtype=int)
        order[self.indep + self.dep] = np.arange(n_tot)
        self.order = order.tolist()

    def stack(self, top, bottom):
        """The rows ``[top; bottom]`` (indep, then dep) in q_tot order."""
        return ca.vertcat(top, bottom)[self.order, :] if self.dep else top[self.order, :]

    def times(self, x):
        """``J x`` (n_tot, K) for x (n_r, K)."""
        return self.stack(x, self.product(x, False)) if self.dep else self.stack(x, None)

    def transpose_times(self, y):
        """``J^T y`` (n_r, K) for y (n_tot, K)."""
        out = y[self.indep, :]
        return out + self.product(y[self.dep, :], True) if self.dep else out

    def product(self, x, transpose):
        """``J_d x`` (``J_d^T x`` when ``transpose``): :meth:`LoopKernels.product`."""
        if self.kernels is None:
            return ca.mtimes(self.J_d.T if transpose else self.J_d, x)
        return self.kernels.product(self.J_d, x, transpose)

    def on(self, pattern):
        """``J`` on the sparsity ``pattern`` (its entries outside are zero)."""
        rows, cols = pattern.get_triplet()
        n_d = len(self.dep)
        where = {r: i for i, r in enumerate(self.dep)}
        idx = [n_d * self.n_r if r not in where else where[r] + n_d * c
               for r, c in zip(rows, cols)]
        src = ca.vertcat(ca.vec(self.J_d) if self.dep else X(0, 1), 1)
        return X(pattern, src[idx])
