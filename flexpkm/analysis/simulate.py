"""Elastodynamic time simulation (Briot & Khalil Section 10.7 protocol): the
driver loop.

Integrator (:mod:`flexpkm.analysis.hht`): Hilber-Hughes-Taylor (HHT-alpha;
alpha = 0 is Newmark's average-acceleration rule) on the independent
coordinates ``q_r = [q_a; q_c]`` with Newton iterations on the
accelerations. Why this scheme: it is implicit and unconditionally stable
(the DualEMPS has modes up to 4.2 kHz); with alpha = 0 it has no numerical
damping and conserves the energy of linear oscillators exactly (energy
checks), and a small alpha (default 0.05) damps only the unresolved kHz
modes that the jerk of the motion laws excites, keeping second-order
accuracy; its period error ``(omega h)^2 / 12`` sets the step (h = 0.25 ms
keeps the first five modes of the DualEMPS within 0.15 %).

Drives (:mod:`flexpkm.analysis.drives`): :class:`PrescribedMotion` (the
inverse problem of Section 10.4.3), :class:`PDControl`, :class:`Free`,
:class:`EffortHistory` (the direct problem).

Loop closure: all coordinates advance with ``qdd_tot = J qdd_r + b``, so the
loops stay closed to O(h^3) per step; at every output sample the dependent
coordinates are put back on the geometric loop equations (Newton,
:func:`flexpkm.algorithms.closure.project_on_loops`); the dependent
velocities follow from ``J``; the drift is reported at the outputs.

numpy's BLAS runs on one thread inside :func:`simulate` (the matrices are
small: threads only add overhead and noise on a shared machine).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
from threadpoolctl import threadpool_limits

from flexpkm.algorithms.closure import check_loops, closure_residual, project_on_loops
from flexpkm.algorithms.dynamics import (actuator_efforts, direct_dynamics, full_dynamics,
                                         inverse_dynamics)
from flexpkm.algorithms.virtual_system import friction_damping
from flexpkm.algorithms.energy import recorded_energies
from flexpkm.analysis.wrenches import wrench_at
from flexpkm.algorithms.tree import as_batch
from flexpkm.analysis.hht import HHT, Evaluation, StepState, hht_step
from flexpkm.analysis.backend import DEFAULT_BACKEND, choose_backend
from flexpkm.analysis.simulation_options import SimulationOptions, motors_of
from flexpkm.analysis.step_control import Attempt, StepLog, converged_sample
from flexpkm.errors import Interrupted, InvalidArgumentError, StepConvergenceError
from flexpkm.algorithms.reference import build_model
from flexpkm.datasets import ResultViews


@dataclass(kw_only=True, repr=False)
class SimulationResult(ResultViews):
    """Samples at the output rate.

    t (n,) s; q (n, n_tot) all coordinates (``names``); qd_r (n, n_r);
    tau (n, n_a); sensors: name -> (n,) arrays; drift (n,) max loop-closure
    residual (m / rad); energy (n,) kinetic + elastic energy, J;
    residual (n,) the largest relative Newton residual of the steps to each
    sample (:mod:`flexpkm.analysis.step_control`; 0 at t = 0);
    retried_steps: steps computed again with a smaller step;
    cost: steps (of h, retries not included), Newton iterations, h;
    energies: :class:`flexpkm.algorithms.energy.Energy` of the samples,
    (n,) each: kinetic, gravity (8.220), elastic and their total (None in
    the partial result of an error); ground: the ground reactions (8.206)
    of the samples when asked for
    (:func:`flexpkm.analysis.ground_history.simulation_ground_reactions`).
    backend: ``"numpy"`` or ``"compiled"``, what ran; backend_reason: why
    (``"asked"`` or ``"auto: ..."``, :mod:`flexpkm.analysis.backend`).
    q_m, qd_m: (n, n_a) motor positions and velocities with elastic
    transmissions (``actuator_stiffness``, :mod:`flexpkm.analysis.motors`;
    then ``tau`` is the motor torque and ``energy`` includes the rotors'
    kinetic and the springs' energy), else None.
    """

    _views = ("simulation_dataset", "simulation_frame")   # flexpkm.datasets

    t: np.ndarray
    q: np.ndarray
    qd_r: np.ndarray
    tau: np.ndarray
    names: tuple
    r_names: tuple
    sensors: dict = field(default_factory=dict)
    drift: np.ndarray = None
    energy: np.ndarray = None
    cost: dict = field(default_factory=dict)
    residual: np.ndarray = None
    retried_steps: int = 0
    energies: object = None
    ground: object = None
    backend: str = "numpy"
    backend_reason: str = ""
    q_m: np.ndarray = None
    qd_m: np.ndarray = None



#: at most this many output samples (t_end <= MAX_SAMPLES dt_out; the
#: recorder allocates them at the start)
MAX_SAMPLES = 2_000_000


def check_times(t_end, h, dt_out):
    """Steps per output sample and output count; raises InvalidArgumentError
    for non-finite or non-positive values, t_end < dt_out < h, more than
    :data:`flexpkm.analysis.simulation_options.MAX_SUBSTEPS` steps per sample or MAX_SAMPLES samples (before anything
    is allocated). ``h`` and ``dt_out`` are checked by
    :class:`SimulationOptions`."""
    SimulationOptions(h=h, dt_out=dt_out)
    if isinstance(t_end, bool) or not isinstance(t_end, (int, float, np.number)) \
            or not np.isfinite(t_end) or not t_end > 0:
        raise InvalidArgumentError(f"simulate: t_end must be a positive finite number "
                                   f"(s), got {t_end!r}")
    if t_end < dt_out:
        raise InvalidArgumentError(f"simulate: t_end = {t_end} s is shorter than the output "
                                   f"period dt_out = {dt_out} s: nothing would be computed")
    if t_end / dt_out > MAX_SAMPLES:
        raise InvalidArgumentError(f"simulate: t_end = {t_end} s gives {t_end / dt_out:.3g} output "
                                   f"samples (dt_out = {dt_out} s); at most {MAX_SAMPLES}")
    n_sub = max(1, int(round(dt_out / h)))
    return n_sub, int(round(t_end / dt_out)) + 1


def _vector(x, n, name):
    """``x`` as a finite float vector (n,) (a copy); InvalidArgumentError naming it."""
    x = as_batch(x, n, f"simulate: {name}")
    if x.shape[0] != 1:
        raise InvalidArgumentError(f"simulate: {name} must be one vector ({n},), got {x.shape}")
    return x[0].copy()


def _evaluator(model, drive, dep, n_r, na, o, wrench=None):
    """``evaluate(t, q, v) -> Evaluation``: the full model (10.123) at a state,
    ``g = c - [tau; 0]``, the damping / stiffness of the iteration matrix and
    the force terms that scale the residual (:func:`flexpkm.analysis.hht.relative_residual`)."""
    K_tot = model.K_tot
    kp, kd = np.zeros(n_r), np.zeros(n_r)
    kp[:na], kd[:na] = drive.gains(na)

    def evaluate(t, q, v):
        full = full_dynamics(model, q, v, dep=dep, gravity=o.gravity, friction=o.friction,
                             coulomb_smoothing=o.coulomb_smoothing, loop_tol=None,
                             wrench=wrench_at(wrench, t, "simulate: wrench"))
        tau = np.zeros(n_r)
        if not drive.prescribes_actuators:
            tau[:na] = drive.efforts(t, q[full.indep[:na]], v[:na])
        J = full.J
        C = friction_damping(model, J @ v, o.coulomb_smoothing) if o.friction else 0.0
        forces = np.stack([full.c, tau, J.T @ (K_tot @ q)])
        return Evaluation(full, full.c - tau, (J.T * C) @ J + np.diag(kd),
                          J.T @ K_tot @ J + np.diag(kp), forces)
    return evaluate


def _assemble(model, q0_tot, qd0_r, drive, gravity):
    """``(q, v, m)``: the initial state checked (:class:`OpenLoopError` when
    its loops are open by more than ``LOOP_TOL``), prescribed actuators on
    their trajectory at t = 0, loops closed to 1e-12, velocities ``qd0_r``
    (default 0), the full model m (its q_dep choice is kept along the
    simulation)."""
    check_loops(model, as_batch(q0_tot, model.layout.n_tot), what="simulate: q0_tot")
    m = full_dynamics(model, q0_tot, 0.0, gravity=gravity)
    q = np.array(q0_tot, float)
    v = np.zeros(len(m.indep)) if qd0_r is None else _vector(qd0_r, len(m.indep), "qd0_r")
    if drive.prescribes_actuators:
        q[m.indep[:m.n_a]], v[:m.n_a], _ = drive.actuator_state(0.0)
    q, _ = project_on_loops(model, q, m.dep)
    return q, v, full_dynamics(model, q, 0.0, gravity=gravity, dep=m.dep)


def _initial_state(q, v, drive, evaluate):
    """State at t = 0; accelerations from the inverse problem (10.124) for a
    prescribed motion, from the direct problem (10.123) otherwise."""
    ev = evaluate(0.0, q, v)
    na = ev.full.n_a
    if drive.prescribes_actuators:
        qdd_a = drive.actuator_state(0.0)[2]
        a = np.concatenate([qdd_a, inverse_dynamics(ev.full, qdd_a)[1]])
    else:
        a = direct_dynamics(ev.full, drive.efforts(0.0, q[ev.full.indep[:na]], v[:na]))
    return StepState(0.0, q, v, a, ev.g, ev.full)


class Recorder:
    """Output samples of a simulation: positions q (n_out, n_tot), velocities
    v (n_out, n_r), efforts tau (n_out, n_a), drift, energy, residual
    (n_out,), sensor values (name -> (n_out,)); ``n_done`` complete samples.
    Filled sample by sample by :meth:`record` (numpy) or in blocks by
    :meth:`store` (:mod:`flexpkm.analysis.compiled_simulate`)."""

    def __init__(self, model, n_out, dt_out, n_r, na, sensors, backend=None):
        self.model, self.sensors = model, sensors or {}
        self.backend = backend                          # the BackendChoice of the run
        self.t = np.arange(n_out) * dt_out
        self.q = np.zeros((n_out, model.layout.n_tot))
        self.v = np.zeros((n_out, n_r))
        self.tau = np.zeros((n_out, na))
        self.drift, self.energy = np.zeros(n_out), np.zeros(n_out)
        self.residual = np.zeros(n_out)
        self.log = StepLog()
        self.values = {name: np.zeros(n_out) for name in self.sensors}
        self.n_done = 0                                 # complete samples
        self.gravity_energy = None                      # (n_out,) J when computed by the run

    def energies(self, res, gravity):
        """The :class:`flexpkm.algorithms.energy.Energy` of the result ``res``
        (its gravity part the run's ``gravity_energy`` when it gave one)."""
        known = None if self.gravity_energy is None else self.gravity_energy[:len(res.q)]
        return recorded_energies(self.model, res.q, res.energy, gravity, known)


    def record(self, k, s: StepState, drive, drift, residual=0.0):
        m, na, K_tot = s.full, s.full.n_a, self.model.K_tot
        if drive.prescribes_actuators:
            tau = actuator_efforts(m, s.a)              # first row of (10.124)
        else:
            tau = drive.efforts(self.t[k], s.q[m.indep[:na]], s.v[:na])
        energy = 0.5 * s.v @ m.M @ s.v + 0.5 * s.q @ K_tot @ s.q
        values = {name: fn(self.model, m, s.a) for name, fn in self.sensors.items()}
        self.store(k, s.q[None], s.v[None], np.asarray(tau, float)[None], [energy], [drift],
                   [residual], {name: [x] for name, x in values.items()})

    def store(self, k0, q, v, tau, energy, drift, residual, values, progress=None):
        """Samples ``k0 .. k0 + K - 1`` computed elsewhere: q (K, n_tot),
        v (K, n_r), tau (K, n_a), energy, drift, residual (K,), values: each
        sensor's name -> (K,); they become the ``n_done`` complete samples,
        one after the other when ``progress(k, total)`` is called for each
        (an interrupt in the callback keeps the samples it has seen)."""
        ks = slice(k0, k0 + len(q))
        self.q[ks], self.v[ks], self.tau[ks] = q, v, tau
        self.energy[ks], self.drift[ks], self.residual[ks] = energy, drift, residual
        for name, x in values.items():
            self.values[name][ks] = x
        for k in range(ks.start, ks.stop) if progress is not None else ():
            self.n_done = k + 1
            progress(k, len(self.t) - 1)
        self.n_done = ks.stop

    def result(self, indep, n_sub, h):
        """The first ``n_done`` samples (all of them unless interrupted or stopped)."""
        names, n = self.model.layout.names, self.n_done
        cost = {"steps": (n - 1) * n_sub, "newton_iterations": self.log.iterations, "h": h}
        return SimulationResult(t=self.t[:n], q=self.q[:n], qd_r=self.v[:n], tau=self.tau[:n],
                                names=names, r_names=tuple(names[i] for i in indep),
                                sensors={k: v[:n] for k, v in self.values.items()},
                                drift=self.drift[:n], energy=self.energy[:n], cost=cost,
                                residual=self.residual[:n], retried_steps=self.log.retried_steps,
                                backend=self.backend.name if self.backend else "numpy",
                                backend_reason=self.backend.reason if self.backend else "")


def simulate(model, q0_tot, t_end, drive, options=None, backend=DEFAULT_BACKEND, qd0_r=None,
             sensors=None, progress=None, wrench=None, **settings) -> SimulationResult:
    """Integrate the full elastodynamic model (10.123) from an assembled state.

    model : Robot or Model; q0_tot : (n_tot,) initial coordinates (loops
        closed; elastic ones may be non-zero); t_end : simulated time, s;
    drive : :class:`PrescribedMotion`, :class:`PDControl`, :class:`Free` or
        :class:`EffortHistory` (:mod:`flexpkm.analysis.drives`);
    options : :class:`SimulationOptions` (step, output period, HHT alpha,
        Newton's tol and iterations, loop projection, friction, gravity...;
        default ``SimulationOptions()``); ``settings``: any of its fields
        as keywords (``h=1e-4``), applied on top of ``options``.
    backend : ``"auto"`` (default), ``"numpy"`` (the reference) or
        ``"compiled"`` (generated C code, :mod:`flexpkm.analysis.compiled_simulate`;
        compiled once per robot and cached on disk); the rule and the
        reasons: :mod:`flexpkm.analysis.backend` (the compiled path runs the
        four drives above; an overconstrained robot runs on its independent
        constraint rows, Müller's Remark 2, on both). ``result.backend`` and
        ``result.backend_reason`` say what ran and why.
    qd0_r : (n_r,) initial independent velocities (default 0).
    sensors : name -> ``f(model, full, qdd_r) -> float`` evaluated at the
        outputs (``full`` the one-state FullDynamics, qdd_r (n_r,)). On the
        compiled backend a sensor with an attribute ``point = (frame,
        axis_frame, axis)`` (a point acceleration, e.g. the DualEMPS
        accelerometer) is generated too; the others are evaluated with the
        numpy full model at the samples (slower).
    progress : optional callback ``progress(done, total)`` (output samples).
    wrench : external wrench on the platform, (6,) or a function of time
        ``f(t) -> (6,)`` (N, N m, at P, base frame;
        :mod:`flexpkm.analysis.wrenches`); numpy backend only for now: with
        ``backend="compiled"`` it raises BackendUnavailableError, with
        ``"auto"`` the numpy backend runs (and the result says why).
        Elastic transmissions (``actuator_stiffness``, Section 10.5,
        :mod:`flexpkm.analysis.motors`) run on both backends
        (:mod:`flexpkm.compiled.motors`), but not with sensors on the
        compiled one (refused the same way).
    A sample with a step that does not converge is redone with steps h/2,
    h/4, ... (at most 4 times, :mod:`flexpkm.analysis.step_control`);
    ``residual`` and ``retried_steps`` of the result report them (measured
    effects in docs/simulation.md).
    Raises :class:`flexpkm.errors.InvalidArgumentError` for a setting out of
    its range (:class:`SimulationOptions`), a non-positive or non-finite
    t_end, t_end < dt_out, more than :data:`MAX_SAMPLES` samples, a bad
    ``backend`` or an object that is not a drive;
    :class:`flexpkm.errors.BackendUnavailableError` when ``"compiled"`` is
    asked and cannot run; :class:`flexpkm.errors.StepConvergenceError` when a
    step does not converge (or diverges) even with h / 16, with the samples
    so far in its ``partial``; :class:`flexpkm.errors.Interrupted` (a
    KeyboardInterrupt) on Ctrl-C, with the complete samples so far in its
    ``partial``. ``cost["h"]`` is the step used (``dt_out / round(dt_out / h)``).
    """
    o = options_of(options, settings)
    n_sub, n_out = check_times(t_end, o.h, o.dt_out)
    _check_drive(drive)
    model = build_model(model)
    q0_tot = _vector(q0_tot, model.layout.n_tot, "q0_tot")
    motors = motors_of(o, [model.layout.names[i] for i in model.layout.actuated], drive)
    choice = choose_backend(backend, "simulate", model, drive=drive, wrench=wrench,
                            motors=motors is not None, sensors=sensors)
    with threadpool_limits(1):
        q, v, m = _assemble(model, q0_tot, qd0_r, drive, o.gravity)
        r, na = m.indep, m.n_a
        rec = Recorder(model, n_out, o.dt_out, len(r), na, sensors, choice)
        if motors is None:
            evaluate = _evaluator(model, drive, m.dep, len(r), na, o, wrench)
            known = np.arange(na) if drive.prescribes_actuators else np.arange(0)
            p = HHT(o.dt_out / n_sub, float(o.hht_alpha), np.setdiff1d(np.arange(len(r)), known),
                    r[known], known, o.tol, o.iterations)
            state = _initial_state(q, v, drive, evaluate)
        else:                                       # elastic transmissions, Section 10.5
            from flexpkm.analysis.motors import motor_setup
            evaluate, p, state, rec = motor_setup(model, q, v, m, drive, motors, o, n_sub, rec,
                                                  wrench)
        q_tot = state.q[:model.layout.n_tot]
        rec.record(0, state, drive, np.abs(closure_residual(model, q_tot)).max(initial=0.0))
        try:
            if choice.name == "compiled":
                from flexpkm.analysis.compiled_simulate import run_compiled
                run_compiled(model, p, state, drive, rec, n_sub, o, sensors, progress)
            else:
                _integrate(model, p, state, drive, evaluate, rec, n_sub, o.project, progress)
        except StepConvergenceError as e:         # keep the complete samples
            e.partial = rec.result(r, n_sub, p.h)
            raise
        except KeyboardInterrupt:
            raise Interrupted(f"interrupted at t = {rec.t[rec.n_done - 1]:g} s "
                              f"({rec.n_done} of {n_out} samples)",
                              rec.result(r, n_sub, p.h)) from None
    res = rec.result(r, n_sub, p.h)
    return replace(res, energies=rec.energies(res, o.gravity))


def options_of(options, settings) -> SimulationOptions:
    """``options`` (default ``SimulationOptions()``) with the keyword
    ``settings`` applied; InvalidArgumentError for an object that is not a
    :class:`SimulationOptions` or an unknown setting."""
    if options is None:
        options = SimulationOptions()
    if not isinstance(options, SimulationOptions):
        raise InvalidArgumentError(f"simulate: options must be a SimulationOptions, "
                                   f"got {options!r}")
    return options.with_settings(**settings) if settings else options


def _check_drive(drive):
    """InvalidArgumentError for an object that is not a drive."""
    if not all(hasattr(drive, a) for a in ("prescribes_actuators", "actuator_state", "efforts",
                                           "gains")):
        raise InvalidArgumentError("simulate: drive must be a PrescribedMotion, PDControl, Free "
                                   f"or EffortHistory, got {drive!r}")


def _integrate(model, p, state, drive, evaluate, rec, n_sub, project, progress):
    """The loop over output samples, each one converged
    (:func:`flexpkm.analysis.step_control.converged_sample`)."""
    a_prev = state.a
    for k in range(1, len(rec.t)):
        def advance(level, start=(state, a_prev)):
            return _sample(model, replace(p, h=p.h / (1 << level)), *start, drive, evaluate,
                           n_sub << level, project)
        (state, a_prev, drift), residual = converged_sample(advance, n_sub, p.h, p.tol, rec.log)
        rec.record(k, state, drive, drift, residual)
        if progress is not None:
            progress(k, len(rec.t) - 1)


def _sample(model, p, state, a_prev, drive, evaluate, steps, project) -> Attempt:
    """``steps`` HHT steps of ``p.h`` from ``state`` (``a_prev`` the
    accelerations of the step before, for the first guess), the loops closed
    at the end (or at every step); stops at the first step that does not
    converge. ``Attempt.result`` = (state, a_prev, drift)."""
    worst, iters = 0.0, 0
    for sub in range(steps):
        a1 = 2 * state.a - a_prev                         # linear extrapolation
        a_prev = state.a
        fixed = None
        if drive.prescribes_actuators:
            q_a, qd_a, a1[p.fixed_r] = drive.actuator_state(state.t + p.h)
            fixed = (q_a, qd_a)
        state, newton = hht_step(p, state, a1, evaluate, fixed)
        worst, iters = max(worst, newton.residual), iters + newton.iterations
        if not newton.converged:
            return Attempt(None, worst, iters, state.t)
        if project == "step" or sub == steps - 1:         # close the loops
            n = model.layout.n_tot                        # (motor coordinates after q_tot)
            q, drift = project_on_loops(model, state.q[:n], state.full.dep)
            q = np.concatenate([q, state.q[n:]])
            state = StepState(state.t, q, state.v, state.a, state.g, state.full)
    return Attempt((state, a_prev, drift), worst, iters)
