"""Actuator elasticity in the time domain (Briot & Khalil Section 10.5,
Eqs. 10.125-10.126): motor coordinates ``q_M`` (one per actuator) joined to
the actuated joints ``q_a`` by the transmission springs ``K_a = diag(k_a)``.

Equations (derivation in docs/simulation.md, "Actuator elasticity"):

* motor side:  ``tau = I_a qdd_M + F_vM qd_M + f_sM tanh(qd_M / eps) + K_a
  (q_M - q_a)`` (the Coulomb friction (8.31) smoothed as the joints', eps
  the simulation's ``coulomb_smoothing``; the sign when eps = 0);
* robot side:  ``M qdd_r + c = [K_a (q_M - q_a); 0]`` (10.123 with the
  spring's effort in place of tau).

The drive (:mod:`flexpkm.analysis.drives`) acts on the motor side: a
:class:`PrescribedMotion` prescribes ``q_M(t)`` and returns the motor torque
``tau`` of the first row; :class:`PDControl` feeds back ``q_M``, ``qd_M``;
:class:`Free` and :class:`EffortHistory` give ``tau``. The integrator is the
HHT scheme of :mod:`flexpkm.analysis.hht` on the augmented coordinates
``[q_tot; q_M]`` (velocities ``[qd_r; qd_M]``): ``J_aug = diag(J, 1)``,
``b_aug = [b; 0]``, ``M_aug = diag(M, I_a)``. The rotor inertia must be
positive unless the motors are prescribed (an algebraic motor row
otherwise: :class:`InvalidArgumentError`).

Initial state: a prescribed motion starts with the spring carrying the
rigid-actuator effort of (10.124) at t = 0 (``q_a(0) = q_M(0) - K_a^-1
tau_0``, loops closed again), so the motion starts in the quasi-static state
of the springs and tends to the rigid-actuator one as ``k_a`` grows; the
other drives start with the springs carrying the drive's torque at t = 0,
``q_M(0) = q_a(0) + K_a^-1 tau(0)`` (tau evaluated at ``q_M = q_a``; a
:class:`Free` drive: springs at rest).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from flexpkm.algorithms.closure import project_on_loops
from flexpkm.algorithms.dynamics import direct_dynamics, full_dynamics, inverse_dynamics
from flexpkm.algorithms.energy import recorded_energies
from flexpkm.algorithms.virtual_system import friction_damping
from flexpkm.analysis.hht import HHT, Evaluation, StepState
from flexpkm.analysis.simulation_options import Motors
from flexpkm.analysis.wrenches import wrench_at


@dataclass(frozen=True)
class MotorDynamics:
    """The augmented model seen by :func:`flexpkm.analysis.hht.hht_step`:
    M (n_r + n_a,)^2, J (n_tot + n_a, n_r + n_a), b (n_tot + n_a,), and the
    robot's ``full`` model (10.123) with its ``indep``, ``dep``, ``n_a``."""

    M: np.ndarray
    J: np.ndarray
    b: np.ndarray
    full: object

    @property
    def dep(self):
        return self.full.dep

    @property
    def indep(self):
        return self.full.indep

    @property
    def n_a(self):
        return self.full.n_a

    @property
    def rows(self):
        return self.full.rows


def augment(full, motors: Motors) -> MotorDynamics:
    """``diag(M, I_a)``, ``diag(J, 1)``, ``[b; 0]``."""
    na, (n_tot, n_r) = full.n_a, full.J.shape
    M = np.zeros((n_r + na,) * 2)
    M[:n_r, :n_r], M[n_r:, n_r:] = full.M, np.diag(motors.inertia)
    J = np.zeros((n_tot + na, n_r + na))
    J[:n_tot, :n_r], J[n_tot:, n_r:] = full.J, np.eye(na)
    return MotorDynamics(M, J, np.concatenate([full.b, np.zeros(na)]), full)


def spring_effort(full, motors, q):
    """``K_a (q_M - q_a)`` (n_a,) at the augmented positions ``q``
    (transmission torque on the actuated joints, N m or N)."""
    return motors.k * (q[full.J.shape[0]:] - q[full.indep[:full.n_a]])


def motor_friction(motors, qd_m, eps):
    """``(F_vM qd_M + f_sM tanh(qd_M / eps), its derivative)`` (n_a,) each,
    N m or N and N m s/rad or N s/m; ``sign`` and no Coulomb derivative
    when eps = 0."""
    if eps > 0:
        th = np.tanh(qd_m / eps)
        return (motors.viscous * qd_m + motors.coulomb * th,
                motors.viscous + motors.coulomb / eps * (1.0 - th ** 2))
    return motors.viscous * qd_m + motors.coulomb * np.sign(qd_m), motors.viscous


