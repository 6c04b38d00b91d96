"""Assembly of a configuration: the geometric models of Briot & Khalil
Chapter 7 (Section 7.2-7.3), solved numerically for any robot.

The loop equations ``h(q_tot) = 0`` (:func:`flexpkm.algorithms.closure.closure_residual`)
are solved for the free coordinates by Gauss-Newton steps
``dq_free = -J_free^+ h`` with ``J_free`` the columns of ``J_tot``
(10.107) of the free coordinates (the velocity-level Jacobian is the
derivative of the residual at the solution; platform orientations are
updated by composition):

* **forward problem** (direct geometric model, Section 7.3): the actuated
  coordinates ``q_a`` are fixed, the passive joints and the platform pose are
  free;
* **inverse problem** (inverse geometric model, Section 7.2): the commanded
  platform coordinates are fixed (``Platform.commanded``; all of ``x_p``
  but in a flexible model whose platform was completed,
  :mod:`flexpkm.model.completion`), every joint (actuated included) and the
  other platform coordinates are free.

Elastic coordinates keep their values (0 by default: the rigid geometric
model). The start is ``guess`` or the robot's ``reference`` configuration
(its assembly mode and working modes); the fixed coordinates go from their
start values to the target in steps of at most :data:`MAX_STEP`
(continuation), so that the solution stays on the branch of the start; the
steps are refined when Newton does not converge.
"""
from __future__ import annotations

import numpy as np

from flexpkm.algorithms.closure import (apply_step, closure_residual, constraint_jacobian,
                                        row_labels)
from flexpkm.algorithms.mode_keeping import half_turn_refusal, kept_modes, other_starts
from flexpkm.algorithms.modes import mode_signature
from flexpkm.algorithms.platform import platform_pose
from flexpkm.algorithms.tree import tree_kinematics
from flexpkm.errors import (FlexPKMError, InvalidArgumentError, SingularConfigurationError,
                            UnreachablePoseError, WorkingModeError)
from flexpkm.model.build import build_structure

#: singular values of ``J_free`` below this fraction of the largest are rank loss
RCOND_RANK = 1e-9
#: largest change of a fixed coordinate per continuation step (m, rad), and of
#: any coordinate per Newton step: small steps keep the assembly mode
MAX_STEP = 0.05


def reference_configuration(model) -> np.ndarray:
    """``q_tot`` (n_tot,) of the robot's reference configuration (m, rad): the
    assembled one of a Model built by :func:`flexpkm.build_model`
    (``model.reference_state.q_tot``: the loops closed), else the values the
    description gives (a file's rough guess; absent coordinates 0)."""
    state = getattr(model, "reference_state", None)
    if state is not None and state.q_tot is not None:
        return np.array(state.q_tot, dtype=float)
    model = build_structure(model)
    q = np.zeros(model.layout.n_tot)
    for name, value in model.reference.items():
        q[model.layout.index(name)] = value
    return q


