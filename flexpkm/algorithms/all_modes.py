"""Every assembly mode and every working mode at one input (Briot & Khalil
Sections 7.1, 7.2.2-7.2.3, 7.3): all the real solutions of the forward
geometric problem at given actuated coordinates ``q_a``
(:func:`assembly_modes`) and of the inverse problem at a given platform
pose (:func:`working_modes`), each labelled with its modes (the signs of
:mod:`flexpkm.algorithms.modes`).

Method: a *certified multi-start* on the loop equations ``h(q_tot) = 0``
(:func:`flexpkm.algorithms.closure.closure_residual`), the same equations
and free coordinates as :func:`flexpkm.assemble`:

1. starts: the robot's reference configuration, then Sobol points
   (:class:`scipy.stats.qmc.Sobol`, seeded: deterministic) over the free
   coordinates' ranges: revolute joints ``[-pi, pi)``, prismatic joints
   ``[-2 L, 2 L]``, platform positions the reference's ``+- L`` and
   rotation-vector components ``[-pi, pi)``, ``L`` the robot's size (the
   farthest frame origin of the reference configuration from the base's);
2. Gauss-Newton from every start at once (a batch, each start with its
   trust radius, :func:`flexpkm.algorithms.batch_newton.batch_newton`); in
   the forward problem through the inverse one (:func:`converged`);
3. each root refined to ``tol`` (accepted at ``1e3 tol``, as
   :func:`flexpkm.assemble`), roots whose cut frames close half-turned
   dropped (:func:`flexpkm.algorithms.closure.half_turns`), duplicates merged
   (revolute coordinates modulo ``2 pi``, the platform by its rotation
   matrix, to :data:`SAME`);
4. rounds of starts (64, 64, 128, 256, ...) until the count reaches the known
   bound, or a round finds no new root (``saturated``), or ``starts`` are
   spent;
5. forward problem short of its bound: the starts left, all at the
   reference's platform pose: step 2's inverse problem there gives the
   legs' working modes at a pose of the workspace, each continued to the
   target q_a (the Orthoglide's second assembly mode is reached only from
   its leg 1 in the other working mode, and its U-U legs seldom close
   unturned from random angles at random poses, docs/modes.md).

The count is compared with the bound where one is known
(:data:`KNOWN_BOUNDS`, the book's robots, or ``bound=``): ``complete`` is
True when it is reached. A bound counts complex solutions too: below it,
the real ones may all be found (e.g. a 3-RPR with 2 real roots of its
sextic); ``saturated`` then says that the last round of starts found nothing
new. No polynomial homotopy library fits: phcpy is not on PyPI, pybertini
needs Bertini 2's C++ library built apart, and both want polynomial
equations, while the loop equations of a description file are
trigonometric in the MDH angles (docs/modes.md).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from flexpkm.algorithms.assembly import free_columns, reference_configuration
from flexpkm.algorithms.batch_newton import batch_newton, distance_to_singularity, loop_error
from flexpkm.algorithms.closure import half_turns
from flexpkm.algorithms.modes import mode_signature, mode_text
from flexpkm.algorithms.platform import platform_pose
from flexpkm.algorithms.tree import tree_kinematics
from flexpkm.errors import InvalidArgumentError, UnreachablePoseError
from flexpkm.model.build import build_structure

#: two roots closer than this (rad, m; rotation-matrix entries) are one
SAME = 1e-6
#: Newton iterations from a start, then of the refinement of a root
ITERATIONS, REFINE = 30, 12
#: steps of the actuated coordinates from a start's to the target (forward problem)
CONTINUATION = 8
#: starts of the first round; each later round doubles the starts so far
FIRST_ROUND = 64
#: known numbers of complex solutions (forward, inverse problem) of the
#: book's robots as their description files model them, by ``Robot.name``:
#: the five-bar 2 assembly modes (7.38)-(7.41) and 2 x 2 working modes
#: (7.15); the 3-RPR 6 (the sextic (7.48)) and 2 x 2 x 2 (q_i2 = +-, (7.20))
KNOWN_BOUNDS = MappingProxyType({"five-bar": (2, 4), "3-RPR": (6, 8)})


@dataclass(frozen=True, kw_only=True)
class ModeSolutions:
    """All the real solutions found of one geometric problem (K of them).

    problem : ``"forward"`` (at ``q_a``: the assembly modes) or
              ``"inverse"`` (at the pose: the working modes)
    given : (n_a,) the q_a or (n_c,) the commanded pose (m, rad)
    q_tot : (K, n_tot) the configurations (revolute angles in (-pi, pi]),
            loops closed to ``residual``
    x_p : (K, n_c) the commanded platform coordinates of each (m, rad;
          ``model.layout.commanded``), (K, 0) without a platform
    q_a : (K, n_a) the actuated coordinates of each (m, rad)
    modes : K dicts leg name -> +1/-1 and ``"assembly"`` -> +1/-1 (0:
            singular), :meth:`flexpkm.algorithms.modes.ModeSignature.at`
    distance : (K,) distance to the singularity that ends the solution's
               isolation (Type 2 in the forward problem, a leg's Type 1 in
               the inverse one): the smallest singular value of the free
               columns of ``J_tot`` with rows and columns scaled to unit
               norm (0 singular, at most 1)
    residual : (K,) max ``|h(q_tot)|`` (m, rad)
    starts : Newton starts tried
    bound : the known number of complex solutions, or None
    complete : the count reached ``bound``
    saturated : the last round of starts found no new root
    """

    problem: str
    given: np.ndarray
    q_tot: np.ndarray
    x_p: np.ndarray
    q_a: np.ndarray
    modes: tuple
    distance: np.ndarray
    residual: np.ndarray
    starts: int
    bound: object
    complete: bool
    saturated: bool

    def __len__(self):
        return len(self.modes)

    def summary(self) -> str:
        """One line: how many, of which bound, from how many starts."""
        what = ("assembly mode" if self.problem == "forward" else "working mode") + \
            ("" if len(self) == 1 else "s")
        bound = "no known bound" if self.bound is None else \
            f"{'complete: ' if self.complete else ''}the bound is {self.bound}"
        note = "" if self.complete else \
            ("; the last round of starts found no new root" if self.saturated
             else "; the starts were spent before a round of them found no new root")
        return f"{len(self)} {what} from {self.starts} Newton starts ({bound}){note}"

    def labels(self) -> list:
        """The modes of each solution as text (``leg 1 +, leg 2 -, assembly +``)."""
        return [mode_text(m) for m in self.modes]


def assembly_modes(model, q_a, *, starts=1024, bound=None, seed=0, tol=1e-12) -> ModeSolutions:
    """Every real solution of the forward geometric problem (Section 7.3)
    at the actuated coordinates ``q_a`` (n_a,) (m, rad; order of
    ``model.layout.actuated``): the assembly modes, by the certified
    multi-start of the module doc.

    starts : most Newton starts; bound : the number of complex solutions
    (default :data:`KNOWN_BOUNDS` by ``model.name``, else unknown); seed :
    of the Sobol sequence; tol : loop tolerance of a root (m, rad).
    Returns :class:`ModeSolutions`. Raises :class:`UnreachablePoseError`
    when no start closes the loops (q_a outside the workspace),
    :class:`InvalidArgumentError` for bad arguments."""
    model = build_structure(model)
    return _enumerate(model, "forward", q_a, starts, bound, seed, tol)


def working_modes(model, pose, *, starts=1024, bound=None, seed=0, tol=1e-12) -> ModeSolutions:
    """Every real solution of the inverse geometric problem (Section 7.2)
    at the commanded platform pose ``pose`` (n_c,) (m, rad; the components
    ``model.layout.commanded`` of ``[P; rotation vector]``): the working
    modes, by the certified multi-start of the module doc; arguments and
    result as :func:`assembly_modes`. Raises :class:`UnreachablePoseError`
    when no start closes the loops, :class:`InvalidArgumentError` for a
    robot without a platform or bad arguments."""
    model = build_structure(model)
    if model.platform is None:
        raise InvalidArgumentError(f"working_modes: {model.name} has no platform; give q_a "
                                   f"to assembly_modes instead")
    return _enumerate(model, "inverse", pose, starts, bound, seed, tol)


def _enumerate(model, problem, values, starts, bound, seed, tol):
    layout = model.layout
    fixed = np.array(layout.actuated if problem == "forward" else layout.commanded, dtype=int)
    target = _target(values, len(fixed), "q_a" if problem == "forward" else "pose")
    _check_arguments(starts, bound, tol)
    if bound is None:
        known = KNOWN_BOUNDS.get(model.name)
        bound = None if known is None else known[problem == "inverse"]
    free = free_columns(model, fixed)
    ref = reference_configuration(model)
    ref[fixed] = target
    sampler = _Starts(model, ref, free, seed)
    roots, tried, saturated = np.zeros((0, layout.n_tot)), 0, False
    batch = [ref[None]]                         # the reference first, then Sobol points
    while tried < starts:
        size = min(max(FIRST_ROUND, tried - 1), starts - tried - len(batch))
        q0 = np.concatenate(batch + [sampler.draw(size)])
        batch, tried = [], tried + len(q0)
        found = _roots(model, q0, free, fixed, tol)
        merged = _merge(model, np.concatenate([roots, found]))
        saturated = len(merged) == len(roots) and tried > FIRST_ROUND
        roots = merged
        if (bound is not None and len(roots) >= bound) or saturated:
            break
    if tried < starts and (bound is None or len(roots) < bound) and problem == "forward" \
            and model.platform is not None and len(fixed) <= len(layout.commanded):
        q0 = sampler.draw(starts - tried)
        q0[:, list(layout.commanded)] = ref[list(layout.commanded)]   # the working modes there
        merged = _merge(model, np.concatenate([roots, _roots(model, q0, free, fixed, tol)]))
        saturated, roots, tried = len(merged) == len(roots), merged, starts
    if not len(roots):
        what = "actuated coordinates" if problem == "forward" else "pose"
        raise UnreachablePoseError(
            f"{'assembly' if problem == 'forward' else 'working'}_modes: no real solution at "
            f"the {what} {np.round(target, 9).tolist()}: none of {tried} Newton starts closed "
            f"the loops (outside the workspace)")
    return _solutions(model, problem, target, roots, free, tried, bound, saturated)


def _target(values, n, what):
    x = np.asarray(values, dtype=float)
    if x.shape != (n,) or not np.all(np.isfinite(x)):
        raise InvalidArgumentError(f"{what} must be {n} finite values, got "
                                   f"{np.asarray(values).tolist()!r:.120}")
    return x


def _check_arguments(starts, bound, tol):
    for name, v, low in (("starts", starts, 1), ("bound", bound, 1)):
        if v is None and name == "bound":
            continue
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < low:
            raise InvalidArgumentError(f"{name} must be a whole number >= {low}, got {v!r}")
    if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not 0 < tol < 1e-3:
        raise InvalidArgumentError(f"tol must be a number in (0, 1e-3) (m, rad), got {tol!r}")


class _Starts:
    """Sobol points over the free coordinates' ranges (module doc), seeded."""

    def __init__(self, model, ref, free, seed):
        from scipy.stats import qmc
        layout = model.layout
        self.ref, self.free = ref, free
        kin = tree_kinematics(model, ref[None, :layout.n_t])
        size = max(float(np.linalg.norm(kin.p[0], axis=1).max(initial=0.0)), 1e-3)
        low, high = np.empty(len(free)), np.empty(len(free))
        revolute = revolute_columns(model)
        n_t = layout.n_t
        dofs = [] if model.platform is None else list(model.platform.dofs)
        for i, c in enumerate(free):
            if c in revolute or (c >= n_t and dofs[c - n_t] >= 3):
                low[i], high[i] = -np.pi, np.pi
            elif c < n_t:
                low[i], high[i] = -2 * size, 2 * size
            else:
                low[i], high[i] = ref[c] - size, ref[c] + size
        self.low, self.high = low, high
        self.sobol = qmc.Sobol(len(free), scramble=True, seed=seed) if len(free) else None

    def draw(self, n):
        """(n, n_tot) starts: the reference with its free coordinates drawn."""
        q = np.tile(self.ref, (n, 1))
        if n and self.sobol is not None:
            with warnings.catch_warnings():     # a last round cut by `starts`: not 2^k points
                warnings.simplefilter("ignore", UserWarning)
                u = self.sobol.random(n)
            q[:, self.free] = self.low + (self.high - self.low) * u
        return q


