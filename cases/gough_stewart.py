"""The Gough-Stewart platform's (6-UPS) closed-form inverse geometric model
(Briot & Khalil Section 7.1.2.5), kept as a test oracle of
``cases/gough_stewart.toml`` (the robot itself is the file).

Geometry (chosen, documented in the file and docs/gough_stewart.md): base
points A_i1 in the plane z_0 = 0 on a circle of radius :data:`R_BASE` at
:data:`BASE_DEG`, platform points A_i6 on a circle of radius
:data:`R_PLATFORM` in the plane z_p = 0 at :data:`PLATFORM_DEG`. Pose
``(x, y, z, r_x, r_y, r_z)``: P in m, the platform's rotation vector in rad
(``0R_p = exp(hat(r))``).
"""
from __future__ import annotations

import numpy as np
from scipy.spatial.transform import Rotation

R_BASE, R_PLATFORM = 0.5, 0.3
BASE_DEG = (-15.0, 15.0, 105.0, 135.0, 225.0, 255.0)
PLATFORM_DEG = (-45.0, 45.0, 75.0, 165.0, 195.0, 285.0)


def _circle(radius, degrees):
    a = np.radians(degrees)
    return radius * np.column_stack([np.cos(a), np.sin(a), np.zeros(len(a))])


def base_points() -> np.ndarray:
    """A_i1 (6, 3), m, in F_0."""
    return _circle(R_BASE, BASE_DEG)


def platform_points() -> np.ndarray:
    """^pA_i6 (6, 3), m, in F_p."""
    return _circle(R_PLATFORM, PLATFORM_DEG)


def igm(pose) -> np.ndarray:
    """q_a = (q_13, ..., q_63), m: the leg lengths (7.36)-(7.37), root "+"."""
    pose = np.asarray(pose, float)
    A6 = pose[:3] + Rotation.from_rotvec(pose[3:]).apply(platform_points())
    return np.linalg.norm(A6 - base_points(), axis=1)


def universal_angles(pose, mode=1) -> dict:
    """q_i1, q_i2 (rad) of the U joints (Table 7.5; the book leaves them as an
    exercise): the leg's unit vector u in frame i1 at q_i1 = 0
    (``Rot(z, gamma_i) Rot(x, -pi/2)``) is ``(cos q_i1 sin q_i2,
    sin q_i1 sin q_i2, -cos q_i2)``; ``mode`` is the sign of sin q_i2."""
    pose = np.asarray(pose, float)
    A1 = base_points()
    A6 = pose[:3] + Rotation.from_rotvec(pose[3:]).apply(platform_points())
    out = {}
    for i in range(6):
        gamma = np.arctan2(A1[i, 1], A1[i, 0])
        R0 = Rotation.from_euler("ZX", [gamma, -np.pi / 2]).as_matrix()
        u = R0.T @ (A6[i] - A1[i])
        s2 = mode * np.hypot(u[0], u[1])
        out[f"q{i + 1}1"] = np.arctan2(mode * u[1], mode * u[0])
        out[f"q{i + 1}2"] = np.arctan2(s2, -u[2])
    return out
