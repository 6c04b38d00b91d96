"""The choice of the dependent coordinates ``q_dep`` (Briot & Khalil
Section 10.4.1) and the block partitioning of ``J_t^f`` by limb (Müller
Section 3.3.2).

``J_tot`` (c, n_tot) must be split into ``J_t^f`` (the c columns of
``q_dep``, invertible) and ``J_t^0``. The book picks ``q_dep`` by hand; here
it is picked numerically, limb by limb, by QR with column pivoting, the
actuated coordinates independent (they are locked or driven) unless there
are more actuators than degrees of freedom (actuation redundancy, Section
8.5: then the independent coordinates are actuated ones).
"""
from __future__ import annotations

import numpy as np

from flexpkm.algorithms.pivoted_qr import pivoted_qr
from flexpkm.errors import SingularConfigurationError
from flexpkm.model.build import build_structure

#: J_t^f is treated as singular below this reciprocal condition number
RCOND_SINGULAR = 1e-10
#: the book's q_dep is used when its J_t^f is at most this much worse
#: conditioned than the rank-revealing choice
BOOK_RCOND_RATIO = 0.1


def choose_dependent(model, J_tot, labels, q_dep=None):
    """Pick the c dependent columns of ``J_tot`` (first pose of the batch).

    * ``q_dep`` given (names): used as is; a singular ``J_t^f`` raises
      :class:`SingularConfigurationError` naming the closures/legs involved.
    * otherwise a rank-revealing choice is made, QR with column pivoting of
      ``J_tot`` restricted to the non-actuated columns (the actuators stay
      independent so that they can be locked or driven); the per-limb choice
      of :func:`limbwise_dependent` replaces it, and the book's choice
      ``model.q_dep`` replaces both, when their ``J_t^f`` is not much worse
      conditioned (``BOOK_RCOND_RATIO``).
    * more actuators than the non-actuated columns can absorb (actuation
      redundancy, Section 8.5): :func:`redundant_dependent`.
    Returns (dep indices, choice name).
    """
    model = build_structure(model)
    layout = model.layout
    c = J_tot.shape[1]
    A = J_tot[0]
    if c == 0:
        return np.zeros(0, dtype=int), "no closure"
    if q_dep is not None:
        dep = np.array([layout.index(n) for n in q_dep])
        assert_invertible(A[:, dep], labels, "J_t^f (requested q_dep)")
        return dep, "requested"
    free = np.array([i for i in range(layout.n_tot) if i not in layout.actuated])
    if len(free) < c:                   # actuation redundancy (Section 8.5)
        return redundant_dependent(model, A, labels), "redundant actuation"
    piv = pivoted_qr(A[:, free])[1]
    dep = np.sort(free[piv[:c]])
    assert_invertible(A[:, dep], labels, "J_tot (non-actuated columns)")
    choice, best = "rank-revealing", _rcond(A[:, dep])
    limb = limbwise_dependent(model, A, labels)
    if limb is not None and _rcond(A[:, limb]) > BOOK_RCOND_RATIO * best:
        dep, choice = limb, "per limb"
    if model.q_dep is not None:
        book = np.array([layout.index(n) for n in model.q_dep])
        if len(book) == c and _rcond(A[:, book]) > BOOK_RCOND_RATIO * best:
            return book, "book"
    return dep, choice


def redundant_dependent(model, A, labels):
    """Dependent columns of an actuation-redundant robot (Section 8.5): the
    independent coordinates are picked among the actuated ones, then (if
    the actuated ones do not span the motions, e.g. elastic coordinates)
    among the others, each time by QR with column pivoting of the rows of
    a null-space basis ``N`` of ``J_tot`` (``qd_tot = N v``): the chosen
    rows make ``N[indep]`` best conditioned, hence ``J_t^f`` invertible.
    A (c, n_tot) ``J_tot`` at one pose. Returns the sorted dependent columns.
    Raises :class:`SingularConfigurationError` when ``J_tot`` is rank deficient."""
    from scipy.linalg import null_space     # on use: 0.15-0.3 s of start-up (docs/design.md)
    n_tot = A.shape[1]
    N = np.linalg.svd(A)[2][A.shape[0]:].T                 # (n_tot, n_dof)
    act = np.array(model.layout.actuated)
    rest = np.array([i for i in range(n_tot) if i not in set(act)], dtype=int)
    indep = []
    for pool in (act, rest):
        if len(indep) == N.shape[1] or not len(pool):
            continue
        basis = N if not indep else N @ null_space(N[indep])
        d, piv = pivoted_qr(basis[pool].T)
        k = int(np.sum(d > RCOND_SINGULAR * max(d.max(initial=0.0), 1e-300)))
        indep += list(pool[piv[:min(k, N.shape[1] - len(indep))]])
    dep = np.array(sorted(set(range(n_tot)) - set(indep)))
    assert_invertible(A[:, dep], labels, "J_t^f (redundant actuation)")
    return dep


