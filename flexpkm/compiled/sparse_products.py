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


def _columns(sp: ca.Sparsity) -> list:
    """Per column the ``(row, position in the non-zeros)`` of ``sp``."""
    ir, jc = sp.row(), sp.colind()
    return [[(ir[k], k) for k in range(jc[j], jc[j + 1])] for j in range(sp.shape[1])]


def _packed(entries) -> tuple:
    """``(start, ia, ib)`` int32 arrays of a list of lists of pairs."""
    start = np.zeros(len(entries) + 1, np.int32)
    start[1:] = np.cumsum([len(e) for e in entries])
    flat = [p for e in entries for p in e] or [(0, 0)]
    ia, ib = (np.ascontiguousarray(x, np.int32) for x in zip(*flat))
    return start, ia, ib


class ProductLists:
    """The multiply-adds of ``J^T A J`` for the patterns ``a_sp`` (n, n) and
    ``j_sp`` (n, r): ``stage1`` the non-zeros of ``Y = A J`` (``n_y``) from
    those of A and J, ``stage2`` the lower triangle of ``J^T Y`` from those
    of J and Y, with its positions in the dense (r, r) result and their
    mirrors (``p1``, ``p2``); ``macs``: multiply-adds per pose."""

    def __init__(self, a_sp: ca.Sparsity, j_sp: ca.Sparsity):
        r = j_sp.shape[1]
        a_cols, j_cols = _columns(a_sp), _columns(j_sp)
        y_entries, y_cols, n_y = [], [], 0
        for j in range(r):
            acc = {}
            for l, pj in j_cols[j]:
                for k, pa in a_cols[l]:
                    acc.setdefault(k, []).append((pa, pj))
            y_cols.append({k: n_y + i for i, k in enumerate(sorted(acc))})
            y_entries += [acc[k] for k in sorted(acc)]
            n_y += len(acc)
        out, p1, p2 = [], [], []
        for j in range(r):
            for i in range(j, r):
                pairs = [(pj, y_cols[j][k]) for k, pj in j_cols[i] if k in y_cols[j]]
                if pairs:
                    out.append(pairs)
                    p1.append(i * r + j)
                    p2.append(j * r + i)
        self.r, self.n_y = r, n_y
        self.stage1, self.stage2 = _packed(y_entries), _packed(out)
        self.p1, self.p2 = np.array(p1, np.int32), np.array(p2, np.int32)
        self.identity = np.arange(n_y, dtype=np.int32)
        self.macs = int(self.stage1[0][-1] + self.stage2[0][-1])


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


def load_kernel():
    """The C loop of :data:`SOURCE` (a ``ctypes`` function), compiled with the
    compiler of :func:`flexpkm.compiled.codegen.find_compiler` into the cache
    folder (checked by its recorded hash, as the generated libraries) or a
    private temporary one. Raises :class:`BackendUnavailableError` without a
    C compiler or when it fails."""
    from flexpkm.compiled.codegen import CompilationError, _run_compiler, find_compiler
    cc = find_compiler()
    if cc is None:
        raise BackendUnavailableError("workspace_map", "no C compiler for the sparse products")
    key = hashlib.sha256(SOURCE.encode()).hexdigest()[:24]
    folder, _ = cache.private_folder()
    tmp = Path(tempfile.mkdtemp(prefix=cache.BUILD_PREFIX, dir=folder))
    try:
        lib = (folder or tmp) / f"flexpkm_mac_{cache.library_key(key, cc, FLAGS)}.so"
        if cache.verify(lib) is not None:
            (tmp / "mac.c").write_text(SOURCE)
            try:
                _run_compiler([cc, *FLAGS, "mac.c", "-o", "mac.so"], tmp, "flexpkm_mac",
                              cache.compile_timeout())
            except CompilationError as err:
                raise BackendUnavailableError("workspace_map", str(err)) from None
            os.replace(tmp / "mac.so", lib)
            cache.write_record(lib, file_sha256(lib))
        fn = ctypes.CDLL(str(lib)).flexpkm_mac
    finally:
        for f in tmp.iterdir():
            f.unlink()
        tmp.rmdir()
    fn.restype = None
    fn.argtypes = [ctypes.c_long, ctypes.c_long] + [ctypes.c_void_p] * 4 + [ctypes.c_long,
                   ctypes.c_void_p, ctypes.c_long, ctypes.c_void_p, ctypes.c_long,
                   ctypes.c_void_p, ctypes.c_void_p]
    return fn
