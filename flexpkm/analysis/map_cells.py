"""The cells of a large compiled workspace map with the actuators locked
(issue 21, "CLI maps at >= 2,000 poses/s per core"): the reduced matrices
by the fast modal path (:mod:`flexpkm.compiled.modal_flat`), then the
eigenvalues of the locked pencil and the platform compliance from one
Cholesky factor of ``K_cc`` per uncoupled block
(:func:`flexpkm.algorithms.flexibility.eigen_and_compliance`; the blocks
known once per robot from the products' patterns,
:func:`flexpkm.compiled.modal_flat.locked_blocks`).

The same results as :func:`flexpkm.natural_frequencies` (``flat=True``,
``shapes=False``, ``allow_zero=True``) followed by
:func:`flexpkm.algorithms.compliance.platform_compliance`, to round-off:
the frequencies to 1e-12 of the spectrum's largest (the lowest ones more
accurate than the stiffness form's), ``cond_pencil`` to ``eps
cond_pencil`` (its largest eigenvalue from the flexibility form), the same
statuses (``tests/analysis/test_map_cells.py``).
"""
from __future__ import annotations

import numpy as np

from flexpkm.algorithms.compliance import rows_of_J
from flexpkm.algorithms.conditioning import (NEAR_SINGULAR_COND, NEAR_SINGULAR_MEASURE,
                                             pencil_measures)
from flexpkm.algorithms.flexibility import eigen_and_compliance
from flexpkm.algorithms.modal import Modes
from flexpkm.analysis.backend import choose_backend
from flexpkm.threads import one_blas_thread


def locked_cells(model, q, n_modes=None, backend="compiled"):
    """``(modes, (C, eigenvalues, ok))`` of the assembled cells ``q`` (B,
    n_tot) of ``model`` with the actuators locked: ``modes`` a
    :class:`flexpkm.algorithms.modal.Modes` without shapes (frequencies
    (B, n) Hz, ``cond_closure``, ``cond_pencil``, ``singularity_measure``,
    ``near_singular``; a zero-stiffness cell is not raised: its measure
    says it), C (B, n_p, n_p) the platform compliance, its eigenvalues
    (B, n_p) ascending, ok (B,) False (C NaN) where ``K_cc`` is not positive
    definite. Raises what :func:`flexpkm.compiled.modal_flat.fast_reduced_matrices`
    raises (an open loop, an ill-conditioned q_dep, no compiled backend)."""
    from flexpkm.compiled import modal, modal_flat
    reason = choose_backend(backend, "natural_frequencies", model).reason
    with one_blas_thread(scipy=True):
        red = modal_flat.fast_reduced_matrices(model, q)
        cm = modal.compiled_robot(model)[0]
        blocks = modal_flat.locked_blocks(cm)        # the loop checks them (else resplit)
        layout = model.layout
        J_p = rows_of_J(red, range(layout.n_t, layout.n_tot))
        lam, C, ok = eigen_and_compliance(red.K_r, red.M_r, J_p, blocks,
                                          loop=modal_flat.locked_loop(cm))
        eig = np.full(C.shape[:2], np.nan)
        if ok.any():
            eig[ok] = np.linalg.eigvalsh(C[ok])
    cond, measure = pencil_measures(lam, red.scales[:, 0] / red.scales[:, 1])
    near = (red.cond_closure > NEAR_SINGULAR_COND) | (measure < NEAR_SINGULAR_MEASURE)
    f = np.sqrt(np.clip(lam, 0.0, None)) / (2 * np.pi)
    n = f.shape[1] if n_modes is None else min(int(n_modes), f.shape[1])
    modes = Modes(frequencies_hz=f[:, :n], shapes_q=None, shapes_tot=None,
                  names=red.names[red.n_a:], reduced=red, cond_closure=red.cond_closure,
                  cond_pencil=cond, singularity_measure=measure, near_singular=near,
                  backend=red.backend, backend_reason=reason)
    return modes, (C, eig, ok)
