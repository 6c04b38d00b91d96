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
from flexpkm.algorithms.tree import as_batch
from flexpkm.analysis.hht import HHT, Evaluation, StepState, hht_step
from flexpkm.analysis.step_control import Attempt, StepLog, check_newton, converged_sample
from flexpkm.errors import Interrupted, InvalidArgumentError, StepConvergenceError
from flexpkm.algorithms.reference import build_model


@dataclass(kw_only=True)
class SimulationResult:
    """Samples at the output rate.

    t (n,) s; q (n, n_tot) all coordinates (``names``); qd_r (n, n_r);
    tau (n, n_a); sensors: name -> (n,) arrays; drift (n,) max loop-closure
    residual (m / rad); energy (n,) kinetic + elastic energy, J;
    residual (n,) the largest relative Newton residual of the steps to each
    sample (:mod:`flexpkm.analysis.step_control`; 0 at t = 0);
    retried_steps: steps computed again with a smaller step;
    cost: steps (of h, retries not included), Newton iterations, h.
    """

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


#: at most this many integration steps per output sample (h >= dt_out / MAX_SUBSTEPS)
MAX_SUBSTEPS = 10_000
#: at most this many output samples (t_end <= MAX_SAMPLES dt_out; the
#: recorder allocates them at the start)
MAX_SAMPLES = 2_000_000


def check_times(t_end, h, dt_out):
    """Steps per output sample and output count; raises InvalidArgumentError
    for non-finite or non-positive values, t_end < dt_out < h, more than
    MAX_SUBSTEPS steps per sample or MAX_SAMPLES samples (before anything
    is allocated)."""
    for name, value in (("t_end", t_end), ("h", h), ("dt_out", dt_out)):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) \
                or not np.isfinite(value) or not value > 0:
            raise InvalidArgumentError(f"simulate: {name} must be a positive finite number "
                                       f"(s), got {value!r}")
    if dt_out < h:
        raise InvalidArgumentError(f"simulate: the output period dt_out = {dt_out} s is shorter "
                                   f"than the step h = {h} s")
    if t_end < dt_out:
        raise InvalidArgumentError(f"simulate: t_end = {t_end} s is shorter than the output "
                                   f"period dt_out = {dt_out} s: nothing would be computed")
    if dt_out / h > MAX_SUBSTEPS:
        raise InvalidArgumentError(f"simulate: h = {h} s gives {dt_out / h:.3g} steps per output "
                                   f"sample (dt_out = {dt_out} s); at most {MAX_SUBSTEPS}")
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


def _evaluator(model, drive, dep, n_r, na, gravity, friction, coulomb_smoothing):
    """``evaluate(t, q, v) -> Evaluation``: the full model (10.123) at a state,
    ``g = c - [tau; 0]``, the damping / stiffness of the iteration matrix and
    the force terms that scale the residual (:func:`flexpkm.analysis.hht.relative_residual`)."""
    K_tot = model.K_tot
    kp, kd = np.zeros(n_r), np.zeros(n_r)
    kp[:na], kd[:na] = drive.gains(na)

    def evaluate(t, q, v):
        full = full_dynamics(model, q, v, dep=dep, gravity=gravity, friction=friction,
                             coulomb_smoothing=coulomb_smoothing, loop_tol=None)
        tau = np.zeros(n_r)
        if not drive.prescribes_actuators:
            tau[:na] = drive.efforts(t, q[full.indep[:na]], v[:na])
        J = full.J
        C = friction_damping(model, J @ v, coulomb_smoothing) if friction else 0.0
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

    def __init__(self, model, n_out, dt_out, n_r, na, sensors):
        self.model, self.sensors = model, sensors or {}
        self.t = np.arange(n_out) * dt_out
        self.q = np.zeros((n_out, model.layout.n_tot))
        self.v = np.zeros((n_out, n_r))
        self.tau = np.zeros((n_out, na))
        self.drift, self.energy = np.zeros(n_out), np.zeros(n_out)
        self.residual = np.zeros(n_out)
        self.log = StepLog()
        self.values = {name: np.zeros(n_out) for name in self.sensors}
        self.n_done = 0                                 # complete samples


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

    def store(self, k0, q, v, tau, energy, drift, residual, values):
        """Samples ``k0 .. k0 + K - 1`` computed elsewhere: q (K, n_tot),
        v (K, n_r), tau (K, n_a), energy, drift, residual (K,), values: each
        sensor's name -> (K,); they become the ``n_done`` complete samples."""
        ks = slice(k0, k0 + len(q))
        self.q[ks], self.v[ks], self.tau[ks] = q, v, tau
        self.energy[ks], self.drift[ks], self.residual[ks] = energy, drift, residual
        for name, x in values.items():
            self.values[name][ks] = x
        self.n_done = ks.stop

    def result(self, indep, n_sub, h):
        """The first ``n_done`` samples (all of them unless interrupted or stopped)."""
        names, n = self.model.layout.names, self.n_done
        cost = {"steps": (n - 1) * n_sub, "newton_iterations": self.log.iterations, "h": h}
        return SimulationResult(t=self.t[:n], q=self.q[:n], qd_r=self.v[:n], tau=self.tau[:n],
                                names=names, r_names=tuple(names[i] for i in indep),
                                sensors={k: v[:n] for k, v in self.values.items()},
                                drift=self.drift[:n], energy=self.energy[:n], cost=cost,
                                residual=self.residual[:n], retried_steps=self.log.retried_steps)


