"""The NaVARo (Nantes Variable Actuation Robot): planar 3-DOF parallel robot
with three parallelogram legs, modelled as a spatial flexible mechanism
(Briot & Khalil Section 11.6.2, Tables 11.2-11.4, Fig. 11.3).

Description (frames of leg i, Table 11.2; every joint axis along z_0):

* A_i = 0.4041 m (cos gamma_i, sin gamma_i), gamma_i = pi/2, -5pi/6, -pi/6
  (O at the centre of the equilateral triangle A_1 A_2 A_3);
* frames i1 and i2 on the base at A_i: ``gamma_i``, ``d = 0.4041``,
  ``theta = q_ij - gamma_i``, so that q_i1 and q_i2 are the angles of links
  i1 (A_iD_i) and i2 (A_iB_i) from x_0;
* i3 (B_i, ant i2, d = 0.21, q_i3), i4 (C_i, ant i3, d = 0.21, q_i4),
  i5 (E_i, d = 0.42 from C_i along link i4, q_i5); link i4 = C_iE_i passes
  through D_i at its middle and A_iB_iC_iD_i is a parallelogram, so
  ``E_i = A_i + 0.21 (u(q_i1) - u(q_i2))``, ``u(a) = (cos a, sin a)``;
* link i5 = E_iP (0.2027 m), the three segments welded at the massless point
  P (a :class:`flexpkm.model.description.Platform` without body, 6 dofs).

The robot is its description file, cases/navaro.toml (the actuation
modes and the refined model are its variants); this module holds its
closed-form inverse geometric model (an oracle of the file's assembly,
tests/cases/test_navaro.py), Table 11.4 and the case's pose.

Flexible model (Section 11.6.2.1): one :class:`flexpkm.elements.beam.Beam3D` per link
i1, i2, i3, i5, two per link i4 (C_iD_i carried by frame i4, D_iE_i by the
fixed frame i4D at D_i). Cut joints: a revolute about z at D_i between the
fixed frame i1D (end of link i1) and frame i4D, and a weld at P between the
fixed frame i5P (end of link i5) and the platform. Spatial model:
108 elastic + 15 joint + 6 platform coordinates, 33 constraints; with both
clutches locked (q_i1, q_i2 locked) 90 independent coordinates (the book's
90; see docs/navaro.md for the bookkeeping of the book's 144).

The unknowns the book does not state were settled with Table 11.4 (pose 1,
every frequency within 0.01 %) and the reachability of Fig. 11.3's poses,
see docs/navaro.md: e_i = PE_i makes the angle +pi/3 with OA_i at theta = 0
(:data:`PLATFORM_ANGLE`; at theta = -pi/3, pose 2, every E_i points towards
A_i), working mode -1 in every leg (:data:`WORKING_MODES`), link i5 is 40 mm
in the plane of motion x 10 mm (Iz = 5.333e-8 m^4 as printed, Iy = 3.333e-9,
the printed 3.333e-8 is a typo), G = E / (2 (1 + 0.33)) = 27.82 GPa (the
printed 28.9 GPa puts f_4 0.9 % off).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from flexpkm.cases.case import Option
from flexpkm.cases.file_case import shipped_robot
from flexpkm.model.description import constrained_rows
from flexpkm.errors import (InvalidArgumentError, InvalidDescriptionError,
                            SingularConfigurationError, UnreachablePoseError)
from flexpkm.algorithms.closure import with_platform

PI = np.pi
LEGS = ("1", "2", "3")
#: gamma_i of Table 11.2, rad
GAMMA = (PI / 2, -5 * PI / 6, -PI / 6)
#: |O A_i| (d_1 of Table 11.2), m
D_1 = 0.4041
#: link lengths |A_iB_i| = |B_iC_i| = |A_iD_i| = |C_iD_i| = |D_iE_i|, m
L_LINK = 0.21
#: platform circumradius |E_iP| (l_5i), m
L_5 = 0.2027
#: largest |A_iE_i| (leg fully extended), m
REACH = 2 * L_LINK

#: the printed shear modulus of the duralumin, Pa (Section 11.6.2.1; the file
#: takes G = E / (2 (1 + 0.33)) = 27.82 GPa, see docs/navaro.md)
G_PRINTED = 28.9e9

#: angle from OA_i to PE_i at theta = 0, rad: e_i = l_5 u(gamma_i + pi/3), so
#: that at theta = -pi/3 (pose 2) every E_i points towards A_i (settled with
#: Table 11.4 and the reachability of Fig. 11.3's poses, see docs/navaro.md)
PLATFORM_ANGLE = PI / 3
#: working mode of each leg (see :func:`leg_angles`): -1 = link i1 (A_iD_i)
#: clockwise from A_iE_i, the mode of Table 11.4
WORKING_MODES = (-1, -1, -1)

#: Table 11.4, pose 1 (x = y = theta = 0), both clutches locked, Hz
TABLE_11_4_POSE_1 = (44.10, 44.10, 53.98, 60.63, 95.62)
#: Fig. 11.3 poses as printed: (x_p (m), y_p (m), theta_p (rad))
FIG_11_3 = {1: (0.0, 0.0, 0.0), 2: (0.0, 0.0, -PI / 3), 3: (0.117, 0.068, -PI / 3),
            4: (0.182, 0.105, PI / 3), 5: (0.117, 0.068, -PI / 3),
            6: (0.182, 0.105, -PI / 3), 7: (0.0, 0.135, -PI / 3), 8: (0.0, 0.21, -PI / 3)}
#: book's own count (Section 11.6.2.1): 144 = 108 elastic + 12 passive joints
#: + 18 intermediary + 6 platform coordinates, 90 independent
BOOK_COUNTS = {"elastic": 108, "passive joints": 12, "intermediary": 18,
               "platform": 6, "total": 144, "independent": 90}


def parse_actuation(actuation):
    """Normalise an actuation mode.

    ``"locked"`` (both clutches of every leg locked: the book's test
    condition, Table 11.4) -> ``"locked"``; three digits ``(1, 2, 1)`` or
    ``"121"`` (per leg, 1 = q_i1 actuated, 2 = q_i2 actuated: the 8 actuation
    modes of Section 11.6.2.1) -> tuple of ints. Raises
    :class:`InvalidDescriptionError` otherwise.
    """
    if isinstance(actuation, str) and actuation.strip().lower() == "locked":
        return "locked"
    digits = list(actuation.replace(" ", "")) if isinstance(actuation, str) else list(actuation)
    try:
        modes = tuple(int(c) for c in digits)
    except (TypeError, ValueError):
        modes = ()
    if len(modes) != 3 or any(m not in (1, 2) for m in modes):
        raise InvalidDescriptionError(
            f"NaVARo actuation must be 'locked' or three digits in {{1, 2}} "
            f"(actuated joint q_i1 or q_i2 of legs 1, 2, 3), got {actuation!r}")
    return modes


def variant(actuation="locked", refined=False):
    """The variant of cases/navaro.toml of an actuation mode
    (:func:`parse_actuation`: None for ``"locked"``, ``"actuation_a_b_c"``)
    or of the refined model (``"refined"``; the actuation is then ignored)."""
    if refined:
        return "refined"
    mode = parse_actuation(actuation)
    return None if mode == "locked" else "actuation_" + "_".join(map(str, mode))


def robot(actuation="locked", refined=False, gravity=None):
    """The NaVARo read from its description file (cases/navaro.toml, the only
    source) in the variant :func:`variant` of ``actuation`` (``"locked"``,
    default: q_i1 and q_i2 both locked, the test condition of Table 11.4, or
    one of the 8 modes, e.g. ``(1, 2, 1)``; the actuated joints have ``mu = 1``
    and are locked by :func:`flexpkm.algorithms.modal.natural_frequencies`)
    and ``refined`` (Section 11.6.2.3: point masses at the passive joints,
    clutch springs on q_i1 and q_i2, nothing locked); ``gravity`` (3,) m/s^2
    replaces the file's (no effect on the natural frequencies). Frames ``i1,
    i1D, i2, i3, i4, i4D, i5, i5P`` per leg. Raises
    :class:`InvalidDescriptionError` for a bad actuation."""
    return shipped_robot("navaro", variant(actuation, refined), gravity)


def coordinate_counts(rob):
    """Coordinates by kind: dict with elastic, joint, platform, total,
    constraints, actuated (locked), independent (after locking), and the
    book's count for comparison (``book``)."""
    layout = rob.layout
    n_el = sum(s.stop - s.start for s in layout.elastic_slice.values())
    n_c = sum(len(constrained_rows(rob, c)) for c in rob.closures)
    n_a = len(layout.actuated)
    return {"elastic": n_el, "joint": len(layout.joint_index), "platform": layout.n_p,
            "total": layout.n_tot, "constraints": n_c, "actuated": n_a,
            "independent": layout.n_tot - n_c - n_a, "book": dict(BOOK_COUNTS)}


