"""Independent flexible multibody model of the planar DualEMPS robot in Exudyn.

This module deliberately does NOT import ``flexpkm`` (nor ``elements`` or
``cases``): it is an independent reference for flexpkm's elastodynamic model
of the DualEMPS (Briot & Khalil, *Dynamics of Parallel Robots*, Sect. 10.7).
Geometry and data come from :mod:`.opensees_dualemps` (itself independent).

Model (Exudyn 2D, Exudyn's (x, y) = the robot's plane (X, Z), SI units,
no gravity, no friction):

* sliders 11, 21: ``ObjectMassPoint2D`` (95.196 kg each, Table 10.2, motor
  inertia included); X fixed and Z *prescribed* by ``CoordinateConstraint``
  with an offset user function q(t).  The actuator force along Z is the
  constraint reaction (Lagrange multiplier), so tau includes the slider
  inertia;
* flexible links 13 (O13-O14), 16 (O16-O17), 23 (O23-O24): ANCF
  ``ObjectANCFCable2D`` elements (Euler-Bernoulli, cubic Hermite
  interpolation of the position with position-gradient nodes
  ``NodePoint2DSlope1``; mass rho*A only, no rotary inertia), ``n_el``
  elements per link (default 1);
* rigid links 12, 14(+15, massless extension to O16), 17(+18), 22,
  24(+25): ``ObjectRigidBody2D`` on a ``NodeRigidBody2D`` placed at the centre
  of mass (distance mx/m from the body's frame origin along the leg), with
  the inertia zz - m (mx/m)^2 about the centre of mass;
* revolute joints O12 (slider 1 / body 12), O22 (slider 2 / body 22) and
  O15 = O25 (body 14 / body 24): ``ObjectJointRevolute2D``;
* clamps between the rigid links and the beam ends: position by
  ``ObjectJointRevolute2D`` (rigid body point / ``MarkerNodePosition`` of the
  cable node) plus orientation by a ``CoordinateConstraint`` that sets the
  relative rotation (``MarkerBodiesRelativeRotationCoordinate``, rigid body
  vs. the cable's tangent angle at its end) to zero: the beam end slope stays
  aligned with the rigid body's x axis.

Outputs: tau (the two actuator forces along Z, N) and acc_P_y17, the
acceleration of P = O18 projected on body 17's y axis, y17 = (-sin a, cos a)
in (X, Z) where a is the current angle of body 17 (x17 from O17 towards P).

Eigenvalues (``natural_frequencies``): ``ComputeODE2Eigenvalues`` with the
constraints eliminated by a null-space projection; with one element per link
the first five frequencies equal the OpenSees model's (Hermite beams) to
~1e-9 relative (14.2068, 25.0421, 48.1560, 91.9073, 110.3259 Hz at home);
modes 6-8 (axial participation) differ by 1e-5 .. 2.5e-3 since the ANCF
cable interpolates the axial displacement with cubics (identical from 2
elements per link on).  An ANCF cable element has 8 coordinates (5
deformation modes), hence 15 finite modes with n_el = 1 instead of 9.

Time integration (``solver_settings``): Exudyn's implicit solver with a
constant step ``dt``, by default the trapezoidal rule (Newmark beta = 1/4,
gamma = 1/2, no numerical damping) with index-2 (velocity-level)
constraints, which gives accurate multipliers (tau).  The index-3
generalized-alpha option shows a spurious O(dt) oscillation of the
multipliers after each jerk discontinuity of the prescribed motion (t = 0
and the end of the quintic law): ~ slider mass x jerk jump x dt, i.e. 0.5 N
for ``edge`` and 70 N for ``fast`` at dt = 1e-3.  Newton's criterion is on
the increments (residualMode = 1, tol 1e-12): the residual criterion stalls
at the round-off floor of the stiff axial terms.

Accuracy (dt = 1e-4 s vs 5e-5 s): ``edge`` max |dtau| ~ 2e-3 N (max |tau|
35 N, legs' share 1.2 N), max |d acc_P_y17| ~ 7e-4 m/s^2 (max 0.67);
``fast``: the undamped modes at 436, 576, 1220 Hz (and ~4 kHz) are excited
by the jerk jumps and cannot be phase-converged over 1 s at any practical
step (raw differences ~0.4 N and 0.07 m/s^2); low-pass filtered at 200 Hz
the differences are 0.016 N and 0.02 m/s^2 (max |acc_P_y17| 15.4).
Rigid limit (E x 1e4, dt = 1e-3): tau equals the rigid inverse dynamic
model (:mod:`.rigid_dualemps`) to 2.5e-4 N (7e-6 of max |tau|, 3e-4 of
the legs' share).
"""

