"""The DualV of the LIRMM: planar 4-RRR robot with one degree of actuation
redundancy (Briot & Khalil Section 8.5.3, Table 8.2 and the identified
parameters of Section 8.5.3.4).

Virtual tree, leg i = 1..4 (Table 8.2; Fig. 8.15 is missing, the reading
below is settled in docs/rigid.md):

* ``i1``: actuated revolute at A_i, ``gamma = gamma_i1``, ``d = 0.41`` m,
  ``theta = q_i1 - gamma_i1`` (q_i1 is the absolute angle of A_iB_i);
* ``i2`` at B_i (``d = 0.28``), ``i3`` at C_i (``d = 0.28``), passive;
* ``ip``: fixed frame at the platform centre P, ``d = 0.11`` m along
  x_i3, ``theta = +pi/2`` (legs 1, 2), ``-pi/2`` (legs 3, 4): it is the
  platform frame, welded to the platform (3 rows per leg in the plane).
  Legs 1 and 2 meet at C_1 = P + 0.11 y_p, legs 3 and 4 at
  C_3 = P - 0.11 y_p (two five-bar loops, Section 8.5.3.2).

Platform and payload are one rigid body at P: ``M = m4 + m5``,
``MX = mx4 + mx5``, ``ZZ = zz4 + zz5``; body i1 carries ``zz_i1R``
(``zz_i1 + Ia_i1 + d_i2^2 m_i2``), body i2 ``zz_i2``, ``mx_i2`` (M = 0,
not identifiable apart from zz_i1R); no friction. Gravity normal to the
plane. States ``q_tot = [q11 q12 q13 q21 ... q43, x, y, phi]``; 12
closure rows, 3 degrees of freedom, 4 actuators.

Working modes (not given): every elbow B_i away from the x_0 axis
(:data:`WORKING_MODES`, sign of ``(C_i - A_i) x (B_i - A_i)``).

The robot is its description file, cases/dualv.toml (this module never
builds it); this module holds the published data used by the tests' book
models, the closed-form inverse geometric model (an oracle of the file's
assembly, tests/cases/test_shipped.py) and the case's pose (P's x, y).
"""
from __future__ import annotations

import numpy as np

from flexpkm.cases.file_case import shipped_robot
from flexpkm.cases.planar_legs import fill_state, planar_case, two_link_ik, wrap
from flexpkm.model.description import Robot

PI = np.pi
LEGS = ("1", "2", "3", "4")
#: gamma_i1 of Table 8.2, rad
GAMMA = tuple(np.radians(g) for g in (15.52, 164.48, -164.48, -15.52))
#: d_i1 = |O A_i|, d_i2 = |A_i B_i|, d_i3 = |B_i C_i|, |C_i P| (Table 8.2), m
D1, D2, D3, DP = 0.41, 0.28, 0.28, 0.11
#: theta_pi of Table 8.2
THETA_P = (PI / 2, PI / 2, -PI / 2, -PI / 2)
#: Section 8.5.3.4 (SI): zz_i1R, zz_i2, mx_i2, my_i2
LEG_PARAMETERS = (4.92e-2, 2.23e-5, 0.012, 0.0)
#: platform (4) + payload (5): m, mx, my, zz
PLATFORM = (1.92 + 5.42, 0.0 - 1.27e-1, 0.0, 2.06e-2 + 1.61e-2)
WORKING_MODES = (-1, 1, -1, 1)
HOME = (0.0, 0.0)


def base_points() -> np.ndarray:
    """A_i (4, 2), m."""
    return D1 * np.stack([np.cos(GAMMA), np.sin(GAMMA)], axis=-1)


def robot(gravity=None) -> Robot:
    """The robot read from its description file (cases/dualv.toml, the only
    source); ``gravity`` (3,) m/s^2 replaces the file's (normal to the plane)."""
    return shipped_robot("dualv", gravity=gravity)


def platform_points(x, y, phi):
    """C_1 (= C_2) and C_3 (= C_4), each (..., 2), m: ``P +- 0.11 y_p``."""
    x, y, phi = np.broadcast_arrays(*(np.asarray(v, float) for v in (x, y, phi)))
    yp = np.stack([-np.sin(phi), np.cos(phi)], axis=-1)
    P = np.stack([x, y], axis=-1)
    return P + DP * yp, P - DP * yp


def inverse_geometric_model(x, y, phi=0.0, working_modes=WORKING_MODES):
    """Joint angles (rad) for the platform pose (x, y in m, phi in rad),
    (8.184), (8.188): a dict ``q_i1, q_i2, q_i3`` with
    ``q_i1 + q_i2 + q_i3 = phi - pi/2`` (legs 1, 2) or ``phi + pi/2``
    (legs 3, 4). Scalars or arrays of one shape.
    Raises :class:`flexpkm.errors.UnreachablePoseError` naming the leg."""
    phi = np.asarray(phi, float)
    C13 = platform_points(x, y, phi)
    out = {}
    for k, leg in enumerate(LEGS):
        C = C13[0] if k < 2 else C13[1]
        q1, q2 = two_link_ik(base_points()[k], C, D2, D3, working_modes[k], leg)
        out[f"q{leg}1"], out[f"q{leg}2"] = q1, q2
        out[f"q{leg}3"] = wrap(phi - THETA_P[k] - q1 - q2)
    return out


def configuration(model, x=HOME[0], y=HOME[1], phi=0.0, working_modes=WORKING_MODES):
    """``q_tot`` (n_tot,) of the assembled robot at the platform pose;
    arrays (B,) give (B, n_tot). Raises UnreachablePoseError."""
    q = inverse_geometric_model(x, y, phi, working_modes)
    x, y, phi = np.broadcast_arrays(*(np.asarray(v, float) for v in (x, y, phi)))
    return fill_state(model.layout, {**q, "x": x, "y": y, "phi": phi}, x.shape)


def extend(case):
    """The case of the file cases/dualv.toml with the closed-form pose
    parametrisation (P's x, y in m)."""
    return planar_case(case, "DualV, planar 4-RRR robot with actuation redundancy (Section 8.5.3)", robot, configuration, HOME)