# ---- geometric models ------------------------------------------------------
def base_points():
    """A_i, (3, 2) in F_0, m."""
    g = np.array(GAMMA)
    return D_1 * np.stack([np.cos(g), np.sin(g)], -1)


def platform_points(x, y, theta):
    """E_i = P + R(theta) e_i, (..., 3, 2), m, with e_i = 0.2027 m
    u(gamma_i + :data:`PLATFORM_ANGLE`) in F_p."""
    x, y, theta = np.broadcast_arrays(*(np.asarray(v, float) for v in (x, y, theta)))
    a = np.array(GAMMA) + PLATFORM_ANGLE + theta[..., None]
    return np.stack([x, y], -1)[..., None, :] + L_5 * np.stack([np.cos(a), np.sin(a)], -1)


def _wrap(a):
    return np.angle(np.exp(1j * a))


def _leg_refused(n):
    """``(far, singular)`` (B,) masks of the distances ``n = |A_iE_i|`` (B,) m:
    out of reach, or at a leg singularity (folded or fully extended)."""
    tol = 1e-9 * REACH
    far = n > REACH * (1 + 1e-12)
    return far, ~far & ((n < tol) | (n > REACH - tol))


def _leg_error(n, leg, where=""):
    """The error of leg ``leg`` refused at ``n = |A_iE_i|`` (m, :func:`_leg_refused`)."""
    if n > REACH * (1 + 1e-12):
        return UnreachablePoseError(
            f"NaVARo leg {leg}: |A{leg}E{leg}| = {n:.6g} m > {REACH} m, "
            f"the leg cannot reach its platform point E{leg}{where}")
    what = "folded (E on A)" if n < 1e-9 * REACH else "fully extended"
    return SingularConfigurationError(
        f"NaVARo leg {leg} is at a singularity: |A{leg}E{leg}| = {n:.6g} m, the leg is {what}",
        matrix="leg inverse geometric model", where=f"leg {leg}")


