"""Natural frequencies from the generated reduced matrices (M_r, K_r at
q_e = 0) against the numpy modal path."""
import numpy as np
import pytest

import flexpkm as fp
from flexpkm.cases import dualemps, navaro
from flexpkm.compiled import modal

pytest.importorskip("casadi")


def test_dualemps_frequencies_and_matrices_agree():
    model = fp.build_model(dualemps.robot())
    q = np.stack([dualemps.configuration(model, a, b) for a, b in [(0, 0), (0.05, 0.1), (0.2, 0.03)]])
    M, K, cm = modal.reduced_matrices(model, q)
    red = fp.reduced_matrices(model, q)
    assert red.dep.tolist() == cm.dep.tolist() and red.ind.tolist() == cm.r_index.tolist()
    for ours, ref in ((M, red.M_r), (K, red.K_r)):
        assert np.abs(ours - ref).max() < 1e-12 * np.abs(ref).max()
    f = modal.natural_frequencies(model, q)
    f_ref = fp.natural_frequencies(model, q, shapes=False).frequencies_hz
    assert np.abs(f - f_ref).max() < 1e-12 * f_ref.max()
    assert np.allclose(modal.natural_frequencies(model, q[1], n_modes=3), f_ref[1, :3], rtol=1e-12)


def test_navaro_frequencies_on_the_virtual_machine(monkeypatch, tmp_path):
    monkeypatch.setenv("FLEXPKM_CC", "")
    monkeypatch.setenv("FLEXPKM_CACHE", str(tmp_path))
    model = fp.build_model(navaro.robot())
    q = navaro.pose_configurations(model, [[0.0, 0.0, 0.0], [0.0, 0.02, -1.0]])
    with pytest.warns(UserWarning, match="no C compiler"):
        f = modal.natural_frequencies(model, q)
    f_ref = fp.natural_frequencies(model, q, shapes=False).frequencies_hz
    assert np.abs(f - f_ref).max() < 1e-11 * f_ref.max()
    assert (np.abs(f - f_ref) / f_ref).max() < 1e-10
