"""The locked loop of :mod:`flexpkm.compiled.locked_loop` with Eigen's
dense routines (issue 21, the workspace map's rate): per pose and
uncoupled block, the Cholesky factor of ``K_b`` (``Eigen::LLT``), ``X =
L^-1 J_p,b^T`` and ``A = L^-1 M_b L^-T`` (its triangular solves), the
Householder tridiagonalization of ``A`` (``Eigen::Tridiagonalization``),
then the tridiagonal matrix's eigenvalues by LAPACK's ``dsterf`` (SciPy's
pointer, as the C loop). Eigen is the header-only C++ library Pinocchio is
built on (PyPI ``cmeel-eigen``, or the copy CasADi ships); it is compiled
here once per CPU into the cache folder with ``-O3 -march=native``.

Why the mix: at the NaVARo's blocks (n = 51 and 39) LAPACK spends its time
in per-column BLAS-2 calls through OpenBLAS's dispatch (``dsygst`` 0.086,
``dsytrd`` 0.087 ms per pose); Eigen's inlined, vectorised code does the
Cholesky, the solves and the tridiagonalization in about half of that
(docs/maps.md, eighth session). Eigen's own tridiagonal QR (83 us at n = 51)
is slower than ``dsterf`` (37 us), and LAPACK's bisection for a few
eigenvalues (``dstebz``, 81 us for 5) slower still, so ``dsterf`` stays.

Same interface, statuses and results (to round-off) as
:class:`flexpkm.compiled.locked_loop.LockedLoop`; without a C++ compiler
or Eigen's headers :func:`EigenLoop` raises
:class:`flexpkm.errors.BackendUnavailableError` and the map keeps the
LAPACK loop (:func:`flexpkm.compiled.modal_flat.locked_loop`).
"""
from __future__ import annotations

import hashlib
import os
import shutil
import sys
from pathlib import Path

from flexpkm.compiled.locked_loop import ARGS, POSES_AND_BLOCKS, SHARED, LockedLoop
from flexpkm.errors import BackendUnavailableError

#: the loop, the C loop's signature (``work`` unused; ``f[4]`` dsterf)
SOURCE = SHARED + r"""
#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <vector>
typedef Eigen::MatrixXd Mat;
typedef void (*sterf_t)(int *, double *, double *, int *);

extern "C" void flexpkm_locked_eigen(""" + ARGS + r""") {
  sterf_t sterf = (sterf_t)f[4];
  std::vector<Mat> Kb, Ab, Xb;
  std::vector<Eigen::LLT<Mat>> llt;
  std::vector<Eigen::Tridiagonalization<Mat>> tri;
  for (long b = 0; b < nblk; ++b) {
    int nb = start[b + 1] - start[b];
    Kb.emplace_back(nb, nb); Ab.emplace_back(nb, nb); Xb.emplace_back(nb, np_);
    llt.emplace_back(nb); tri.emplace_back(nb);
  }
  Eigen::VectorXd d(nbmax), e(nbmax);
  int info;""" + POSES_AND_BLOCKS + r"""
      Mat &A = Ab[b], &X = Xb[b];
      double *kt = Kb[b].data(), *at = A.data(), *x = X.data();
      COPY_BLOCK(kt, at, x)
      if (status[t]) break;
      llt[b].compute(Kb[b]);             /* reads the lower triangle */
      if (llt[b].info() != Eigen::Success) { status[t] = 1; break; }
      llt[b].matrixL().solveInPlace(X);
      ADD_XTX(x)
      llt[b].matrixL().solveInPlace(A);
      llt[b].matrixU().template solveInPlace<Eigen::OnTheRight>(A);
      tri[b].compute(A);
      d.head(nb) = tri[b].diagonal();
      e.head(nb - 1) = tri[b].subDiagonal();
      sterf(&nb, d.data(), e.data(), &info);
      if (info || !(d[0] > 0)) { status[t] = 2; break; }
      for (int i = 0; i < nb; ++i) l[start[b] + i] = 1.0 / d[i];
    }
  }
}
"""
#: the build: optimised for this CPU (its identity is in the library's key)
FLAGS = ("-x", "c++", "-std=c++14", "-O3", "-march=native", "-DNDEBUG", "-fPIC", "-shared")


def eigen_include() -> Path | None:
    """The folder holding Eigen's headers (``Eigen/Cholesky``): the
    ``cmeel-eigen`` package's (``cmeel.prefix/include/eigen3`` in a
    site-packages folder), else the copy CasADi ships
    (``casadi/include/eigen3``), else None."""
    for base in sys.path:
        for sub in ("cmeel.prefix/include/eigen3", "casadi/include/eigen3"):
            folder = Path(base or ".") / sub
            if (folder / "Eigen" / "Cholesky").is_file():
                return folder
    return None


def find_cxx() -> str | None:
    """Path of the C++ compiler (``$FLEXPKM_CXX``, ``$CXX`` or ``g++``), or None."""
    name = os.environ.get("FLEXPKM_CXX", os.environ.get("CXX", "g++"))
    return shutil.which(name) if name else None


def _machine() -> str:
    """This CPU's identity for the library's key (``-march=native``): the
    model name and flags of /proc/cpuinfo (empty where there is none)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return ""
    lines = [x for x in text.splitlines() if x.startswith(("model name", "flags"))][:2]
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]


def _version(include: Path) -> str:
    """Eigen's version lines from its Macros.h (part of the library's key)."""
    macros = include / "Eigen" / "src" / "Core" / "util" / "Macros.h"
    try:
        return " ".join(x for x in macros.read_text().splitlines() if "_VERSION " in x)
    except OSError:
        return ""


class EigenLoop(LockedLoop):
    """:class:`flexpkm.compiled.locked_loop.LockedLoop` with Eigen's Cholesky,
    solves and tridiagonalization (module doc): ``loop(K, M, J_p, blocks) ->
    (lam (B, n) unsorted or NaN, C, status (B,))``. Raises
    :class:`flexpkm.errors.BackendUnavailableError` without a C++ compiler,
    without Eigen's headers, or when the build fails."""

    def __init__(self):
        from flexpkm.compiled.sparse_products import load_c
        include, cxx = eigen_include(), find_cxx()
        if include is None or cxx is None:
            raise BackendUnavailableError("workspace_map", "no Eigen headers or no C++ compiler "
                                          "for the locked loop")
        tag = f"\n// cpu {_machine()}; {_version(include)}\n"
        fn = load_c(SOURCE + tag, "flexpkm_locked_eigen", FLAGS + ("-I", str(include)), cxx)
        super().__init__(fn)
