"""The columns of the stacked bodies' Jacobian (Step 0 of Section 10.6):
which q_t columns the rows ``[t_j; qd_ej]`` (10.80) of each entry of
:class:`flexpkm.model.build.StackedBodies` can depend on, grouped by leg,
so that ``M_t = sum_j J_j^T M_j J_j`` (10.99) is summed on those columns
only (:func:`flexpkm.algorithms.virtual_system.tree_dynamics`): at 8
elements per body on the DualEMPS an entry has 26 of the 77 columns on
average, ~10x fewer flops than the dense products."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np


@dataclass(frozen=True, eq=False)
class EntryColumns:
    """groups : per leg, ``U`` (u,) the sorted union of its entries' columns;
    entries : row offset of an entry -> ``(group, cols, at)``: its group's
    index, its columns ``cols`` (c,) (the frame's ``frame_columns`` and the
    body's elastic coordinates) and where they sit in ``U``: an int ``k``
    when ``cols == U[:k]`` (a serial chain: the leading block, a slice),
    else their positions (c,)."""

    groups: tuple
    entries: Mapping


def entry_columns(offsets, frames, flexible, frame_columns, frame_legs) -> EntryColumns:
    """:class:`EntryColumns` of the entries at row ``offsets`` on the frames
    ``frames`` (indices), ``flexible`` the ``(offset, body, elastic slice)``
    of the flexible ones; ``frame_columns`` per frame its sorted q_t columns,
    ``frame_legs`` per frame its leg (None: the group of the legless)."""
    cols = {int(r): np.asarray(frame_columns[j], dtype=int) for r, j in zip(offsets, frames)}
    for k, _, sl in flexible:
        cols[k] = np.union1d(cols[k], np.arange(sl.start, sl.stop))
    legs = {}
    for r, j in zip(offsets, frames):
        legs.setdefault(frame_legs[j], []).append(int(r))
    groups, entries = [], {}
    for g, rows in enumerate(legs.values()):
        U = np.unique(np.concatenate([cols[r] for r in rows]))
        groups.append(U)
        for r in rows:
            pos = np.searchsorted(U, cols[r])
            lead = np.array_equal(pos, np.arange(len(pos)))
            entries[r] = (g, cols[r], len(pos) if lead else pos)
    return EntryColumns(tuple(groups), entries)