from __future__ import annotations

import math
import time

import numpy as np

from .opensees_dualemps import (A_SEC, E_DURAL, I_SEC, RHO_DURAL, RIGID, S1,
                                S2, dualemps_geometry)

SLIDER_MASS = 95.196  # kg, Table 10.2 (m11 = m21), motor inertia included

# flexible links: (leg, start point, end point)
FLEX = {"13": ("1", "O13", "O14"), "16": ("1", "O16", "O17"),
        "23": ("2", "O23", "O24")}

# maneuvers: (t_move, dq11, dq21, t_end)
MANEUVERS = {
    "edge": (1.8, 0.2, 0.0, 3.0),
    "fast": (0.2, 0.1, 0.05, 1.0),
}


# ----------------------------------------------------------------------------
# Motion laws
# ----------------------------------------------------------------------------
def quintic(t, t_move):
    """Quintic rest-to-rest law s(t) = 10 tau^3 - 15 tau^4 + 6 tau^5,
    tau = t / t_move (Appendix D, D.13 corrected), held at 1 afterwards.
    Returns (s, ds/dt, d2s/dt2) (arrays like t)."""
    t = np.asarray(t, dtype=float)
    tau = np.clip(t / t_move, 0.0, 1.0)
    s = tau**3 * (10.0 - 15.0 * tau + 6.0 * tau**2)
    sd = 30.0 * tau**2 * (1.0 - tau) ** 2 / t_move
    sdd = 60.0 * tau * (1.0 - tau) * (1.0 - 2.0 * tau) / t_move**2
    moving = (t > 0.0) & (t < t_move)
    return s, np.where(moving, sd, 0.0), np.where(moving, sdd, 0.0)


def maneuver_law(maneuver):
    """(t_end, law) where law(t) -> (q_a, qd_a, qdd_a), each of shape
    (len(t), 2), for a maneuver name ('edge', 'fast') or a tuple
    (t_move, dq11, dq21, t_end)."""
    if isinstance(maneuver, str):
        try:
            t_move, d1, d2, t_end = MANEUVERS[maneuver]
        except KeyError:
            raise ValueError(f"unknown maneuver {maneuver!r}; "
                             f"known: {sorted(MANEUVERS)}") from None
    else:
        t_move, d1, d2, t_end = maneuver
    amp = np.array([d1, d2], dtype=float)
    amps = (float(d1), float(d2))

    def law(t):
        s, sd, sdd = quintic(np.atleast_1d(t), t_move)
        return s[:, None] * amp, sd[:, None] * amp, sdd[:, None] * amp

    def scalar(t, col, order):
        """Fast scalar evaluation (user functions): derivative `order` of
        q_col at time t."""
        if t <= 0.0:
            return 0.0
        if t >= t_move:
            return amps[col] if order == 0 else 0.0
        x = t / t_move
        if order == 0:
            return amps[col] * x * x * x * (10.0 - 15.0 * x + 6.0 * x * x)
        if order == 1:
            return amps[col] * 30.0 * x * x * (1.0 - x) ** 2 / t_move
        return (amps[col] * 60.0 * x * (1.0 - x) * (1.0 - 2.0 * x)
                / t_move**2)

    law.scalar = scalar
    return float(t_end), law


