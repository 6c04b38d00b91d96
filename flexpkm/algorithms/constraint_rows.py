"""Redundant constraint rows (Müller, Remark 2 of Section 3.3): a rank-revealing
selection of independent rows of ``J_tot`` (10.107), limb block by limb block.

A planar loop inside a spatial robot (the parallelogram of a Delta's limb)
gives, per cut joint, rows that vanish identically (the out-of-plane
components of a planar relative twist), and a closure may repeat what another
one of the same limb already imposes. Such rows are *redundant*: they carry
no information on the motion, ``J_t^f`` would have more rows than dependent
coordinates, and the constraint forces along them are not identifiable (only
their sum with the forces of the rows they depend on is: the statically
indeterminate part of the joint reactions of a rigid model).

Selection (at the first pose of a batch, as the choice of ``q_dep``):

* rows are grouped by limb (``leg`` of their closure, the limb blocks of
  Müller 3.3.2; closures without a leg form one block each);
* in each block the rows are scaled to unit norm (rows of norm below
  :data:`ZERO_ROW` times the block's largest are zero rows, dropped); the
  block's rank r counts its singular values above :data:`RANK_TOL` times the
  largest, and r rows are kept: in their order when each one taken leaves the
  span of those before it (so identical limbs keep the same rows and the
  report reads the same), else those of a QR factorisation with column
  pivoting of the block's transpose;
* the kept rows of all blocks are checked together the same way (a redundancy
  across limbs, e.g. two limbs both fixing the platform's out-of-plane
  motion), and the rows that depend on other limbs' rows are dropped too.

The tolerance is tight (exact redundancy, the structural kind, not
ill-conditioning): a near-singular configuration is still reported by the
condition checks of ``J_t^f``. Being decided from the actual Jacobian, the
selection also decides *per loop* whether a loop is planar (its out-of-plane
rows are zero rows); a flexible limb whose elastic coordinates move the cut
out of the plane keeps all its rows (the elastic bodies take the forces that
a rigid model cannot determine).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from flexpkm.algorithms.pivoted_qr import pivoted_qr

#: singular values of a block (rows scaled to unit norm) below this fraction
#: of the largest are rank loss
RANK_TOL = 1e-10
#: a row whose norm is below this fraction of its block's largest row is zero
ZERO_ROW = 1e-12


@dataclass(frozen=True, kw_only=True)
class RowSelection:
    """Independent rows of ``J_tot``.

    kept : (c,) indices of the kept rows in ``J_tot``, ascending
    dropped : (n_dropped,) indices of the dropped rows
    labels : ``(closure label, leg, component)`` of every row of ``J_tot``
    blocks : ``(block name, n_rows, n_kept)`` per limb block, in row order
    across : number of rows dropped by the check across limbs
    """

    kept: np.ndarray
    dropped: np.ndarray
    labels: tuple
    blocks: tuple
    across: int = 0

    @property
    def dropped_labels(self) -> tuple:
        """``(closure label, leg, component)`` of each dropped row."""
        return tuple(self.labels[i] for i in self.dropped)

    def summary(self) -> str:
        """Text report: one line, then one line per block with dropped rows."""
        n = len(self.labels)
        head = (f"constraint rows: {n} in all, {len(self.kept)} independent, "
                f"{len(self.dropped)} redundant (dropped)")
        lines = [head]
        for name, n_rows, n_kept in self.blocks:
            if n_kept < n_rows:
                rows = [f"{lab}:{comp}" for lab, leg, comp in self.dropped_labels
                        if (leg or lab) == name]
                lines.append(f"  limb {name}: {n_rows} rows, {n_kept} kept; dropped "
                             + ", ".join(rows))
        if self.across:
            lines.append(f"  {self.across} more dropped as redundant across limbs")
        return "\n".join(lines)


def _independent(A, tol=RANK_TOL):
    """Positions of independent rows of A (rows scaled to unit norm): the
    rank r from the singular values, then the rows taken in their order
    (each kept when it leaves the span of those kept before it by more than
    ``sqrt(tol)``), so that identical limbs report the same rows; pivoted QR
    when the ordered choice does not reach r rows."""
    if A.shape[0] == 0:
        return np.zeros(0, dtype=int)
    norms = np.linalg.norm(A, axis=1)
    nonzero = np.flatnonzero(norms > ZERO_ROW * max(norms.max(), 1e-300))
    if not nonzero.size:
        return nonzero
    Au = A[nonzero] / norms[nonzero, None]
    s = np.linalg.svd(Au, compute_uv=False)
    rank = int(np.sum(s > tol * s[0]))
    if rank == len(nonzero):                    # full rank: nothing to choose
        return nonzero
    basis, keep = np.zeros((0, A.shape[1])), []
    for i, row in enumerate(Au):
        for _ in range(2):                      # Gram-Schmidt, twice is enough
            row = row - basis.T @ (basis @ row)
        if np.linalg.norm(row) > np.sqrt(tol):
            basis = np.vstack([basis, row / np.linalg.norm(row)])
            keep.append(i)
    if len(keep) != rank:
        piv = pivoted_qr(Au.T)[1]
        keep = piv[:rank]
    return np.sort(nonzero[np.asarray(keep, dtype=int)])


def select_rows(J_tot, labels, tol=RANK_TOL) -> RowSelection:
    """Rank-revealing choice of independent rows of ``J_tot`` (B, n_rows,
    n_tot) at its first pose, limb block by limb block (see the module).
    labels : ``(closure label, leg, component)`` per row. Returns a
    :class:`RowSelection`."""
    A = np.asarray(J_tot)[0]
    names = [leg or lab for lab, leg, _ in labels]
    kept, blocks = [], []
    for name in dict.fromkeys(names):
        rows = np.array([i for i, nm in enumerate(names) if nm == name])
        ok = rows[_independent(A[rows], tol)]
        kept += list(ok)
        blocks.append((name, len(rows), len(ok)))
    kept = np.sort(np.array(kept, dtype=int))
    glob = kept[_independent(A[kept], tol)] if kept.size else kept
    across = len(kept) - len(glob)
    if across:
        kept = glob
        count = {}
        for i in kept:
            count[names[i]] = count.get(names[i], 0) + 1
        blocks = [(nm, n, count.get(nm, 0)) for nm, n, _ in blocks]
    dropped = np.setdiff1d(np.arange(len(labels)), kept)
    return RowSelection(kept=kept, dropped=dropped, labels=tuple(labels), blocks=tuple(blocks),
                        across=across)


def select_for_columns(J_tot, labels, cols) -> RowSelection:
    """Exactly ``len(cols)`` rows of ``J_tot`` (B, n_rows, n_tot) at its first
    pose: those that make ``J_tot[kept][:, cols]`` best conditioned (QR with
    column pivoting of the rows scaled to unit norm, restricted to ``cols``).
    For a state slightly off its loops with the dependent columns ``cols``
    fixed beforehand (a time step), where redundant rows are redundant only
    up to the drift."""
    # LAPACK's QR (scipy, on use): a time step's choice, where numpy's
    # pivoted_qr costs 10x more; the modal runs do not come here
    from scipy.linalg import qr
    A = np.asarray(J_tot)[0][:, cols]
    norms = np.maximum(np.linalg.norm(A, axis=1), 1e-300)
    _, _, piv = qr((A / norms[:, None]).T, mode="economic", pivoting=True)
    kept = np.sort(piv[:len(cols)])
    names = [leg or lab for lab, leg, _ in labels]
    blocks = tuple((nm, names.count(nm), sum(names[i] == nm for i in kept))
                   for nm in dict.fromkeys(names))
    return RowSelection(kept=kept, dropped=np.setdiff1d(np.arange(len(labels)), kept),
                        labels=tuple(labels), blocks=blocks)