def assemble(model, q_a=None, pose=None, guess=None, tol=1e-12, max_iter=40,
             modes=None) -> np.ndarray:
    """A configuration ``q_tot`` whose loops are closed (Chapter 7).

    q_a  : (n_a,) or (B, n_a) actuated coordinates (m, rad), in the order of
           ``model.layout.actuated``: the forward problem.
    pose : (n_c,) or (B, n_c) commanded platform coordinates (m, rad; the
           components ``Platform.commanded_dofs`` of ``[P; rotation vector]``,
           columns ``model.layout.commanded``): the inverse problem; the other
           platform coordinates are solved with the joints.
    guess : (n_tot,) start (default: the robot's ``reference``); a batch is
           solved pose after pose, each started from the previous solution.
    modes : the working modes and assembly mode to keep (Section 7.5,
           :mod:`flexpkm.algorithms.modes`): a dict leg name -> +1/-1 (and
           ``"assembly"`` -> +1/-1); None: those of ``guess``, or of the
           reference configuration without a guess; False: not checked.
    Give exactly one of ``q_a`` and ``pose``.
    Returns (n_tot,) for one pose, (B, n_tot) for a batch.
    Raises :class:`UnreachablePoseError` (the loops cannot be closed: names
    the closure, its leg and the residual; or they close only with a cut
    frame half-turned), :class:`WorkingModeError` (they close only in other
    working or assembly modes: names the leg, the modes wanted and found),
    :class:`SingularConfigurationError`
    (the solution is not locally unique: ``J_free`` rank deficient, with its
    condition number), :class:`InvalidArgumentError` for bad arguments.
    """
    model = build_structure(model)
    _check_solver(tol, max_iter)
    layout = model.layout
    if (q_a is None) == (pose is None):
        raise InvalidArgumentError("assemble: give exactly one of q_a (forward problem) "
                                   "and pose (inverse problem)")
    fixed_cols = np.array(layout.actuated if pose is None else layout.commanded, dtype=int)
    what = "q_a" if pose is None else "pose"
    targets = _targets(q_a if pose is None else pose, len(fixed_cols), what)
    free = free_columns(model, fixed_cols)
    q = reference_configuration(model) if guess is None else _guess(model, guess)
    ref_modes = reference_modes(model) if guess is None and not modes and modes is not False \
        else None
    keep = kept_modes(model, None if guess is None else q, modes, inverse=pose is not None,
                      reference=ref_modes)
    out = []
    for b, target in enumerate(targets):
        where = f"pose {b} " if len(targets) > 1 else ""
        try:
            q = _solve(model, q, fixed_cols, target, free, tol, max_iter, where, keep)
        except WorkingModeError as e:           # the path left the modes: other starts
            q = other_starts(model, keep, lambda start, q0=q: _solve(
                model, q0 if start is None else start, fixed_cols, target, free, tol,
                max_iter, where), e)
        out.append(q)
    out = np.array(out)
    return out[0] if np.ndim(q_a if pose is None else pose) == 1 else out


def _check_solver(tol, max_iter):
    """``tol`` a positive finite number, ``max_iter`` a whole number >= 1."""
    if isinstance(tol, bool) or not isinstance(tol, (int, float, np.floating)) \
            or not np.isfinite(tol) or tol <= 0:
        raise InvalidArgumentError(f"assemble: tol must be a positive finite number, got {tol!r}")
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise InvalidArgumentError(f"assemble: max_iter must be a whole number >= 1, "
                                   f"got {max_iter!r}")


