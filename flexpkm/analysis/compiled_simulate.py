"""The time simulation on generated code (``simulate(..., backend="compiled")``).

Same scheme and outputs as :func:`flexpkm.analysis.simulate.simulate`: the
initial state is assembled by the numpy path, then every block of steps
between two output samples runs in one call of a compiled function
(:mod:`flexpkm.compiled.step`: HHT step with Newton iterated to the
relative residual ``tol``, loop projection, recorded efforts, energy,
drift, the largest residual and point-acceleration sensors). The drive is
tabulated at the step times before the block (trajectories are evaluated
vectorised). A sample whose steps did not all converge is redone alone
with smaller steps and the next block starts after it, as on the numpy
path (:mod:`flexpkm.analysis.step_control`).

Differences from the numpy path: the loop projection uses the exact
Jacobian of the loop equations (same fixed point), and a sensor is compiled
when it carries an
attribute ``point = (frame, axis_frame, axis)``
(:func:`flexpkm.algorithms.dynamics.point_acceleration`); other sensors are
evaluated with the numpy full model at the samples.
"""
from __future__ import annotations

import math

import numpy as np

from flexpkm.algorithms.dynamics import full_dynamics
from flexpkm.analysis.drives import EffortHistory, Free, PDControl, PrescribedMotion
from flexpkm.analysis.kept_matrix import CONVERGED, EVALUATIONS, RHO, KeptSample
from flexpkm.analysis.step_control import MAX_HALVINGS, Attempt, converged_sample
from flexpkm.compiled.energies import gravity_energies
from flexpkm.compiled.robot import CompiledRobot
from flexpkm.errors import InvalidArgumentError

#: output samples per block (one drive table; one compiled call per sample)
CHUNK = 500
#: row of a compiled sample's record before RHO, EVALUATIONS, CONVERGED
#: (:mod:`flexpkm.analysis.kept_matrix`; :func:`flexpkm.compiled.step.sample_function`)
DRIFT = -4


#: the drives of the compiled step (:mod:`flexpkm.compiled.step`)
DRIVES = (PrescribedMotion, PDControl, Free, EffortHistory)


def drive_problem(drive) -> str | None:
    """Why the compiled simulation cannot run ``drive`` (None: it can):
    :data:`DRIVES` only (:mod:`flexpkm.analysis.backend`)."""
    if isinstance(drive, DRIVES):
        return None
    return (f"the drive {type(drive).__name__} is not one of the compiled step's "
            f"({', '.join(d.__name__ for d in DRIVES)})")


def drive_table(drive, times, n_a):
    """``U`` (3 n_a, len(times)): the drive input of every step at t_n+1
    (:mod:`flexpkm.compiled.step`)."""
    U = np.zeros((3 * n_a, len(times)))
    if isinstance(drive, (PrescribedMotion, PDControl)):
        q, qd, qdd = drive.trajectory(times)
        parts = (q, qd, qdd) if isinstance(drive, PrescribedMotion) else (0 * q, q, qd)
        U[:] = np.concatenate([np.asarray(x, float).T for x in parts])
    elif isinstance(drive, EffortHistory):
        U[:n_a] = np.array([drive.efforts(t, None, None) for t in times]).T
    elif not isinstance(drive, Free):
        raise InvalidArgumentError(f"simulate(backend='compiled'): drive {type(drive).__name__} "
                                   "is not supported; use backend='numpy'")
    return U


def split_sensors(sensors):
    """``(compiled specs, names of compiled, other name -> fn)``."""
    specs, names, other = [], [], {}
    for name, fn in (sensors or {}).items():
        point = getattr(fn, "point", None)
        if point is None:
            other[name] = fn
        else:
            specs.append(point)
            names.append(name)
    return specs, names, other


