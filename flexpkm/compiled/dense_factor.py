"""The dense LDL^T factor of the HHT iteration matrix kept in the step
state, and its solves (issue 18): ``S = L D L^T``, L unit lower
triangular, D diagonal, without pivoting (S is symmetric positive
definite: :func:`flexpkm.compiled.step.iteration_matrix`).

The factor ``F`` (n, n), column-major as every CasADi matrix, holds D on
its diagonal and L below it (zeros above). Two forms of each function,
the same arithmetic in the same order:

* ``c=True``: a small C loop (CasADi's ``Function.jit`` body, emitted into
  the generated library, never compiled on its own: ``jit`` off), n^3 / 6
  multiply-adds for the factor and n^2 for a solve, whatever n, in a few
  lines of C; the columns are read and written contiguously (``restrict``:
  gcc vectorises the forward substitution's column updates). The factor
  replaces CasADi's sparse LDL^T of S and its n solves with the identity
  (the inverse the step kept before: 5.5 M of the refresh's 11 M machine
  instructions at 8 elements per body on the DualEMPS), and the solve the
  product by that inverse (casadi_mtimes_dense_sparse, ~8 machine
  instructions per multiply-add: 43,500 per correction at n_r = 74).
* ``c=False``: the same loops unrolled on SX symbols, for CasADi's
  virtual machine (``CompiledRobot(compile=False)``: no C compiler; its
  size grows as n^3, which is why the compiled code does not use it).
"""
from __future__ import annotations

import casadi as ca

_FACTOR = """
casadi_int i_, j_, k_;
if (!ldl_F) return 0;
if (!ldl_S) return 1;
for (j_ = 0; j_ < {n}; ++j_) {{
  casadi_real* restrict fj_ = ldl_F + j_ * {n};
  for (i_ = 0; i_ < j_; ++i_) fj_[i_] = 0;
  for (i_ = j_; i_ < {n}; ++i_) fj_[i_] = ldl_S[i_ + j_ * {n}];
  for (k_ = 0; k_ < j_; ++k_) {{
    const casadi_real* restrict fk_ = ldl_F + k_ * {n};
    casadi_real w_ = fk_[j_] * fk_[k_];
    for (i_ = j_; i_ < {n}; ++i_) fj_[i_] -= fk_[i_] * w_;
  }}
  for (i_ = j_ + 1; i_ < {n}; ++i_) fj_[i_] /= fj_[j_];
}}
"""

_SOLVE = """
casadi_int i_, j_;
if (!ldl_x) return 0;
if (!ldl_F) return 1;
for (i_ = 0; i_ < {n}; ++i_) ldl_x[i_] = ldl_r ? ldl_r[i_] : 0;
for (j_ = 0; j_ < {n}; ++j_) {{
  const casadi_real* restrict fj_ = ldl_F + j_ * {n};
  casadi_real* restrict x_ = ldl_x;
  casadi_real y_ = x_[j_];
  for (i_ = j_ + 1; i_ < {n}; ++i_) x_[i_] -= fj_[i_] * y_;
}}
for (j_ = 0; j_ < {n}; ++j_) ldl_x[j_] /= ldl_F[j_ + j_ * {n}];
for (j_ = {n} - 1; j_ >= 0; --j_) {{
  const casadi_real* fj_ = ldl_F + j_ * {n};
  casadi_real s_ = ldl_x[j_];
  for (i_ = j_ + 1; i_ < {n}; ++i_) s_ -= fj_[i_] * ldl_x[i_];
  ldl_x[j_] = s_;
}}
"""


def factor_function(n: int, c: bool = True) -> ca.Function:
    """``(S (n, n)) -> F (n, n)``: the LDL^T factor of the symmetric
    positive definite S from its lower triangle (the upper one is not read);
    a zero pivot gives inf or NaN entries (the step's residual then fails
    and the sample is redone with smaller steps). ``c``: the C loop, for
    generated code; else the SX form (CasADi's virtual machine)."""
    dense = ca.Sparsity.dense(n, n)
    if c:
        return ca.Function.jit(f"ldl_factor{n}", _FACTOR.format(n=n), ["ldl_S"], ["ldl_F"],
                               [dense], [dense], {"jit": False, "buffered": False})
    S = ca.SX.sym("S", n, n)
    F = [[ca.SX(0)] * n for _ in range(n)]          # F[j][i]: column j, row i
    for j in range(n):
        col = [S[i, j] for i in range(n)]
        for k in range(j):
            w = F[k][j] * F[k][k]
            for i in range(j, n):
                col[i] = col[i] - F[k][i] * w
        F[j] = [ca.SX(0)] * j + [col[j]] + [col[i] / col[j] for i in range(j + 1, n)]
    return ca.Function(f"ldl_factor{n}", [S], [ca.horzcat(*[ca.vertcat(*c) for c in F])])


def solve_function(n: int, c: bool = True) -> ca.Function:
    """``(F (n, n), r (n,)) -> x (n,)``: ``x = S^-1 r`` for the factor
    ``F`` of :func:`factor_function` (forward substitution by columns, the
    diagonal, back substitution by column dot products). ``c`` as there."""
    dense, vec = ca.Sparsity.dense(n, n), ca.Sparsity.dense(n, 1)
    if c:
        return ca.Function.jit(f"ldl_solve{n}", _SOLVE.format(n=n), ["ldl_F", "ldl_r"],
                               ["ldl_x"], [dense, vec], [vec], {"jit": False, "buffered": False})
    F, r = ca.SX.sym("F", n, n), ca.SX.sym("r", n)
    x = [r[i] for i in range(n)]
    for j in range(n):
        for i in range(j + 1, n):
            x[i] = x[i] - F[i, j] * x[j]
    x = [x[j] / F[j, j] for j in range(n)]
    for j in reversed(range(n)):
        s = x[j]
        for i in range(j + 1, n):
            s = s - F[i, j] * x[i]
        x[j] = s
    return ca.Function(f"ldl_solve{n}", [F, r], [ca.vertcat(*x)])
