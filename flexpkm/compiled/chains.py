"""Chains of identical frames in a model's virtual tree (issue 18), for the
loop model of :mod:`flexpkm.compiled.loops`, and the index copies
(gathers, scatters) around the loops.

:func:`flexpkm.model.refine.refine` splits a flexible body into N
elements carried by N - 1 new fixed frames (sigma = 2) chained tip to
root: consecutive frames, each the antecedent of the next, each carried by
an element (same number of shape functions n_c at its attachment) and
carrying one (same n_b). A :class:`Chain` is a maximal run of consecutive
frames ``k, k + 1, ...`` with ``antecedent(k + 1) = k`` and the same
:func:`frame_type` ``(sigma, n_c, n_b)``; every other frame is a chain of
length 1. Chains partition the frames in index order, and every child of
a chain's frame outside the chain belongs to a later chain (the frames are
numbered from the base), which is what the backward pass relies on.
"""
from __future__ import annotations

from dataclasses import dataclass

import casadi as ca
import numpy as np

from flexpkm.compiled.recursive import FIXED, frame_columns


@dataclass(frozen=True)
class Chain:
    """Consecutive frames ``frames`` (indices) of one :func:`frame_type`
    ``kind = (sigma, n_c, n_b)`` (n_b = -1: no body on the frame);
    ``parent`` the antecedent of the first (-1: the base)."""

    frames: tuple
    kind: tuple
    parent: int

    def __len__(self):
        return len(self.frames)


def local_columns(fc):
    """``[col_j or -1; elastic columns of the carrying body]`` of a frame:
    the q_tot rows of its local coordinates ``[q_j; q_ea]``."""
    col, ecols = frame_columns(fc)
    return [col] + ecols


def frame_bodies(model):
    """Per frame the index of the body entry it carries, or -1. Raises
    ValueError when a frame carries more than one body (the loop model then
    does not apply)."""
    out = [-1] * len(model.frame_constants)
    for b, e in enumerate(model.body_entries):
        if out[e.frame] >= 0:
            raise ValueError(f"frame {e.frame} carries two bodies")
        out[e.frame] = b
    return out


def body_columns(entry):
    """The q_tot rows of a body's elastic coordinates (none for a rigid body)."""
    return list(range(entry.elastic.start, entry.elastic.stop)) if entry.elastic is not None else []


def frame_type(model, k, bodies):
    """``(sigma, n_c, n_b)`` of frame ``k``: its joint type (2 for a fixed
    frame or an unnumbered joint), the shape functions of its carrying body
    at the attachment, those of the body it carries (-1: none)."""
    fc = model.frame_constants[k]
    cols = local_columns(fc)
    sigma = fc.sigma if cols[0] >= 0 else FIXED
    n_b = len(body_columns(model.body_entries[bodies[k]])) if bodies[k] >= 0 else -1
    return int(sigma), len(cols) - 1, n_b


def find_chains(model) -> list:
    """The :class:`Chain` s of a built model, in frame order (their frames
    concatenated are ``0 .. n_f - 1``)."""
    bodies = frame_bodies(model)
    chains, run = [], []
    for k, fc in enumerate(model.frame_constants):
        kind = frame_type(model, k, bodies)
        if run and fc.antecedent == run[-1] and kind == frame_type(model, run[-1], bodies):
            run.append(k)
            continue
        if run:
            chains.append(run)
        run = [k]
    if run:
        chains.append(run)
    return [Chain(tuple(r), frame_type(model, r[0], bodies),
                  int(model.frame_constants[r[0]].antecedent)) for r in chains]


def extended(Q):
    """``(vec Q (dense) with a zero appended, n, K)`` for ``Q`` (n, K): the
    source of :func:`gather` (made once per source and graph; one plain
    copy at run time, where a zero row appended to the matrix was a
    sparse densify of ~10 machine instructions per number)."""
    n, K = Q.shape
    return ca.vertcat(ca.vec(ca.densify(Q)), ca.MX(ca.DM.zeros(1))), n, K


def gather(ext, rows):
    """``U (L K, m)``: column i holds ``Q[rows[i], :]`` (L, K) column-major,
    from ``ext = extended(Q)``, ``rows`` (m, L) ints, -1 a zero row: one
    index copy."""
    src, n, K = ext
    rows = np.asarray(rows, dtype=int).reshape(len(rows), -1)
    m, L = rows.shape
    if m * L * K == 0:
        return ca.MX(L * K, m)
    idx = rows[:, None, :] + n * np.arange(K)[None, :, None]     # (m, K, L)
    idx = np.where(rows[:, None, :] < 0, n * K, idx)
    return ca.reshape(src[idx.ravel().tolist()], L * K, m)


def gather_zeros(rows, K=1):
    """``((index, 0.0), ...)``: the entries of a :func:`gather`'s
    columns (``rows`` (m, L), K columns of the source) that are zero in
    every column (a row -1 for every frame)."""
    rows = np.asarray(rows, dtype=int).reshape(len(rows), -1)
    zero = np.all(rows < 0, axis=0) if len(rows) else np.zeros(0, bool)
    L = len(zero)
    return tuple((int(j + L * k), 0.0) for k in range(K) for j in np.flatnonzero(zero))


def take(v, rows):
    """``U (L, m)``: column i holds ``v[rows[i]]`` for an MX vector ``v`` and
    valid rows (m, L): one index copy from ``v`` itself (composed with the
    slice that made ``v``, no copy of the whole)."""
    rows = np.asarray(rows, dtype=int).reshape(len(rows), -1)
    m, L = rows.shape
    if m * L == 0:
        return ca.MX(L, m)
    return ca.reshape(v[rows.ravel().tolist()], L, m)


class Scatter:
    """A sum of scattered blocks, made at the end as a sum of a few index
    copies (one per source of the most summed entry; a sparse product by a
    constant costs ~3x more machine instructions, a sum of sparse products
    would project each on the union of their patterns): :meth:`add` ``Y
    (L K, m)`` whose column i, (L, K) column-major, goes to the rows
    ``rows[i]`` (m, L; -1 dropped) of an ``(n, K)`` result, :meth:`result`
    the sum."""

    def __init__(self, n, K):
        self.n, self.K, self.parts, self.dst, self.size = n, K, [], [], 0

    def add(self, Y, rows):
        n, K = self.n, self.K
        rows = np.asarray(rows, dtype=int).reshape(Y.shape[1], -1)
        m, L = rows.shape
        dst = rows[:, None, :] + n * np.arange(K)[None, :, None]
        self.dst.append(np.where(rows[:, None, :] >= 0, dst, -1).ravel())
        self.parts.append(ca.vec(Y))
        self.size += m * K * L

    def result(self):
        n, K = self.n, self.K
        if not self.parts:
            return ca.MX(n, K)
        dst = np.concatenate(self.dst)
        src = ca.densify(ca.vertcat(*self.parts, ca.MX(ca.DM.zeros(1))))
        layers = np.full((1, n * K), self.size)         # self.size: the zero appended
        for i in np.flatnonzero(dst >= 0):
            free = np.flatnonzero(layers[:, dst[i]] == self.size)
            if not len(free):
                layers = np.vstack([layers, np.full(n * K, self.size)])
                free = [len(layers) - 1]
            layers[free[0], dst[i]] = i
        out = src[layers[0].tolist()]
        for idx in layers[1:]:
            out = out + src[idx.tolist()]
        return ca.reshape(out, n, K)


def columns(M, idx):
    """``M[:, idx]`` (MX) for a list of column indices."""
    return M[:, [int(i) for i in idx]]
