"""The workspace map's fast modal path (flexpkm.compiled.modal_flat): its
reduced matrices against the numpy modal path (an independent
implementation of Steps 0-3), the sparse products against dense numpy, the
map's cells against the single-pose analysis."""
from pathlib import Path

import casadi as ca
import numpy as np
import pytest

import flexpkm as fp
from flexpkm import cases
from flexpkm.analysis import workspace_map as wm
from flexpkm.cases import dualemps
from flexpkm.compiled import modal, modal_flat
from flexpkm.compiled.sparse_products import ProductLists, lower_product

pytest.importorskip("casadi")

FIVE_BAR = Path(cases.__file__).parent / "examples" / "five_bar.toml"


def test_lower_product_equals_dense_numpy():
    """J^T A J from the multiply-add lists equals numpy's dense product on
    random sparse patterns (A symmetric, J with identity rows), per pose and
    with A shared by the batch; the result is exactly symmetric."""
    rng = np.random.default_rng(3)
    n, r, B = 12, 7, 5
    A_pat = rng.random((n, n)) < 0.3
    A_pat |= A_pat.T
    J_pat = rng.random((n, r)) < 0.4
    J_pat[:r] = np.eye(r, dtype=bool)
    a_sp = ca.DM(A_pat.astype(float)).sparsity()
    j_sp = ca.DM(J_pat.astype(float)).sparsity()
    lists = ProductLists(a_sp, j_sp)
    A = rng.standard_normal((B, n, n))
    A = (A + np.swapaxes(A, 1, 2)) * A_pat
    J = rng.standard_normal((B, n, r)) * J_pat
    J[:, :r] = np.eye(r)
    Az = np.stack([np.asarray(ca.project(ca.DM(a), a_sp).nonzeros()) for a in A])
    Jz = np.stack([np.asarray(ca.project(ca.DM(j), j_sp).nonzeros()) for j in J])
    ref = np.swapaxes(J, 1, 2) @ A @ J
    out = lower_product(lists, Az, Jz)
    assert np.abs(out - ref).max() <= 1e-13 * np.abs(ref).max()
    assert np.array_equal(out, np.swapaxes(out, 1, 2))
    shared = lower_product(lists, Az[0], Jz)
    ref0 = np.swapaxes(J, 1, 2) @ A[0] @ J
    assert np.abs(shared - ref0).max() <= 1e-13 * np.abs(ref0).max()


def test_flat_reduced_matrices_equal_numpy_and_the_graph():
    """DualEMPS at three poses: M_r, K_r, J_d, cond(J_t^f) and the scales of
    the fast path equal the numpy path's to 1e-12 (of their largest entry),
    the frequencies equal the graph's and numpy's to 1e-12 of the largest."""
    model = fp.build_model(dualemps.robot())
    q = np.stack([dualemps.configuration(model, a, b)
                  for a, b in [(0, 0), (0.05, 0.1), (0.2, 0.03)]])
    ours, ref = modal_flat.fast_reduced_matrices(model, q), fp.reduced_matrices(model, q)
    for name in ("M_r", "K_r", "J_d", "cond_closure", "scales"):
        a, b = getattr(ours, name), getattr(ref, name)
        assert np.abs(a - b).max() <= 1e-12 * np.abs(b).max(), name
    assert np.array_equal(ours.M_r, np.swapaxes(ours.M_r, 1, 2))
    f_flat = fp.natural_frequencies(model, q, backend="compiled", flat=True).frequencies_hz
    f_graph = fp.natural_frequencies(model, q, backend="compiled").frequencies_hz
    f_np = fp.natural_frequencies(model, q, backend="numpy").frequencies_hz
    for f in (f_graph, f_np):
        assert np.abs(f_flat - f).max() < 1e-12 * f.max()


def test_large_compiled_map_runs_the_fast_path_and_equals_single_poses(monkeypatch):
    """A five-bar compiled map above FLAT_MIN (lowered to 4 cells here) runs
    the fast path (its plan kept on the model's CompiledRobot); its cells
    equal the single-pose compiled analysis and the graph path's map to
    1e-12 of the largest frequency (the eigenproblem's round-off floor:
    per frequency 6e-11 on the five-bar, as the graph against numpy, 4e-11),
    its compliance to 1e-9 (an inverse of K_ff); on 2 worker processes
    (which load the library the calling process made) equal to the bit."""
    model = fp.build_model(fp.load_robot(FIVE_BAR))
    grid = ["0.0:0.2:3", "0.35:0.5:3"]
    slow = wm.workspace_map(model, grid, n_modes=3, backend="compiled")
    monkeypatch.setattr(wm, "FLAT_MIN", 4)
    monkeypatch.setattr(wm, "FLAT_COLD", 5)
    fast = wm.workspace_map(model, grid, n_modes=3, backend="compiled")
    assert "flexpkm_modal_flat_plan" in model.compiled.modal.functions
    assert fast.counts() == slow.counts() and fast.counts()["ok"] >= 4
    f, g = fast.frequencies_hz.reshape(9, -1), slow.frequencies_hz.reshape(9, -1)
    q = fast.q_tot.reshape(9, -1)
    for k in np.flatnonzero(fast.status.ravel() == "ok"):
        one = fp.natural_frequencies(model, q[k], shapes=False, backend="compiled")
        top = one.frequencies_hz.max()
        assert np.abs(f[k] - one.frequencies_hz[:3]).max() <= 1e-12 * top
        assert np.abs(f[k] - g[k]).max() <= 1e-12 * top
    ok = fast.status.ravel() == "ok"
    pool = wm.workspace_map(model, grid, n_modes=3, backend="compiled", workers=2, chunk=2)
    assert np.array_equal(pool.frequencies_hz, fast.frequencies_hz, equal_nan=True)
    C, D = fast.compliance.reshape(9, 2, 2)[ok], slow.compliance.reshape(9, 2, 2)[ok]
    assert np.abs(C - D).max() <= 1e-9 * np.abs(D).max()       # K_ff^-1: 6e-11 here


def test_fast_path_compiled_only_for_large_maps(monkeypatch, tmp_path):
    """In an empty cache a map below FLAT_COLD cells does not compile the
    fast path's library (nor uses it); one of FLAT_COLD cells compiles it,
    and then a map of FLAT_MIN cells uses it; never below FLAT_MIN, never on
    numpy."""
    monkeypatch.setenv("FLEXPKM_CACHE", str(tmp_path))
    model = fp.build_model(fp.load_robot(FIVE_BAR))
    cm = modal.compiled_robot(model)[0]
    assert not modal_flat.cached(cm)
    assert not wm._fast_path(model, "compiled", wm.FLAT_COLD - 1)
    assert not modal_flat.cached(cm) and not list(tmp_path.glob("flexpkm_modal_flat_*.so"))
    assert wm._fast_path(model, "compiled", wm.FLAT_COLD) and modal_flat.cached(cm)
    assert wm._fast_path(model, "compiled", wm.FLAT_MIN)
    assert not wm._fast_path(model, "compiled", wm.FLAT_MIN - 1)
    assert not wm._fast_path(model, "numpy", wm.FLAT_COLD)
