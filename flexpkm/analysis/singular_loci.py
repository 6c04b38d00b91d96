"""Singular loci over a plane of the workspace (issue 19 item 2; Briot &
Khalil Section 7.5.6): a grid of configurations, the distance to one kind
of singularity at each (:mod:`flexpkm.algorithms.singularity`), and the
points where the sign of the block's determinant changes between two
neighbours refined onto the locus by bisection on that edge.

Over platform poses (``over="pose"``, the working modes kept) the Type 2
loci and the LPJTS loci are sign changes; the serial loci are the
workspace boundary (a fold: no pose beyond). Over actuated coordinates
(``over="q_a"``, the assembly mode kept) the serial loci are sign changes
and the Type 2 loci the boundary. A fold shows as the edge of the grid's
reachable points and as small distances, not as refined points.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from flexpkm.algorithms.reference import build_model
from flexpkm.algorithms.singularity import block_measures, blocks
from flexpkm.errors import FlexPKMError, InvalidArgumentError

#: bisection steps on an edge (its length / 2^60: far below 1e-12 m)
BISECTIONS = 60


@dataclass(frozen=True, repr=False)
class SingularLoci:
    """The loci of one kind of singularity over a grid.

    kind : the block (``"type 2"``, ``"LPJTS leg 1"``...);  over : ``"pose"`` or ``"q_a"``
    axes : names of the two swept coordinates;  x (nx,), y (ny,) their grid (m, rad)
    distance : (ny, nx) scale-free distance at each grid point (NaN: not reachable)
    sign : (ny, nx) sign of the block's determinant (0: singular, unreachable or
        a block that is not square)
    points : (k, 2) points of the loci (x, y), refined to ``tol``
    fixed : the values of the other coordinates of ``over``
    """

    kind: str
    over: str
    axes: tuple
    x: np.ndarray
    y: np.ndarray
    distance: np.ndarray
    sign: np.ndarray
    points: np.ndarray
    fixed: dict

    def __repr__(self):
        return (f"SingularLoci({self.kind!r} over {self.over} ({self.axes[0]}, {self.axes[1]}): "
                f"{len(self.x)} x {len(self.y)} grid, {np.isnan(self.distance).sum()} "
                f"unreachable, {len(self.points)} locus points, smallest distance "
                f"{np.nanmin(self.distance) if np.isfinite(self.distance).any() else np.nan:.3g})")

    def to_dict(self) -> dict:
        return {"kind": self.kind, "over": self.over, "axes": list(self.axes),
                "x": self.x.tolist(), "y": self.y.tolist(), "fixed": self.fixed,
                "distance": self.distance.tolist(), "points": self.points.tolist()}

    def plot(self, ax=None):
        """A matplotlib Figure (or draw on ``ax``): log10 of the distance over
        the grid and the locus points (needs the ``viz`` extra)."""
        from flexpkm.optional import require
        require("matplotlib.figure", "the singular loci picture")
        from matplotlib.figure import Figure
        fig = None
        if ax is None:
            fig = Figure(figsize=(6, 5))
            ax = fig.add_subplot()
        with np.errstate(divide="ignore"):
            z = np.log10(self.distance)
        mesh = ax.pcolormesh(self.x, self.y, z, shading="nearest", cmap="viridis")
        ax.figure.colorbar(mesh, ax=ax, label=f"log10 distance to {self.kind}")
        if len(self.points):
            ax.plot(self.points[:, 0], self.points[:, 1], "r.", ms=3, label=f"{self.kind} locus")
            ax.legend(loc="best")
        ax.set_xlabel(self.axes[0])
        ax.set_ylabel(self.axes[1])
        ax.set_aspect("equal" if self.over == "pose" else "auto")
        return fig if fig is not None else ax.figure


def singular_loci(model, x, y, kind="type 2", over="pose", axes=(0, 1), fixed=None,
                  state=None, tol=1e-12) -> SingularLoci:
    """Scan a grid and refine the loci of ``kind`` onto it (module doc;
    the singularities of Briot & Khalil Section 7.5).

    model : Model or Robot.  x, y : (n,) grid values (m, rad) of the two
    coordinates ``axes`` (indices into the commanded pose,
    ``model.layout.commanded``, for ``over="pose"``; into
    ``model.layout.actuated`` for ``over="q_a"``); or ``(lo, hi, n)``.
    fixed : values (all coordinates of ``over``) of the other coordinates
    (default: the reference configuration's).
    state : ``coords (B, k) -> q_tot (B, n_tot)``, e.g. a closed-form
    geometric model keeping the modes (fast); default :func:`flexpkm.assemble`
    point by point, each from its neighbour (continuation). A point whose
    configuration raises a :class:`flexpkm.errors.FlexPKMError` is unreachable.
    tol : bisection stops when an edge is shorter (m, rad).
    Returns :class:`SingularLoci`. Raises :class:`InvalidArgumentError` for
    an unknown ``kind`` or ``over``, bad axes or grids."""
    model = build_model(model)
    names = {b.name: b for b in blocks(model)}
    if kind not in names:
        raise InvalidArgumentError(f"singular_loci: unknown kind {kind!r}; this robot has "
                                   f"{', '.join(names)}")
    cols = _columns(model, over)
    gx, gy = _grid(x, "x"), _grid(y, "y")
    if len(set(axes)) != 2 or not all(0 <= a < len(cols) for a in axes):
        raise InvalidArgumentError(f"singular_loci: axes {axes!r} must be two different "
                                   f"indices below {len(cols)}")
    base = _fixed(model, cols, fixed)
    solve = _solver(model, over, state)
    X, Y = np.meshgrid(gx, gy)
    coords = np.repeat(base[None], X.size, axis=0)
    coords[:, axes[0]], coords[:, axes[1]] = X.ravel(), Y.ravel()
    q, ok = solve(coords)
    dist = np.full(X.size, np.nan)
    sign = np.zeros(X.size, dtype=int)
    if ok.any():
        d, s, _ = block_measures(model, q[ok], which=(kind,))[kind]
        dist[ok], sign[ok] = d, s
    dist, sign = dist.reshape(X.shape), sign.reshape(X.shape)
    points = _refine(model, kind, solve, coords, q, sign, axes, tol)
    layout = model.layout
    return SingularLoci(kind=kind, over=over, axes=tuple(layout.names[cols[a]] for a in axes),
                        x=gx, y=gy, distance=dist, sign=sign, points=points,
                        fixed={layout.names[c]: float(v) for i, (c, v) in
                               enumerate(zip(cols, base)) if i not in axes})


def _columns(model, over):
    layout = model.layout
    if over not in ("pose", "q_a"):
        raise InvalidArgumentError(f"singular_loci: over must be 'pose' or 'q_a', got {over!r}")
    cols = list(layout.commanded if over == "pose" else layout.actuated)
    if len(cols) < 2:
        raise InvalidArgumentError(f"singular_loci: {model.name} has {len(cols)} "
                                   f"{over} coordinates, two are swept")
    return cols


def _grid(g, what):
    if isinstance(g, tuple) and len(g) == 3:
        lo, hi, n = g
        if not (isinstance(n, (int, np.integer)) and n >= 2 and np.isfinite([lo, hi]).all()
                and hi > lo):
            raise InvalidArgumentError(f"singular_loci: {what} = {g!r}: (lo, hi, n) with "
                                       f"lo < hi and a whole n >= 2")
        return np.linspace(lo, hi, n)
    a = np.asarray(g, float)
    if a.ndim != 1 or len(a) < 2 or not np.all(np.isfinite(a)) or np.any(np.diff(a) <= 0):
        raise InvalidArgumentError(f"singular_loci: {what} must be increasing finite values "
                                   f"(at least 2) or (lo, hi, n)")
    return a


def _fixed(model, cols, fixed):
    from flexpkm.algorithms.assembly import reference_configuration
    if fixed is None:
        return reference_configuration(model)[cols]
    f = np.asarray(fixed, float)
    if f.shape != (len(cols),) or not np.all(np.isfinite(f)):
        raise InvalidArgumentError(f"singular_loci: fixed must be {len(cols)} finite values")
    return f


def _solver(model, over, state):
    """``(coords (B, k), guesses (B, n_tot) or None) -> (q_tot (B, n_tot),
    reachable (B,))``: ``state`` on the batch (point by point when it raises),
    else :func:`flexpkm.assemble` from each point's guess (default: the
    previous point's solution)."""
    from flexpkm.algorithms.assembly import assemble

    def solve(coords, guesses=None):
        q = np.full((len(coords), model.layout.n_tot), np.nan)
        if state is not None:
            try:
                return np.asarray(state(coords), float), np.ones(len(coords), bool)
            except FlexPKMError:
                pass                                    # point by point below
        guess = None
        for i, c in enumerate(coords):
            try:
                if state is not None:
                    q[i] = np.asarray(state(c[None]), float).reshape(-1)
                else:
                    start = guess if guesses is None else guesses[i]
                    q[i] = guess = assemble(model, guess=start, **{over: c})
            except FlexPKMError:
                continue
        return q, np.all(np.isfinite(q), axis=1)
    return solve


def _refine(model, kind, solve, C, Q, sign, axes, tol):
    """Bisection on every grid edge whose end signs are opposite, each
    midpoint assembled from its edge's end ``Q`` (continuation): (k, 2)."""
    def edges(G):
        G = G.reshape(sign.shape + (-1,))
        return (np.concatenate([G[:, :-1].reshape(-1, G.shape[-1]), G[:-1, :].reshape(-1, G.shape[-1])]),
                np.concatenate([G[:, 1:].reshape(-1, G.shape[-1]), G[1:, :].reshape(-1, G.shape[-1])]))
    (a, b), (qa, _) = edges(C), edges(Q)
    sa, sb = (x.ravel() for x in edges(sign[..., None]))
    edge = sa * sb < 0
    a, b, sa, qa = a[edge], b[edge], sa[edge], qa[edge]
    for _ in range(BISECTIONS):
        if not len(a) or np.abs(b - a).max() <= tol:
            break
        mid = 0.5 * (a + b)
        q, ok = solve(mid, qa)
        s = np.zeros(len(mid), dtype=int)
        if ok.any():
            s[ok] = block_measures(model, q[ok], which=(kind,), zero=0.0)[kind][1]
        same = (s == sa) & ok
        a, qa = np.where(same[:, None], mid, a), np.where(same[:, None], q, qa)
        b = np.where((~same & ok & (s != 0))[:, None], mid, b)
        hit = ok & (s == 0)                             # exactly on the locus
        a[hit], b[hit] = mid[hit], mid[hit]
        a, b, sa, qa = a[ok], b[ok], sa[ok], qa[ok]
    mid = 0.5 * (a + b)
    return mid[:, list(axes)] if len(mid) else np.zeros((0, 2))
