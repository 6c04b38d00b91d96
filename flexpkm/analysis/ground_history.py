"""Ground reactions (8.206) along a simulation: the recorded samples'
states and efforts through the full model again
(:func:`flexpkm.algorithms.ground.ground_reactions`), in blocks of samples
(memory bounded for the large models)."""
from __future__ import annotations

import numpy as np

from flexpkm.algorithms.dynamics import direct_dynamics, full_dynamics
from flexpkm.algorithms.ground import GroundReactions, ground_reactions
from flexpkm.algorithms.reference import build_model
from flexpkm.analysis.wrenches import wrench_at
from flexpkm.errors import InvalidArgumentError

#: bytes of the stacked bodies' Jacobian (the largest array of the full
#: model, :func:`flexpkm.algorithms.virtual_system.tree_dynamics`) per block
#: of samples: 125 samples at 8 elements per body on the DualEMPS, 2,048 (the most) at
#: one (fewer numpy calls per sample on the small models; larger blocks of
#: the large ones cost more in memory traffic than they save)
BLOCK_BYTES = 20e6
#: samples per block, at least and at most
BLOCK_MIN, BLOCK_MAX = 32, 2048


def block_size(model) -> int:
    """Samples evaluated together for ``model`` (a built Model):
    :data:`BLOCK_BYTES` over its stacked Jacobian's bytes per sample,
    within [:data:`BLOCK_MIN`, :data:`BLOCK_MAX`]."""
    per_sample = 8 * model.stacked.n_rows * model.layout.n_t
    return int(min(max(BLOCK_BYTES // max(per_sample, 1), BLOCK_MIN), BLOCK_MAX))


def simulation_ground_reactions(model, result, gravity=None, friction=True,
                                coulomb_smoothing=1e-3, wrench=None) -> GroundReactions:
    """The ground reactions at the samples of a :class:`SimulationResult`.

    model : the Model (or Robot) simulated; result : its result; gravity,
    friction, coulomb_smoothing, wrench : the simulation's (the defaults of
    :func:`flexpkm.analysis.simulate.simulate`); they give the accelerations
    of the recorded states and efforts by the direct problem (10.123).
    Returns :class:`GroundReactions` of (n, 6) arrays. Raises
    :class:`InvalidArgumentError` when the result's independent coordinates
    are not the model's.
    """
    model = build_model(model)
    names = model.layout.names
    if tuple(result.names) != tuple(names):
        raise InvalidArgumentError(f"simulation_ground_reactions: the result is not of "
                                   f"{model.name}'s coordinates")
    indep = [names.index(n) for n in result.r_names]
    dep = np.setdiff1d(np.arange(len(names)), indep)
    blocks, size = [], block_size(model)
    for k in range(0, len(result.t), size):
        s = slice(k, k + size)
        q, v, tau = result.q[s], result.qd_r[s], result.tau[s]
        full = full_dynamics(model, q, v, dep=dep, gravity=gravity, friction=friction,
                          coulomb_smoothing=coulomb_smoothing, loop_tol=None,
                          wrench=wrench_at(wrench, result.t[s], "simulate: wrench"))
        if list(full.indep) != indep:
            raise InvalidArgumentError("simulation_ground_reactions: the result's independent "
                                       "coordinates are not the model's choice")
        blocks.append(ground_reactions(model, full, q, v, direct_dynamics(full, tau), tau))
    cat = lambda xs: np.concatenate(xs, axis=0)
    return GroundReactions(total=cat([b.total for b in blocks]),
                           platform=cat([b.platform for b in blocks]),
                           tree_legs={leg: cat([b.tree_legs[leg] for b in blocks])
                                      for leg in blocks[0].tree_legs},
                           legs={leg: cat([b.legs[leg] for b in blocks]) for leg in blocks[0].legs})
