"""Elastic transmissions (Briot & Khalil Section 10.5, Eq. 10.125) in the
compiled time step: the motor coordinates ``q_M`` (one per actuator) as
coordinates of an augmented model that the generated HHT step
(:mod:`flexpkm.compiled.step`) integrates unchanged.

The augmented model (the numpy path's, :mod:`flexpkm.analysis.motors`, in
the step's order): positions ``[q_tot; q_M]`` (n_tot + n_a), velocities
``[qd_M; qd_r]`` (the motors are the step's actuated coordinates: its drive
input, its prescribed rows and its recorded effort are the motors'),
``M = diag(I_a, M_r)``, ``J = [[0, J_r], [1, 0]]``, ``b = [b_r; 0]``,
``c = [F_vM qd_M + f_sM tanh(qd_M / eps) + s; c_r - [s; 0]]`` with the
spring effort ``s = K_a (q_M - q_a)``, and the stiffness of the energy and
of the iteration matrix ``K_tot`` with the springs'
``1/2 k_a (q_M - q_a)^2``. The robot's expressions (unrolled SX or kernel
graph) are called as one function of the robot's coordinates. The motor
numbers (k_a, I_a, F_vM, f_sM) are constants of the generated code (part of
its cache key): each set of motors compiles once.

The generated iteration matrix (:func:`flexpkm.compiled.step.iteration_matrix`)
takes the motor friction's derivative through the friction tables of
:class:`MotorModel` (scaled by the ``friction`` switch: with
``friction=False`` it lacks F_vM and f_sM's terms, which only slows Newton;
the converged step is the same, and ``exact_tangent`` has them all). On the
kernel graph the motor step forms and factors its iteration matrix at every
Newton correction (no kept inverse). The point-acceleration sensors
(``point = (frame, axis_frame, axis)``) are recorded from the robot's part
of the state (:func:`sensor_function`); other sensors are not evaluated on
this path (:mod:`flexpkm.analysis.backend` names the refusal).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import casadi as ca
import numpy as np

from flexpkm.compiled import step as steps
from flexpkm.compiled.full import SymbolicDynamics, point_acceleration
from flexpkm.compiled.newton_euler import recursive_dynamics
from flexpkm.compiled.recursive import KernelDynamics
from flexpkm.compiled.recursive import point_acceleration as kernel_acceleration


@dataclass(frozen=True)
class _Layout:
    joint_index: dict


@dataclass(frozen=True)
class MotorModel:
    """What the step functions read of a model, for the augmented
    coordinates: ``K_tot`` (n_tot + n_a)^2 with the transmission springs,
    the friction tables (name -> N m s/rad or N m) with the motors' as
    ``"motor <i>"`` and their ``layout.joint_index`` (motor i at column
    n_tot + i)."""

    K_tot: np.ndarray
    viscous_friction: dict
    coulomb_friction: dict
    layout: _Layout = field(default=None)


def motor_model(model, indep, motors) -> MotorModel:
    """The :class:`MotorModel` of ``model`` (a Model), its q_r columns
    ``indep`` and the :class:`flexpkm.analysis.simulation_options.Motors`."""
    n_tot, n_a = model.layout.n_tot, len(motors.k)
    K = np.zeros((n_tot + n_a,) * 2)
    K[:n_tot, :n_tot] = model.K_tot
    a, m = np.asarray(indep[:n_a], int), n_tot + np.arange(n_a)
    K[a, a] += motors.k
    K[m, m] += motors.k
    K[a, m] -= motors.k
    K[m, a] -= motors.k
    names = [f"motor {i}" for i in range(n_a)]
    index = dict(model.layout.joint_index, **{n: n_tot + i for i, n in enumerate(names)})
    return MotorModel(K, dict(model.viscous_friction, **dict(zip(names, motors.viscous))),
                      dict(model.coulomb_friction, **dict(zip(names, motors.coulomb))),
                      _Layout(index))


def motor_dynamics(sm: SymbolicDynamics, motors) -> SymbolicDynamics:
    """The augmented model (module docstring) of the robot's expressions
    ``sm`` (:class:`SymbolicDynamics` or the kernel graph's): a
    SymbolicDynamics of the same symbol type whose inputs are the
    augmented ``q`` (n_tot + n_a,), ``qd_r`` (n_a + n_r,) and the robot's
    ``g``, ``friction``, ``smoothing``."""
    X, n_tot, n_r, n_a = type(sm.q), sm.q.shape[0], sm.qd_r.shape[0], sm.n_a
    q, v = X.sym("q_m", n_tot + n_a), X.sym("v_m", n_a + n_r)
    robot = ca.Function("robot", sm.inputs, [sm.M, sm.c, sm.J, sm.b])
    M_r, c_r, J_r, b_r = robot(q[:n_tot], v[n_a:], sm.g, sm.friction, sm.smoothing)
    loops = ca.Function("loops", [sm.q], [sm.residual] + ([] if sm.jacobian is None
                                                          else [sm.jacobian]))
    residual, *jac = loops.call([q[:n_tot]])        # of the positions only (projection)
    a = [int(i) for i in sm.indep[:n_a]]
    s = X(ca.DM(motors.k)) * (q[n_tot:] - q[a])
    qd_m = v[:n_a]
    friction = (X(ca.DM(motors.viscous)) * qd_m
                + X(ca.DM(motors.coulomb)) * ca.tanh(qd_m / ca.fmax(sm.smoothing, 1e-300)))
    J = ca.vertcat(ca.horzcat(X.zeros(n_tot, n_a), J_r), ca.horzcat(X.eye(n_a), X.zeros(n_a, n_r)))
    c = ca.vertcat(friction + s, c_r - ca.vertcat(s, X.zeros(n_r - n_a)))
    jacobian = ca.horzcat(jac[0], X.zeros(jac[0].shape[0], n_a)) if jac else None
    indep = np.concatenate([n_tot + np.arange(n_a), sm.indep])
    return SymbolicDynamics(q, v, sm.g, sm.friction, sm.smoothing,
                            ca.diagcat(ca.diag(X(ca.DM(motors.inertia))), M_r), c, J,
                            ca.vertcat(b_r, X.zeros(n_a)), None, residual, J @ v, [], [], None,
                            None, indep, sm.dep, n_a, motor_model(sm.model, sm.indep, motors),
                            sm.kept, jacobian)


def sensor_function(sm, model, sensors):
    """``(q, qd_r, g, friction, smoothing, qdd_r) -> values`` of the robot
    (``sm`` its expressions, unrolled or kernel graph): the point
    accelerations ``sensors`` ((frame, axis_frame, axis) each), m/s^2."""
    if isinstance(sm, KernelDynamics):
        qdd = recursive_dynamics(sm).qdd_r
        values = [kernel_acceleration(model, sm, qdd, *s) for s in sensors]
    else:
        qdd = ca.SX.sym("qdd", sm.qd_r.shape[0])
        values = [point_acceleration(model, sm, qdd, *s) for s in sensors]
    return ca.Function("sensors", sm.inputs + [qdd], [ca.vertcat(*values)])


def record_with_sensors(record, sensors, n_tot, n_r, n_a, name):
    """``(x, u, par) -> [record(x, u, par); sensors]`` of the augmented
    step state ``x``: the robot's sensors (:func:`sensor_function`) at its
    part of the last evaluation (q_ev, v_ev) and of the accelerations."""
    sl, n_x, n_par = steps.layout(n_tot + n_a, n_r + n_a, n_a)
    x, u, par = ca.MX.sym("x", n_x), ca.MX.sym("u", 3 * n_a), ca.MX.sym("par", n_par)
    values = sensors(x[sl["q_ev"]][:n_tot], x[sl["v_ev"]][n_a:], par[2 * n_a + 2:2 * n_a + 5],
                     par[2 * n_a + 5], par[2 * n_a + 6], x[sl["a"]][n_a:])
    return ca.Function(name, [x, u, par], [ca.vertcat(record(x, u, par), values)])


class MotorRobot:
    """The compiled robot ``cm`` (:class:`flexpkm.compiled.robot.CompiledRobot`)
    with motor coordinates, as the compiled simulation driver
    (:func:`flexpkm.analysis.compiled_simulate.run_compiled`) uses it: its
    ``sample``, ``blocks``, ``parameters``, ``pack``, ``unpack``, ``n_a``,
    ``indep``, ``dep``; ``pack`` and ``unpack`` take and give the numpy
    path's order (velocities ``[qd_r; qd_M]``, :mod:`flexpkm.analysis.motors`)."""

    def __init__(self, cm, motors):
        self.cm, self.motors, self.blocks = cm, motors, {}
        self.n_a, self.dep = cm.n_a, cm.dep
        n_r = len(cm.indep)
        self.indep = np.arange(n_r + self.n_a)
        #: the step's velocity order from the numpy path's: [qd_M; qd_r]
        self.order = np.concatenate([n_r + np.arange(self.n_a), np.arange(n_r)])

    def parameters(self, *args, **kw):
        """The robot's ``par`` without its design vector (the motors' augmented
        model has its numbers folded in)."""
        return self.cm.parameters(*args, design=(), **kw)

    def simulation(self, prescribed, iterations, exact=False, sensors=()):
        """``(step, project, record)`` of the augmented model
        (:meth:`flexpkm.compiled.robot.CompiledRobot.simulation`'s, the
        point-acceleration ``sensors`` recorded too), one library per set of
        motors."""
        cm, mo = self.cm, self.motors
        sensors = tuple((str(f), None if a is None else str(a),
                         None if x is None else tuple(float(v) for v in x))
                        for f, a, x in sensors)
        numbers = motor_numbers(mo)
        d = steps.Dims(cm.model.layout.n_tot + self.n_a, len(self.indep), self.n_a,
                       tuple(int(i) for i in range(cm.model.layout.n_tot,
                                                   cm.model.layout.n_tot + self.n_a)))
        tag = f"{int(prescribed)}{int(exact)}"
        names = (f"flexpkm_motor_step{tag}", "flexpkm_motor_project",
                 f"flexpkm_motor_record{int(prescribed)}")

        def build():
            aug = motor_dynamics(cm.graph, mo)
            record = steps.record_function(aug, aug.model, prescribed)
            if sensors:
                record = record_with_sensors(record, sensor_function(cm.graph, cm.model, sensors),
                                             d.n_tot - self.n_a, d.n_r - self.n_a, self.n_a,
                                             names[2])
            return (steps.step_function(steps.newton_function(aug, prescribed, exact), d,
                                        prescribed, iterations, names[0]),
                    steps.project_function(aug), record)
        return cm.function(f"flexpkm_motor_simulation{tag}", build, prescribed, iterations,
                           exact, numbers, sensors, names=names)

    def sample(self, prescribed, iterations, n_sub, project_each, sensors=(), exact=False):
        """As :meth:`flexpkm.compiled.robot.CompiledRobot.sample`."""
        step, project, record = self.simulation(prescribed, iterations, exact, sensors)
        return steps.sample_function(step, project, record, n_sub, project_each)

    def pack(self, q, v, a, g, J, b):
        """The step state of the numpy path's augmented state (q (n_tot +
        n_a,), v, a, g (n_r + n_a,), J, b of :class:`flexpkm.analysis.motors.MotorDynamics`)."""
        o = self.order
        return self.cm.pack(q, v[o], a[o], g[o], np.asarray(J)[:, o], b, dense=True)

    def state_slices(self) -> dict:
        """The slices of the augmented step state x (:func:`flexpkm.compiled.step.layout`)."""
        return steps.layout(self.cm.model.layout.n_tot + self.n_a, len(self.indep), self.n_a)[0]

    def unpack(self, x, sl=None):
        """``(q, v, a)`` (K, n) in the numpy path's order; ``sl`` the slices
        of q, v, a in x (default :meth:`state_slices`)."""
        sl = self.state_slices() if sl is None else sl
        x, back = np.asarray(x), np.argsort(self.order)
        q, v, a = (x[sl[k]].T for k in ("q", "v", "a"))
        return q, v[..., back], a[..., back]


def motor_numbers(motors) -> tuple:
    """``(k_a, I_a, F_vM, f_sM)`` as tuples of floats: the key of a set of
    motors (their generated code, their MotorRobot)."""
    return tuple(tuple(float(x) for x in getattr(motors, f))
                 for f in ("k", "inertia", "viscous", "coulomb"))


def motor_robot(model, cm, motors) -> MotorRobot:
    """The :class:`MotorRobot` of the compiled robot ``cm`` and the motors,
    kept in the model's slot of compiled simulations (one per set of motor
    numbers)."""
    key = ("motors", tuple(int(i) for i in cm.dep), cm.kept, motor_numbers(motors))
    held = model.compiled.simulate
    if key not in held:
        held[key] = MotorRobot(cm, motors)
    return held[key]
