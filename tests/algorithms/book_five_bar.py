"""The five-bar of Briot & Khalil Section 8.4.3.1 with full standard
parameters per link (m, mx, my, zz), rotor inertias and a platform mass, and
the book's closed forms of Section 8.6 written from the seed text (not from
flexpkm): the ground reactions (8.207)-(8.215) and the energies
(8.221)-(8.230). Geometry: ``cases/five_bar.py`` (d_i1, d_i2, d_i3).

Two corrections of the seed (docs/typos.md), both invisible with the book's
identified parameters (``m_i2 = my_i2 = 0``, :func:`five_bar.robot`), for
which the printed forms are checked too (``printed=True``): the velocity of
O_i2 in F_i2 is ``d_i2 qd_i1 [sin q_i2, cos q_i2, 0]`` (8.222 prints
``-sin``), which flips the sign of every ``my_i2`` term of (8.208) and
(8.225); and (8.209) moves ``m_i2 d_i2`` with the first moment of body i2
(``mx_i2 + m_i2 d_i2`` rotated by q_i2) while O_i2 is at ``d_i2 x_i1``.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from flexpkm.cases import rigid_five_bar as five_bar
from flexpkm.elements.rigid import RigidBody

#: per leg: m_i1, mx_i1, my_i1, zz_i1, m_i2, mx_i2, my_i2, zz_i2, Ia_i1 (SI)
LINKS = {"1": (0.31, 0.021, -0.004, 2.3e-3, 0.22, 0.018, 0.006, 1.4e-3, 1.1e-4),
         "2": (0.29, 0.019, 0.005, 2.1e-3, 0.24, 0.016, -0.003, 1.6e-3, 0.9e-4)}
M_P = five_bar.M4


def robot(gravity=(0.0, 0.0, -9.81)):
    """five_bar.robot() with the bodies, rotors and platform of LINKS, no friction."""
    rob = five_bar.robot(gravity=gravity)
    bodies = {}
    for leg, (m1, mx1, my1, zz1, m2, mx2, my2, zz2, _) in LINKS.items():
        bodies[f"{leg}1"] = (RigidBody(ZZ=zz1, MX=mx1, MY=my1, M=m1, name=f"body {leg}1"),)
        bodies[f"{leg}2"] = (RigidBody(ZZ=zz2, MX=mx2, MY=my2, M=m2, name=f"body {leg}2"),)
    return replace(rob, bodies=bodies, viscous_friction={}, coulomb_friction={},
                   rotor_inertia={f"{leg}1": p[8] for leg, p in LINKS.items()})


def links_of(rob):
    """LINKS-like table (Ia = 0) of a five-bar Robot's bodies (the book's own
    identified parameters for :func:`five_bar.robot`)."""
    out = {}
    for leg in "12":
        (b1,), (b2,) = rob.bodies[f"{leg}1"], rob.bodies[f"{leg}2"]
        i1, i2 = b1.invariants, b2.invariants
        out[leg] = (i1.m, *i1.ms_r[:2], i1.I_rr[2, 2], i2.m, *i2.ms_r[:2], i2.I_rr[2, 2],
                    rob.rotor_inertia.get(f"{leg}1", 0.0))
    return out


def kinetic_energy(q, qd, xd, links=LINKS, printed=False):
    """(8.224)-(8.227): q, qd dicts of q11.. (rad, rad/s), xd = (xd, yd);
    ``printed``: the seed's sign of ``my_i2`` (see the module)."""
    s = 1.0 if printed else -1.0
    E = 0.5 * M_P * (xd[0] ** 2 + xd[1] ** 2)                          # (8.226)
    for leg, (m1, mx1, my1, zz1, m2, mx2, my2, zz2, Ia) in links.items():
        d2 = five_bar.D[leg][1]
        q2, w1, w2 = q[f"q{leg}2"], qd[f"q{leg}1"], qd[f"q{leg}2"]
        E += 0.5 * zz1 * w1 ** 2 + 0.5 * Ia * w1 ** 2                    # (8.224), (8.227)
        E += 0.5 * (m2 * d2 ** 2 * w1 ** 2 + zz2 * (w1 + w2) ** 2        # (8.225)
                    + 2 * d2 * w1 * (w1 + w2) * (mx2 * np.cos(q2) + s * my2 * np.sin(q2)))
    return E


