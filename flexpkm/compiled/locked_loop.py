"""The locked pencil's eigenvalues and the platform compliance of a batch
in ONE C call (issue 21, the workspace map's rate): the loop of
:func:`flexpkm.algorithms.flexibility.eigen_and_compliance` over poses and
uncoupled blocks, each block copied from the batch's (B, m, m) matrices
by its index set, then LAPACK's ``dpotrf``, ``dtrtrs``, ``dsygst``,
``dsytrd``, ``dsterf`` called through SciPy's own LAPACK
(``scipy.linalg.cython_lapack``'s function pointers: no other library is
linked). In Python the same loop cost 10 LAPACK calls and 2 gathers of
(B, nb, nb) blocks per NaVARo pose on top of the flops.

A pose the loop cannot finish (a block of K not positive definite, or a
flexibility form without positive eigenvalues) is flagged and left to
the Python loop (``dsygvd``, its errors); a pose whose pencil the blocks do
not split (an entry between two blocks not zero, checked on the rows the
loop copies) is flagged ``COUPLED``
(:data:`flexpkm.algorithms.flexibility.COUPLED`).
"""
from __future__ import annotations

import ctypes

import numpy as np

from flexpkm.algorithms.flexibility import COUPLED
from flexpkm.compiled.sparse_products import address, load_c

#: what the loops share (this one and :mod:`flexpkm.compiled.locked_eigen`'s),
#: written into a loop over the blocks ``b`` of the poses ``t``: ``COPY_BLOCK``
#: copies block ``b`` (K's lower triangle, M whole, the rows ``x`` of J_p;
#: column-major, leading dimension ``nb``) along the rows of K and M
#: (symmetric) and checks that their entries in the blocks before ``b`` are
#: zero (else ``status[t]`` :data:`COUPLED`); ``ADD_XTX`` adds ``x^T x`` to
#: the pose's compliance ``c``
SHARED = f"#define COUPLED {COUPLED}\n" + r"""
#define COPY_BLOCK(kt, at, x)                                                   \
  for (int j = 0; j < nb; ++j) {                                                \
    const double *kj = k + ix[j] * m, *mj = mm + ix[j] * m;                     \
    for (int i = j; i < nb; ++i) kt[i + j * nb] = kj[ix[i]];                    \
    for (int i = 0; i < nb; ++i) at[i + j * nb] = mj[ix[i]];                    \
    for (long a = 0; a < b && !status[t]; ++a)                                  \
      for (int i = start[a]; i < start[a + 1]; ++i)                             \
        if (kj[idx[i]] != 0.0 || mj[idx[i]] != 0.0) {                          \
          status[t] = COUPLED;                                                  \
          break;                                                                \
        }                                                                       \
  }                                                                             \
  for (long a = 0; a < np_; ++a)                                                \
    for (int i = 0; i < nb; ++i) x[i + a * nb] = jp[a * m + ix[i]];
#define ADD_XTX(x)                                                              \
  for (long a = 0; a < np_; ++a)                                                \
    for (long q = 0; q < np_; ++q) {                                            \
      double s = 0.0;                                                           \
      for (int i = 0; i < nb; ++i) s += x[i + a * nb] * x[i + q * nb];          \
      c[a * np_ + q] += s;                                                      \
    }
"""
#: the loops' arguments (both loops: :class:`LockedLoop`'s signature); per
#: pose t: status[t] 0 done, 1 a block of K not positive definite, 2 the
#: flexibility form failed, 3 (:data:`COUPLED`) the blocks do not split the
#: pencil; lam (B, n)
#: per block 1/mu (unsorted), C (B, np, np) accumulated (zero on entry)
ARGS = ("long B, long m, long np_, long nblk, const int *start, const int *idx, const double *K, "
        "const double *M, const double *Jp, double *lam, double *C, int *status, double *work, "
        "long nbmax, void **f")
