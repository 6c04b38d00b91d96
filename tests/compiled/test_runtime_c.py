"""CasADi's generated copy and dense-by-sparse product rewritten for the
compiler (flexpkm.compiled.runtime_c): the installed CasADi still generates
the definitions the rewrite looks for (else it would silently do nothing),
and a library built with the rewrite gives CasADi's virtual machine's
numbers bit for bit and numpy's product to round-off, for copies shorter
and longer than the memmove threshold and a product with a sparse vector
(the kept inverse times the residual, zero on the known rows)."""
import os
import shutil

import numpy as np
import pytest

from flexpkm.compiled import codegen, runtime_c

ca = pytest.importorskip("casadi")


def kept_product():
    """``(S (n, n) dense, R (n,) with 2 structural zeros, x (n,)) -> (x - S R,
    [x; R])``: CasADi's ``mtimes_dense_sparse`` for S R, copies of 3 and n
    numbers for the outputs (the step's newton_kept, small)."""
    n = 11
    S, x = ca.MX.sym("S", n, n), ca.MX.sym("x", n)
    R = ca.MX.sym("R", ca.Sparsity.triplet(n, 1, list(range(2, n)), [0] * (n - 2)))
    return ca.Function("fp_kept_product", [S, R, x], [x - S @ R, ca.vertcat(x[:3], R)])


def test_the_installed_casadi_generates_the_rewritten_definitions():
    code = ca.CodeGenerator("fp.c", {"with_header": False})
    code.add(kept_product())
    code = code.dump()
    for old, new in runtime_c.REPLACEMENTS:
        assert code.count(old) == 1
    fast = runtime_c.faster(code)
    assert "memmove(y, x, n * sizeof(casadi_real))" in fast and "#pragma GCC ivdep" in fast
    assert fast.index(runtime_c.INCLUDE) < fast.index("memmove(")
    assert runtime_c.faster(fast) == fast                 # applied once
    assert runtime_c.faster("int f(void);\n") == "int f(void);\n"     # nothing to rewrite


@pytest.mark.skipif(shutil.which(os.environ.get("FLEXPKM_CC", os.environ.get("CC", "cc")) or "cc")
                    is None, reason="no C compiler")
def test_a_rewritten_library_gives_casadi_s_numbers(monkeypatch, tmp_path):
    monkeypatch.setenv("FLEXPKM_CACHE", str(tmp_path))
    fn = kept_product()
    lib = codegen.compiled(kept_product, fn.name(), "r" * 24, "-O2")
    assert lib.is_a("External")
    rng = np.random.default_rng(3)
    S = rng.normal(size=(11, 11))
    S = S @ S.T
    R, x = rng.normal(size=11), rng.normal(size=11)
    R[:2] = 0.0
    Rs = ca.DM(fn.sparsity_in(1), R[2:])
    ours = [np.asarray(ca.densify(v)).ravel() for v in lib(S, Rs, x)]
    vm = [np.asarray(ca.densify(v)).ravel() for v in fn(S, Rs, x)]
    for a, b in zip(ours, vm):
        np.testing.assert_array_equal(a, b)      # the same arithmetic, the same bits
    np.testing.assert_allclose(ours[0], x - S @ R, rtol=0, atol=1e-12 * np.abs(S).max())
    np.testing.assert_array_equal(ours[1], np.concatenate([x[:3], R]))
