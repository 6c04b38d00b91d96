"""The Tripteron's closed-form geometric models (Briot & Khalil Section
9.5.2), kept as test oracles of ``cases/tripteron.toml`` (the robot itself
is the file).

Leg i: an actuated prismatic joint q_i1 (m) along z_0, x_0, y_0 for
i = 1, 2, 3 (Table 9.1, b_11 = 0, a = :data:`A`) and a planar 3R chain
q_i2, q_i3, q_i4 (rad) whose axes are parallel to it, links
d_i3 = :data:`D3`, d_i4 = :data:`D4` (Table 9.2, the five-bar-equivalent
lengths of Section 9.5.3), A_i4 at the platform point P = (x, y, z).
"""
from __future__ import annotations

import numpy as np

from flexpkm.errors import UnreachablePoseError

#: m: a (Table 9.1; the book gives no value, chosen), d_i3, d_i4 (Section 9.5.3)
A, D3, D4 = 0.2, 0.1888, 0.1878


def fgm(q_a) -> np.ndarray:
    """P = (x, y, z), m, of q_a = (q_11, q_21, q_31): (9.60), x = q_21 - a,
    y = q_31 + a, z = q_11 (the book's q_12, q_13 there are q_21, q_31)."""
    q11, q21, q31 = q_a
    return np.array([q21 - A, q31 + A, q11])


def _planar(pose):
    """^i x_A_i1A_i4, ^i y_A_i1A_i4 of each leg (3, 2), m: (9.57)-(9.59)
    relative to A_i1 (the origin of frame i1)."""
    x, y, z = pose
    return np.array([[x, y], [y, z - A], [z - A, x]])


def igm(pose, modes=(1, 1, 1), legs=(1, 2, 3)) -> dict:
    """The joint coordinates of P = (x, y, z): q_a from (9.60), q_i2 from
    (9.62)-(9.64) with the root of sign ``modes[i]``, q_i3 from (9.65)
    (minus q_i2: (9.65) gives the angle q_i2 + q_i3 of A_i3 A_i4), q_i4
    from (9.66), for the ``legs`` asked. Returns name -> value (m, rad). Raises
    :class:`UnreachablePoseError` when a leg cannot reach."""
    x, y, z = pose
    out = {"q11": z, "q21": x + A, "q31": y - A}
    for i, (u, v) in enumerate(_planar(pose), start=1):
        if i not in legs:
            continue
        a1, a2, a3 = -2 * D3 * u, -2 * D3 * v, u ** 2 + v ** 2 + D3 ** 2 - D4 ** 2   # (9.63)
        disc = a2 ** 2 - a3 ** 2 + a1 ** 2
        if np.any(disc < 0):
            raise UnreachablePoseError(f"Tripteron IGM (9.64): leg {i} cannot reach {tuple(pose)}")
        q2 = 2 * np.arctan((-a2 + modes[i - 1] * np.sqrt(disc)) / (a3 - a1))         # (9.64)
        q3 = np.arctan2(v - D3 * np.sin(q2), u - D3 * np.cos(q2)) - q2                # (9.65)
        out.update({f"q{i}2": q2, f"q{i}3": q3, f"q{i}4": -q2 - q3})                  # (9.66)
    return out


def elbow_state(model, values, modes=(1, 1, 1), branch=1) -> np.ndarray:
    """``q_tot`` (m, n_tot) of leg 1's elbow angle and the platform's y, z:
    ``values`` (m, 3) = (q_12 rad, y m, z m), the coordinates of the book's
    law through leg 1's LPJTS singularity (9.109)-(9.117) (A_13 on its
    circle about A_12, the platform point A_14 on its circle about A_13,
    (9.111)). x = d_i3 cos q_12 + branch sqrt(d_i4^2 - (y - d_i3 sin
    q_12)^2); leg 1's q_13, q_14 from (9.65)-(9.66); legs 2 and 3 from
    :func:`igm` with ``modes``. Raises :class:`UnreachablePoseError`."""
    values = np.atleast_2d(np.asarray(values, float))
    q12, y, z = values.T
    ex, ey = D3 * np.cos(q12), D3 * np.sin(q12)
    disc = D4 ** 2 - (y - ey) ** 2
    if np.any(disc < 0):
        raise UnreachablePoseError("Tripteron: A_14 cannot reach the given y from leg 1's elbow")
    x = ex + branch * np.sqrt(disc)
    q = igm((x, y, z), modes, legs=(2, 3))
    q13 = np.arctan2(y - ey, x - ex) - q12                                  # (9.65)
    q.update(q12=q12, q13=q13, q14=-q12 - q13, x=x, y=y, z=z)               # (9.66)
    layout = model.layout
    out = np.zeros((len(values), layout.n_tot))
    for name, v in q.items():
        out[:, layout.index(name)] = v
    return out
