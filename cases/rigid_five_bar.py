"""The rigid planar five-bar mechanism of IFMA (Briot & Khalil Sections
7.1.2.1 and 8.4.3.1, Table 7.1; data of Section 8.4.3.1).

Virtual tree (Fig. 8.6 is missing; settled in docs/rigid.md):

* leg 1: revolute ``11`` (actuated, A11 at ``d11 = -0.14`` m on x_0),
  revolute ``12`` (A12, ``d12 = 0.213``), fixed frame ``13`` at the tip
  A13 (``d13 = 0.1878``); leg 2 the same from A21 at ``d21 = +0.14`` m;
* the end effector is a point mass m4 at P = A13, a free translating body
  with coordinates ``(x, y)``; each leg's tip is cut from it by a revolute
  joint (2 rows each in the plane). The book's passive q13 (massless,
  frictionless body 13, Table 7.1) is not a coordinate here: it would carry
  no effort (8.118) and is the angle ``q21 + q22 - q11 - q12`` (7.8);
* the identified base parameters of Section 8.4.3.1: ``zz11R`` (8.119)
  lumps ``zz11 + Ia11 + d12^2 m12``, so body 11 carries ``ZZ = zz11R`` and
  body 12 ``ZZ = zz12``, ``MX = mx12`` with ``M = 0`` (the mass m12 is not
  identifiable apart from zz11R); friction ``fv``, ``fs`` on q11 and q21;
* gravity is normal to the plane (the book's model (8.116) has none).

States are ``q_tot = [q11, q12, q21, q22, x, y]``. Working modes: elbows
out (A12 left of A11 -> P, A22 right of A21 -> P), see :data:`WORKING_MODES`.

The robot is its description file, cases/rigid_five_bar.toml (this module never
builds it); this module holds the published data used by the tests' book
models, the closed-form inverse geometric model (an oracle of the file's
assembly, tests/cases/test_shipped.py) and the case's pose (P's x, y).
"""
from __future__ import annotations

import numpy as np

from flexpkm.cases.file_case import shipped_robot
from flexpkm.cases.planar_legs import fill_state, planar_case, two_link_ik
from flexpkm.model.description import Robot

#: Section 8.4.3.1, m: d_i1 (base point on x_0), d_i2 = |A_i1 A_i2|, d_i3 = |A_i2 A_13|
D = {"1": (-0.14, 0.213, 0.1878), "2": (0.14, 0.213, 0.1878)}
#: identified parameters of Section 8.4.3.1 (SI): zz_i1R, zz_i2, mx_i2, my_i2, fv_i1, fs_i1
PARAMETERS = {"1": (2.11e-2, 2.23e-5, 0.012, 0.0, 6.76, 2.94),
              "2": (2.24e-2, 2.44e-5, 0.012, 0.0, 6.75, 2.95)}
#: end-effector mass m4, kg
M4 = 0.272
#: (7.15) sign per leg: +1 elbow on the left of A_i1 -> P, -1 on the right
WORKING_MODES = (1, -1)
#: default pose of P, m (x, y)
HOME = (0.0, 0.25)


def robot(gravity=None) -> Robot:
    """The robot read from its description file (cases/rigid_five_bar.toml, the only
    source); ``gravity`` (3,) m/s^2 replaces the file's (normal to the plane)."""
    return shipped_robot("rigid_five_bar", gravity=gravity)


def inverse_geometric_model(x, y, working_modes=WORKING_MODES):
    """Joint angles (rad) placing P at (x, y) (m, base frame), (7.15)-(7.16).

    x, y : scalars or arrays of one shape. Returns a dict q11, q12, q21, q22.
    Raises :class:`flexpkm.errors.UnreachablePoseError` naming the leg.
    """
    P = np.stack(np.broadcast_arrays(np.asarray(x, float), np.asarray(y, float)), axis=-1)
    out = {}
    for (leg, (d1, d2, d3)), mode in zip(D.items(), working_modes):
        out[f"q{leg}1"], out[f"q{leg}2"] = two_link_ik(np.array([d1, 0.0]), P, d2, d3, mode, leg)
    return out


def configuration(model, x=HOME[0], y=HOME[1], working_modes=WORKING_MODES):
    """``q_tot`` (n_tot,) of the assembled robot with P at (x, y) (m); arrays
    of shape (B,) give (B, n_tot). Raises UnreachablePoseError."""
    q = inverse_geometric_model(x, y, working_modes)
    x, y = np.broadcast_arrays(np.asarray(x, float), np.asarray(y, float))
    return fill_state(model.layout, {**q, "x": x, "y": y}, x.shape)


def extend(case):
    """The case of the file cases/rigid_five_bar.toml with the closed-form pose
    parametrisation (P's x, y in m)."""
    return planar_case(case, "rigid five-bar mechanism of IFMA (Sections 7.1.2.1, 8.4.3.1)", robot, configuration, HOME)