def _targets(values, n, what):
    x = np.asarray(values, dtype=float)
    if x.ndim not in (1, 2) or x.shape[-1] != n:
        raise InvalidArgumentError(f"assemble: {what} must have {n} values per pose, "
                                   f"got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise InvalidArgumentError(f"assemble: {what} must be finite, got {x.tolist()}")
    return np.atleast_2d(x)


def _guess(model, guess):
    q = np.array(guess, dtype=float)
    if q.shape != (model.layout.n_tot,) or not np.all(np.isfinite(q)):
        raise InvalidArgumentError(f"assemble: guess must be {model.layout.n_tot} finite "
                                   f"values (q_tot), got shape {q.shape}")
    return q


def free_columns(model, fixed_cols):
    """Joint and platform columns (sorted indices into ``q_tot``) that the
    loop equations may move: every joint and platform coordinate but the
    ``fixed_cols`` (the actuated ones, or the commanded platform ones)."""
    layout = model.layout
    joints = set(layout.joint_index.values())
    cols = [c for c in range(layout.n_tot)
            if (c in joints or c >= layout.n_t) and c not in set(fixed_cols)]
    return np.array(cols, dtype=int)


def _solve(model, q_start, fixed_cols, target, free, tol, max_iter, where, keep=None):
    """Newton from ``q_start`` to the target: continuation in steps of at most
    :data:`MAX_STEP`, refined once (twice when it left the modes ``keep``, a
    :class:`ModeKeeper`), then a direct attempt; a configuration in other
    modes or with a cut frame half-turned is refused."""
    start = q_start[fixed_cols].copy()
    n_min = max(1, int(np.ceil(np.abs(target - start).max(initial=0.0) / MAX_STEP)))
    refused = None
    for n_steps in (n_min, 4 * n_min, 16 * n_min, 1):
        if n_steps == 16 * n_min and refused is None:
            continue                            # finest steps only to keep the modes
        q = q_start.copy()
        for s in range(1, n_steps + 1):
            # intermediate targets of redundant actuators need not be
            # compatible: their least-squares point is a start, no more
            q = _set_fixed(q, fixed_cols, start + (target - start) * s / n_steps)
            q, err = _newton(model, q, free, tol, max_iter if s == n_steps else 8)
            if not np.isfinite(err):
                break
            if keep is not None and (s == n_steps or err <= 1e3 * tol):
                refused = keep.refusal(q, where)
                if refused is not None:
                    err = np.inf
                    break
        if err <= 1e3 * tol:
            refused = half_turn_refusal(model, q, where)
            if refused is None:
                _check_unique(model, q, free, where)
                return q
    if refused is not None:
        raise refused
    r = closure_residual(model, q)[0]
    row = int(np.nanargmax(np.abs(r))) if np.isfinite(r).any() else 0
    label, leg, comp = row_labels(model)[row]
    fixed_pose = len(fixed_cols) and fixed_cols[0] >= model.layout.n_t
    raise UnreachablePoseError(
        f"assemble: {where}unreachable: the loops cannot be closed at this "
        f"{'pose' if fixed_pose else 'actuator position'}: closure {label}"
        f"{f' (leg {leg})' if leg and f'leg {leg}' not in label else ''} keeps a residual of {abs(r[row]):.3g} along {comp}")


def _set_fixed(q, cols, values):
    q = q.copy()
    q[cols] = values
    return q


def _newton(model, q, free, tol, max_iter):
    """Damped Gauss-Newton on the loop equations; returns (q, max |h|)."""
    layout = model.layout
    q = q[None].copy()
    err = np.inf
    for _ in range(max_iter):
        kin = tree_kinematics(model, q[:, :layout.n_t])
        r = closure_residual(model, q, kin)[0]
        err = np.abs(r).max() if r.size else 0.0
        if not np.isfinite(err) or err < tol:
            break
        J = constraint_jacobian(model, kin, platform_pose(model, q))[0][0][:, free]
        dx = -np.linalg.lstsq(J, r, rcond=None)[0]
        dx *= min(1.0, 4 * MAX_STEP / max(np.abs(dx).max(), 1e-300))     # trust region
        for _ in range(12):                     # halve the step until |h| decreases
            trial = apply_step(model, q, free, dx)
            r_new = closure_residual(model, trial)[0]
            if np.linalg.norm(r_new) < np.linalg.norm(r):
                break
            dx = dx / 2
        else:
            break
        q = trial
    return q[0], err


def _check_unique(model, q, free, where):
    """The assembled configuration is isolated: ``J_free`` has full column
    rank, else :class:`SingularConfigurationError` with its condition number."""
    layout = model.layout
    kin = tree_kinematics(model, q[None, :layout.n_t])
    J = constraint_jacobian(model, kin, platform_pose(model, q[None]))[0][0][:, free]
    if J.shape[1] == 0:
        return
    sv = np.append(np.linalg.svd(J, compute_uv=False), 0.0)   # 0.0: no rows at all
    n = J.shape[1]
    cond = sv[0] / sv[n - 1] if len(sv) > n and sv[n - 1] > 0 else np.inf
    if len(sv) <= n or sv[n - 1] < RCOND_RANK * sv[0]:
        raise SingularConfigurationError(
            f"assemble: {where}singular configuration: the loop equations do not fix the "
            f"{n} free coordinates (J of the free coordinates has rank "
            f"{int(np.sum(sv > RCOND_RANK * sv[0]))}, condition number {cond:.3g})",
            matrix="J_free", cond=cond)


def assemble_reference(model) -> np.ndarray:
    """The robot's reference configuration with its loops closed, from its
    ``reference`` values (a rough guess but for what is held): the forward
    problem at its actuated coordinates, or the inverse problem at its
    commanded platform coordinates for a robot with ``reference_fixed =
    "pose"`` or without actuators (e.g. the refined NaVARo, held by
    springs). Raises what :func:`assemble` raises."""
    model = build_structure(model)
    q_ref = reference_configuration(model)
    layout = model.layout
    if model.platform is None or (layout.actuated and model.robot.reference_fixed != "pose"):
        return assemble(model, q_a=q_ref[list(layout.actuated)], modes=False)
    return assemble(model, pose=q_ref[list(layout.commanded)], modes=False)


def reference_modes(model):
    """The modes (dict, :meth:`flexpkm.algorithms.modes.ModeSignature.at`)
    of the robot's assembled reference configuration, or None (no reference,
    or it does not assemble): those of ``model.reference_state``
    (:func:`flexpkm.build_model`), else computed (not kept)."""
    model = build_structure(model)
    if model.reference_state is not None:
        return model.reference_state.modes
    if not (model.reference and model.closures):
        return None
    try:
        return mode_signature(model, assemble_reference(model)).at(0)
    except FlexPKMError:
        return None
