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
two products; the same multiply-adds from lists pose after pose ran at ~1
ns each, over tiles of 16 poses (each multiply-add a SIMD loop over the
tile, the lists read once per tile) at ~0.4 ns: evaluate_flat 0.235 ->
0.168 ms per NaVARo pose, the same bits. Compiled for AVX-512, AVX2 and
plain x86-64, chosen at load (GCC's ``target_clones``; the wider vectors
and fused multiply-adds of this machine): the two NaVARo products 102.8 ->
83.9 us per pose (seventh session, 1,024 poses in chunks of 128, load
1.7), equal to the plain build's to 4e-16 of their largest entry; then
tiles of 8 poses instead of 16 (one AVX-512 register; the tiles of the
inputs and of ``Y`` take half the L2 cache): 83-90 -> 53-57 us per pose
(load 4.0, tiles of 4: 68, of 32: 81), the same bits as 16.
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import tempfile
import time
from pathlib import Path

import casadi as ca
import numpy as np

from flexpkm.checksums import file_sha256
from flexpkm.compiled import cache
from flexpkm.errors import BackendUnavailableError

#: the C loop, over tiles of ``TILE`` poses held pose-innermost (so that each
#: multiply-add runs over the tile in SIMD and the lists are read once per
#: tile): stage 1 ``y[e] = sum_k a[ia1[k]] j[ib1[k]]`` (``sa`` 0: ``a`` shared by
#: the batch), stage 2 ``sum_k j[ia2[k]] y[ib2[k]]`` written at ``p1[e]`` and
#: ``p2[e]`` of each pose's output; the sums run in list order, as one pose alone
SOURCE = r"""
#define T 8
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define TC __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define TC
#endif
static void tile_in(const double *x, long sx, long t0, long nt, long n, double *tx) {
  for (long k = 0; k < n * T; ++k) tx[k] = 0.0;
  for (long t = 0; t < nt; ++t)
    for (long k = 0; k < n; ++k) tx[k * T + t] = x[(t0 + t) * sx + k];
}
TC void flexpkm_jtaj(long B, const int *s1, const int *ia1, const int *ib1, long n1,
                  const int *s2, const int *ia2, const int *ib2, long n2,
                  const double *a, long sa, long na, const double *j, long sj,
                  double *out, long so, const int *p1, const int *p2,
                  double *ta, double *tj, double *ty) {
  for (long t0 = 0; t0 < B; t0 += T) {
    long nt = B - t0 < T ? B - t0 : T;
    tile_in(j, sj, t0, nt, sj, tj);
    if (sa) tile_in(a, sa, t0, nt, na, ta);
    for (long e = 0; e < n1; ++e) {
      double acc[T] = {0.0};
      for (int k = s1[e]; k < s1[e + 1]; ++k) {
        const double *y = tj + (long)ib1[k] * T;
        if (sa) {
          const double *x = ta + (long)ia1[k] * T;
          for (int t = 0; t < T; ++t) acc[t] += x[t] * y[t];
        } else {
          double x = a[ia1[k]];
          for (int t = 0; t < T; ++t) acc[t] += x * y[t];
        }
      }
      for (int t = 0; t < T; ++t) ty[e * T + t] = acc[t];
    }
    for (long e = 0; e < n2; ++e) {
      double acc[T] = {0.0};
      for (int k = s2[e]; k < s2[e + 1]; ++k) {
        const double *x = tj + (long)ia2[k] * T, *y = ty + (long)ib2[k] * T;
        for (int t = 0; t < T; ++t) acc[t] += x[t] * y[t];
      }
      for (long t = 0; t < nt; ++t) {
        out[(t0 + t) * so + p1[e]] = acc[t];
        out[(t0 + t) * so + p2[e]] = acc[t];
      }
    }
  }
}
"""
#: poses per tile of :data:`SOURCE`
TILE = 8
FLAGS = ("-O2", "-fPIC", "-shared")
#: the products' loop: -O3 vectorises it over the tile (no -ffast-math: the
#: sums keep their order)
PRODUCT_FLAGS = ("-O3", "-fPIC", "-shared")


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
        self.macs = len(self.stage1[1]) + len(self.stage2[1])


def address(x):
    """The data address of the numpy array ``x`` (a ``ctypes`` pointer) for
    the C loops."""
    return x.ctypes.data_as(ctypes.c_void_p)


def lower_product(lists: ProductLists, Az, Jz, kernel=None) -> np.ndarray:
    """``J^T A J`` (B, r, r), exactly symmetric, from the non-zeros ``Az``
    (B, nnz_A) or (nnz_A,) shared by the batch, and ``Jz`` (B, nnz_J)."""
    fn = kernel or load_kernel()
    Jz = np.ascontiguousarray(Jz, float)
    Az = np.ascontiguousarray(Az, float)
    B, sj = Jz.shape
    sa, na = (0, Az.shape[0]) if Az.ndim == 1 else (Az.shape[1], Az.shape[1])
    out = np.zeros((B, lists.r * lists.r))
    s1, s2 = lists.stage1, lists.stage2
    ta, tj, ty = (np.empty(n * TILE) for n in ((sa or 1), sj, lists.n_y))
    a = lambda *xs: map(address, xs)  # noqa: E731
    fn(B, *a(*s1), len(s1[0]) - 1, *a(*s2), len(s2[0]) - 1, address(Az), sa, na, address(Jz), sj,
       address(out), out.shape[1], *a(lists.p1, lists.p2, ta, tj, ty))
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
    fn = load_c(SOURCE, "flexpkm_jtaj", PRODUCT_FLAGS)
    fn.restype = None
    fn.argtypes = ([ctypes.c_long] + [ctypes.c_void_p] * 3 + [ctypes.c_long]
                   + [ctypes.c_void_p] * 3 + [ctypes.c_long] + [ctypes.c_void_p]
                   + [ctypes.c_long] * 2 + [ctypes.c_void_p, ctypes.c_long, ctypes.c_void_p,
                                            ctypes.c_long] + [ctypes.c_void_p] * 5)
    return fn


def load_c(source: str, symbol: str, flags=FLAGS, compiler=None):
    """The function ``symbol`` of the C ``source`` (``ctypes``, its argument
    types unset), compiled once with ``flags`` into the cache folder
    (keyed by the source's hash, checked by its recorded hash) or a private
    temporary one; ``compiler``: its path (default the C compiler of
    :func:`flexpkm.compiled.codegen.find_compiler`); its compile time is
    added to ``codegen.COMPILE_SECONDS["total"]``. Raises
    :class:`BackendUnavailableError` without a compiler or when it fails."""
    from flexpkm.compiled import codegen
    cc = compiler or codegen.find_compiler()
    if cc is None:
        raise BackendUnavailableError("workspace_map", f"no C compiler for {symbol}")
    key = hashlib.sha256(source.encode()).hexdigest()[:24]
    folder, _ = cache.private_folder()
    tmp = Path(tempfile.mkdtemp(prefix=cache.BUILD_PREFIX, dir=folder))
    try:
        lib = cache.library_path(folder or tmp, symbol, key, cc, flags)
        if cache.verify(lib) is not None:
            (tmp / "loop.c").write_text(source)
            t0 = time.perf_counter()
            _compile([cc, *flags, "loop.c", "-o", "loop.so"], tmp)
            codegen.COMPILE_SECONDS["total"] += time.perf_counter() - t0
            os.replace(tmp / "loop.so", lib)
            cache.write_record(lib, file_sha256(lib))
        return getattr(ctypes.CDLL(str(lib)), symbol)
    finally:
        for f in tmp.iterdir():
            f.unlink()
        tmp.rmdir()