#: the loops over the poses t and their blocks b (``nb`` coordinates ``ix``)
POSES_AND_BLOCKS = r"""
  long n = start[nblk];
  for (long t = 0; t < B; ++t) {
    const double *k = K + t * m * m, *mm = M + t * m * m, *jp = Jp + t * np_ * m;
    double *c = C + t * np_ * np_, *l = lam + t * n;
    status[t] = 0;
    for (long b = 0; b < nblk && !status[t]; ++b) {
      int nb = start[b + 1] - start[b];
      const int *ix = idx + start[b];
"""
#: the C loop; ``f``: dpotrf, dtrtrs, dsygst, dsytrd, dsterf (SciPy's pointers)
SOURCE = SHARED + r"""
typedef void (*potrf_t)(char *, int *, double *, int *, int *);
typedef void (*trtrs_t)(char *, char *, char *, int *, int *, double *, int *, double *, int *,
                        int *);
typedef void (*sygst_t)(int *, char *, int *, double *, int *, double *, int *, int *);
typedef void (*sytrd_t)(char *, int *, double *, int *, double *, double *, double *, double *,
                        int *, int *);
typedef void (*sterf_t)(int *, double *, double *, int *);

void flexpkm_locked(""" + ARGS + r""") {
  potrf_t potrf = (potrf_t)f[0];
  trtrs_t trtrs = (trtrs_t)f[1];
  sygst_t sygst = (sygst_t)f[2];
  sytrd_t sytrd = (sytrd_t)f[3];
  sterf_t sterf = (sterf_t)f[4];
  double *L = work, *A = L + nbmax * nbmax, *X = A + nbmax * nbmax, *d = X + nbmax * np_;
  double *e = d + nbmax, *tau = e + nbmax, *w = tau + nbmax;
  int lw = (int)(64 * nbmax), one = 1, info, nrhs = (int)np_;
  char lo = 'L', no = 'N';""" + POSES_AND_BLOCKS + r"""
      COPY_BLOCK(L, A, X)
      if (status[t]) break;
      potrf(&lo, &nb, L, &nb, &info);
      if (info) { status[t] = 1; break; }
      trtrs(&lo, &no, &no, &nb, &nrhs, L, &nb, X, &nb, &info);
      ADD_XTX(X)
      sygst(&one, &lo, &nb, A, &nb, L, &nb, &info);
      sytrd(&lo, &nb, A, &nb, d, e, tau, w, &lw, &info);
      sterf(&nb, d, e, &info);
      if (info || !(d[0] > 0)) { status[t] = 2; break; }
      for (int i = 0; i < nb; ++i) l[start[b] + i] = 1.0 / d[i];
    }
  }
}
"""
#: SciPy's LAPACK routines the loop calls, in the order of ``f``
ROUTINES = ("dpotrf", "dtrtrs", "dsygst", "dsytrd", "dsterf")


def lapack_pointers():
    """(5,) ``void *`` array of :data:`ROUTINES` from
    ``scipy.linalg.cython_lapack`` (its exported C functions)."""
    from scipy.linalg import cython_lapack
    name = ctypes.pythonapi.PyCapsule_GetName
    name.restype, name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    pointer = ctypes.pythonapi.PyCapsule_GetPointer
    pointer.restype, pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    caps = [cython_lapack.__pyx_capi__[r] for r in ROUTINES]
    return (ctypes.c_void_p * len(caps))(*[pointer(c, name(c)) for c in caps])


class LockedLoop:
    """The C loop (:data:`SOURCE`, compiled once into the cache folder,
    :func:`flexpkm.compiled.sparse_products.load_c`) with SciPy's LAPACK
    pointers: ``loop(K, M, J_p, blocks) -> (lam (B, n) unsorted or NaN, C,
    status (B,))`` (the statuses of :data:`ARGS`); ``fn``: another loop of
    the same signature (the Eigen one, :mod:`flexpkm.compiled.locked_eigen`).
    Raises :class:`flexpkm.errors.BackendUnavailableError` without a C
    compiler."""

    def __init__(self, fn=None):
        self.fn = fn or load_c(SOURCE, "flexpkm_locked")
        self.fn.restype = None
        self.fn.argtypes = ([ctypes.c_long] * 4 + [ctypes.c_void_p] * 9 + [ctypes.c_long,
                            ctypes.c_void_p])
        self.lapack = lapack_pointers()

    def __call__(self, K, M, J_p, blocks):
        K, M = np.ascontiguousarray(K, float), np.ascontiguousarray(M, float)
        J_p = np.ascontiguousarray(J_p, float)
        B, m, n_p = K.shape[0], K.shape[-1], J_p.shape[1]
        sizes = [len(b) for b in blocks]
        start = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int32)
        idx = np.ascontiguousarray(np.concatenate(blocks), np.int32)
        nbmax = max(sizes)
        work = np.empty(2 * nbmax * nbmax + nbmax * n_p + 3 * nbmax + 64 * nbmax)
        lam = np.full((B, int(start[-1])), np.nan)
        C = np.zeros((B, n_p, n_p))
        status = np.zeros(B, np.int32)
        arrays = (start, idx, K, M, J_p, lam, C, status, work)
        self.fn(B, m, n_p, len(blocks), *map(address, arrays), nbmax, self.lapack)
        return lam, C, status