def leg_angles(v, s, leg):
    """Angles (q_1, q_2) of one leg with ``v = A_iE_i`` (..., 2) (m) and working
    mode s = +1/-1: ``v = L_LINK (u(q_1) - u(q_2))``; u(q_1) makes the angle
    ``s arccos(|v| / 0.42)`` with v. Raises :class:`UnreachablePoseError`
    when |v| > 0.42 m and :class:`SingularConfigurationError` at the leg's
    singularities |v| = 0 (folded) and |v| = 0.42 m (extended), both naming
    the leg."""
    n = np.linalg.norm(v, axis=-1)
    far, singular = _leg_refused(np.atleast_1d(n))
    if far.any() or singular.any():
        k = int(np.argmax(far)) if far.any() else int(np.argmax(singular))
        raise _leg_error(np.atleast_1d(n)[k], leg,
                         f" (pose {k} of the batch)" if np.ndim(n) else "")
    phi = np.arctan2(v[..., 1], v[..., 0])
    beta = s * np.arccos(np.clip(n / REACH, -1, 1))
    return _wrap(phi + beta), _wrap(phi - beta + PI)


def inverse_geometric_model(x, y, theta, working_modes=WORKING_MODES):
    """Joint angles of the rigid robot placing P at (x, y) (m, F_0) with the
    orientation theta (rad) of x_p from x_0.

    x, y, theta : scalars or arrays broadcasting together (batch shape S).
    working_modes : three signs (+1/-1), one per leg (:func:`leg_angles`).
    Returns dict ``"q<i><j>"`` -> array of shape S (rad, i = leg, j = 1..5),
    and ``"A", "B", "C", "D", "E"`` -> (S + (3, 2)) joint points in F_0 (m).
    Raises :class:`UnreachablePoseError` / :class:`SingularConfigurationError`
    naming the leg.
    """
    if not all(np.all(np.isfinite(np.asarray(v, float))) for v in (x, y, theta)):
        raise InvalidArgumentError(f"NaVARo pose x = {x}, y = {y}, theta = {theta}: not finite")
    s = np.asarray(working_modes, float)
    if s.shape != (3,) or np.any(np.abs(s) != 1):
        raise InvalidDescriptionError(f"working modes must be three signs +1/-1, got {working_modes!r}")
    E = platform_points(x, y, theta)
    A = base_points()
    theta = np.broadcast_to(np.asarray(theta, float), E.shape[:-2])
    out = {"A": np.broadcast_to(A, E.shape), "E": E}
    pts = {k: [] for k in "BCD"}
    u = lambda a: np.stack([np.cos(a), np.sin(a)], -1)
    for i, leg in enumerate(LEGS):
        q1, q2 = leg_angles(E[..., i, :] - A[i], s[i], leg)
        out[f"q{leg}1"], out[f"q{leg}2"] = q1, q2
        out[f"q{leg}3"] = _wrap(q1 - q2)
        out[f"q{leg}4"] = _wrap(q2 + PI - q1)
        out[f"q{leg}5"] = _wrap(GAMMA[i] + PLATFORM_ANGLE + theta - q2)   # x_i5 along E_i -> P
        pts["B"].append(A[i] + L_LINK * u(q2))
        pts["D"].append(A[i] + L_LINK * u(q1))
        pts["C"].append(pts["B"][-1] + L_LINK * u(q1))
    out.update({k: np.stack(v, -2) for k, v in pts.items()})
    return out


