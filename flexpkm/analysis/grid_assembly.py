"""Assembly of the configurations of a grid of poses in batches (the cost
that dominated the sweeps: one Newton solve per pose in Python).

* :class:`NumericalAssembler`: a robot from a description file, the inverse
  problem (the commanded platform coordinates fixed) or the forward one
  (``q_a`` fixed), Chapter 7. The cells of one continuation step
  (:func:`flexpkm.analysis.grid.fronts`) run Gauss-Newton together, each
  from its solved neighbour; a cell that does not converge, leaves the
  working / assembly modes kept, closes with a cut frame half-turned or is
  not isolated (``J_free`` rank deficient) is solved again alone by
  :func:`flexpkm.assemble` (continuation in small steps, other starts), whose
  error is its status: the batch changes the speed, never the answer.
* :class:`BatchConfigure`: a case's closed-form geometric model
  ``configure(poses (B, k)) -> q_tot (B, n_tot)`` (the NaVARo's): the whole
  chunk in one call; a chunk that raises is split in halves until the
  failing poses are alone (their error is their status).

Statuses: ``"ok"`` or ``"<ErrorClass>: <message>"``.
"""
from __future__ import annotations

import numpy as np

from flexpkm.algorithms.assembly import (MAX_STEP, RCOND_RANK, assemble, free_columns,
                                         reference_configuration, reference_modes)
from flexpkm.algorithms.closure import (apply_step, closure_residual, constraint_jacobian,
                                        half_turns)
from flexpkm.algorithms.mode_keeping import kept_modes
from flexpkm.algorithms.modes import mode_signature
from flexpkm.algorithms.platform import platform_pose
from flexpkm.algorithms.tree import tree_kinematics
from flexpkm.errors import FlexPKMError, InvalidArgumentError

#: residual (m, and sines of angles) of a converged batch Newton
TOL = 1e-12
#: Gauss-Newton iterations of a batch before its cells go alone
ITERATIONS = 40
#: a cell whose Gauss-Newton steps decrease ``|h|`` by less than 1 - SLOW
#: three times in a row with ``max |h| > STUCK`` (m, or sines) stalls at a
#: least-squares point: outside the workspace (Gauss-Newton converges at
#: least linearly, much faster than that, towards a solution)
STUCK, SLOW = 1e-6, 0.99


def stuck_status(residual) -> str:
    """The status of a cell where the loops keep a least-squares residual."""
    return (f"UnreachablePoseError: assemble: unreachable: the loops cannot be closed at this "
            f"pose: Gauss-Newton from the neighbouring cell stops at a residual of "
            f"{residual:.3g} (a least-squares point)")


def _nearest_filled(starts):
    """NaN rows of ``starts`` replaced by the nearest finite row (order of the
    batch: the cells of a line); all NaN when none is finite."""
    ok = np.flatnonzero(np.isfinite(starts).all(axis=1))
    if ok.size and ok.size < len(starts):
        nearest = ok[np.abs(np.arange(len(starts))[:, None] - ok[None]).argmin(axis=1)]
        starts = starts[nearest]
    return starts


def status_of(error) -> str:
    """The status text of a refused cell."""
    return f"{type(error).__name__}: {error}"


