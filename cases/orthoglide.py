"""The Orthoglide's closed-form geometric models (Briot & Khalil Sections
7.1.2.4 and 7.2.2.4), kept as test oracles of ``cases/orthoglide.toml`` (the
robot itself is the file: one source per robot).

Geometry (Section 8.4.3.2): ``a = 0.34 m``, ``d_4 = 0.31 m``, ``d_6 = 0.03 m``
(Tables 7.3-7.4). Leg i: an actuated prismatic joint q_i1 (m), the
equivalent U-U chain of its parallelogram (q_i2 ... q_i5, rad) with
``q_i5 = -q_i2``, ``q_i4 = -q_i3`` (7.26), a translating platform at
``P = (x, y, z)`` (m, base frame F_0).
"""
from __future__ import annotations

import numpy as np

from flexpkm.errors import UnreachablePoseError

#: m (Section 8.4.3.2)
A, D4, D6 = 0.34, 0.31, 0.03


def _centres(q_a):
    """Sphere centres O_i (3, 3), m, of (7.27): ``|P - O_i| = d_4``."""
    q1, q2, q3 = q_a
    return np.array([[D6, 0.0, q1], [q2 - A, D6, A], [D6, q3 - A, A]])


def igm(pose, modes=(1, 1, 1)) -> np.ndarray:
    """q_a (3,), m, of the platform position ``pose = (x, y, z)`` (m):
    (7.28)-(7.29), the root of sign ``modes[i]`` (working mode of leg i).
    Raises :class:`UnreachablePoseError` when a leg cannot reach."""
    x, y, z = pose
    c1 = np.array([-2 * z, -2 * (x + A), -2 * (y + A)])
    c0 = np.array([(x - D6) ** 2 + y ** 2 + z ** 2 - D4 ** 2,
                   (x + A) ** 2 + (y - D6) ** 2 + (z - A) ** 2 - D4 ** 2,
                   (x - D6) ** 2 + (y + A) ** 2 + (z - A) ** 2 - D4 ** 2])
    disc = c1 ** 2 - 4 * c0
    if np.any(disc < 0):
        raise UnreachablePoseError(f"Orthoglide IGM (7.29): leg(s) "
                                   f"{list(np.flatnonzero(disc < 0) + 1)} cannot reach {pose}")
    return (-c1 + np.asarray(modes) * np.sqrt(disc)) / 2


def passive(pose, q_a) -> dict:
    """The passive joints (rad) of (7.30)-(7.35) and (7.26): name -> value."""
    x, y, z = pose
    q11, q21, q31 = q_a
    q12 = np.arctan2(q11 - z, x - D6)
    q22 = np.arctan2(q21 - x - A, y - D6)
    q32 = np.arctan2(q31 - y - A, x - D6)
    q13 = np.arctan2(-y, (x - D6) / np.cos(q12))
    q23 = np.arctan2(-z + A, (y - D6) / np.cos(q22))
    q33 = np.arctan2(z - A, (x - D6) / np.cos(q32))
    out = {}
    for i, (u, v) in enumerate(((q12, q13), (q22, q23), (q32, q33)), start=1):
        out.update({f"q{i}2": u, f"q{i}3": v, f"q{i}4": -v, f"q{i}5": -u})
    return out


def fgm(q_a, mode=1) -> np.ndarray:
    """The platform position (3,), m, of q_a (m): the intersection of the
    three spheres (7.49), ``x, y`` linear in ``z`` and ``z`` the root of
    sign ``mode`` of a quadratic (7.50; the book's coefficients c_9 ... c_15
    have typos, docs/typos.md: this derives them again from the spheres).
    Raises :class:`UnreachablePoseError` without a real solution."""
    O = _centres(q_a)
    # |P - O_1|^2 - |P - O_k|^2 = 0: 2 (O_k - O_1) . P = |O_k|^2 - |O_1|^2, k = 2, 3
    G = 2 * (O[1:] - O[0])
    h = np.sum(O[1:] ** 2, axis=1) - O[0] @ O[0]
    # x, y of z: G[:, :2] [x, y] = h - G[:, 2] z
    Ginv = np.linalg.inv(G[:, :2])
    p0, p1 = Ginv @ h, -Ginv @ G[:, 2]           # [x, y] = p0 + p1 z
    u = np.array([p0[0], p0[1], 0.0]) - O[0]
    w = np.array([p1[0], p1[1], 1.0])
    qa, qb, qc = w @ w, 2 * u @ w, u @ u - D4 ** 2
    disc = qb ** 2 - 4 * qa * qc
    if disc < 0:
        raise UnreachablePoseError(f"Orthoglide FGM (7.50): no real solution for q_a = {q_a}")
    z = (-qb + mode * np.sqrt(disc)) / (2 * qa)
    return np.array([p0[0] + p1[0] * z, p0[1] + p1[1] * z, z])