def simulate(model, q0_tot, t_end, drive, h=2.5e-4, dt_out=1e-3, qd0_r=None,
             friction=True, coulomb_smoothing=1e-3, gravity=None, sensors=None,
             tol=None, iterations=None, hht_alpha=0.05, project="output",
             progress=None, backend=None, exact_tangent=False) -> SimulationResult:
    """Integrate the full elastodynamic model (10.123) from an assembled state.

    model : Robot or Model; q0_tot : (n_tot,) initial coordinates (loops
        closed; elastic ones may be non-zero); t_end : simulated time, s;
    drive : :class:`PrescribedMotion`, :class:`PDControl`, :class:`Free` or
        :class:`EffortHistory` (:mod:`flexpkm.analysis.drives`);
    qd0_r : (n_r,) initial independent velocities (default 0).
    h : integration step, s; dt_out : output period (a multiple of h), s.
    project : ``"output"`` (default) closes the loops geometrically at every
        output sample, ``"step"`` at every step (for very stiff models, where
        the O(h^3) constraint violation between samples, times the stiffness,
        would show in the efforts).
    hht_alpha : numerical damping of the HHT scheme, in [0, 1/3]; 0 is
        Newmark's average acceleration (energy checks); see
        :mod:`flexpkm.analysis.hht` and docs/simulation.md for the default.
    tol, iterations : Newton iterates each step until its residual relative
        to the step's forces is at most ``tol`` (default 1e-6), within
        ``iterations`` model evaluations (default 8), on both backends
        (:mod:`flexpkm.analysis.hht`); a sample with a step that does not
        converge is redone with steps h/2, h/4, ... (at most 4 times,
        :mod:`flexpkm.analysis.step_control`). ``residual`` and
        ``retried_steps`` of the result report them; measured effects in
        docs/simulation.md.
    backend : ``"compiled"`` (generated C code, :mod:`flexpkm.analysis.compiled_simulate`;
        compiled once per robot and cached on disk), ``"numpy"`` (the
        reference), or None: compiled when CasADi is importable, the drive
        is one of the four above and the robot has at most 64 coordinates,
        else numpy (an overconstrained robot runs on its independent
        constraint rows, Müller's Remark 2, on both).
    exact_tangent : compiled backend only: Newton with the exact derivative
        of the step residual (AD) instead of the iteration matrix below
        (quadratic convergence, ~8x the cost of an iteration).
    sensors : name -> ``f(model, full, qdd_r) -> float`` evaluated at the
        outputs (``full`` the one-state FullDynamics, qdd_r (n_r,)). On the
        compiled backend a sensor with an attribute ``point = (frame,
        axis_frame, axis)`` (a point acceleration, e.g. the DualEMPS
        accelerometer) is generated too; the others are evaluated with the
        numpy full model at the samples (slower).
    progress : optional callback ``progress(done, total)`` (output samples).
    Raises :class:`flexpkm.errors.InvalidArgumentError` for a non-positive
    or non-finite t_end, h or dt_out, t_end < dt_out, more than
    :data:`MAX_SUBSTEPS` steps per sample or :data:`MAX_SAMPLES` samples, a
    tol outside (0, 1), an iterations outside [1, 100], or an object that
    is not a drive; :class:`flexpkm.errors.StepConvergenceError` when a
    step does not converge (or diverges) even with h / 16, with the samples
    so far in its ``partial``; :class:`flexpkm.errors.Interrupted` (a
    KeyboardInterrupt) on Ctrl-C, with the complete samples so far in its
    ``partial``. ``cost["h"]`` is the step used (``dt_out / round(dt_out / h)``).
    """
    n_sub, n_out = check_times(t_end, h, dt_out)
    tol, iterations = check_newton(tol, iterations)
    _check_arguments(gravity, hht_alpha, drive)
    model = build_model(model)
    q0_tot = _vector(q0_tot, model.layout.n_tot, "q0_tot")
    backend = _backend(backend, drive, model)
    with threadpool_limits(1):
        q, v, m = _assemble(model, q0_tot, qd0_r, drive, gravity)
        r, na = m.indep, m.n_a
        evaluate = _evaluator(model, drive, m.dep, len(r), na, gravity, friction,
                              coulomb_smoothing)
        known = np.arange(na) if drive.prescribes_actuators else np.arange(0)
        p = HHT(dt_out / n_sub, float(hht_alpha), np.setdiff1d(np.arange(len(r)), known),
                r[known], known, tol, iterations)
        state = _initial_state(q, v, drive, evaluate)
        rec = Recorder(model, n_out, dt_out, len(r), na, sensors)
        rec.record(0, state, drive, np.abs(closure_residual(model, state.q)).max(initial=0.0))
        try:
            if backend == "compiled":
                from flexpkm.analysis.compiled_simulate import run_compiled
                run_compiled(model, p, state, drive, rec, n_sub, project, progress,
                             (gravity, friction, coulomb_smoothing, exact_tangent, sensors))
            else:
                _integrate(model, p, state, drive, evaluate, rec, n_sub, project, progress)
        except StepConvergenceError as e:         # keep the complete samples
            e.partial = rec.result(r, n_sub, p.h)
            raise
        except KeyboardInterrupt:
            raise Interrupted(f"interrupted at t = {rec.t[rec.n_done - 1]:g} s "
                              f"({rec.n_done} of {n_out} samples)",
                              rec.result(r, n_sub, p.h)) from None
    return rec.result(r, n_sub, p.h)


