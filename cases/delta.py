"""Müller's 3RR[2RR]R Delta robot (A. Müller, *Dynamics of Parallel
Manipulators with Hybrid Complex Limbs*, Section 8 and Fig. 13): three
identical limbs, each an actuated revolute A_i (upper arm), an elbow revolute
about u_i (link 2), a parallelogram of two rods with revolutes at both ends
normal to its plane ([2RR]), link 4 and a revolute about u_i to the
platform, which only translates while the parallelograms are rigid. The
seed lost the dimensions; the data are this project's (docs/delta.md), SI
units. The robot is its description file, cases/delta.toml; this module
holds its closed-form inverse geometric model (an oracle of the file's
assembly, tests/cases/test_delta.py) and the case's pose.

Platform coordinates: x, y, z (the pose, commanded). The flexible model's
platform also turns (its rods bend): ``build_model`` adds rx, ry, rz as
dependent coordinates that the assembly solves (issue 16,
:mod:`flexpkm.model.completion`); with them locked, as shipped before, f1
was 3-5 % high (docs/delta.md).

Base frame: z up, gravity 9.81 m/s^2 along -z. Limb i at ``phi_i = 0, 120,
240 deg``: ``e_i = (cos phi_i, sin phi_i, 0)``, ``u_i = (-sin phi_i, cos
phi_i, 0)``; ``A_i = 0.20 e_i``; ``q_i`` = angle of the upper arm below the
horizontal, ``B_i = A_i + L1 (cos q_i e_i - sin q_i e_z)``; ``C_i = P + 0.05
e_i``; rods from ``B_i +/- 0.05 u_i`` to ``C_i +/- 0.05 u_i``.

Representative limb (local frames, leg i gives ``i1 ... i8``; coordinates
``q_i1`` actuated, ``q_i2`` elbow, ``q_i3`` rod 1, ``q_i4`` link 4 on rod 1,
``q_i6`` rod 2):

* ``1``: revolute at A_i, z = u_i, x along the upper arm (gamma = phi_i,
  alpha = -pi/2, d = 0.20); carries the upper arm (x from 0 to L1);
* ``2``: elbow at B_i (d = L1), z = u_i; carries link 2 (centred at B_i);
* ``3`` / ``6``: rod revolutes at ``B_i +/- 0.05 u_i`` (b = +/-0.05, alpha =
  -pi/2, so z = y_2 is normal to the parallelogram plane); each carries a rod
  along x (0.80 m);
* ``4``: link 4 on rod 1's end (d = 0.80), z normal to the plane;
  ``5`` (fixed): C_i on link 4, z = u_i, carries link 4; ``8`` (fixed): link
  4's point ``C_i - 0.05 u_i``; ``7`` (fixed): rod 2's end;
* closures: ``7-8`` revolute (the parallelogram's fourth joint, a planar loop
  in a spatial robot: 3 of its 5 rows are redundant in the rigid model) and
  ``5``-platform revolute about u_i (its 2 rotation rows are redundant in the
  rigid model: link 4 only turns about u_i and the platform only translates).
"""
from __future__ import annotations

import numpy as np

from dataclasses import replace

from flexpkm.cases.case import Option
from flexpkm.cases.file_case import shipped_robot

LEGS = ("1", "2", "3")
PHI = (0.0, 2 * np.pi / 3, 4 * np.pi / 3)          #: limb angles about z_0, rad
R_A = 0.20                                          #: |O A_i|, m
L1 = 0.35                                           #: upper arm A_i B_i, m
L2 = 0.80                                           #: rods, m
H = 0.05                                            #: half width of the parallelogram, m
R_P = 0.05                                          #: |P C_i|, m
GRAVITY = (0.0, 0.0, -9.81)
HOME = (0.0, 0.0, -0.80)                            #: the reference platform position, m


def robot(flexible=False, gravity=None):
    """The Delta read from its description file (cases/delta.toml, the only
    source): flexible (upper arms and rods are 3D beams) or, by default, its
    variant ``rigid`` (solid cylinders). Platform dofs x, y, z (commanded;
    the model of a flexible one adds the rotations rx, ry, rz, dependent),
    reference configuration at :data:`HOME`; ``gravity`` (3,) m/s^2 replaces
    the file's."""
    return shipped_robot("delta", None if flexible else "rigid", gravity)


def leg_axes(i):
    """(e_i, u_i) of leg index i (0, 1, 2), base frame."""
    c, s = np.cos(PHI[i]), np.sin(PHI[i])
    return np.array([c, s, 0.0]), np.array([-s, c, 0.0])


# ---- inverse geometric model (closed form) --------------------------------
def actuator_angles(P, legs=(0, 1, 2)):
    """Closed-form inverse geometric model, knee outward: ``q_i`` (..., 3)
    (rad) placing the platform at P (..., 3) (m, base frame).

    ``|C_i - B_i| = L2`` with ``D = C_i - A_i = (x, y, z)`` in (e_i, u_i,
    e_z): ``x cos q - z sin q = K``, ``K = (|D|^2 + L1^2 - L2^2) / (2 L1)``,
    i.e. ``cos(q + delta) = K / R``, ``R = sqrt(x^2 + z^2)``, ``delta =
    atan2(z, x)``; knee outward is ``q + delta = -arccos(K / R)``.
    legs : leg indices computed (default all three; (..., len(legs)) out).
    Raises :class:`UnreachablePoseError` naming the leg when ``|K| > R``."""
    from flexpkm.errors import UnreachablePoseError
    P = np.asarray(P, float)
    out = []
    for i in legs:
        e, u = leg_axes(i)
        D = P + R_P * e - R_A * e
        x, y, z = D @ e, D @ u, D[..., 2]
        K = (x * x + y * y + z * z + L1 ** 2 - L2 ** 2) / (2 * L1)
        R = np.hypot(x, z)
        if np.any(np.abs(K) > R):
            raise UnreachablePoseError(f"Delta leg {LEGS[i]}: the platform point C{LEGS[i]} is "
                                       f"out of reach of the upper arm and rods (|K| > R)")
        ck = K / R
        sk = -np.sqrt(1 - ck * ck)
        out.append(np.arctan2(sk * x / R - ck * z / R, ck * x / R + sk * z / R))
    return np.stack(out, -1)


