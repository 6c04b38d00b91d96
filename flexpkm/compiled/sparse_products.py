"""``J^T A J`` over a batch of poses by lists of multiply-adds (issue 21):
the reduced matrices of the workspace map's fast modal path
(:mod:`flexpkm.compiled.modal_flat`) from the structural non-zeros of
``A`` (``M_tot`` or ``K_tot``) and ``J``.

Two stages, each a list of multiply-adds per output non-zero, precomputed
once per robot from the sparsity patterns (:class:`ProductLists`), run by
one small C loop (:data:`SOURCE`, compiled once per compiler into the cache
folder, loaded with ``ctypes``): ``Y = A J`` on its structural non-zeros,
then the lower triangle of ``J^T Y`` written to both triangles of the dense
result (exactly symmetric). CasADi's generic sparse product
(``casadi_mtimes``, its pattern walked at run time, with projections and
copies between the MX graph's nodes) took 0.33 ms per NaVARo pose for the
two products; the same multiply-adds from lists run at ~1 ns each.
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import tempfile
from pathlib import Path

import casadi as ca
import numpy as np

from flexpkm.checksums import file_sha256
from flexpkm.compiled import cache
from flexpkm.errors import BackendUnavailableError

#: the C loop: per pose t and output e, ``sum_k a[ia[k]] b[ib[k]]`` over
#: ``k`` in ``start[e]:start[e+1]``, written at ``p1[e]`` (and ``p2[e]``)
SOURCE = r"""
void flexpkm_mac(long B, long n_out, const int *start, const int *ia, const int *ib,
                 const double *a, long sa, const double *b, long sb,
                 double *out, long so, const int *p1, const int *p2) {
  for (long t = 0; t < B; ++t) {
    const double *x = a + t * sa, *y = b + t * sb;
    double *o = out + t * so;
    for (long e = 0; e < n_out; ++e) {
      double s = 0.0;
      for (int k = start[e]; k < start[e + 1]; ++k) s += x[ia[k]] * y[ib[k]];
      o[p1[e]] = s;
      if (p2) o[p2[e]] = s;
    }
  }
}
"""
FLAGS = ("-O2", "-fPIC", "-shared")


def _triplets(sp: ca.Sparsity) -> tuple:
    """``(rows, cols, positions)`` of the non-zeros of ``sp`` (column-major)."""
    return (np.asarray(sp.row(), np.int64), np.asarray(sp.get_col(), np.int64),
            np.arange(sp.nnz(), dtype=np.int64))


def _pairs(outer_of, inner_key, inner_rows, inner_cols, inner_pos, n_keys):
    """For each entry ``e`` of the outer list (``outer_of[e]`` its key), the
    entries of the inner list with that key: ``(outer index, inner index)``
    arrays (vectorised join)."""
    order = np.argsort(inner_key, kind="stable")
    counts = np.bincount(inner_key, minlength=n_keys)
    first = np.concatenate([[0], np.cumsum(counts)])
    reps = counts[outer_of]
    outer = np.repeat(np.arange(len(outer_of)), reps)
    offset = np.arange(reps.sum()) - np.repeat(np.cumsum(reps) - reps, reps)
    inner = order[np.repeat(first[outer_of], reps) + offset]
    return outer, inner


def _grouped(keys_major, keys_minor, a, b):
    """``(start, ia, ib, unique (major, minor))``: the pairs ``(a, b)`` grouped
    by ``(major, minor)`` in that order (int32 lists of the C loop)."""
    order = np.lexsort((keys_minor, keys_major))
    M, m = keys_major[order], keys_minor[order]
    new = np.ones(len(order), bool)
    new[1:] = (M[1:] != M[:-1]) | (m[1:] != m[:-1])
    start = np.concatenate([np.flatnonzero(new), [len(order)]]).astype(np.int32)
    return (start, np.ascontiguousarray(a[order], np.int32),
            np.ascontiguousarray(b[order], np.int32), M[new], m[new])


class ProductLists:
    """The multiply-adds of ``J^T A J`` for the patterns ``a_sp`` (n, n) and
    ``j_sp`` (n, r): ``stage1`` the non-zeros of ``Y = A J`` (``n_y``, column
    by column) from those of A and J, ``stage2`` the lower triangle of
    ``J^T Y`` from those of J and Y, with its positions in the dense (r, r)
    result and their mirrors (``p1``, ``p2``); ``macs``: multiply-adds per
    pose. Made by vectorised joins of the patterns (NaVARo: 80k pairs)."""

    def __init__(self, a_sp: ca.Sparsity, j_sp: ca.Sparsity):
        n, r = j_sp.shape
        a_row, a_col, a_pos = _triplets(a_sp)
        j_row, j_col, j_pos = _triplets(j_sp)
        # stage 1: Y[k, j] += A[k, l] J[l, j] for every J[l, j] and A[k, l]
        e, i = _pairs(j_row, a_col, a_row, a_col, a_pos, n)
        start, ia, ib, y_col, y_row = _grouped(j_col[e], a_row[i], a_pos[i], j_pos[e])
        self.stage1 = (start, ia, ib)
        n_y = len(y_col)
        # stage 2: L[i, j] += J[k, i] Y[k, j] for every Y[k, j] and J[k, i], i >= j
        e, i = _pairs(y_row, j_row, j_row, j_col, j_pos, n)
        keep = j_col[i] >= y_col[e]
        e, i = e[keep], i[keep]
        start, ia, ib, cols, rows = _grouped(y_col[e], j_col[i], j_pos[i], e)
        self.stage2 = (start, ia, ib)
        self.p1 = np.ascontiguousarray(rows * r + cols, np.int32)
        self.p2 = np.ascontiguousarray(cols * r + rows, np.int32)
        self.r, self.n_y = r, n_y
        self.identity = np.arange(n_y, dtype=np.int32)
        self.macs = len(self.stage1[1]) + len(self.stage2[1])


def _ptr(x):
    return x.ctypes.data_as(ctypes.c_void_p)


def lower_product(lists: ProductLists, Az, Jz, kernel=None) -> np.ndarray:
    """``J^T A J`` (B, r, r), exactly symmetric, from the non-zeros ``Az``
    (B, nnz_A) or (nnz_A,) shared by the batch, and ``Jz`` (B, nnz_J)."""
    fn = kernel or load_kernel()
    Jz = np.ascontiguousarray(Jz, float)
    Az = np.ascontiguousarray(Az, float)
    B = len(Jz)
    sa = 0 if Az.ndim == 1 else Az.shape[1]
    Y = np.empty((B, lists.n_y))
    out = np.zeros((B, lists.r * lists.r))
    s1, s2 = lists.stage1, lists.stage2
    fn(B, len(s1[0]) - 1, _ptr(s1[0]), _ptr(s1[1]), _ptr(s1[2]), _ptr(Az), sa, _ptr(Jz),
       Jz.shape[1], _ptr(Y), lists.n_y, _ptr(lists.identity), None)
    fn(B, len(s2[0]) - 1, _ptr(s2[0]), _ptr(s2[1]), _ptr(s2[2]), _ptr(Jz), Jz.shape[1], _ptr(Y),
       lists.n_y, _ptr(out), out.shape[1], _ptr(lists.p1), _ptr(lists.p2))
    return out.reshape(B, lists.r, lists.r)


def _compile(argv, cwd):
    """Run the compiler on the loop (:func:`flexpkm.compiled.codegen.run_compiler`,
    under ``$FLEXPKM_CC_TIMEOUT``). Raises :class:`BackendUnavailableError`."""
    from flexpkm.compiled.codegen import CompilationError, run_compiler
    try:
        run_compiler(argv, cwd, "the sparse products", cache.compile_timeout())
    except CompilationError as err:
        raise BackendUnavailableError("workspace_map", str(err)) from None


def load_kernel():
    """The C loop of :data:`SOURCE` (a ``ctypes`` function), compiled with the
    compiler of :func:`flexpkm.compiled.codegen.find_compiler` into the cache
    folder (checked by its recorded hash, as the generated libraries) or a
    private temporary one (:func:`load_c`). Raises
    :class:`BackendUnavailableError` without a C compiler or when it fails."""
    fn = load_c(SOURCE, "flexpkm_mac")
    fn.restype = None
    fn.argtypes = [ctypes.c_long, ctypes.c_long] + [ctypes.c_void_p] * 4 + [ctypes.c_long,
                   ctypes.c_void_p, ctypes.c_long, ctypes.c_void_p, ctypes.c_long,
                   ctypes.c_void_p, ctypes.c_void_p]
    return fn


def load_c(source: str, symbol: str):
    """The function ``symbol`` of the C ``source`` (``ctypes``, its argument
    types unset), compiled once with :data:`FLAGS` into the cache folder
    (keyed by the source's hash, checked by its recorded hash) or a private
    temporary one. Raises :class:`BackendUnavailableError` without a C
    compiler or when it fails."""
    from flexpkm.compiled.codegen import find_compiler
    cc = find_compiler()
    if cc is None:
        raise BackendUnavailableError("workspace_map", f"no C compiler for {symbol}")
    key = hashlib.sha256(source.encode()).hexdigest()[:24]
    folder, _ = cache.private_folder()
    tmp = Path(tempfile.mkdtemp(prefix=cache.BUILD_PREFIX, dir=folder))
    try:
        lib = cache.library_path(folder or tmp, symbol, key, cc, FLAGS)
        if cache.verify(lib) is not None:
            (tmp / "loop.c").write_text(source)
            _compile([cc, *FLAGS, "loop.c", "-o", "loop.so"], tmp)
            os.replace(tmp / "loop.so", lib)
            cache.write_record(lib, file_sha256(lib))
        return getattr(ctypes.CDLL(str(lib)), symbol)
    finally:
        for f in tmp.iterdir():
            f.unlink()
        tmp.rmdir()