def motor_evaluator(model, drive, dep, n_r, motors, o, wrench=None):
    """``evaluate(t, q, v) -> Evaluation`` on the augmented state:
    ``g = [c - [s; 0]; F_vM qd_M + f_sM tanh(qd_M / eps) + s - tau]`` with ``s = K_a (q_M - q_a)``,
    the damping and stiffness of the iteration matrix (the spring couples
    the rows a and M) and the force terms of the residual's scale."""
    K_tot, na, k = model.K_tot, len(motors.k), motors.k
    n_tot = model.layout.n_tot
    kp, kd = drive.gains(na)
    a, m = np.arange(na), n_r + np.arange(na)

    def evaluate(t, q, v):
        full = full_dynamics(model, q[:n_tot], v[:n_r], dep=dep, gravity=o.gravity,
                             friction=o.friction, coulomb_smoothing=o.coulomb_smoothing,
                             loop_tol=None, wrench=wrench_at(wrench, t, "simulate: wrench"))
        s = spring_effort(full, motors, q)
        tau = np.zeros(na) if drive.prescribes_actuators else drive.efforts(t, q[n_tot:], v[n_r:])
        J = full.J
        friction, damping = motor_friction(motors, v[n_r:], o.coulomb_smoothing)
        g = np.concatenate([full.c, friction + s - tau])
        g[a] -= s
        D, K = np.zeros((2, n_r + na, n_r + na))
        if o.friction:
            D[:n_r, :n_r] = (J.T * friction_damping(model, J @ v[:n_r], o.coulomb_smoothing)) @ J
        D[m, m] += damping + kd
        K[:n_r, :n_r] = J.T @ K_tot @ J
        K[a, a] += k
        K[m, m] += k + kp
        K[a, m] -= k
        K[m, a] -= k
        forces = np.zeros((4, n_r + na))
        forces[0, :n_r], forces[1, m], forces[2, :n_r] = full.c, tau, J.T @ (K_tot @ q[:n_tot])
        forces[0, m] = friction
        forces[3, a], forces[3, m] = s, s
        return Evaluation(augment(full, motors), g, D, K, forces)
    return evaluate


def motor_initial_state(model, q, v, m, drive, motors, evaluate) -> StepState:
    """The augmented StepState at t = 0 (module docstring): q (n_tot,)
    assembled, v (n_r,) the robot's velocities, m its FullDynamics."""
    na = len(motors.k)
    if drive.prescribes_actuators:
        q_m, qd_m, qdd_m = drive.actuator_state(0.0)
        tau0 = inverse_dynamics(m, qdd_m)[0]
        q = q.copy()
        q[m.indep[:na]] = q_m - tau0 / motors.k
        q, _ = project_on_loops(model, q, m.dep)
        v = v.copy()
        v[:na] = qd_m
    else:                                   # the springs carry the drive's torque at t = 0
        q_m, qd_m = q[m.indep[:na]], v[:na]
        q_m = q_m + np.asarray(drive.efforts(0.0, q_m, qd_m), float) / motors.k
    qa, va = np.concatenate([q, q_m]), np.concatenate([v, qd_m])
    ev = evaluate(0.0, qa, va)
    if drive.prescribes_actuators:
        a_m = qdd_m
        a_r = direct_dynamics(ev.full.full, spring_effort(ev.full.full, motors, qa))
    else:
        a_all = np.linalg.solve(ev.full.M, -ev.g)
        a_r, a_m = a_all[:len(v)], a_all[len(v):]
    return StepState(0.0, qa, va, np.concatenate([a_r, a_m]), ev.g, ev.full)


def motor_hht(h, alpha, n_r, n_tot, na, drive, tol, iterations) -> HHT:
    """HHT parameters on the augmented coordinates: the motor rows are the
    prescribed ones of a :class:`PrescribedMotion`, none otherwise."""
    known = n_r + np.arange(na) if drive.prescribes_actuators else np.arange(0)
    return HHT(h, alpha, np.setdiff1d(np.arange(n_r + na), known),
               n_tot + np.arange(na) if len(known) else np.arange(0), known, tol, iterations)


def motor_torque(s: StepState, drive, motors, t, eps):
    """The motor torque ``tau`` (n_a,) of the state: the first row of
    (10.125) for a prescribed motion (``eps`` the Coulomb smoothing), the
    drive's otherwise."""
    full = s.full.full
    n_tot, n_r = full.J.shape
    if drive.prescribes_actuators:
        return (motors.inertia * s.a[n_r:] + motor_friction(motors, s.v[n_r:], eps)[0]
                + spring_effort(full, motors, s.q))
    return drive.efforts(t, s.q[n_tot:], s.v[n_r:])


