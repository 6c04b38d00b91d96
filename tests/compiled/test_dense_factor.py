"""The kept iteration matrix's dense LDL^T factor and its solve
(flexpkm.compiled.dense_factor): against numpy.linalg.solve and the
reconstructed L D L^T, in both forms (the C loops compiled into a library,
the SX form on CasADi's virtual machine), and with an identity block (the
known rows of a prescribed motion)."""
import casadi as ca
import numpy as np
import pytest

from flexpkm.compiled import codegen, dense_factor

pytest.importorskip("casadi")


def _spd(n, seed):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, n))
    return A @ A.T + n * np.diag(rng.uniform(1, 10, n)), rng.standard_normal(n)


def _ldl(F):
    L = np.tril(F, -1) + np.eye(len(F))
    return L @ np.diag(np.diag(F)) @ L.T


def _functions(n, c):
    S, r = ca.MX.sym("S", n, n), ca.MX.sym("r", n)
    F = dense_factor.factor_function(n, c)(S)
    return ca.Function("ldl_test", [S, r], [F, dense_factor.solve_function(n, c)(F, r)])


@pytest.mark.parametrize("n", [1, 2, 9])
def test_factor_and_solve_equal_numpy(n):
    """Both forms: L D L^T = S and S^-1 r = numpy.linalg.solve(S, r) to 1e-12
    relative (a symmetric positive definite S with a spread of scales,
    its upper triangle scrambled: not read); the two forms agree to 1e-15."""
    S, r = _spd(n, n)
    scrambled = np.tril(S) + np.triu(np.full((n, n), 7.0), 1)
    vm = _functions(n, False)
    c = codegen.compiled(lambda: _functions(n, True), f"ldl_test{n}", f"{n:024d}", "-O2")
    out = {}
    for name, fn in (("vm", vm), ("c", c)):
        F, x = (np.array(v) for v in fn(scrambled, r))
        assert np.allclose(np.triu(F, 1), 0)
        assert np.abs(_ldl(F) - S).max() <= 1e-12 * np.abs(S).max()
        ref = np.linalg.solve(S, r)
        assert np.abs(x.ravel() - ref).max() <= 1e-12 * np.abs(ref).max()
        out[name] = (F, x)
    assert c.is_a("External")
    for a, b in zip(out["vm"], out["c"]):
        assert np.abs(a - b).max() <= 1e-15 * np.abs(b).max()


def test_identity_block_gives_zero_on_the_known_rows():
    """S with the identity on known rows and columns (the refresh's form
    for a prescribed motion), r zero there: the solve is zero there and
    the unknown block's solve elsewhere."""
    S, r = _spd(6, 1)
    known, unk = [0, 1], [2, 3, 4, 5]
    S_u = np.eye(6)
    S_u[np.ix_(unk, unk)] = S[np.ix_(unk, unk)]
    r[known] = 0.0
    x = np.array(_functions(6, False)(S_u, r)[1]).ravel()
    assert np.array_equal(x[known], [0.0, 0.0])
    ref = np.linalg.solve(S[np.ix_(unk, unk)], r[unk])
    assert np.abs(x[unk] - ref).max() <= 1e-12 * np.abs(ref).max()
