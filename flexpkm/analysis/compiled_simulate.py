"""The time simulation on generated code (``simulate(..., backend="compiled")``).

Same scheme and outputs as :func:`flexpkm.analysis.simulate.simulate`: the
initial state is assembled by the numpy path, then every block of steps
between two output samples runs in one call of a compiled function
(:mod:`flexpkm.compiled.step`: HHT step with a fixed number of Newton
iterations, loop projection, recorded efforts, energy, drift and point-
acceleration sensors). The drive is tabulated at the step times before the
block (trajectories are evaluated vectorised).

Differences from the numpy path: the Newton iterations do not stop early at
``tol`` (always ``iterations`` of them, so the result is at least as
converged), the loop projection uses the exact Jacobian of the loop
equations (same fixed point), and a sensor is compiled when it carries an
attribute ``point = (frame, axis_frame, axis)``
(:func:`flexpkm.algorithms.dynamics.point_acceleration`); other sensors are
evaluated with the numpy full model at the samples.
"""
from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_limits

from flexpkm.algorithms.closure import closure_residual
from flexpkm.algorithms.dynamics import full_model
from flexpkm.analysis.drives import EffortHistory, Free, PDControl, PrescribedMotion
from flexpkm.compiled.codegen import description_key
from flexpkm.compiled.robot import CompiledModel
from flexpkm.errors import FlexPKMError, InvalidArgumentError

#: output samples per call of the compiled block function
CHUNK = 500


#: largest n_tot the default backend compiles (the generated code grows fast
#: with the loops: the NaVARo's step is ~10^6 instructions, minutes of gcc)
AUTO_MAX_COORDINATES = 64


def compiled_supports(drive, model=None) -> bool:
    """Whether ``simulate(backend=None)`` runs this drive and robot compiled:
    one of the four drives and at most :data:`AUTO_MAX_COORDINATES`
    coordinates (``backend="compiled"`` forces it)."""
    small = model is None or model.layout.n_tot <= AUTO_MAX_COORDINATES
    return small and isinstance(drive, (PrescribedMotion, PDControl, Free, EffortHistory))


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


def run_compiled(robot, p, state, drive, rec, n_sub, project, progress, cfg):
    """The loop over blocks of output samples on the compiled functions;
    fills the recorder ``rec`` from sample 1 on. ``p`` the HHT parameters,
    ``state`` the numpy initial state, ``cfg`` = (gravity, friction,
    coulomb_smoothing, iterations, exact, sensors). Returns the Newton
    iterations (steps x iterations)."""
    gravity, friction, smoothing, iterations, exact, sensors = cfg
    m = state.model
    cm = compiled_model(robot, m.dep, None if m.rows is None or not len(m.rows.dropped)
                        else m.rows.kept)
    n_a, prescribed = m.n_a, drive.prescribes_actuators
    specs, names, other = split_sensors(sensors)
    kp, kd = (np.broadcast_to(np.asarray(k, float), (n_a,)) for k in drive.gains(n_a))
    g = np.asarray(robot.gravity if gravity is None else gravity, float)
    par = cm.parameters(kp, kd, p.h, p.alpha, g, friction, smoothing)
    config = (prescribed, iterations, n_sub, project == "step", tuple(specs), exact)
    x = cm.pack(state.q, state.v, state.a, state.g, m.J, m.b)
    n_out = len(rec.t)
    times = np.cumsum(np.full((n_out - 1) * n_sub, p.h))
    for k0 in range(1, n_out, CHUNK):
        K = min(CHUNK, n_out - k0)
        U = drive_table(drive, times[(k0 - 1) * n_sub:(k0 - 1 + K) * n_sub], n_a)
        xs, recs = _block(cm, config, K)(x, U, par)
        if not np.all(np.isfinite(xs)):
            bad = k0 + int(np.argmax(~np.all(np.isfinite(xs), axis=0)))
            raise FlexPKMError(f"the time integration diverged before t = {rec.t[bad]:.6f} s")
        q, v, a = cm.unpack(xs)
        ks = slice(k0, k0 + K)
        rec.q[ks], rec.v[ks] = q, v
        rec.tau[ks], rec.energy[ks], rec.drift[ks] = recs[:n_a].T, recs[n_a], recs[-1]
        for i, name in enumerate(names):
            rec.values[name][ks] = recs[n_a + 1 + i]
        _numpy_sensors(robot, cm, xs, other, rec, k0, cfg)
        rec.n_done = k0 + K                       # complete samples (kept on Ctrl-C)
        x = xs[:, -1]
        for k in range(k0, k0 + K) if progress is not None else ():
            rec.n_done = k + 1                    # what the progress callback has seen
            progress(k, n_out - 1)
        rec.n_done = k0 + K
    return (n_out - 1) * n_sub * iterations