def revolute_columns(model) -> set:
    """Columns of ``q_tot`` that are revolute joint angles (MDH sigma = 0)."""
    layout = model.layout
    return {layout.joint_index[f.name] for f in model.frames
            if f.name in layout.joint_index and f.sigma == 0}


def _roots(model, q0, free, fixed, tol):
    """The roots reached from the starts ``q0`` (B, n_tot) (:func:`converged`),
    refined to ``tol``, accepted at ``1e3 tol``, half-turned cut frames
    dropped, duplicates merged."""
    q = converged(model, q0, free, fixed)
    if not len(q):
        return q
    q, err = batch_newton(model, _merge(model, q), free, tol, REFINE)
    return _closed(model, q[err <= 1e3 * tol])


def _closed(model, q):
    """The configurations of ``q`` (B, n_tot) whose cut frames are not
    half-turned (:func:`flexpkm.algorithms.closure.half_turns`: the rows
    vanish there, the joint is not closed)."""
    bad = {b for b, *_ in half_turns(model, q)} if len(q) else set()
    return q[[b for b in range(len(q)) if b not in bad]]


def converged(model, q0, free, fixed):
    """The configurations (K, n_tot) with closed loops (to 1e-8) that the
    starts ``q0`` (B, n_tot) lead to. The inverse problem (``fixed`` the
    commanded platform coordinates): Newton from each start. The forward
    one (``fixed`` the actuated coordinates) of a robot with a platform and
    no redundant actuators: the inverse problem at each start's platform
    pose first (the legs apart: Newton converges from far), then the
    actuated coordinates it gives moved to the target in
    :data:`CONTINUATION` steps (a real homotopy, Newton at each step); else
    Newton from each start."""
    layout = model.layout
    forward = list(fixed) == list(layout.actuated)
    if not (forward and model.platform is not None and len(fixed) <= len(layout.commanded)):
        q, err = batch_newton(model, q0, free, 1e-8, ITERATIONS)
        return q[err < 1e-6]
    target = q0[0, fixed]
    legs = free_columns(model, np.array(layout.commanded, dtype=int))
    q, err = batch_newton(model, q0, legs, 1e-8, ITERATIONS)
    q = _closed(model, q[err < 1e-6])
    start = q[:, fixed]
    for s in range(1, CONTINUATION + 1):
        q[:, fixed] = start + (target - start) * s / CONTINUATION
        q, err = batch_newton(model, q, free, 1e-8, ITERATIONS if s == CONTINUATION else 6)
        ok = err < (1e-6 if s == CONTINUATION else 1e-2)
        q, start = q[ok], start[ok]
    return q


