"""Inverse dynamic model along a straight platform path (rigid robots,
Briot & Khalil Sections 8.4-8.5): the pose moves from ``start`` to ``stop``
with the fifth-degree law ``s = 10 tau^3 - 15 tau^4 + 6 tau^5`` (Appendix
D, ``tau = t / T``), sampled at ``rate``; the actuator efforts come from
the full model (10.123)-(10.124), minimum-norm with actuation redundancy
(8.148)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from flexpkm.algorithms.dynamics import full_dynamics, inverse_dynamics
from flexpkm.algorithms.energy import energy
from flexpkm.algorithms.ground import ground_reactions
from flexpkm.analysis.backend import DEFAULT_BACKEND, choose_backend
from flexpkm.analysis.trajectories import quintic
from flexpkm.analysis.wrenches import wrench_at
from flexpkm.errors import FlexPKMError, InvalidArgumentError, with_context
from flexpkm.algorithms.reference import build_model
from flexpkm.algorithms.singular_flags import check_samples
from flexpkm.algorithms.singularity import NEAR, SINGULAR
from flexpkm.datasets import ResultViews


@dataclass(kw_only=True, repr=False)
class IdmResult(ResultViews):
    """Efforts along a path.

    t : (n,) s;  x_p : (n, n_p) platform coordinates
    q_a, qd_a, qdd_a : (n, n_A) all actuators (m or rad, per s, per s^2)
    tau : (n, n_A) actuator efforts, N or N m;  names : actuator names
    ground : :class:`flexpkm.algorithms.ground.GroundReactions` of the
        samples (n, 6) (8.206); energy : :class:`flexpkm.algorithms.energy.Energy`
        of the samples (n,) (8.218)-(8.220);  wrench : (n, 6) the external
        wrench on the platform (zeros without one)
    backend, backend_reason : ``"numpy"`` (the IDM has no compiled path) and why
    distances : (n, k) scale-free distances to the singularities named by
        ``distance_names`` (the Type 2 block, each leg's LPJTS block;
        :mod:`flexpkm.algorithms.singularity`) at each sample
    """

    _views = ("idm_dataset", "idm_frame")   # flexpkm.datasets

    t: np.ndarray
    x_p: np.ndarray
    q_a: np.ndarray
    qd_a: np.ndarray
    qdd_a: np.ndarray
    tau: np.ndarray
    names: tuple
    ground: object = None
    energy: object = None
    wrench: np.ndarray = None
    backend: str = "numpy"
    backend_reason: str = ""
    distances: np.ndarray = None
    distance_names: tuple = ()



def straight_path(start, stop, duration, rate=1000.0):
    """``(t (n,), s, ds/dt, d2s/dt2)`` of the quintic law from 0 to
    ``duration`` s at ``rate`` Hz (both ends included). Raises
    :class:`InvalidArgumentError` for a non-positive duration or rate."""
    if not duration > 0 or not rate > 0:
        raise InvalidArgumentError(f"the duration ({duration} s) and the sampling rate "
                                   f"({rate} Hz) must be positive")
    n = int(round(duration * rate)) + 1
    t = np.linspace(0.0, duration, n)
    s, ds, dds = quintic(t / duration)
    return t, s, ds / duration, dds / duration ** 2


def path_inverse_dynamics(model, state, start, stop, duration, rate=1000.0, weights=None,
                          friction=True, wrench=None,
                          backend=DEFAULT_BACKEND, near=NEAR, singular=SINGULAR) -> IdmResult:
    """Inverse dynamics along the straight path of poses ``start -> stop``.

    model : Model or Robot (rigid, or with the state fixed by the platform).
    state : ``poses (n, k) -> q_tot (n, n_tot)``, the closed-form inverse
        geometric model; the platform coordinates must be affine in the pose
        (e.g. (x, y) of P) so that their rates are those of the path.
    start, stop : (k,) poses; duration : s; rate : Hz (1 kHz by default).
    weights : W of the weighted minimum-norm efforts (actuation redundancy).
    wrench : external wrench on the platform, (6,) or a function of time
        ``f(t) -> (6,)`` (:mod:`flexpkm.analysis.wrenches`; N, N m, at P,
        base frame), or None.
    backend : ``"auto"`` (default) or ``"numpy"``; ``"compiled"`` raises
        :class:`flexpkm.errors.BackendUnavailableError` (no compiled path;
        :mod:`flexpkm.analysis.backend`).
    near, singular : thresholds of the distances to the singularities
        (:func:`flexpkm.algorithms.singular_flags.check_samples`): a
        :class:`flexpkm.errors.NearSingularWarning` below ``near``, a refusal
        at or below ``singular`` or where the path crosses a Type 2 or LPJTS
        singularity between two samples (``singular=0``: none).
    Returns :class:`IdmResult`. Raises :class:`flexpkm.errors.UnreachablePoseError`
    (from ``state``), :class:`flexpkm.errors.SingularConfigurationError`
    (naming the first singular sample, or the two samples around a crossed
    singularity), :class:`InvalidArgumentError` when
    the platform coordinates do not determine the independent velocities.
    """
    model = build_model(model)
    choice = choose_backend(backend, "path_inverse_dynamics", model)
    layout = model.layout
    start, stop = np.asarray(start, float), np.asarray(stop, float)
    t, s, sd, sdd = straight_path(start, stop, duration, rate)
    try:
        q = state(start + s[:, None] * (stop - start))
    except FlexPKMError as e:
        raise with_context(e, f"path from {start.tolist()} to {stop.tolist()}") from None
    names, dist = check_samples(model, q, t, near, singular, f"{model.name}'s path")
    plat = np.arange(layout.n_t, layout.n_tot)
    dx = state(stop[None])[0, plat] - state(start[None])[0, plat]
    xd, xdd = sd[:, None] * dx, sdd[:, None] * dx
    try:
        first = full_dynamics(model, q[0], 0.0)        # the independent rows decide n_r
        dep, n_r = first.dep, len(first.indep)
        probe = full_dynamics(model, q, np.zeros((len(t), n_r)), dep=dep)
    except FlexPKMError as e:
        raise with_context(e, f"{model.name} along the path") from None
    Jp = probe.J[:, plat, :]
    if Jp.shape[1] != Jp.shape[2]:
        raise InvalidArgumentError(f"{model.name}: the {Jp.shape[1]} platform coordinates do not "
                                   f"fix the {Jp.shape[2]} independent velocities")
    qd_r = np.linalg.solve(Jp, xd[..., None])[..., 0]
    w = wrench_at(wrench, t, "idm: wrench")
    full = full_dynamics(model, q, qd_r, dep=dep, friction=friction, wrench=w)
    qdd_r = np.linalg.solve(Jp, (xdd - full.b[:, plat])[..., None])[..., 0]
    tau, _ = inverse_dynamics(full, qdd_r[:, :full.n_a], weights=weights)
    act = full.actuated
    qd_tot = (full.J @ qd_r[..., None])[..., 0]
    qdd_tot = (full.J @ qdd_r[..., None])[..., 0] + full.b
    return IdmResult(t=t, x_p=q[:, plat], q_a=q[:, act], qd_a=qd_tot[:, act], qdd_a=qdd_tot[:, act],
                     tau=tau, names=tuple(layout.names[i] for i in act),
                     ground=ground_reactions(model, full, q, qd_r, qdd_r, tau),
                     energy=energy(model, q, qd_tot),
                     wrench=np.zeros((len(t), 6)) if w is None else w,
                     backend=choice.name, backend_reason=choice.reason,
                     distances=dist, distance_names=names)