# ----------------------------------------------------------------------------
# Model
# ----------------------------------------------------------------------------
def _angle(e):
    return math.atan2(float(e[1]), float(e[0]))


def build_model(q11=0.0, q21=0.0, n_el=1, E=E_DURAL, law=None):
    """Create and assemble the Exudyn system at (q11, q21) (undeformed
    beams, at rest).

    ``law``: None (sliders locked at q11, q21) or the law of
    :func:`maneuver_law` (slider displacements relative to q11, q21, with its
    ``scalar`` method used in the constraints' offset user functions).
    Returns (SC, mbs, handles dict: geo, slider_constraint, sensors, rigid,
    cables, sliders).
    """
    import exudyn as exu
    from exudyn.itemInterface import (
        MarkerBodiesRelativeRotationCoordinate, MarkerBodyPosition,
        MarkerNodeCoordinate, MarkerNodePosition, NodeGenericData,
        NodePoint2D, NodePoint2DSlope1, NodePointGround, NodeRigidBody2D,
        ObjectANCFCable2D, ObjectConnectorCoordinate, ObjectJointRevolute2D,
        ObjectMassPoint2D, ObjectRigidBody2D, SensorBody, SensorNode,
        SensorObject)

    if n_el < 1:
        raise ValueError("n_el must be >= 1")

    geo = dualemps_geometry(q11, q21)
    base = {"1": geo["O12"], "2": geo["O22"]}
    edir = {"1": geo["e1"], "2": geo["e2"]}
    ang = {leg: _angle(edir[leg]) for leg in edir}
    sabs = {**S1, **S2}

    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    h: dict = {"geo": geo}

    nG = mbs.AddNode(NodePointGround(referenceCoordinates=[0.0, 0.0, 0.0]))
    mG = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=nG, coordinate=0))

    # --- sliders ----------------------------------------------------------
    h["slider_constraint"] = {}
    sliders = {}
    for leg, col in (("1", 0), ("2", 1)):
        p0 = base[leg]
        n = mbs.AddNode(NodePoint2D(referenceCoordinates=[float(p0[0]),
                                                          float(p0[1])]))
        o = mbs.AddObject(ObjectMassPoint2D(mass=SLIDER_MASS,
                                            nodeNumber=n))
        sliders[leg] = o
        mx = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=n, coordinate=0))
        mz = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=n, coordinate=1))
        mbs.AddObject(ObjectConnectorCoordinate(markerNumbers=[mG, mx]))
        if law is None:
            oc = mbs.AddObject(ObjectConnectorCoordinate(
                markerNumbers=[mG, mz]))
        else:
            def uf(mbs_, t, itemNumber, lOffset, _c=col):
                return law.scalar(t, _c, 0)

            def uf_t(mbs_, t, itemNumber, lOffset, _c=col):
                return law.scalar(t, _c, 1)

            oc = mbs.AddObject(ObjectConnectorCoordinate(
                markerNumbers=[mG, mz], offsetUserFunction=uf,
                offsetUserFunction_t=uf_t))
        h["slider_constraint"][leg] = oc

    # --- rigid bodies -----------------------------------------------------
    rigid = {}

    def add_rigid(body):
        m, mx, zz, s0 = RIGID[body]
        leg = body[0]
        d = mx / m
        pc = base[leg] + (s0 + d) * edir[leg]
        n = mbs.AddNode(NodeRigidBody2D(referenceCoordinates=[
            float(pc[0]), float(pc[1]), ang[leg]]))
        o = mbs.AddObject(ObjectRigidBody2D(mass=m,
                                            inertia=zz - m * d * d,
                                            nodeNumber=n))
        rigid[body] = (o, n, leg, s0 + d)
        return o

    for body in RIGID:
        add_rigid(body)

    def rigid_marker(body, point):
        o, _, leg, sc = rigid[body]
        return mbs.AddMarker(MarkerBodyPosition(
            bodyNumber=o, localPosition=[sabs[point] - sc, 0.0, 0.0]))

    # --- flexible bodies (ANCF cable 2D) -------------------------------------
    Eeff = float(E)
    cables = {}
    for link, (leg, pa_name, pb_name) in FLEX.items():
        pa, pb = geo[pa_name], geo[pb_name]
        length = float(np.linalg.norm(pb - pa))
        e = (pb - pa) / length
        nodes = [mbs.AddNode(NodePoint2DSlope1(referenceCoordinates=[
            float(p[0]), float(p[1]), float(e[0]), float(e[1])]))
            for p in (pa + (pb - pa) * k / n_el for k in range(n_el + 1))]
        elems = [mbs.AddObject(ObjectANCFCable2D(
            length=length / n_el,
            massPerLength=RHO_DURAL * A_SEC,
            bendingStiffness=Eeff * I_SEC,
            axialStiffness=Eeff * A_SEC,
            nodeNumbers=[nodes[k], nodes[k + 1]])) for k in range(n_el)]
        cables[link] = (nodes, elems, length / n_el)

    def clamp(body, point, link, end):
        """Rigid connection of the cable `link` end (0: start, 1: end) to the
        rigid `body` at `point`."""
        nodes, elems, le = cables[link]
        node = nodes[0] if end == 0 else nodes[-1]
        elem = elems[0] if end == 0 else elems[-1]
        mR = rigid_marker(body, point)
        mC = mbs.AddMarker(MarkerNodePosition(nodeNumber=node))
        mbs.AddObject(ObjectJointRevolute2D(markerNumbers=[mR, mC]))
        o, _, _, sc = rigid[body]
        nD = mbs.AddNode(NodeGenericData(numberOfDataCoordinates=1,
                                         initialCoordinates=[0.0]))
        mRel = mbs.AddMarker(MarkerBodiesRelativeRotationCoordinate(
            bodyNumbers=[o, elem],
            localPosition0=[sabs[point] - sc, 0.0, 0.0],
            localPosition1=[0.0 if end == 0 else le, 0.0, 0.0],
            axis0=[0.0, 0.0, 1.0], nodeNumber=nD))
        mbs.AddObject(ObjectConnectorCoordinate(markerNumbers=[mG, mRel]))

    def revolute(ma, mb):
        mbs.AddObject(ObjectJointRevolute2D(markerNumbers=[ma, mb]))

    msl = {leg: mbs.AddMarker(MarkerBodyPosition(
        bodyNumber=o, localPosition=[0.0, 0.0, 0.0]))
        for leg, o in sliders.items()}
    # leg 1
    revolute(msl["1"], rigid_marker("12", "O12"))
    clamp("12", "O13", "13", 0)
    clamp("14", "O14", "13", 1)
    clamp("14", "O16", "16", 0)
    clamp("17", "O17", "16", 1)
    # leg 2
    revolute(msl["2"], rigid_marker("22", "O22"))
    clamp("22", "O23", "23", 0)
    clamp("24", "O24", "23", 1)
    # passive revolute O15 = O25
    revolute(rigid_marker("14", "O15"), rigid_marker("24", "O25"))

    # --- sensors ----------------------------------------------------------
    ovt = exu.OutputVariableType
    o17, n17, _, sc17 = rigid[("17")]
    h["sensors"] = {
        "tau1": mbs.AddSensor(SensorObject(
            objectNumber=h["slider_constraint"]["1"], storeInternal=True,
            writeToFile=False, outputVariableType=ovt.Force)),
        "tau2": mbs.AddSensor(SensorObject(
            objectNumber=h["slider_constraint"]["2"], storeInternal=True,
            writeToFile=False, outputVariableType=ovt.Force)),
        "accP": mbs.AddSensor(SensorBody(
            bodyNumber=o17, localPosition=[S1["O18"] - sc17, 0.0, 0.0],
            storeInternal=True, writeToFile=False,
            outputVariableType=ovt.Acceleration)),
        "posP": mbs.AddSensor(SensorBody(
            bodyNumber=o17, localPosition=[S1["O18"] - sc17, 0.0, 0.0],
            storeInternal=True, writeToFile=False,
            outputVariableType=ovt.Position)),
        "rot17": mbs.AddSensor(SensorNode(
            nodeNumber=n17, storeInternal=True, writeToFile=False,
            outputVariableType=ovt.Rotation)),
        "q1": mbs.AddSensor(SensorNode(
            nodeNumber=mbs.GetObject(sliders["1"])["nodeNumber"],
            storeInternal=True, writeToFile=False,
            outputVariableType=ovt.Position)),
        "q2": mbs.AddSensor(SensorNode(
            nodeNumber=mbs.GetObject(sliders["2"])["nodeNumber"],
            storeInternal=True, writeToFile=False,
            outputVariableType=ovt.Position)),
    }
    h.update(rigid=rigid, cables=cables, sliders=sliders)
    mbs.Assemble()
    return SC, mbs, h