def canonical(model, q):
    """``q`` (B, n_tot) with its revolute angles (and a planar platform's
    one rotation angle) wrapped into (-pi, pi]."""
    q = np.array(q, dtype=float)
    cols = sorted(revolute_columns(model))
    if model.platform is not None:
        rot = [i for i, d in enumerate(model.platform.dofs) if d >= 3]
        cols += [model.layout.n_t + rot[0]] if len(rot) == 1 else []
    q[:, cols] = np.pi - (np.pi - q[:, cols]) % (2 * np.pi)
    return q


def _merge(model, q):
    """The distinct configurations of ``q`` (B, n_tot), first of each kept:
    compared by the cosines and sines of the revolute angles, the other
    joint coordinates and the platform's position and rotation matrix."""
    if not len(q):
        return q
    layout = model.layout
    rev = sorted(revolute_columns(model))
    other = [c for c in range(layout.n_t) if c not in set(rev)]
    R, P = platform_pose(model, q)
    key = np.concatenate([np.cos(q[:, rev]), np.sin(q[:, rev]), q[:, other],
                          P.reshape(len(q), -1), R.reshape(len(q), -1)], axis=1)
    kept = [0]
    for b in range(1, len(q)):
        if np.abs(key[kept] - key[b]).max(axis=1).min() >= SAME:
            kept.append(b)
    return q[kept]


def _solutions(model, problem, target, roots, free, tried, bound, saturated):
    layout = model.layout
    q = canonical(model, roots)
    sig = mode_signature(model, q)
    modes = [sig.at(b) for b in range(len(q))]
    x_p = q[:, list(layout.commanded)]
    order = sorted(range(len(q)), key=lambda b: (tuple(-v for v in modes[b].values()),
                                                 tuple(np.round(x_p[b], 9)),
                                                 tuple(np.round(q[b], 9))))
    q = q[order]
    return ModeSolutions(
        problem=problem, given=target, q_tot=q, x_p=q[:, list(layout.commanded)],
        q_a=q[:, list(layout.actuated)], modes=tuple(modes[b] for b in order),
        distance=distance_to_singularity(model, q, free),
        residual=loop_error(model, q)[1], starts=tried, bound=bound,
        complete=bound is not None and len(q) >= bound, saturated=saturated)