def configuration(rob, x=0.0, y=0.0, theta=0.0, working_modes=WORKING_MODES):
    """``q_tot`` of the assembled robot at the platform pose(s), q_e = 0:
    the joint coordinates of :func:`inverse_geometric_model`, then the
    platform coordinates (P and the rotation vector (0, 0, theta) of F_p).

    x, y (m), theta (rad): scalars -> (n_tot,); arrays of shape (B,) -> (B, n_tot).
    """
    g = inverse_geometric_model(x, y, theta, working_modes)
    layout = rob.layout
    shape = np.shape(g["q11"])
    q = np.zeros(shape + (layout.n_t,))
    for leg in LEGS:
        for j in range(1, 6):
            q[..., layout.index(f"q{leg}{j}")] = g[f"q{leg}{j}"]
    q_tot = with_platform(rob, q.reshape(-1, layout.n_t))
    return q_tot.reshape(shape + (layout.n_tot,))


def pose_configurations(rob, poses, working_modes=WORKING_MODES):
    """``q_tot`` (B, n_tot) for platform poses (B, 3) = (x, y, theta) rows."""
    p = np.atleast_2d(np.asarray(poses, float))
    if p.shape[-1] != 3:
        raise InvalidDescriptionError(f"poses must be (B, 3) rows (x, y, theta), got {p.shape}")
    return configuration(rob, p[:, 0], p[:, 1], p[:, 2], working_modes)


