"""The C loop of the locked pencil (flexpkm.compiled.locked_loop, SciPy's
LAPACK through its C pointers) equals the Python loop of
flexpkm.algorithms.flexibility and SciPy's dense solver."""
import numpy as np
import scipy.linalg as sla

from flexpkm.algorithms.flexibility import eigen_and_compliance
from flexpkm.compiled.locked_loop import LockedLoop
from tests.algorithms.test_eigen import block_pencil
from tests.algorithms.test_flexibility import _blocks


def test_c_loop_equals_the_python_loop_and_scipy():
    """20 poses of shuffled blocks (6, 11, 1): eigenvalues and compliance of
    the C loop equal the Python loop's to 1e-14 and SciPy's whole pencil to
    1e-12 of the largest; a pose with K not positive definite is flagged
    (status 1) and done by the Python loop (ok False, C NaN)."""
    K, M, perm, sizes = block_pencil((6, 11, 1), B=20, seed=4)
    blocks = _blocks(perm, sizes)
    idx = blocks[0]
    K[7][np.ix_(idx, idx)] -= 2 * np.linalg.eigvalsh(K[7][np.ix_(idx, idx)])[0] * np.eye(6)
    J_p = np.random.default_rng(5).standard_normal((20, 3, K.shape[-1]))
    loop = LockedLoop()
    lam_c, C_c, status = loop(K, M, J_p, blocks)
    assert np.flatnonzero(status).tolist() == [7]
    lam, C, ok = eigen_and_compliance(K, M, J_p, blocks, loop=loop)
    lam_py, C_py, ok_py = eigen_and_compliance(K, M, J_p, blocks)
    assert ok.tolist() == ok_py.tolist() and np.flatnonzero(~ok).tolist() == [7]
    assert np.abs(lam - lam_py).max() <= 1e-14 * lam.max()
    good = np.flatnonzero(ok)
    assert np.abs(C[good] - C_py[good]).max() <= 1e-14 * np.abs(C_py[good]).max()
    ref = np.stack([sla.eigh(k, m, eigvals_only=True) for k, m in zip(K, M)])
    assert np.abs(lam - ref).max() <= 1e-12 * ref.max()