def run_compiled(model, p, state, drive, rec, n_sub, options, sensors, progress):
    """The loop over blocks of output samples on the compiled functions;
    fills the recorder ``rec`` from sample 1 on (its ``log`` counts the
    Newton evaluations and the retried steps). ``p`` the HHT parameters
    (tol, iteration limit), ``state`` the numpy initial state, ``options``
    the :class:`flexpkm.analysis.simulation_options.SimulationOptions`
    (gravity, friction, smoothing, projection, exact tangent). A sample with a
    step that did not converge is redone alone with smaller steps
    (:func:`flexpkm.analysis.step_control.converged_sample`), the next block
    starts after it (blocks shrink to a power of two after a failure and
    grow back after each converged block). On the unrolled graph the
    samples' gravity energies are computed too, in generated code
    (:func:`flexpkm.compiled.energies.gravity_energies`: the recorder's
    ``gravity_energy``, read by its ``energies``)."""
    m = state.full
    cm = compiled_robot(model, m.dep, None if m.rows is None or not len(m.rows.dropped)
                        else m.rows.kept, options.design_input)
    if getattr(rec, "motors", None) is not None:    # elastic transmissions, Section 10.5
        from flexpkm.compiled.motors import motor_robot
        cm = motor_robot(model, cm, rec.motors)
    n_a, prescribed = m.n_a, drive.prescribes_actuators
    specs, names, other = split_sensors(sensors)
    kp, kd = (np.broadcast_to(np.asarray(k, float), (n_a,)) for k in drive.gains(n_a))
    g = np.asarray(model.gravity if options.gravity is None else options.gravity, float)
    par = [cm.parameters(kp, kd, p.h / (1 << level), p.alpha, g, options.friction,
                         options.coulomb_smoothing, p.tol) for level in range(MAX_HALVINGS + 1)]
    config = (prescribed, p.iterations, n_sub, options.project == "step", tuple(specs),
              options.exact_tangent)
    x = (cm.pack(state.q, state.v, state.a, state.g, m.J, m.b), None)   # no kept matrix yet
    n_out = len(rec.t)
    times = np.cumsum(np.full((n_out - 1) * n_sub, p.h))
    store = _Store(model, cm, rec, names, other, options, progress)
    k0, size = 1, CHUNK
    while k0 < n_out:
        K = min(size, n_out - k0)
        U = drive_table(drive, times[(k0 - 1) * n_sub:(k0 - 1 + K) * n_sub], n_a)
        rows, recs, n_ok, x_before, x_after = _block(cm, config)(x, U, par[0])
        rec.log.iterations += int(np.nansum(recs[EVALUATIONS]))
        store(rows[:, :n_ok], recs[:, :n_ok], k0)
        if n_ok == K:
            x, k0, size = x_after, k0 + K, min(CHUNK, 2 * size)
            continue
        size = 1 << (max(n_ok, 1).bit_length() - 1)  # less to throw away at the next failure
        k = k0 + n_ok                               # redo sample k with smaller steps
        x = x_before
        t0 = times[(k - 1) * n_sub - 1] if k > 1 else 0.0
        first = _attempt(store.rows(x_after[0]), recs[:, n_ok:n_ok + 1], p.tol,
                         times[(k - 1) * n_sub:k * n_sub], 0, x_after)

        def advance(level, x=x, t0=t0, first=first):
            if level == 0:
                return first
            steps = n_sub << level
            t = t0 + np.cumsum(np.full(steps, p.h / (1 << level)))
            _, recs, _, _, x_after = _block(cm, config[:2] + (steps,) + config[3:])(
                x, drive_table(drive, t, n_a), par[level])
            return _attempt(store.rows(x_after[0]), recs, p.tol, t, int(recs[EVALUATIONS, 0]),
                            x_after)
        (rows, recs, x), _ = converged_sample(advance, n_sub, p.h, p.tol, rec.log)
        store(rows, recs, k)
        k0 = k + 1
    if getattr(rec, "motors", None) is None and cm.unrolled:     # the samples' gravity energy
        rec.gravity_energy = gravity_energies(cm, rec.q, g)


def _converged(xs, recs, tol):
    """(K,) whether each sample's steps converged: finite, rho <= tol."""
    return np.isfinite(xs).all(axis=0) & np.isfinite(recs).all(axis=0) & (recs[RHO] <= tol)


