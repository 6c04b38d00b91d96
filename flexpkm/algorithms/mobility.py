"""Mobility of a closed-chain robot (Briot & Khalil Appendix A, Moroskine's
method (A.3)-(A.5)): the number of degrees of freedom

    N_dof = L - c,   c = max_q rank J_c(q)                    (A.1), (A.3)

where L counts the rigid coordinates (tree joints and platform coordinates;
elastic coordinates are left out: mobility is the rigid mechanism's) and
J_c is the constraint Jacobian of every closure (:func:`constraint_jacobian`,
(A.4)) at configurations that close the loops. The rank is the *generic*
one: the largest over random configurations (each a random displacement of
the reference configuration (:func:`reference_configuration`, which may be
singular) projected on the loops, elastic coordinates 0), not the rank at one
configuration, which is low at a singularity and would over-count N_dof.

The platform's mobility n_dof (the dimension of its motion space E(x_p),
(A.11)) is the rank of the platform columns of a basis of the null space of
J_c, also the largest over the configurations.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from flexpkm.algorithms.assembly import reference_configuration
from flexpkm.algorithms.closure import constraint_jacobian, project_on_loops
from flexpkm.algorithms.pivoted_qr import pivoted_qr
from flexpkm.algorithms.platform import platform_pose
from flexpkm.algorithms.reference import build_model
from flexpkm.algorithms.tree import tree_kinematics
from flexpkm.errors import FlexPKMError, InvalidArgumentError, SingularConfigurationError

#: singular values of J_c below this fraction of the largest are rank loss
RANK_RTOL = 1e-9


@dataclass(frozen=True)
class Mobility:
    """Result of :func:`mobility`.

    n_dof      : N_dof (A.5), the degrees of freedom of the mechanism
    n_platform : n_dof of the platform, dim E(x_p) (0 without a platform)
    n_rigid    : L, the rigid coordinates counted (joints + platform)
    rank       : c (A.3), the generic rank of J_c (largest over the samples)
    ranks      : (K,) rank of J_c at each configuration sampled
    """
    n_dof: int
    n_platform: int
    n_rigid: int
    rank: int
    ranks: tuple

    def summary(self) -> str:
        """One line: ``mobility N_dof = ... (platform ...)`` and how."""
        return (f"mobility (Appendix A): N_dof = {self.n_dof} (platform {self.n_platform}); "
                f"generic rank of J_c {self.rank} over {len(self.ranks)} random configurations "
                f"of {self.n_rigid} rigid coordinates")


def mobility(model, samples: int = 6, spread: float = 0.05, seed: int = 0) -> Mobility:
    """The mobility (Appendix A) of a robot or model.

    samples : configurations sampled (>= 2); spread : half-width of the
    uniform random displacement of each rigid coordinate from the
    reference (m or rad) before the projection on the loops; seed : of the
    random generator (the result is reproducible).
    Raises :class:`InvalidArgumentError` for bad arguments and
    :class:`SingularConfigurationError` when fewer than 2 configurations
    close (the loops cannot be closed near the reference)."""
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 2:
        raise InvalidArgumentError(f"mobility: samples must be an integer >= 2, got {samples!r}")
    if isinstance(spread, bool) or not (isinstance(spread, (int, float))
                                        and np.isfinite(spread) and spread > 0):
        raise InvalidArgumentError(f"mobility: spread must be a positive number (m, rad), "
                                   f"got {spread!r}")
    model = build_model(model)
    layout = model.layout
    rigid = rigid_columns(model)
    q_ref = reference_configuration(model)
    rng = np.random.default_rng(seed)
    platform = [k for k, c in enumerate(rigid) if c >= layout.n_t]
    ranks, platform_ranks = [], []
    for _ in range(4 * samples):
        q = q_ref.copy()
        q[rigid] += rng.uniform(-spread, spread, len(rigid))
        try:
            q, _ = project_on_loops(model, q, dep=_dependent(_jacobian(model, q)[:, rigid], rigid))
        except FlexPKMError:
            continue
        J_c = _jacobian(model, q)[:, rigid]
        rank, null = _rank_and_null(J_c)
        ranks.append(rank)
        platform_ranks.append(_rank_and_null(null[platform].T)[0] if platform and null.size else 0)
        if len(ranks) == samples:
            break
    if len(ranks) < 2:
        raise SingularConfigurationError(
            f"mobility: the loops closed at {len(ranks)} of {4 * samples} random "
            f"configurations near the reference (spread {spread}); a generic rank needs 2")
    c = max(ranks)
    n_platform = max(p for r, p in zip(ranks, platform_ranks) if r == c)   # generic samples only
    return Mobility(n_dof=len(rigid) - c, n_platform=n_platform, n_rigid=len(rigid), rank=c,
                    ranks=tuple(ranks))


def rigid_columns(model) -> np.ndarray:
    """Columns of ``q_tot`` that are joint or platform coordinates."""
    layout = model.layout
    elastic = set()
    for sl in layout.elastic_slice.values():
        elastic.update(range(sl.start, sl.stop))
    return np.array([c for c in range(layout.n_tot) if c not in elastic], dtype=int)


def _dependent(J_c, rigid):
    """Rigid columns to correct in the projection (elastic coordinates stay
    0: the mechanism is not deformed): QR with column pivoting of J_c."""
    rank = _rank_and_null(J_c)[0]
    if rank == 0:                                  # no loop: nothing to correct
        return rigid[:0]
    return rigid[np.sort(pivoted_qr(J_c)[1][:rank])]


def _jacobian(model, q):
    kin = tree_kinematics(model, q[None, :model.layout.n_t])
    return constraint_jacobian(model, kin, platform_pose(model, q[None]))[0][0]


def _rank_and_null(A):
    """(rank, basis of the null space (n, n - rank)) of A (m, n)."""
    if A.shape[0] == 0:
        return 0, np.eye(A.shape[1])
    _, s, Vt = np.linalg.svd(A)
    rank = int(np.sum(s > RANK_RTOL * s[0])) if s.size and s[0] > 0 else 0
    return rank, Vt[rank:].T
