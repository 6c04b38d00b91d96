"""The DualEMPS: planar PRRRP flexible parallel robot of IRCCyN
(Briot & Khalil Section 10.7, Tables 10.1-10.2; natural frequencies,
Section 11.6.1, Table 11.1).

The robot is its description file, cases/dualemps.toml; this module holds
what a file cannot: the closed-form geometric models (oracles of the file's
assembly, tests/cases/test_dualemps.py), Table 11.1, the maneuvers and the
case's pose (the actuators q11, q21). The geometry the file encodes (the
book's figures are missing; this reading reproduces Table 11.1, see
docs/dualemps.md):

* base frame F_0; both prismatic actuators along z_0 (``r = q11``,
  ``r = q21``), their axes 0.4 m apart along x_0 (``d21``);
* all revolute axes along ``z_12 = -y_0``: the plane of motion is
  (x_0, z_0);
* each leg's frames lie on one straight line (``x_12``, ``x_22``);
* leg 2's passive revolute q25 at O25 coincides with O15 (both 0.6 m from
  their leg's revolute); the loop is cut there with a weld between F25 and
  F15; P = O18 is a massless point with coordinates ``(x_P, z_P)`` in F_0;
* bodies 15, 18 and 25 are massless; bodies 13, 16, 23 are planar
  Euler-Bernoulli beams (4 mm in the plane x 50 mm, duralumin), one element
  each (3 elastic coordinates: u_x, u_y, theta_z at the free end).
"""
from __future__ import annotations

import numpy as np

from dataclasses import replace

from flexpkm.cases.file_case import shipped_robot
from flexpkm.model.description import Robot
from flexpkm.errors import InvalidArgumentError, UnreachablePoseError
from flexpkm.analysis.trajectories import Trajectory

PI = np.pi

#: Table 10.2: m (kg), mx (kg m), zz (kg m^2), fs (N or N m), fv (N s/m or N m s/rad)
RIGID = {
    "11": (95.196, 0.000, 0.000, 25.0, 250.0),
    "12": (0.843, 0.004, 7.06e-4, 0.02, 0.08),
    "14": (0.396, 0.030, 0.003, 0.0, 0.0),
    "17": (0.177, 0.006, 2.56e-4, 0.0, 0.0),
    "21": (95.196, 0.000, 0.000, 25.0, 250.0),
    "22": (0.843, 0.004, 7.06e-4, 0.02, 0.08),
    "24": (0.190, 0.011, 9.44e-4, 0.0, 0.0),
}
#: flexible links: frame -> length (m)
FLEXIBLE = {"13": 0.4505, "16": 0.14, "23": 0.4505}

#: leg lengths from the revolute to O15 (= O25) and to P = O18, m
L_15 = 0.0675 + 0.4505 + 0.082
L_18 = L_15 + 0.065 + 0.14 + 0.035
BASE_GAP = 0.4
#: actuator stroke (0.25 m, Section 10.7); its position is not given: the
#: interval below contains the book's trajectories (0 to 0.2 m, and the
#: circle of Fig. 10.8, which needs q11 up to 0.208 m).
STROKE = (-0.025, 0.225)

#: Table 11.1, Hz, at q11 = q21 = 0
TABLE_11_1 = {
    "Adams": (14.41, 24.92, 49.78, 97.91, 110.86, 219.60),
    "Model": (14.22, 25.09, 48.22, 92.37, 109.08, 423.39),
    "Measured": (14.00, 25.00, 48.00, 93.00, 108.00, 163.00),
}
#: book's dependent coordinates (Section 10.7); its J_t^f is structurally
#: singular at q_e = 0 and ill-conditioned nearby (docs/dualemps.md), so the
#: robot does not declare it and the rank-revealing choice is used.
Q_DEP_BOOK = ("qe13_2", "qe13_3", "qe23_1", "qe23_2", "qe23_3")


