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
    i_ = j_;
#ifdef __GNUC__
    {{
      typedef double v2_ __attribute__((vector_size(16), aligned(8), may_alias));
      v2_ wv_ = {{w_, w_}};
      for (; i_ + 1 < {n}; i_ += 2) *(v2_*)(fj_ + i_) -= *(const v2_*)(fk_ + i_) * wv_;
    }}
#endif
    for (; i_ < {n}; ++i_) fj_[i_] -= fk_[i_] * w_;
  }}
  for (i_ = j_ + 1; i_ < {n}; ++i_) fj_[i_] /= fj_[j_];
}}
"""

_SOLVE = """
casadi_int i_, j_;
casadi_real y_, s0_, s1_;
if (!ldl_x) return 0;
if (!ldl_F) return 1;
for (i_ = 0; i_ < {n}; ++i_) ldl_x[i_] = ldl_r ? ldl_r[i_] : 0;
for (j_ = 0; j_ < {n}; ++j_) {{
  const casadi_real* fj_ = ldl_F + j_ * {n};
  y_ = ldl_x[j_];
  i_ = j_ + 1;
#ifdef __GNUC__
  {{
    typedef double v2_ __attribute__((vector_size(16), aligned(8), may_alias));
    v2_ yv_ = {{y_, y_}};
    for (; i_ + 1 < {n}; i_ += 2) *(v2_*)(ldl_x + i_) -= *(const v2_*)(fj_ + i_) * yv_;
  }}
#endif
  for (; i_ < {n}; ++i_) ldl_x[i_] -= fj_[i_] * y_;
}}
for (j_ = 0; j_ < {n}; ++j_) ldl_x[j_] /= ldl_F[j_ + j_ * {n}];
for (j_ = {n} - 1; j_ >= 0; --j_) {{
  const casadi_real* fj_ = ldl_F + j_ * {n};
  s0_ = 0; s1_ = 0;
  i_ = j_ + 1;
#ifdef __GNUC__
  {{
    typedef double v2_ __attribute__((vector_size(16), aligned(8), may_alias));
    v2_ sv_ = {{0, 0}};
    for (; i_ + 1 < {n}; i_ += 2) sv_ += *(const v2_*)(fj_ + i_) * *(const v2_*)(ldl_x + i_);
    s0_ = sv_[0]; s1_ = sv_[1];
  }}
#else
  for (; i_ + 1 < {n}; i_ += 2) {{
    s0_ += fj_[i_] * ldl_x[i_];
    s1_ += fj_[i_ + 1] * ldl_x[i_ + 1];
  }}
#endif
  y_ = ldl_x[j_] - (s0_ + s1_);
  if (i_ < {n}) y_ -= fj_[i_] * ldl_x[i_];
  ldl_x[j_] = y_;
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
    diagonal, back substitution by column dot products, each summed in two
    interleaved partial sums: two lanes of a 16-byte vector in the C,
    gcc's and clang's vector extension, plain C elsewhere; the same sums in
    the same order on SX). ``c`` as there."""
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
    for j in reversed(range(n)):        # the dot in two interleaved sums (the C's lanes)
        s = [ca.SX(0), ca.SX(0)]
        for i in range(j + 1, n - (n - j - 1) % 2, 2):
            s = [s[0] + F[i, j] * x[i], s[1] + F[i + 1, j] * x[i + 1]]
        x[j] = x[j] - (s[0] + s[1])
        if (n - j - 1) % 2:
            x[j] = x[j] - F[n - 1, j] * x[n - 1]
    return ca.Function(f"ldl_solve{n}", [F, r], [ca.vertcat(*x)])
