"""The large compiled map's cells with the actuators locked
(flexpkm.analysis.map_cells: the eigenvalues and the compliance from one
Cholesky factor of K_cc per block) equal the single-pose analysis
(natural_frequencies, then platform_compliance) of the same fast path."""
from pathlib import Path

import numpy as np
import pytest

import flexpkm as fp
from flexpkm import cases
from flexpkm.algorithms.compliance import platform_compliance
from flexpkm.analysis.map_cells import locked_cells

pytest.importorskip("casadi")

FIVE_BAR = Path(cases.__file__).parent / "examples" / "five_bar.toml"


def test_locked_cells_equal_natural_frequencies_and_compliance():
    """Five-bar, 3 poses: frequencies to 1e-12 of the spectrum's largest,
    the compliance and its eigenvalues to 1e-10, the Type 2 measure to
    1e-10, cond_pencil to 1e-8 (its largest eigenvalue from the flexibility
    form: eps cond_pencil), cond_closure and the flags equal."""
    model = fp.build_model(fp.load_robot(FIVE_BAR))
    q = np.stack([fp.assemble(model, pose=p) for p in ([0.1, 0.35], [0.05, 0.4], [0.15, 0.3])])
    modes, (C, eig, ok) = locked_cells(model, q, n_modes=3)
    ref = fp.natural_frequencies(model, q, shapes=False, allow_zero=True, backend="compiled",
                                 flat=True)
    C_ref, eig_ref, ok_ref = platform_compliance(model, ref.reduced)
    top = ref.frequencies_hz.max(axis=1, keepdims=True)
    assert np.abs(modes.frequencies_hz - ref.frequencies_hz[:, :3]).max() <= 1e-12 * top.min()
    assert ok.tolist() == ok_ref.tolist() == [True] * 3
    assert np.abs(C - C_ref).max() <= 1e-10 * np.abs(C_ref).max()
    np.testing.assert_allclose(eig, eig_ref, rtol=1e-10)
    np.testing.assert_allclose(modes.singularity_measure, ref.singularity_measure, rtol=1e-10)
    np.testing.assert_allclose(modes.cond_pencil, ref.cond_pencil, rtol=1e-8)
    np.testing.assert_array_equal(modes.cond_closure, ref.cond_closure)
    np.testing.assert_array_equal(modes.near_singular, ref.near_singular)
    assert modes.backend == "compiled" and modes.shapes_q is None