def robot(gravity=None) -> Robot:
    """The DualEMPS, read from its description file (cases/dualemps.toml, the
    only source; default gravity normal to the plane of motion, the
    prototype's plane being horizontal, Section 11.6.1); ``gravity`` (3,)
    m/s^2 replaces the file's."""
    return shipped_robot("dualemps", gravity=gravity)


def check_stroke(q11, q21):
    """Raise :class:`UnreachablePoseError` when an actuator leaves its stroke."""
    for name, q in (("q11", q11), ("q21", q21)):
        q = np.asarray(q, float)
        if not np.all(np.isfinite(q)):
            raise InvalidArgumentError(f"{name} = {q} m is not finite")
        if np.any(q < STROKE[0] - 1e-12) or np.any(q > STROKE[1] + 1e-12):
            raise UnreachablePoseError(
                f"{name} = {np.round(q, 6)} m is outside the actuator stroke "
                f"[{STROKE[0]}, {STROKE[1]}] m")


def direct_geometric_model(q11, q21, check=True):
    """Passive joints and P from the actuators (rigid robot, q_e = 0).

    q11, q21 : m, scalars or arrays of the same shape.
    Returns dict of arrays: q12, q22, q25 (rad), P = (x_P, z_P) in F_0 (m).
    Raises :class:`UnreachablePoseError` outside the stroke or when the two
    legs cannot meet (|O12 O22| > 1.2 m).
    """
    q11, q21 = np.broadcast_arrays(np.asarray(q11, float), np.asarray(q21, float))
    if check:
        check_stroke(q11, q21)
    dx, dz = BASE_GAP, q21 - q11
    dist = np.hypot(dx, dz)
    if np.any(dist >= 2 * L_15):
        raise UnreachablePoseError(
            f"the legs cannot be assembled: |O12 O22| = {dist.max():.4f} m >= {2 * L_15} m")
    h = np.sqrt(L_15 ** 2 - dist ** 2 / 4)
    ax = dx / 2 - h * dz / dist                 # apex O15 relative to O12 (x, z)
    az = dz / 2 + h * dx / dist
    q12 = np.arctan2(az, ax)
    q22 = np.arctan2(az - dz, ax - dx)
    q25 = np.angle(np.exp(1j * (q12 - q22)))
    return {"q12": q12, "q22": q22, "q25": q25,
            "P": np.stack([L_18 * np.cos(q12), q11 + L_18 * np.sin(q12)], axis=-1)}


def inverse_geometric_model(x_P, z_P, check=True):
    """Actuator positions (q11, q21) that place P at (x_P, z_P) in F_0 (m),
    with leg 1 above its slider and leg 2 below the apex (the working mode of
    Table 11.1). Raises :class:`UnreachablePoseError`."""
    x_P, z_P = np.broadcast_arrays(np.asarray(x_P, float), np.asarray(z_P, float))
    c = x_P / L_18
    if np.any(np.abs(c) > 1):
        raise UnreachablePoseError(f"x_P = {x_P} m is farther than {L_18} m from leg 1's axis")
    q12 = np.arccos(c)
    q11 = z_P - L_18 * np.sin(q12)
    ox, oz = L_15 * np.cos(q12), q11 + L_15 * np.sin(q12)
    disc = L_15 ** 2 - (ox - BASE_GAP) ** 2
    if np.any(disc < 0):
        raise UnreachablePoseError(f"P = ({x_P}, {z_P}) m: leg 2 cannot reach O15")
    q21 = oz - np.sqrt(disc)
    if check:
        check_stroke(q11, q21)
    return q11, q21


def configuration(rob, q11=0.0, q21=0.0):
    """``q_tot`` (n_tot,) of the assembled robot at (q11, q21) (m) with
    q_e = 0: joint coordinates of the direct geometric model, then the
    platform coordinates (x_P, z_P)."""
    g = direct_geometric_model(q11, q21)
    layout = rob.layout
    q = np.zeros(layout.n_t)
    for name, value in (("q11", q11), ("q21", q21), ("q12", g["q12"]),
                        ("q22", g["q22"]), ("q25", g["q25"])):
        q[layout.index(name)] = value
    return np.concatenate([q, g["P"]])