class NumericalAssembler:
    """Configurations of a file's robot by batched Gauss-Newton (module doc).

    model : a Model (:func:`flexpkm.build_model`); over : ``"pose"`` (the
    commanded platform coordinates, m and rad) or ``"q_a"``; modes : the
    working / assembly modes kept (a dict, :func:`flexpkm.assemble`), None:
    those of the reference configuration (and the description's)."""

    def __init__(self, model, over="pose", modes=None):
        layout = model.layout
        if over not in ("pose", "q_a"):
            raise InvalidArgumentError(f"over must be 'pose' or 'q_a', got {over!r}")
        if over == "pose" and model.platform is None:
            raise InvalidArgumentError(f"{model.name} has no platform: map over q_a")
        self.model, self.over = model, over
        self.fixed = np.array(layout.commanded if over == "pose" else layout.actuated, int)
        self.free = free_columns(model, self.fixed)    # the joints and x_p, but the fixed
        keep = kept_modes(model, None, modes, inverse=over == "pose",
                          reference=reference_modes(model))
        self.wanted = dict(keep.wanted) if keep is not None else {}
        self.reference = reference_configuration(model)

    @property
    def names(self) -> tuple:
        return tuple(self.model.layout.names[c] for c in self.fixed)

    def __call__(self, targets, starts):
        """``(q (B, n_tot), statuses)`` of the targets (B, k) from the
        configurations ``starts`` (B, n_tot; a NaN row: the nearest start of
        the batch, or the reference when the batch has none)."""
        targets = np.asarray(targets, float)
        starts = _nearest_filled(np.array(starts, float))
        none = ~np.isfinite(starts).all(axis=1)
        starts[none] = self.reference
        q, good, stuck = self._newton(targets, starts)
        good &= ~none                          # from the reference: continuation in steps
        good[good] = self._accepted(q[good])
        status = ["ok"] * len(q)
        for b in np.flatnonzero(~good):
            if stuck[b] and not none[b]:
                q[b], status[b] = np.nan, stuck_status(stuck[b])
            else:
                q[b], status[b] = self._alone(targets[b], None if none[b] else starts[b])
        return q, status

    def _newton(self, targets, q):
        """Gauss-Newton with a line search on the batch: ``(q, converged
        (B,), stuck (B,))``, stuck the residual ``max |h|`` of a cell that
        stalls (:data:`SLOW`, :data:`STUCK`: a pose outside the workspace),
        else 0."""
        model, n_t = self.model, self.model.layout.n_t
        q[:, self.fixed] = targets
        r = closure_residual(model, q)
        err = np.abs(r).max(axis=1, initial=0.0)
        stuck, slow = np.zeros(len(q)), np.zeros(len(q), int)
        active = (err >= TOL) & np.isfinite(err)
        for _ in range(ITERATIONS):
            idx = np.flatnonzero(active)
            if not idx.size:
                break
            qa, ra = q[idx], r[idx]
            kin = tree_kinematics(model, qa[:, :n_t])
            J = constraint_jacobian(model, kin, platform_pose(model, qa))[0][:, :, self.free]
            dx = -(np.linalg.pinv(J) @ ra[..., None])[..., 0]
            dx /= np.maximum(np.abs(dx).max(axis=1) / (4 * MAX_STEP), 1.0)[:, None]
            q_new, r_new, better = self._line_search(qa, ra, dx)
            gain = np.linalg.norm(r_new, axis=1) / np.linalg.norm(ra, axis=1)
            q[idx[better]], r[idx[better]] = q_new[better], r_new[better]
            err[idx] = np.abs(r[idx]).max(axis=1, initial=0.0)
            slow[idx] = np.where(better & (gain < SLOW), 0, slow[idx] + 1)
            stall = (slow[idx] >= 3) & (err[idx] > STUCK)
            stuck[idx[stall]] = err[idx[stall]]
            active[idx] = ~stall & better & (err[idx] >= TOL)
        converged = (err < TOL) & np.isfinite(q).all(axis=1)
        return q, converged, np.where(converged, 0.0, stuck)

    def _line_search(self, q, r, dx):
        """Steps ``alpha dx``, alpha = 1, 1/2, ... 1/1024, the first that
        decreases ``|h|`` per cell: ``(q, r, better (B,))``."""
        norm = np.linalg.norm(r, axis=1)
        q_out, r_out = q.copy(), r.copy()
        better = np.zeros(len(q), bool)
        for alpha in 0.5 ** np.arange(11):
            todo = np.flatnonzero(~better)
            if not todo.size:
                break
            trial = apply_step(self.model, q[todo], self.free, alpha * dx[todo])
            r_try = closure_residual(self.model, trial)
            ok = np.linalg.norm(r_try, axis=1) < norm[todo]
            q_out[todo[ok]], r_out[todo[ok]] = trial[ok], r_try[ok]
            better[todo[ok]] = True
        return q_out, r_out, better

    def _accepted(self, q) -> np.ndarray:
        """(B,) the converged cells in the wanted modes, closed with their cut
        frames aligned, and isolated (``J_free`` of full column rank)."""
        ok = np.ones(len(q), bool)
        if not len(q):
            return ok
        for b, *_ in half_turns(self.model, q):
            ok[b] = False
        if self.wanted:
            sig = mode_signature(self.model, q)
            for leg, v in self.wanted.items():
                found = sig.assembly if leg == "assembly" else sig.working[:, sig.legs.index(leg)]
                ok &= (found == 0) | (found == v)
        kin = tree_kinematics(self.model, q[:, :self.model.layout.n_t])
        J = constraint_jacobian(self.model, kin, platform_pose(self.model, q))[0][:, :, self.free]
        if J.shape[2]:
            sv = np.linalg.svd(J, compute_uv=False)
            n = J.shape[2]
            ok &= (sv.shape[1] >= n) & (sv[:, min(n, sv.shape[1]) - 1] >= RCOND_RANK * sv[:, 0])
        return ok

    def _alone(self, target, start):
        """One cell by :func:`flexpkm.assemble` (the reference route)."""
        key = "pose" if self.over == "pose" else "q_a"
        try:
            q = assemble(self.model, guess=start, modes=self.wanted or False, **{key: target})
            return q, "ok"
        except FlexPKMError as e:
            return np.full(self.model.layout.n_tot, np.nan), status_of(e)


