"""Closed-form geometry of the IRSBot-2 of cases/irsbot2.toml, written from
its header (not from flexpkm): in the plane x_0-z_0 each leg is a planar 2R
chain, proximal link l_1 from A_i = (s_i a, 0, 0) and distal bars l_2 to the
platform point P + s_i c x_0 (s_1 = 1, s_2 = -1), so the IGM is the
five-bar's and the FGM the intersection of two circles. Used by
tests/cases/test_irsbot2.py and the OpenSeesPy model opensees_irsbot2.py."""
from __future__ import annotations

import numpy as np

#: the file's dimensions, m: a, l_1, l_2, c, the parallelogram offset h, the
#: half spacing e of the distal bars along y_0 and their offset f along z_0
A, L1, L2, C, H, E, F = 0.10, 0.28, 0.45, 0.04, 0.06, 0.05, 0.04
SIDES = (1.0, -1.0)                      # leg 1 at x = +a, leg 2 mirrored


def igm(x, z):
    """Per leg ``(q_i1, beta_i)``: the actuated angle and the distal bars'
    angle, both about the leg's z axis (s_i y_0), 0 along s_i x_0, positive
    downwards; working mode of the file (proximal link outward and down)."""
    out = []
    for s in SIDES:
        X, Z = s * x + C - A, z          # P + s c x_0 - A_i, in the leg's frame
        K = (X * X + Z * Z + L1 * L1 - L2 * L2) / (2.0 * L1)
        q1 = -np.arctan2(Z, X) - np.arccos(K / np.hypot(X, Z))
        beta = np.arctan2(-(Z + L1 * np.sin(q1)), X - L1 * np.cos(q1))
        out.append((q1, beta))
    return out


def fgm(q11, q21):
    """(x, z): P on the circles of radius l_2 about B_i - s_i c x_0, the
    lower of the two intersections (the file's assembly mode)."""
    O = [np.array([s * (A + L1 * np.cos(q) - C), -L1 * np.sin(q)]) for s, q in zip(SIDES, (q11, q21))]
    d = O[1] - O[0]
    n = np.linalg.norm(d)
    h = np.sqrt(L2 * L2 - n * n / 4.0)
    perp = np.array([-d[1], d[0]]) / n
    return min((O[0] + d / 2.0 + h * perp, O[0] + d / 2.0 - h * perp), key=lambda p: p[1])


def leg_points(x, z):
    """Per leg, the points (3,) of the mechanism at the pose (x, z), m:
    A, B (elbow), E = B + h z_0 and A + h z_0 (parallelogram), the bars'
    ends (b1, c1) and (b2, c2), the leg's axis ``u`` = s y_0 and ``s``."""
    ez = np.array([0.0, 0.0, 1.0])
    legs = []
    for s, (q1, beta) in zip(SIDES, igm(x, z)):
        u = np.array([0.0, s, 0.0])
        a = np.array([s * A, 0.0, 0.0])
        b = a + L1 * np.array([s * np.cos(q1), 0.0, -np.sin(q1)])
        d = L2 * np.array([s * np.cos(beta), 0.0, -np.sin(beta)])
        b1, b2 = b + E * u, b - E * u - F * ez
        legs.append({"s": s, "u": u, "A": a, "B": b, "Ah": a + H * ez, "E": b + H * ez,
                     "b1": b1, "c1": b1 + d, "b2": b2, "c2": b2 + d})
    return legs