def gravity_energy(q, y, g, links=LINKS):
    """(8.228)-(8.230) for ^0g = [0, g, 0] (g signed, m/s^2)."""
    U = -M_P * y * g
    for leg, (m1, mx1, my1, zz1, m2, mx2, my2, zz2, Ia) in links.items():
        d2 = five_bar.D[leg][1]
        q1, q12 = q[f"q{leg}1"], q[f"q{leg}1"] + q[f"q{leg}2"]
        U -= (mx1 * np.sin(q1) + my1 * np.cos(q1)) * g
        U -= (mx2 * np.sin(q12) + my2 * np.cos(q12) + d2 * m2 * np.sin(q1)) * g
    return U


def leg_wrench(leg, q, qd, qdd, links=LINKS, printed=False):
    """(8.207)-(8.209): ``^{i1}f_{i1}`` (3,) and ``^{i1}m_{i1}`` (3,) of leg i
    (the tree leg alone, platform removed; no gravity in the plane).
    ``printed``: as in the seed; else with the sign of ``my_i2`` of the
    module and the term of ``m_i2 d_i2`` of (8.209) corrected (it moves with
    O_i2 at ``d_i2 x_i1``: ``m_i2 d_i2 (qdd_i1 y_i1 - qd_i1^2 x_i1)``)."""
    m1, mx1, my1, zz1, m2, mx2, my2, zz2, Ia = links[leg]
    d2 = five_bar.D[leg][1]
    q2 = q[f"q{leg}2"]
    a1, a2, w1, w2 = qdd[f"q{leg}1"], qdd[f"q{leg}2"], qd[f"q{leg}1"], qd[f"q{leg}2"]
    c, s = np.cos(q2), np.sin(q2)
    sy = 1.0 if printed else -1.0
    mz = ((zz1 + d2 ** 2 * m2) * a1 + zz2 * (a1 + a2)
          + d2 * mx2 * ((2 * a1 + a2) * c - w2 * (2 * w1 + w2) * s)
          + sy * d2 * my2 * ((2 * a1 + a2) * s + w2 * (2 * w1 + w2) * c))
    MX, extra = (mx2 + m2 * d2, 0.0) if printed else (mx2, m2 * d2 * np.array([-w1 ** 2, a1, 0]))
    f = (a1 * np.array([-my1, mx1, 0.0]) - w1 ** 2 * np.array([mx1, my1, 0.0])
         + (a1 + a2) * np.array([-my2 * c - s * MX, MX * c - my2 * s, 0.0])
         - (w1 + w2) ** 2 * np.array([MX * c - my2 * s, MX * s + my2 * c, 0.0]) + extra)
    return f, np.array([0.0, 0.0, mz])


def ground_wrench(q, qd, qdd, P, xdd, links=LINKS, printed=False):
    """(8.210)-(8.215): ``[^0f_0; ^0m_0]`` (6,) at O, base frame."""
    f_p = M_P * np.array([xdd[0], xdd[1], 0.0])                          # (8.210)
    total = np.concatenate([f_p, np.cross(P, f_p)])                     # (8.211): m_p = 0
    for k, leg in ((-1, "1"), (1, "2")):
        f, m = leg_wrench(leg, q, qd, qdd, links, printed)
        q1 = q[f"q{leg}1"]
        R = np.array([[np.cos(q1), -np.sin(q1), 0], [np.sin(q1), np.cos(q1), 0], [0, 0, 1]])
        r = np.array([abs(five_bar.D[leg][0]) * k, 0.0, 0.0])          # (8.214)
        total += np.concatenate([R @ f, R @ m + np.cross(r, R @ f)])   # (8.212)
    return total