class BatchConfigure:
    """A closed-form ``configure(poses (B, k)) -> q_tot (B, n_tot)`` as an
    assembler: starts are ignored; a failing batch is bisected (module doc).
    A ``configure`` that takes one pose (k,) only (a TypeError or ValueError,
    or a result of another shape, on a batch of two) is called pose by pose.
    A masked closed form returns ``(q_tot (B, n_tot), statuses (B,))``, NaN
    rows for the refused poses with their statuses (``"<ErrorClass>:
    <message>"``, the NaVARo's ``masked_configure``): one call per batch
    whatever the poses refused."""

    def __init__(self, configure, names):
        self.names, self.batched = tuple(names), None
        self.one = configure

    def configure(self, poses):
        """``(q (B, n_tot), statuses (B,) or None)`` of the poses."""
        if self.batched is None:
            try:
                two = self.one(poses[:2])
                two = np.asarray(two[0] if isinstance(two, tuple) else two, float)
                self.batched = two.ndim == 2 and len(two) == len(poses[:2])
            except (TypeError, ValueError):
                self.batched = False
            except FlexPKMError:
                pass                          # a refused pose: decided on the next batch
        out = self.one(poses) if self.batched else [self.one(p) for p in poses]
        if isinstance(out, tuple):
            return np.asarray(out[0], float).reshape(len(poses), -1), list(out[1])
        return np.array(out, float).reshape(len(poses), -1), None

    def __call__(self, targets, starts=None):
        targets = np.asarray(targets, float)
        q = [None] * len(targets)
        status = ["ok"] * len(targets)
        self._fill(targets, np.arange(len(targets)), q, status)
        n_tot = next((len(r) for r in q if r is not None), 0)
        return np.array([r if r is not None else np.full(n_tot, np.nan) for r in q]), status

    def _fill(self, targets, idx, q, status):
        try:
            out, given = self.configure(targets[idx])
            if given is None and not np.isfinite(out).all():
                raise InvalidArgumentError("the configuration is not finite")
        except FlexPKMError as e:
            if len(idx) == 1:
                status[idx[0]] = status_of(e)
                return
            half = len(idx) // 2
            self._fill(targets, idx[:half], q, status)
            self._fill(targets, idx[half:], q, status)
            return
        for k, b in enumerate(idx):
            if given is None or given[k] == "ok" and np.isfinite(out[k]).all():
                q[b] = out[k]
            else:
                q[b] = np.full(out.shape[1], np.nan)
                status[b] = given[k] if given[k] != "ok" else \
                    "InvalidArgumentError: the configuration is not finite"
