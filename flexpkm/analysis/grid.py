"""Grids of poses for workspace maps and design studies: the axes
``x0:x1:nx`` and the order in which a grid is assembled by continuation.

A grid has d = 1, 2 or 3 axes (pose components, or actuated coordinates)
of n_0 x n_1 x n_2 cells; its poses are flattened in C order (the last axis
varies fastest). Continuation (:func:`fronts`): the line of cells along
axis 0 at index 0 of the other axes is assembled first, cell after cell
(the serpentine's first row); then each next line (along axis 1) starts,
as one batch, from the line before it, cell by cell; then each next slice
(along axis 2) from the slice before: every cell starts from a solved
neighbour one grid step away, so the working and assembly modes of the
start are kept, and all the cells of a line or a slice are solved
together (:mod:`flexpkm.analysis.grid_assembly`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from flexpkm.errors import InvalidArgumentError

#: the largest number of cells of a map (checked before anything is allocated)
MAX_CELLS = 10_000_000


@dataclass(frozen=True)
class Grid:
    """A grid of poses: ``names`` (d,), ``axes`` tuple of (n_k,) arrays."""

    names: tuple
    axes: tuple

    @property
    def shape(self) -> tuple:
        return tuple(len(a) for a in self.axes)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    def poses(self) -> np.ndarray:
        """(N, d) the poses of the cells, C order."""
        mesh = np.meshgrid(*self.axes, indexing="ij")
        return np.stack([m.ravel() for m in mesh], axis=-1)


def parse_axis(spec, where="grid") -> np.ndarray:
    """One axis from ``"x0:x1:n"`` (n >= 1 evenly spaced values, both ends
    included; ``n = 1``: x0 alone), a tuple ``(x0, x1, n)`` or a sequence of
    values. Raises :class:`InvalidArgumentError` (non-finite, n < 1, a text
    not of the form x0:x1:n)."""
    if isinstance(spec, str):
        parts = spec.split(":")
        try:
            if len(parts) != 3:
                raise ValueError
            spec = (float(parts[0]), float(parts[1]), int(parts[2]))
        except ValueError:
            raise InvalidArgumentError(f"{where}: {spec!r} is not of the form x0:x1:n "
                                       "(e.g. -0.1:0.1:21)") from None
    if isinstance(spec, tuple) and len(spec) == 3 and isinstance(spec[2], (int, np.integer)):
        x0, x1, n = float(spec[0]), float(spec[1]), int(spec[2])
        if n < 1:
            raise InvalidArgumentError(f"{where}: an axis needs at least 1 value, got {n}")
        values = np.linspace(x0, x1, n) if n > 1 else np.array([x0])
    else:
        values = np.atleast_1d(np.asarray(spec, float))
    if values.ndim != 1 or not values.size or not np.isfinite(values).all():
        raise InvalidArgumentError(f"{where}: an axis must be finite values, got {spec!r}")
    return values


def make_grid(grid, names) -> Grid:
    """The :class:`Grid` of ``grid`` (a :class:`Grid`, or 1-3 axes for
    :func:`parse_axis`) over the components ``names`` (the first len(grid)
    of them; the remaining components must be fixed by the caller). Raises
    :class:`InvalidArgumentError` for more axes than names, more than 3
    axes or more than :data:`MAX_CELLS` cells."""
    if isinstance(grid, Grid):
        return grid
    if isinstance(grid, (str, tuple)) and not isinstance(grid, list):
        grid = [grid] if isinstance(grid, str) or (len(grid) == 3 and
                                                   isinstance(grid[2], (int, np.integer))) \
            else list(grid)
    grid = list(grid)
    if not 1 <= len(grid) <= 3:
        raise InvalidArgumentError(f"grid: 1 to 3 axes, got {len(grid)}")
    if len(grid) > len(names):
        raise InvalidArgumentError(f"grid: {len(grid)} axes for {len(names)} components "
                                   f"({', '.join(names)})")
    axes = tuple(parse_axis(a, f"grid axis {names[k]}") for k, a in enumerate(grid))
    out = Grid(names=tuple(names[:len(axes)]), axes=axes)
    if out.size > MAX_CELLS:
        raise InvalidArgumentError(f"grid: {out.size} cells, at most {MAX_CELLS}")
    return out


def fronts(shape):
    """The continuation order of a grid of ``shape`` (C-order flat indices):
    yields ``(cells, starts)`` int arrays, the cells of one step and the
    solved cell each starts from (-1: the first cell, from the reference).
    First the cells of axis 0 one by one, then lines, then slices."""
    index = np.arange(int(np.prod(shape))).reshape(shape)
    d = len(shape)
    first = index[(slice(None),) + (0,) * (d - 1)]
    yield first[:1], np.array([-1])
    for k in range(1, len(first)):
        yield first[k:k + 1], first[k - 1:k]
    for axis in range(1, d):
        for j in range(1, shape[axis]):
            here = (slice(None),) * axis + (j,) + (0,) * (d - axis - 1)
            before = (slice(None),) * axis + (j - 1,) + (0,) * (d - axis - 1)
            yield index[here].ravel(), index[before].ravel()