# ----------------------------------------------------------------------------
# Natural frequencies
# ----------------------------------------------------------------------------
def natural_frequencies(q11=0.0, q21=0.0, n_modes=9, n_el=1, E=E_DURAL):
    """First ``n_modes`` natural frequencies (Hz, ascending) of the DualEMPS
    with locked actuators at (q11, q21): Exudyn's ComputeODE2Eigenvalues with
    the constraints eliminated by a null-space projection (SVD of the
    constraint Jacobian)."""
    SC, mbs, _ = build_model(q11, q21, n_el=n_el, E=E)
    lam, _ = mbs.ComputeODE2Eigenvalues(useAbsoluteValues=False,
                                        ignoreAlgebraicEquations=False)
    lam = np.sort(np.real(np.asarray(lam)))
    if lam[0] <= 0.0:
        raise RuntimeError(f"non-positive eigenvalue (mechanism?): {lam[:3]}")
    return np.sqrt(lam[:n_modes]) / (2.0 * math.pi)


# ----------------------------------------------------------------------------
# Simulation with prescribed slider motion
# ----------------------------------------------------------------------------
# actuator force = TAU_SIGN * the 'Force' output (Lagrange multiplier) of the
# slider's Z coordinate constraint (checked by the tests: tau ~ m_s * qdd)
TAU_SIGN = -1.0