def _check_arguments(gravity, hht_alpha, drive):
    """InvalidArgumentError for a gravity that is not a finite 3-vector, an
    hht_alpha outside [0, 1/3] or an object that is not a drive."""
    if gravity is not None and (np.shape(gravity) != (3,) or not np.isfinite(gravity).all()):
        raise InvalidArgumentError(f"simulate: gravity must be a finite 3-vector (m/s^2), "
                                   f"got {gravity!r}")
    if not 0 <= hht_alpha <= 1 / 3:
        raise InvalidArgumentError(f"simulate: hht_alpha must be in [0, 1/3], got {hht_alpha!r}")
    if not all(hasattr(drive, a) for a in ("prescribes_actuators", "actuator_state", "efforts",
                                           "gains")):
        raise InvalidArgumentError("simulate: drive must be a PrescribedMotion, PDControl, Free "
                                   f"or EffortHistory, got {drive!r}")


def _backend(backend, drive, model):
    """``"compiled"`` or ``"numpy"`` (see :func:`simulate`)."""
    if backend not in (None, "compiled", "numpy"):
        raise InvalidArgumentError(f"simulate: backend must be 'compiled' or 'numpy', "
                                   f"got {backend!r}")
    if backend is not None:
        return backend
    try:
        import casadi  # noqa: F401
        from flexpkm.analysis.compiled_simulate import compiled_supports
    except ImportError:
        return "numpy"
    return "compiled" if compiled_supports(drive, model) else "numpy"


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
            q, drift = project_on_loops(model, state.q, state.full.dep)
            state = StepState(state.t, q, state.v, state.a, state.g, state.full)
    return Attempt((state, a_prev, drift), worst, iters)
