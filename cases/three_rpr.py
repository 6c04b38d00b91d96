"""The 3-RPR planar parallel manipulator's closed-form geometric models
(Briot & Khalil Sections 7.1.2.2 and 7.2.2.2), kept as test oracles of
``cases/three_rpr.toml`` (the robot itself is the file).

Geometry (chosen, documented in the file and docs/three_rpr.md): base
points A_i1 on a circle of radius :data:`R_BASE` at the angles
:data:`GAMMA` (deg), platform points A_i3 on a circle of radius
:data:`R_PLATFORM` about P at the angles :data:`BETA` (deg, in F_p; x_p
along A_13 A_23 as the book's phi). Pose ``(x, y, phi)``: m, m, rad;
q_a = (q_12, q_22, q_32), m.
"""
from __future__ import annotations

import numpy as np
from numpy.polynomial import Polynomial as Poly

from flexpkm.errors import UnreachablePoseError

R_BASE, R_PLATFORM = 0.4, 0.1
GAMMA = (210.0, 330.0, 90.0)
BETA = (210.0, 330.0, 90.0)


def base_points() -> np.ndarray:
    """A_i1 (3, 2), m, in F_0."""
    g = np.radians(GAMMA)
    return R_BASE * np.column_stack([np.cos(g), np.sin(g)])


def platform_points() -> np.ndarray:
    """^pA_i3 (3, 2), m, in F_p (relative to P)."""
    b = np.radians(BETA)
    return R_PLATFORM * np.column_stack([np.cos(b), np.sin(b)])


def epsilon() -> np.ndarray:
    """epsilon_i (3,), rad: the angle of A_i3 -> P in F_p (Table 7.2)."""
    c = -platform_points()
    return np.arctan2(c[:, 1], c[:, 0])


def _rot(phi):
    return np.array([[np.cos(phi), -np.sin(phi)], [np.sin(phi), np.cos(phi)]])


def igm(pose, modes=(1, 1, 1)) -> dict:
    """The joint coordinates of the pose (x, y, phi): (7.20)-(7.22), the
    sign of q_i2 given by ``modes``. Returns name -> value (m, rad)."""
    x, y, phi = pose
    eps = epsilon()
    A1 = base_points()
    out = {}
    for i in range(3):
        A3 = np.array([x, y]) - R_PLATFORM * np.array([np.cos(phi + eps[i]), np.sin(phi + eps[i])])
        u = A3 - A1[i]
        q2 = modes[i] * np.hypot(*u)                                   # (7.20)
        q1 = np.arctan2(u[1], u[0]) + (0.0 if q2 >= 0 else np.pi)       # (7.21)
        out.update({f"q{i + 1}1": q1, f"q{i + 1}2": q2, f"q{i + 1}3": phi + eps[i] - q1})  # (7.22)
    return out


def _linear(alpha, beta, gamma) -> Poly:
    """``alpha cos phi + beta sin phi + gamma`` times (1 + t^2), t = tan(phi/2) (7.47)."""
    return Poly([alpha + gamma, 2 * beta, gamma - alpha])


def fgm(q_a) -> np.ndarray:
    """Every real assembly mode (K, 3) of the actuated lengths q_a (3,), m:
    the poses (x, y, phi). As in (7.42)-(7.48): with p = A_13 the loop
    equations of legs 2 and 3 minus that of leg 1 are linear in p, M p = h,
    with M and h linear in (cos phi, sin phi); p = adj(M) h / det M in the
    first gives a polynomial in t = tan(phi/2) ((7.46) times (1 + t^2)^4, of
    degree 8: the book's sextic (7.48) times 1 + t^2, whose roots +-i are
    not real), whose real roots are the assembly modes (at most 6, Gosselin
    et al. 1992; phi = pi, t infinite, is not found).
    Raises :class:`UnreachablePoseError` when there is none."""
    rho = np.asarray(q_a, float)
    a = base_points()
    c = platform_points()
    b = c - c[0]                                    # A_i3 - A_13 in F_p
    # rows i = 2, 3: 2 p . (R b_i - a_i + a_1) = rho_i^2 - rho_1^2 - |R b_i - a_i|^2 + |a_1|^2
    M, h = [], []
    for i in (1, 2):
        bx, by = b[i]
        d = a[0] - a[i]
        M.append([_linear(2 * bx, -2 * by, 2 * d[0]), _linear(2 * by, 2 * bx, 2 * d[1])])
        # |R b - a_i|^2 = |b|^2 + |a_i|^2 - 2 a_i . R b
        ax, ay = a[i]
        h.append(_linear(2 * (ax * bx + ay * by), 2 * (ay * bx - ax * by),
                         rho[i] ** 2 - rho[0] ** 2 - b[i] @ b[i] - a[i] @ a[i] + a[0] @ a[0]))
    det = M[0][0] * M[1][1] - M[0][1] * M[1][0]
    px = M[1][1] * h[0] - M[0][1] * h[1]             # adj(M) h: det * p
    py = -M[1][0] * h[0] + M[0][0] * h[1]
    poly = (px ** 2 + py ** 2 - 2 * det * (a[0][0] * px + a[0][1] * py)
            + (a[0] @ a[0] - rho[0] ** 2) * det ** 2)
    out = []
    for t in poly.roots():
        if abs(t.imag) > 1e-7 * max(1.0, abs(t)):
            continue
        t = t.real
        phi = 2 * np.arctan(t)
        p = np.array([px(t), py(t)]) / det(t)
        P = p - _rot(phi) @ c[0]
        out.append([P[0], P[1], phi])
    if not out:
        raise UnreachablePoseError(f"3-RPR FGM (7.48): no real assembly mode for q_a = {q_a}")
    return np.array(out)