def motor_energy(s: StepState, motors):
    """``(kinetic, elastic)`` of the motors: ``1/2 I_a qd_M^2`` and
    ``1/2 k_a (q_M - q_a)^2`` summed (J)."""
    full = s.full.full
    n_tot, n_r = full.J.shape
    stretch = s.q[n_tot:] - s.q[full.indep[:full.n_a]]
    return 0.5 * motors.inertia @ s.v[n_r:] ** 2, 0.5 * motors.k @ stretch ** 2


class MotorRecorder:
    """Wraps a :class:`flexpkm.analysis.simulate.Recorder` (``rec``; its
    other attributes are read through) to keep the motor positions q_m and
    velocities qd_m (n_out, n_a) too, the motor torque as ``tau`` and the
    motors' kinetic and spring energies in ``energy`` (``eps`` the Coulomb
    smoothing of the motor torque, ``actuated`` the q_tot columns of q_a)."""

    def __init__(self, rec, motors, eps=0.0, actuated=None):
        n_out, na = len(rec.t), len(motors.k)
        self.rec, self.motors, self.eps, self.actuated = rec, motors, eps, actuated
        self.q_m, self.qd_m = np.zeros((n_out, na)), np.zeros((n_out, na))
        self.motor_kinetic, self.spring = np.zeros(n_out), np.zeros(n_out)

    def __getattr__(self, name):
        return getattr(self.rec, name)

    def record(self, k, s: StepState, drive, drift, residual=0.0):
        rec, m = self.rec, s.full.full
        n_tot, n_r = m.J.shape
        q, v, a = s.q[:n_tot], s.v[:n_r], s.a[:n_r]
        tau = motor_torque(s, drive, self.motors, rec.t[k], self.eps)
        kin, spring = motor_energy(s, self.motors)
        self.motor_kinetic[k], self.spring[k] = kin, spring
        self.q_m[k], self.qd_m[k] = s.q[n_tot:], s.v[n_r:]
        energy = 0.5 * v @ m.M @ v + 0.5 * q @ rec.model.K_tot @ q + kin + spring
        values = {name: fn(rec.model, m, a) for name, fn in rec.sensors.items()}
        rec.store(k, q[None], v[None], np.asarray(tau, float)[None], [energy], [drift],
                  [residual], {name: [x] for name, x in values.items()})

    def store(self, k0, q, v, tau, energy, drift, residual, values, progress=None):
        """Samples computed by the compiled step
        (:mod:`flexpkm.compiled.motors`): q (K, n_tot + n_a), v (K, n_r +
        n_a) augmented as in :meth:`record`, the rest as
        :meth:`flexpkm.analysis.simulate.Recorder.store`."""
        n_tot, na = self.rec.model.layout.n_tot, len(self.motors.k)
        n_r, ks = v.shape[1] - na, slice(k0, k0 + len(q))
        self.q_m[ks], self.qd_m[ks] = q[:, n_tot:], v[:, n_r:]
        stretch = q[:, n_tot:] - q[:, self.actuated]
        self.motor_kinetic[ks] = 0.5 * (self.motors.inertia * v[:, n_r:] ** 2).sum(axis=1)
        self.spring[ks] = 0.5 * (self.motors.k * stretch ** 2).sum(axis=1)
        self.rec.store(k0, q[:, :n_tot], v[:, :n_r], tau, energy, drift, residual, values,
                       progress)

    def result(self, indep, n_sub, h):
        n = self.rec.n_done
        return replace(self.rec.result(indep, n_sub, h), q_m=self.q_m[:n], qd_m=self.qd_m[:n])

    def energies(self, res, gravity):
        """The robot's energies with the rotors' kinetic energy in
        ``kinetic`` and the transmission springs' in ``elastic``."""
        n = self.rec.n_done
        e = recorded_energies(self.rec.model, res.q, res.energy - self.motor_kinetic[:n]
                              - self.spring[:n], gravity)
        return replace(e, kinetic=e.kinetic + self.motor_kinetic[:n],
                       elastic=e.elastic + self.spring[:n])


def motor_setup(model, q, v, m, drive, motors, o, n_sub, rec, wrench):
    """``(evaluate, HHT, initial StepState, MotorRecorder)`` of a simulation
    with elastic transmissions (:func:`flexpkm.simulate`); ``rec`` the
    simulation's Recorder (n_a efforts)."""
    n_r, na = len(m.indep), m.n_a
    evaluate = motor_evaluator(model, drive, m.dep, n_r, motors, o, wrench)
    p = motor_hht(o.dt_out / n_sub, float(o.hht_alpha), n_r, model.layout.n_tot, na, drive,
                  o.tol, o.iterations)
    state = motor_initial_state(model, q, v, m, drive, motors, evaluate)
    return evaluate, p, state, MotorRecorder(rec, motors, o.coulomb_smoothing, m.indep[:na])