INTEGRATORS = ("trapezoidal_index2", "generalized_alpha")


def solver_settings(t_final, dt, integrator="trapezoidal_index2",
                    spectral_radius=0.9, tol=1e-12, output_every=1,
                    verbose=False):
    """Exudyn simulation settings (implicit, constant step).

    integrator:
      * 'trapezoidal_index2' (default): Newmark beta = 1/4, gamma = 1/2
        (trapezoidal rule, no numerical damping) with index-2 (velocity
        level) constraints: Lagrange multipliers (hence tau) are accurate,
        O(dt^2), without the spurious period-2 oscillation of index-3 forms;
      * 'generalized_alpha': Exudyn's generalized-alpha with index-3
        constraints and spectral radius ``spectral_radius`` (numerical
        damping of the high frequencies) -- its multipliers show an O(dt)
        oscillation after each jerk discontinuity of the prescribed motion
        (slider mass 95 kg x jerk jump x dt), decaying with spectral_radius.
    tol: Newton tolerance on the increments (residualMode = 1), relative and
    absolute; the residual-based criterion hits the round-off floor of the
    stiff (axial) beam terms, the increment-based one does not.
    """
    import exudyn as exu

    if integrator not in INTEGRATORS:
        raise ValueError(f"unknown integrator {integrator!r}: {INTEGRATORS}")
    ss = exu.SimulationSettings()
    ti = ss.timeIntegration
    ti.numberOfSteps = int(round(t_final / dt))
    ti.endTime = t_final
    ti.adaptiveStep = False
    ti.verboseMode = 1 if verbose else 0
    ga = ti.generalizedAlpha
    ga.computeInitialAccelerations = True
    if integrator == "trapezoidal_index2":
        ga.useNewmark = True
        ga.useIndex2Constraints = True
        ga.newmarkBeta = 0.25
        ga.newmarkGamma = 0.5
    else:
        ga.useNewmark = False
        ga.useIndex2Constraints = False
        ga.spectralRadius = spectral_radius
    ti.newton.useModifiedNewton = True
    ti.newton.residualMode = 1
    ti.newton.relativeTolerance = tol
    ti.newton.absoluteTolerance = tol
    ss.solution.file.write = False
    ss.solution.sensors.writePeriod = dt * output_every
    ss.show.statistics = False
    ss.show.computationTime = False
    return ss