#: compiled models of the robots simulated in this process, by the hash of
#: their numbers and dependent coordinates (a robot rebuilt from the same
#: description finds its functions again)
_MODELS = {}


def compiled_model(robot, dep, kept=None):
    """The :class:`CompiledModel` of ``robot`` (a Model) for ``dep`` and the
    independent constraint rows ``kept`` (None: all), kept for the next
    simulations of the same model (with its block functions)."""
    kept = None if kept is None else tuple(int(i) for i in kept)
    key = description_key(robot, "simulate", tuple(int(i) for i in dep), kept)
    if key not in _MODELS:
        _MODELS[key] = (robot, CompiledModel(robot, dep=dep, kept=kept), {})
    return _MODELS[key][1]


def _block(cm, config, K):
    """``(x, U, par) -> (xs (n_x, K), recs (n_rec, K))``: K output samples
    in one call of the compiled functions, through numpy buffers (no CasADi
    matrix conversions); built once per model, configuration and K."""
    blocks = next(v[2] for v in _MODELS.values() if v[1] is cm)
    if (config, K) not in blocks:
        prescribed, iterations, n_sub, project_each, specs, exact = config
        fn = cm.sample(prescribed, iterations, n_sub, project_each, specs, exact).mapaccum(K)
        buf, evaluate = fn.buffer()
        ins = [np.zeros(fn.nnz_in(i)) for i in range(3)]
        outs = [np.zeros(fn.nnz_out(i)) for i in range(2)]
        for i, a in enumerate(ins):
            buf.set_arg(i, memoryview(a))
        for i, a in enumerate(outs):
            buf.set_res(i, memoryview(a))

        def run(x, U, par, keep=(fn, buf)):          # fn and buf must outlive the calls
            ins[0][:], ins[1][:], ins[2][:] = x, np.ravel(U, order="F"), np.tile(par, K)
            evaluate()
            return (outs[0].reshape(K, -1).T.copy(), outs[1].reshape(K, -1).T.copy())
        blocks[config, K] = run
    return blocks[config, K]


def _numpy_sensors(robot, cm, xs, other, rec, k0, cfg):
    """Sensors without a compiled form: the numpy full model at the last
    evaluation of each sample, as the numpy recorder does."""
    if not other:
        return
    from flexpkm.compiled.step import layout
    sl = layout(robot.layout.n_tot, len(cm.r_index), cm.n_a)[0]
    gravity, friction, smoothing = cfg[:3]
    for j in range(xs.shape[1]):
        full = full_model(robot, xs[sl["q_ev"], j], xs[sl["v_ev"], j], dep=cm.dep,
                          gravity=gravity, friction=friction, coulomb_smoothing=smoothing,
                          loop_tol=None)
        for name, fn in other.items():
            rec.values[name][k0 + j] = fn(robot, full, xs[sl["a"], j])


def initial_drift(robot, q):
    """Largest loop gap of the initial state."""
    with threadpool_limits(1):
        return np.abs(closure_residual(robot, q)).max(initial=0.0)