# ---- maneuvers (the book's Fig. 10.7b is missing; these are ours) ---------
def maneuver(name):
    """Actuator trajectory ``t -> (q_a, qd_a, qdd_a)`` (m, m/s, m/s^2; each
    (m, 2)) of a named maneuver, all from rest at q11 = q21 = 0:

    * ``edge``: q11 0 -> 0.2 m in 1.8 s, q21 = 0, then 1.2 s at rest (3 s);
    * ``square``: (0,0) -> (0.2,0) -> (0.2,0.2) -> (0,0.2) -> (0,0), each edge
      1.8 s of motion then 1.2 s at rest (12 s);
    * ``fast``: q11 0 -> 0.1 m and q21 0 -> 0.05 m in 0.2 s, 0.8 s at rest;
    * ``circle``: P on the circle of radius 0.1 m centred at (x_P, z_P) =
      (0.28, 0.90) m in F0 (Fig. 10.8) at 0.20 m/s (see :class:`Circle`).
    """
    if name == "edge":
        return Trajectory(np.array([[0, 0], [0.2, 0]]), (1.8,), (1.2,))
    if name == "square":
        W = np.array([[0, 0], [0.2, 0], [0.2, 0.2], [0, 0.2], [0, 0]])
        return Trajectory(W, (1.8,) * 4, (1.2,) * 4)
    if name == "fast":
        return Trajectory(np.array([[0, 0], [0.1, 0.05]]), (0.2,), (0.8,))
    if name == "circle":
        return Circle()
    raise KeyError(f"unknown maneuver {name!r}; use edge, square, fast or circle")


MANEUVERS = ("edge", "square", "fast", "circle")


class Circle:
    """P on the circle of Fig. 10.8: centre (0.28, 0.90) m in (x0, z0),
    radius 0.1 m, counter-clockwise from its lowest point, 0.20 m/s.

    From rest at q11 = q21 = 0 the actuators first move (quintic, 0.5 s) to
    the circle's lowest point; the speed along the circle then rises to
    0.20 m/s with a quintic blend of 0.5 s, stays constant, falls back to 0 in
    0.5 s at the end of one revolution; then 0.5 s at rest.
    The actuator velocities and accelerations are central differences of the
    inverse geometric model (step 1e-5 s).
    """

    centre = np.array([0.28, 0.90])
    radius, speed, t_approach, t_ramp, t_rest = 0.1, 0.20, 0.5, 0.5, 0.5

    def __init__(self):
        q_start = np.array(inverse_geometric_model(*(self.centre - [0.0, self.radius])))
        self.approach = Trajectory(np.array([[0.0, 0.0], q_start]), (self.t_approach,), (0.0,))
        length = 2 * np.pi * self.radius
        self.t_cruise = (length - self.speed * self.t_ramp) / self.speed
        self.duration = self.t_approach + 2 * self.t_ramp + self.t_cruise + self.t_rest

    def arc_length(self, t):
        """Distance travelled on the circle at time t (s) from its start."""
        v, T = self.speed, self.t_ramp
        ramp = lambda u: v * T * (2.5 * u ** 4 - 3 * u ** 5 + u ** 6)   # int of quintic
        t = np.clip(t, 0.0, 2 * T + self.t_cruise)
        up = ramp(np.clip(t / T, 0, 1))
        cruise = v * np.clip(t - T, 0, self.t_cruise)
        down_t = np.clip((t - T - self.t_cruise) / T, 0, 1)
        down = v * T * down_t - ramp(down_t)
        return up + cruise + down

    def positions(self, t):
        """Actuator positions (m, 2) at times t."""
        t = np.atleast_1d(np.asarray(t, float))
        q = self.approach(np.minimum(t, self.t_approach))[0]
        on = t > self.t_approach
        if np.any(on):
            phi = -np.pi / 2 + self.arc_length(t[on] - self.t_approach) / self.radius
            P = self.centre + self.radius * np.stack([np.cos(phi), np.sin(phi)], axis=-1)
            q[on] = np.stack(inverse_geometric_model(P[:, 0], P[:, 1]), axis=-1)
        return q

    def __call__(self, t):
        t = np.atleast_1d(np.asarray(t, float))
        d = 1e-5
        qm, q0, qp = self.positions(t - d), self.positions(t), self.positions(t + d)
        return q0, (qp - qm) / (2 * d), (qp - 2 * q0 + qm) / d ** 2


