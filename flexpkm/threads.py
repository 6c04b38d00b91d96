"""BLAS threads inside the batched loops (threadpoolctl).

The batched modal analysis and the time integration run many small dense
products and factorizations; on a busy 2-core machine BLAS's own threads
made the NaVARo modal batch 3-10 times slower and very noisy, so these loops
run with one BLAS thread. The limit is a context around the loop only: the
process-wide setting is restored on exit.
"""
from __future__ import annotations

import sys
from functools import lru_cache


@lru_cache(maxsize=2)
def _controller(with_scipy: bool):
    """The threadpoolctl controller of the BLAS libraries loaded so far
    (numpy's, and scipy's when ``with_scipy``: :mod:`scipy.linalg` is then
    imported before)."""
    if with_scipy:
        import scipy.linalg  # noqa: F401  (load scipy's BLAS before inspecting)
    from threadpoolctl import ThreadpoolController
    return ThreadpoolController()


def one_blas_thread(scipy: bool = True):
    """Context manager: BLAS limited to one thread inside the ``with`` block.

    scipy : False when the block calls numpy's BLAS only (a small modal run:
            no scipy import, 0.15-0.3 s of start-up, docs/design.md); scipy's
            BLAS is limited too whenever :mod:`scipy.linalg` is loaded."""
    with_scipy = scipy or "scipy.linalg" in sys.modules
    return _controller(with_scipy).limit(limits=1, user_api="blas")
