"""Two of CasADi's generated runtime helpers as the C compiler can make
fast (issue 18, the step's cost outside the model): the generated C of a
library is CasADi's, these two definitions in it are replaced by
equivalent ones before it is compiled (:func:`faster`).

* ``casadi_copy`` (every copy of a work vector: the step state, the kept
  iteration matrix, the loop model's frames) is a loop of one element per
  iteration that GCC keeps as such (its arguments may overlap: 5 machine
  instructions per number); here libc's ``memmove`` (the same result for
  any overlap CasADi's code makes, i.e. none or ``x == y``) from 8
  numbers on. DualEMPS ``square``, 8 elements per body: 261k of the
  step's 1,127k instructions were this loop (docs/simulation.md, "The
  copies and the kept matrix's product", eighth session).
* ``casadi_mtimes_dense_sparse`` (the product by the kept inverse
  iteration matrix, ``S_inv R``: columns of S_inv times the entries of R)
  has its inner loop ``z_j += x_col * y_k`` marked free of overlap
  (``#pragma GCC ivdep``: z, the product's own work vector, is never one of
  its operands in CasADi's code) and vectorised in that function
  (``optimize("tree-vectorize", "vect-cost-model=dynamic")``; -O2 alone
  vectorises only loops of a known trip count): 8 -> ~4 instructions per
  multiply-add. Attributes and pragmas are GCC's; other compilers ignore
  them (the code stays correct).

Not a factorisation nor a product of our own: the two helpers keep
CasADi's arithmetic (the same numbers in the same order: the results are
bit for bit CasADi's), only the loops are written for the compiler.
"""
from __future__ import annotations

#: CasADi's (3.6-3.8) definitions and their replacements; a definition not
#: found verbatim (another CasADi) is left as it is
REPLACEMENTS = (
    ("""void casadi_copy(const casadi_real* x, casadi_int n, casadi_real* y) {
  casadi_int i;
  if (y) {
    if (x) {
      for (i=0; i<n; ++i) *y++ = *x++;
    } else {
      for (i=0; i<n; ++i) *y++ = 0.;
    }
  }
}""", """void casadi_copy(const casadi_real* x, casadi_int n, casadi_real* y) {
  casadi_int i;
  if (y) {
    if (x) {
      if (n >= 8) {
        if (x != y) memmove(y, x, n * sizeof(casadi_real));
      } else {
        for (i=0; i<n; ++i) *y++ = *x++;
      }
    } else {
      for (i=0; i<n; ++i) *y++ = 0.;
    }
  }
}"""),
    ("""void casadi_mtimes_dense_sparse(const casadi_real* x, casadi_int nrow_x,""",
     """#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("tree-vectorize", "vect-cost-model=dynamic")))
#endif
void casadi_mtimes_dense_sparse(const casadi_real* x, casadi_int nrow_x,"""),
    ("""      for (i = 0; i < nrow_x; ++i) zj[i] += x_col[i] * yk;""",
     """#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC ivdep
#endif
      for (i = 0; i < nrow_x; ++i) zj[i] += x_col[i] * yk;"""),
)

#: the header ``memmove`` needs, put before CasADi's first include
INCLUDE = "#include <string.h>\n"


def faster(code: str) -> str:
    """The generated C ``code`` with :data:`REPLACEMENTS` made (each where
    its original is found, once) and ``<string.h>`` included when ``memmove`` is
    then used."""
    for old, new in REPLACEMENTS:
        if new not in code:                     # not twice
            code = code.replace(old, new)
    if "memmove(" in code and INCLUDE not in code:
        at = code.find("#include")
        code = code[:at] + INCLUDE + code[at:] if at >= 0 else INCLUDE + code
    return code