def acc_P_y17(robot, model, qdd_r):
    """The book's accelerometer: acceleration of P = O18 along y17, m/s^2
    (a scalar for one state, (B,) for a batch)."""
    from flexpkm.algorithms.dynamics import point_acceleration
    return point_acceleration(robot, model, qdd_r, "18", axis_frame="17", axis=(0.0, 1.0, 0.0))


#: the same sensor for the compiled simulation (flexpkm.analysis.compiled_simulate)
acc_P_y17.point = ("18", "17", (0.0, 1.0, 0.0))


#: PD gains of the joint controllers: closed-loop pulsation 100 rad/s (the
#: prototype's cut-off, Section 10.7), critically damped, on the slider mass
#: plus the legs' share (~1 kg): kp = m w^2, kd = 2 m w.
PD_MASS = RIGID["11"][0] + 1.0
PD_GAINS = (PD_MASS * 100.0 ** 2, 2 * PD_MASS * 100.0)


def initial_state(rob, q11=0.0, q21=0.0):
    """All coordinates ``q_tot`` (n_tot,) of the assembled robot at rest."""
    return configuration(rob, q11, q21)


def simulation_setup(maneuver_name, drive="prescribed", gravity=None):
    """(robot, q0_tot, drive, sensors) for ``flexpkm simulate dualemps``.

    drive : ``"prescribed"`` (:class:`PrescribedMotion` of the maneuver),
    ``"pd"`` (:class:`PDControl` with :data:`PD_GAINS`) or ``"free"``.
    Raises :class:`flexpkm.errors.InvalidArgumentError` for another drive."""
    from flexpkm.analysis.drives import Free, PDControl, PrescribedMotion
    rob = robot() if gravity is None else robot(gravity=gravity)
    traj = maneuver(maneuver_name)
    kp, kd = PD_GAINS
    drives = {"prescribed": lambda: PrescribedMotion(traj),
              "pd": lambda: PDControl(traj, kp=np.array([kp, kp]), kd=np.array([kd, kd])),
              "free": Free}
    if drive not in drives:
        raise InvalidArgumentError(f"dualemps.simulation_setup: unknown drive {drive!r}; "
                                   f"use {', '.join(drives)}")
    return rob, initial_state(rob), drives[drive](), {"acc_P_y17": acc_P_y17}


def duration(maneuver_name):
    """Duration of a maneuver, s."""
    traj = maneuver(maneuver_name)
    return traj.duration


def _reference(pose, options):
    """Table 11.1 'Model' row at q11 = q21 = 0, else None."""
    return TABLE_11_1["Model"] if tuple(pose) == (0.0, 0.0) else None


def _simulation(maneuver_name, drive, options):
    return simulation_setup(maneuver_name, drive)


def extend(case):
    """The case of the file cases/dualemps.toml with what this module adds:
    the pose (q11, q21) in m with its closed-form configuration, Table 11.1,
    the maneuvers."""
    return replace(
        case, title="DualEMPS, planar PRRRP robot (Sections 10.7, 11.6.1)",
        pose_option="q-a", pose_names=("q11", "q21"), pose_units=("m", "m"),
        pose_default=(0.0, 0.0), options=(), robot=lambda options: robot(),
        configure=lambda model, pose, options: configuration(model, *(pose[..., k] for k in range(2))),
        reference=_reference, reference_label="book", view="normal",
        simulation=_simulation, maneuvers=MANEUVERS, duration=duration,
        extra={"source": case.source})