def masked_configurations(rob, poses, working_modes=WORKING_MODES):
    """``(q_tot (B, n_tot), statuses (B,) list)`` of platform poses (B, 3) =
    (x, y, theta) rows that never raises for a pose: a refused pose (a leg out
    of reach or at its singularity, the first leg in order) has a NaN row and
    the status ``"<ErrorClass>: <message>"`` of :func:`configuration`'s error
    at that pose alone; the others :func:`configuration`'s q_tot and ``"ok"``
    (the workspace maps' batched closed form, no bisection of a batch)."""
    p = np.atleast_2d(np.asarray(poses, float))
    if p.ndim != 2 or p.shape[-1] != 3 or not np.isfinite(p).all():
        raise InvalidArgumentError(f"poses must be finite (B, 3) rows (x, y, theta), got {p.shape}")
    n = np.linalg.norm(platform_points(p[:, 0], p[:, 1], p[:, 2]) - base_points(), axis=-1)
    status = ["ok"] * len(p)
    refused = np.zeros(len(p), bool)
    for i, leg in enumerate(LEGS):
        far, singular = _leg_refused(n[:, i])
        for b in np.flatnonzero((far | singular) & ~refused):
            e = _leg_error(n[b, i], leg)
            status[b] = f"{type(e).__name__}: {e}"
        refused |= far | singular
    q = np.full((len(p), rob.layout.n_tot), np.nan)
    if not refused.all():
        q[~refused] = pose_configurations(rob, p[~refused], working_modes)
    return q, status


def rotate_pose(pose, k=1):
    """The pose of the robot turned by k x 120 deg about z_0 (legs relabelled:
    leg i takes the place of leg i + k): ``(x, y) -> R(2 pi k / 3) (x, y)``
    and theta *unchanged*. Indeed with E_i = P + R(theta) e_i and
    e_{i+1} = R(120 deg) e_i, turning the robot gives E'_{i+1} = R E_i =
    R P + R(theta) e_{i+1}: the platform angle theta (measured on the
    labelled vertices) does not change, as in Fig. 11.3 where poses 3, 5, 7
    all have theta = -pi/3. (Mapping theta to theta + 120 deg instead connects
    leg i to the vertex next to A_{i+1}: another, in practice unreachable,
    configuration.) pose (..., 3) -> (..., 3). With non-uniform working
    modes, the modes are permuted too: (s_1, s_2, s_3) -> (s_3, s_1, s_2)
    for k = 1."""
    p = np.asarray(pose, float)
    a = 2 * PI * k / 3
    c, s = np.cos(a), np.sin(a)
    return np.stack([c * p[..., 0] - s * p[..., 1], s * p[..., 0] + c * p[..., 1], p[..., 2]], -1)


# ---- the case as the front ends see it ------------------------------------
def _robot(options):
    return robot(actuation=options["actuation"], refined=bool(options["refined"]))


def _configure(model, pose, options):
    pose = np.asarray(pose, float)
    return configuration(model, pose[..., 0], pose[..., 1], pose[..., 2],
                         tuple(options["working_modes"]))


def _reference(pose, options):
    """Table 11.4 at pose 1 with both clutches locked (default working
    modes, not refined), else None."""
    if (tuple(pose) == (0.0, 0.0, 0.0) and parse_actuation(options["actuation"]) == "locked"
            and not options["refined"] and tuple(options["working_modes"]) == WORKING_MODES):
        return TABLE_11_4_POSE_1
    return None


def extend(case):
    """The case of the file cases/navaro.toml with the closed-form pose
    (x, y, theta), Table 11.4 and the options that choose the file's variant
    (``--actuation``, ``--refined``) and the working modes of the pose."""
    return replace(
        case, title="NaVARo, planar 3-DOF robot with parallelogram legs (Section 11.6.2)",
        pose_option="pose", pose_names=("x", "y", "theta"), pose_units=("m", "m", "rad"),
        pose_default=(0.0, 0.0, 0.0), robot=_robot, configure=_configure, reference=_reference,
        reference_label="book", view="auto",
        options=(
            Option("working_modes", "working mode (+1/-1) of legs 1-3 (default -1 -1 -1, Table 11.4)",
                   kind="ints", default=WORKING_MODES, choices=(-1, 1), nargs=3),
            Option("actuation", "'locked' (both clutches locked, default) or three digits 1/2: the "
                                "actuated joint q_i1 or q_i2 of legs 1-3 (Section 11.6.2.1)",
                   kind="text", default="locked"),
            Option("refined", "refined model of Section 11.6.2.3: joint masses and clutch springs "
                              "(default: off)", kind="flag", default=False)),
        variant=lambda options: variant(options["actuation"], bool(options["refined"])),
        extra={"source": case.source,
               "masked_configure": lambda model, poses, options: masked_configurations(
                   model, poses, tuple(options["working_modes"]))})