def _attempt(xs, recs, tol, times, evaluations, x) -> Attempt:
    """The :class:`Attempt` of one compiled sample (its kept rows xs (n, 1),
    recs (n_rec, 1), its whole state x: (x (n_x,), kept matrix), :func:`_block`)
    whose steps end at ``times``:
    failed at its first step above tol (the sample's end when it diverged);
    the largest residual (inf if it diverged)."""
    if _converged(xs, recs, tol)[0] and np.isfinite(x[0]).all():
        return Attempt((xs, recs, x), float(recs[RHO, 0]), evaluations)
    finite = np.isfinite(xs).all() and np.isfinite(recs).all()
    first = int(recs[CONVERGED, 0]) if finite else len(times) - 1
    return Attempt(None, float(recs[RHO, 0]) if finite else np.inf, evaluations,
                   float(times[min(first, len(times) - 1)]))


class _Store:
    """``store(xs, recs, k0)``: complete samples k0, k0 + 1, ... into the
    recorder (the compiled outputs ``[tau; energy; sensors; drift; rho;
    evaluations; converged]``, the sensors without a compiled form), then the
    progress callback."""

    def __init__(self, model, cm, rec, names, other, options, progress):
        self.model, self.cm, self.rec, self.names = model, cm, rec, names
        self.other, self.options, self.progress = other, options, progress
        self.kept, self.slices = kept_rows(cm)

    def rows(self, x):
        """The kept rows (n, 1) of one whole state x (n_x,) (:func:`kept_rows`)."""
        return x[self.kept][:, None]

    def __call__(self, rows, recs, k0):
        rec, n_a = self.rec, self.cm.n_a
        q, v, a = self.cm.unpack(rows, self.slices)
        values = {name: recs[n_a + 1 + i] for i, name in enumerate(self.names)}
        values.update(_numpy_sensors(self.model, self.cm.dep, rows, self.slices, self.other,
                                     self.options))
        rec.store(k0, q, v, recs[:n_a].T, recs[n_a], recs[DRIFT], recs[RHO], values,
                  self.progress)


def compiled_robot(model, dep, kept=None, design_input=False):
    """The :class:`CompiledRobot` of ``model`` for ``dep`` and the
    independent constraint rows ``kept`` (None: all; ``design_input``: the
    design vector an input at every size,
    :class:`flexpkm.analysis.simulation_options.SimulationOptions`), made once per model
    and kept for its next simulations (with its block functions) in the
    model's slot ``model.compiled.simulate``
    (:class:`flexpkm.model.build.CompiledFunctions`); a model built again
    finds its generated code in the disk cache (:mod:`flexpkm.compiled.codegen`)."""
    kept = None if kept is None else tuple(int(i) for i in kept)
    key = (tuple(int(i) for i in dep), kept) + (("design_input",) if design_input else ())
    held = model.compiled.simulate
    if key not in held:
        held[key] = CompiledRobot(model, dep=dep, kept=kept, design_input=design_input)
    return held[key]


def kept_rows(cm):
    """``(rows, slices)``: the rows of the step state x kept per output sample
    (q, v, a and the last evaluation's q_ev, v_ev: what the recorder and the
    numpy sensors read; not J, the counters nor a_prev, g, b) and their
    slices in the kept rows."""
    sl = cm.state_slices()
    rows, out, k = [], {}, 0
    for name in ("q", "v", "a", "q_ev", "v_ev"):
        rows.append(np.arange(sl[name].start, sl[name].stop))
        out[name], k = slice(k, k + len(rows[-1])), k + len(rows[-1])
    return np.concatenate(rows), out