def joint_angles(P, legs=(0, 1, 2)) -> dict:
    """Every joint coordinate of the rigid robot at P (..., 3): ``{"q11":
    ..., "q36": ...}`` (rad), from :func:`actuator_angles` and the rods'
    direction ``w = (C_i - B_i) / L2``: the elbow turns the parallelogram's
    plane about u_i until it holds w (``q_i1 + q_i2 = atan2(-x_2 . e_z,
    x_2 . e_i)``, ``x_2`` = w without its u_i component), ``q_i3 = q_i6 =
    -asin(w . u_i)``, ``q_i4 = -q_i3`` (link 4 parallel to link 2).
    legs : leg indices computed (default all three)."""
    P = np.asarray(P, float)
    q = actuator_angles(P, legs)
    out = {}
    for k, i in enumerate(legs):
        leg = LEGS[i]
        e, u = leg_axes(i)
        B = R_A * e + L1 * (np.cos(q[..., k, None]) * e
                            - np.sin(q[..., k, None]) * np.array([0, 0, 1.0]))
        w = (P + R_P * e - B) / L2
        wu = w @ u
        x2 = w - wu[..., None] * u
        psi = np.arctan2(-x2[..., 2], x2 @ e)
        q3 = np.arctan2(-wu, np.linalg.norm(x2, axis=-1))
        out.update({f"q{leg}1": q[..., k], f"q{leg}2": psi - q[..., k], f"q{leg}3": q3,
                    f"q{leg}4": -q3, f"q{leg}6": q3})
    return out


def configuration(model, P):
    """``q_tot`` (n_tot,) or (B, n_tot) of the robot (rigid, or flexible at
    q_e = 0: its platform rotations rx, ry, rz are 0) with the platform at P
    (3,) or (B, 3), m, in closed form."""
    P = np.asarray(P, float)
    q = np.zeros(P.shape[:-1] + (model.layout.n_tot,))
    for name, value in joint_angles(P).items():
        q[..., model.layout.index(name)] = value
    for k, name in enumerate(("x", "y", "z")):
        q[..., model.layout.index(name)] = P[..., k]
    return q


# ---- inverse dynamics along a path ----------------------------------------
def straight_line(start, stop, duration, rate=1000.0):
    """Samples of the straight line from ``start`` to ``stop`` (3,) (m) with
    the quintic law ``s = 10 tau^3 - 15 tau^4 + 6 tau^5``, ``tau = t /
    duration`` (s), every ``1 / rate`` s, both ends included
    (:func:`flexpkm.analysis.idm.straight_path`). Returns (t (n,), P, Pd,
    Pdd (n, 3)) in m, m/s, m/s^2. Raises InvalidArgumentError for a
    non-positive duration or rate."""
    from flexpkm.analysis.idm import straight_path
    t, s, sd, sdd = straight_path(start, stop, duration, rate)
    start = np.asarray(start, float)
    delta = np.asarray(stop, float) - start
    return t, start + s[:, None] * delta, sd[:, None] * delta, sdd[:, None] * delta


def idm_path(model, start, stop, duration, rate=1000.0):
    """Rigid inverse dynamics (10.124) along the straight line ``start ->
    stop`` of P with the quintic law, vectorised over the samples:
    :func:`flexpkm.analysis.idm.path_inverse_dynamics` on the closed-form
    inverse geometric model (:func:`configuration`).

    model : the rigid Delta (``build_model(robot(flexible=False))``); start,
    stop : (3,) platform positions, m; duration : s; rate : samples per second.
    Returns (t (n,) s, q_a (n, 3) rad, tau (n, 3) N m), actuators in leg order.
    Raises :class:`InvalidArgumentError` for a model with elastic (or other
    non-actuated independent) coordinates, :class:`UnreachablePoseError`
    when the path leaves the workspace."""
    from flexpkm.analysis.idm import path_inverse_dynamics
    res = path_inverse_dynamics(model, lambda poses: configuration(model, poses), start, stop,
                                duration, rate=rate)
    return res.t, res.q_a, res.tau


def _robot(options):
    return robot(flexible=not options["rigid"])


def _configure(model, pose, options):
    return configuration(model, np.asarray(pose, float))


def extend(case):
    """The case of the file cases/delta.toml with the closed-form pose
    (x, y, z, :func:`configuration`) and the option ``--rigid`` (the file's
    variant ``rigid``)."""
    return replace(
        case, title="Müller's 3RR[2RR]R Delta (parallelogram limbs; --pose x y z)",
        pose_option="pose", pose_names=("x", "y", "z"), pose_units=("m", "m", "m"),
        pose_default=HOME, robot=_robot, configure=_configure, reference_label="none",
        options=(Option("rigid", "rigid links (default: upper arms and rods are 3D beams)",
                        kind="flag", default=False),),
        variant=lambda options: "rigid" if options["rigid"] else None,
        extra={"idm": True, "idm_options": {"rigid": True}, "source": case.source})
