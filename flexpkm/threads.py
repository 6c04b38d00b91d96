"""BLAS threads inside the batched loops (threadpoolctl).

The batched modal analysis and the time integration run many small dense
products and factorizations; on a busy 2-core machine BLAS's own threads
made the NaVARo modal batch 3-10 times slower and very noisy, so these loops
run with one BLAS thread. The limit is a context around the loop only: the
process-wide setting is restored on exit.
"""
from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=1)
def _controller():
    """The threadpoolctl controller of the BLAS libraries loaded so far
    (numpy's and scipy's: :mod:`scipy.linalg` is imported before)."""
    import scipy.linalg  # noqa: F401  (load scipy's BLAS before inspecting)
    from threadpoolctl import ThreadpoolController
    return ThreadpoolController()


def one_blas_thread():
    """Context manager: BLAS limited to one thread inside the ``with`` block."""
    return _controller().limit(limits=1, user_api="blas")