def _block(cm, config):
    """``((x, S), U, par) -> (rows (n, K), recs (n_rec, K), n_ok, (x, S)_before,
    (x, S)_after)``: the K output samples of the drive table U (3 n_a, K
    n_sub) from the step state x and the kept inverse iteration matrix S
    (None: none, or not formed yet), one call of the compiled sample
    function each (:meth:`CompiledRobot.sample`),
    through numpy buffers (no CasADi matrix conversions), the state of one
    the input of the next; stops at a sample that did not converge (the
    later ones NaN: not converged). ``rows`` the :func:`kept_rows` of each
    sample's state, ``n_ok`` the samples converged before the first that
    did not, ``(x, S)_before`` the whole state that sample started from and
    ``(x, S)_after`` its end (the last sample's end when all converged). With a
    kept matrix, a sample stopped before a step that needs it formed is
    called again from that step (:class:`flexpkm.analysis.kept_matrix.KeptSample`). A loop
    here rather than CasADi's ``mapaccum(K)``, whose graph of K calls took 1-3 s to build per block
    size at 8 elements per body (the whole state, J and the kept
    iteration matrix included, concatenated K times). Built once per model
    and configuration."""
    blocks = cm.blocks
    if config not in blocks:
        prescribed, iterations, n_sub, project_each, specs, exact = config
        fn = cm.sample(prescribed, iterations, n_sub, project_each, specs, exact)
        buf, evaluate = fn.buffer()
        ins = [np.zeros(fn.nnz_in(i)) for i in range(min(fn.n_in(), 3))] + [None, np.zeros(1)]
        sizes = [fn.nnz_out(i) for i in range(fn.n_out())]
        out = np.zeros(sum(sizes))      # every output: one sum checks them
        outs = np.split(out, np.cumsum(sizes)[:-1])
        ones = np.ones(len(out))
        for i in range(fn.n_in()):
            if ins[i] is not None:
                buf.set_arg(i, memoryview(ins[i]))
        for i, a in enumerate(outs):
            buf.set_res(i, memoryview(a))
        kept = fn.n_in() == 5 and KeptSample(cm.iteration(prescribed, iterations, specs, exact),
                                              (buf, evaluate, ins, outs), n_sub, cm, prescribed)
        keep = kept_rows(cm)[0]

        def run(state, U, par, hold=(fn, buf)):          # fn and buf must outlive the calls
            K = U.shape[1] // n_sub
            xs, recs = np.full((K, len(keep)), np.nan), np.full((K, len(outs[1])), np.nan)
            ins[0][:], ins[2][:] = state[0], par
            S, start, tol, n_ok = state[1], None, float(par[-1]), 0
            Us = np.ascontiguousarray(U.T).reshape(K, -1)   # row k: sample k's U, column-major
            for k in range(K):                     # rows: contiguous writes
                ins[1][:] = Us[k]
                if kept:
                    S, start = kept(S)
                else:
                    evaluate()
                xs[k], recs[k] = outs[0][keep], outs[1]
                if not (outs[1][RHO] <= tol and math.isfinite(out.dot(ones))):
                    break                           # (_converged, one sample: one sum)
                n_ok = k + 1
                if k + 1 < K:
                    ins[0][:] = outs[0]
            before = (ins[0].copy() if start is None else start,
                      kept.start_matrix if kept else state[1])
            return xs.T, recs.T, n_ok, before, (outs[0].copy(), S)
        blocks[config] = run
    return blocks[config]


def _numpy_sensors(model, dep, xs, sl, other, o) -> dict:
    """Sensors without a compiled form: name -> (K,) values of the numpy full
    model at the last evaluation of each sample (the kept rows xs (n, K),
    their slices ``sl``, :func:`kept_rows`), as the numpy recorder does."""
    out = {name: np.zeros(xs.shape[1]) for name in other}
    if not other:
        return out
    for j in range(xs.shape[1]):
        full = full_dynamics(model, xs[sl["q_ev"], j], xs[sl["v_ev"], j], dep=dep,
                             gravity=o.gravity, friction=o.friction,
                             coulomb_smoothing=o.coulomb_smoothing, loop_tol=None)
        for name, fn in other.items():
            out[name][j] = fn(model, full, xs[sl["a"], j])
    return out
