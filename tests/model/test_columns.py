"""The columns of the stacked bodies' Jacobian (flexpkm.model.columns): every
column where an entry's rows of the Jacobian (10.80) are non-zero at random
states is among its columns, and the group's U holds them where ``at``
says (the leading block of a chain, or the given positions)."""
from pathlib import Path

import numpy as np

from flexpkm.algorithms.tree import tree_kinematics
from flexpkm.algorithms.virtual_system import body_jacobian
from flexpkm.model import build_structure
from flexpkm.model.files import load

CASES = Path(__file__).resolve().parents[2] / "cases"


def test_entry_columns_hold_the_jacobians_non_zeros():
    for path in (CASES / "delta.toml", CASES / "examples" / "five_bar.toml",
                 CASES / "dualemps.toml"):
        model = build_structure(load(path, elements=2))
        st, n_t = model.stacked, model.layout.n_t
        q = np.random.default_rng(1).uniform(-0.5, 0.5, (4, n_t))
        kin = tree_kinematics(model, q)
        offsets = [int(r) for r in st.rows6[::6]]
        assert sorted(st.columns.entries) == offsets
        elastic = {k: sl for k, _, sl in st.flexible}
        for r, j in zip(offsets, st.frames):
            g, cols, at = st.columns.entries[r]
            J = body_jacobian(kin, j, elastic.get(r), n_t)
            used = np.flatnonzero(np.abs(J).max(axis=(0, 1)) > 0)
            assert set(used) <= set(cols), (path.name, r)
            U = st.columns.groups[g]
            np.testing.assert_array_equal(U[:at] if isinstance(at, int) else U[at], cols)
        legs = {model.frames[j].leg for j in st.frames}
        assert len(st.columns.groups) == len(legs)
