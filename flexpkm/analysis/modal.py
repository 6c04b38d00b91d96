"""Natural frequencies and mode shapes at configurations (Briot & Khalil
Sections 11.4-11.5), on either backend (:mod:`flexpkm.analysis.backend`):
Steps 0-3 (the reduced matrices ``M_r``, ``K_r``) by
:func:`flexpkm.algorithms.modal.reduced_matrices` (numpy) or
:func:`flexpkm.compiled.modal.reduced_matrices` (generated C code), Step 4
by the one eigen step of both, :func:`flexpkm.algorithms.modal.solve_modes`.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from flexpkm.algorithms.conditioning import check_actuator_stiffness, check_modes_count
from flexpkm.algorithms.eigen import LOOP_SIZE
from flexpkm.algorithms.modal import Modes, reduced_matrices, single_pose, solve_modes
from flexpkm.algorithms.reference import build_model
from flexpkm.algorithms.tree import as_batch
from flexpkm.analysis.backend import DEFAULT_BACKEND, choose_backend
from flexpkm.errors import BackendUnavailableError
from flexpkm.threads import one_blas_thread


def natural_frequencies(model, q_tot, n_modes=None, actuator_stiffness=None, q_dep=None,
                        allow_zero=False, shapes=True, backend=DEFAULT_BACKEND,
                        flat=False) -> Modes:
    """Natural frequencies and mode shapes at the configuration ``q_tot``
    (Eqs. 11.34-11.35; with ``actuator_stiffness`` (n_A,), one per actuator
    in N/m or N m/rad, Eqs. 11.38-11.42; with actuation redundancy the
    springs act on ``qd_A = J_A qd_r``: ``K_r + J_A^T diag(k) J_A``). A rigid
    robot with locked actuators raises :class:`InvalidArgumentError`.
    ``shapes=False`` skips the mode shapes (faster sweeps;
    ``shapes_q`` and ``shapes_tot`` are then None).

    model : :class:`flexpkm.model.Model` (or a Robot, built on each call)
    q_tot : (n_tot,) one assembled configuration ``[q_t; x_p]``
          (:func:`flexpkm.assemble`), or (B, n_tot) a batch (m, rad;
          elastic coordinates are ignored: the analysis is at q_e = 0)
    n_modes : number of modes kept, a whole number >= 1 (default all)
    q_dep : names or q_tot columns of the dependent coordinates (default:
          the choice at the robot's reference configuration)
    backend : ``"auto"`` (default), ``"numpy"`` or ``"compiled"``: who
          computes the reduced matrices (:mod:`flexpkm.analysis.backend`;
          the same results to round-off). Under ``"auto"`` a batch where the
          compiled function's q_dep is ill-conditioned runs on numpy.
    Returns :class:`Modes`: frequencies (n,) Hz for one pose, (B, n) for a
    batch, with the condition numbers and flags of the result, ``backend``
    and ``backend_reason``. ``flat``: on the compiled backend, the reduced
    matrices by the workspace map's fast path (:mod:`flexpkm.compiled.modal_flat`,
    its own library compiled at first use; the same matrices to round-off).
    BLAS runs on one thread (:mod:`flexpkm.threads`): on the NaVARo's 90 x 90
    pencil LAPACK's threads make one pose 2x slower on a 2-core machine.
    Raises :class:`OpenLoopError` for a configuration whose loops are open,
    :class:`SingularConfigurationError` when the locked robot has a
    zero-stiffness motion (a Type 2 singularity) unless ``allow_zero``
    (with its pose index, measure and condition number), InvalidArgumentError
    for a bad ``q_tot`` (shape, non-finite), ``n_modes``, ``actuator_stiffness``
    (non-finite, non-positive, outside 1e+-12 of the structure's stiffness)
    or ``backend``, :class:`BackendUnavailableError` when ``"compiled"`` is
    asked and cannot run (why: in its message and ``reason``).
    """
    n_modes = check_modes_count(n_modes)
    model = build_model(model)
    q = as_batch(q_tot, model.layout.n_tot, "q_tot")
    if actuator_stiffness is not None:            # refused before any reduction
        act = model.layout.actuated
        check_actuator_stiffness(actuator_stiffness, [model.layout.names[c] for c in act], None)
    choice = choose_backend(backend, "natural_frequencies", model, q_dep=q_dep)
    reason = choice.reason
    # small matrices: threads cost more than they give; scipy's LAPACK from LOOP_SIZE on
    with one_blas_thread(scipy=model.layout.n_tot >= LOOP_SIZE):
        red = None
        if choice.name == "compiled":
            from flexpkm.compiled.modal import reduced_matrices as compiled_reduced_matrices
            if flat:
                from flexpkm.compiled.modal_flat import fast_reduced_matrices
                compiled_reduced_matrices = fast_reduced_matrices
            try:
                red = compiled_reduced_matrices(model, q)
            except BackendUnavailableError as e:
                if choice.asked == "compiled":
                    raise
                reason = f"auto: {e.reason}"
        if red is None:
            red = reduced_matrices(model, q, q_dep=q_dep)
        modes = solve_modes(model, red, n_modes, actuator_stiffness, allow_zero, shapes)
    modes = replace(modes, backend_reason=reason)
    return single_pose(modes) if np.ndim(q_tot) == 1 else modes