def simulate_prescribed(maneuver, t_end=None, dt=1e-4, n_el=1, E=E_DURAL,
                        integrator="trapezoidal_index2", spectral_radius=0.9,
                        tol=1e-12, output_every=1, verbose=False):
    """Simulate the flexible DualEMPS with prescribed slider motion.

    maneuver: 'edge' | 'fast' | (t_move, dq11, dq21, t_end).  Starts at rest
    at q11 = q21 = 0 with undeformed beams.  ``E``: Young's modulus of the
    beams (e.g. 1e4 * E_DURAL for the rigid limit).  Outputs every
    ``output_every`` steps.  Returns a dict with

    * t (n,), q_a (n, 2) (slider positions from the simulation), tau (n, 2)
      (actuator forces along Z, N, slider inertia included), acc_P_y17 (n,)
      (m/s^2);
    * pos_P (n, 2), acc_P (n, 2) (global (X, Z)), angle17 (n,) (rad);
    * cpu_s (solver wall time), steps, law (the prescribed law).
    """
    import exudyn as exu

    t_final, law = maneuver_law(maneuver)
    if t_end is not None:
        t_final = float(t_end)
    SC, mbs, h = build_model(0.0, 0.0, n_el=n_el, E=E, law=law)
    ss = solver_settings(t_final, dt, integrator, spectral_radius, tol,
                         output_every, verbose)

    t0 = time.perf_counter()
    mbs.SolveDynamic(ss, solverType=exu.DynamicSolverType.GeneralizedAlpha)
    cpu = time.perf_counter() - t0

    def data(name):
        return np.asarray(mbs.GetSensorStoredData(h["sensors"][name]))

    d1, d2 = data("tau1"), data("tau2")
    t = d1[:, 0]
    tau = TAU_SIGN * np.column_stack([d1[:, 1], d2[:, 1]])
    acc = data("accP")[:, 1:3]
    a = data("rot17")[:, 3]          # rotation about the normal (z) axis
    y17 = np.column_stack([-np.sin(a), np.cos(a)])
    acc_y17 = np.sum(acc * y17, axis=1)
    q_a = np.column_stack([data("q1")[:, 2], data("q2")[:, 2]])
    q_a = q_a - np.array([h["geo"]["O12"][1], h["geo"]["O22"][1]])
    return {"t": t, "q_a": q_a, "tau": tau, "acc_P_y17": acc_y17,
            "pos_P": data("posP")[:, 1:3], "acc_P": acc, "angle17": a,
            "cpu_s": cpu, "steps": int(ss.timeIntegration.numberOfSteps),
            "law": law}


if __name__ == "__main__":
    import exudyn

    np.set_printoptions(precision=6, suppress=True, linewidth=120)
    print("exudyn", exudyn.__version__)
    print("frequencies at home (Hz):", natural_frequencies(n_modes=9))
    for man in MANEUVERS:
        r = simulate_prescribed(man)
        print(f"{man}: {r['steps']} steps in {r['cpu_s']:.2f} s, "
              f"max|tau| = {np.abs(r['tau']).max(axis=0)} N, "
              f"max|acc_P_y17| = {np.abs(r['acc_P_y17']).max():.4f} m/s^2")