def limbwise_dependent(model, A, labels):
    """Block partitioning of ``J_tot`` by limb (Müller 3.3.2; the book's
    choice of q_dep among each leg's own coordinates, Section 10.4.1): the
    rows of each leg's closures get dependent columns among that leg's
    non-actuated coordinates, by QR with column pivoting of the leg's block.
    ``J_t^f`` is then block-triangular (block-diagonal when the platform
    coordinates stay independent), each block a limb. Returns the sorted
    dependent columns, or None when a block is rank deficient or closures
    carry no leg."""
    row_legs = [leg for _, leg, _ in labels]
    if not row_legs or any(not leg for leg in row_legs):
        return None
    legs = model.column_legs
    actuated = set(model.layout.actuated)
    dep, pattern = [], None
    for leg in dict.fromkeys(row_legs):
        rows = [i for i, lg in enumerate(row_legs) if lg == leg]
        cols = np.array([c for c, lg in enumerate(legs) if lg == leg and c not in actuated])
        if len(cols) < len(rows):
            return None
        piv = pivoted_qr(A[np.ix_(rows, cols)])[1]
        best = piv[:len(rows)]
        # identical limbs: keep the first limb's pattern when it is as good
        if (pattern is not None and pattern.max() < len(cols) and len(pattern) == len(rows)
                and _rcond(A[np.ix_(rows, cols[pattern])])
                > BOOK_RCOND_RATIO * _rcond(A[np.ix_(rows, cols[best])])):
            best = pattern
        pattern = best if pattern is None else pattern
        chosen = cols[best]
        if _rcond(A[np.ix_(rows, chosen)]) < RCOND_SINGULAR:
            return None
        dep += list(chosen)
    dep = np.sort(np.array(dep))
    return dep if _rcond(A[:, dep]) > RCOND_SINGULAR else None


def _rcond(A):
    s = np.linalg.svd(A, compute_uv=False)
    return s[-1] / s[0] if s.size and s[0] > 0 else 0.0


def assert_invertible(A, labels, what):
    if A.shape[0] != A.shape[1]:
        raise SingularConfigurationError(
            f"{what}: {A.shape[0]} constraints for {A.shape[1]} dependent coordinates",
            matrix=what)
    rc = _rcond(A)
    if rc > RCOND_SINGULAR:
        return
    U, s, Vt = np.linalg.svd(A)
    weights = np.abs(U[:, -1])
    rows = [labels[i] for i in np.argsort(weights)[::-1] if weights[i] > 0.1]
    where = ", ".join(sorted({f"closure {lab} (leg {leg})" if leg else f"closure {lab}"
                              for lab, leg, _ in rows}))
    raise SingularConfigurationError(
        f"singular configuration: {what} has condition number {1 / max(rc, 1e-300):.3g}; "
        f"the constraints of {where} are degenerate", matrix=what, where=where,
        cond=1 / max(rc, 1e-300))




def limb_blocks(model, labels, dep):
    """Block partitioning of ``J_t^f`` by limb (Müller 3.3.2), from the
    structure alone (:attr:`flexpkm.model.Model.closure_columns`), so that it
    holds at every pose: ``[(rows, dep positions)]`` per limb when each
    limb's constraint rows can involve only its own dependent coordinates,
    else None. The dependent coordinates of a block are listed in the order
    of ``dep`` so that the rows of ``J_d`` line up."""
    row_legs = [leg for _, leg, _ in labels]
    if not row_legs or any(not leg for leg in row_legs):
        return None
    col_legs = [model.column_legs[c] for c in dep]
    index = {c.label: i for i, c in enumerate(model.closures)}   # rows may be a selection
    closure_of_row = np.array([index[lab] for lab, _, _ in labels])
    blocks = []
    for leg in dict.fromkeys(row_legs):
        rows = np.array([i for i, lg in enumerate(row_legs) if lg == leg])
        cols = np.array([k for k, lg in enumerate(col_legs) if lg == leg])
        if len(rows) != len(cols):
            return None
        reach = np.unique(np.concatenate([model.closure_columns[c] for c in set(closure_of_row[rows])]))
        others = np.setdiff1d(np.asarray(dep)[np.setdiff1d(np.arange(len(dep)), cols)], [])
        if np.intersect1d(reach, others).size:
            return None
        blocks.append((rows, cols))
    return blocks
