"""Newton-Euler model of the rigid moving platform, Eqs. (8.57), (8.97),
(8.98), used as the free body of the virtual system (10.101).

The platform's twist ``^0t_p = [v_P; omega_p]`` is taken at P and projected in
the base frame; its coordinates are the components selected by
``Platform.dofs`` (``^0t_p = S_p xd_p``).
"""
from __future__ import annotations

import numpy as np

from flexpkm.elements import newton_euler as ne

from flexpkm.spatial import block_rotation


def selection(platform) -> np.ndarray:
    """S_p (6, n_p): ``^0t_p = S_p xd_p``."""
    S = np.zeros((6, len(platform.dofs)))
    S[list(platform.dofs), range(len(platform.dofs))] = 1.0
    return S


def platform_mass_matrix(platform, R_0p) -> np.ndarray:
    """``^0M_p`` of Eq. (8.97), at P in the base frame, (B, 6, 6) for
    R_0p (B, 3, 3); zeros for a massless platform."""
    B = R_0p.shape[0]
    if platform.body is None:
        return np.zeros((B, 6, 6))
    M = ne.mass_matrix(platform.body.invariants, np.zeros((B, 0)))
    Rb = block_rotation(R_0p)
    return Rb @ M @ np.swapaxes(Rb, -1, -2)


def platform_wrench(platform, R_0p, t_p, tdot_p, gravity) -> np.ndarray:
    """``^0w_p = ^0M_p ^0tdot_p + ^0c_p`` of Eqs. (8.57)/(10.101), (B, 6).

    t_p, tdot_p : (B, 6) twist and absolute acceleration at P, base frame.
    gravity : (3,) base frame, m/s^2.
    """
    B = R_0p.shape[0]
    if platform.body is None:
        return np.zeros((B, 6))
    Rt = np.swapaxes(R_0p, -1, -2)
    to_p = lambda x: np.einsum("bij,bj->bi", Rt, x)
    w = ne.ne_wrench(platform.body.invariants,
                     np.concatenate([to_p(tdot_p[:, :3]), to_p(tdot_p[:, 3:])], -1),
                     np.zeros((B, 0)), to_p(t_p[:, 3:]), np.zeros((B, 0)), np.zeros((B, 0)),
                     g=to_p(np.broadcast_to(gravity, (B, 3))))
    back = lambda x: np.einsum("bij,bj->bi", R_0p, x)
    return np.concatenate([back(w[:, :3]), back(w[:, 3:6])], -1)
