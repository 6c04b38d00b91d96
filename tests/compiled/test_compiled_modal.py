"""Modal analysis from the generated reduced matrices (M_r, K_r, J_d, J_t^f
at q_e = 0) against the numpy modal path: same matrices, frequencies,
shapes, condition numbers and errors."""
import numpy as np
import pytest

import flexpkm as fp
from flexpkm.algorithms.modal import generalized_eigh
from flexpkm.cases import dualemps, navaro
from flexpkm.compiled import modal
from flexpkm.errors import OpenLoopError

pytest.importorskip("casadi")

FIELDS = ("M_r", "K_r", "J_d", "cond_closure", "scales")


def _twin_modes(model, q, **options):
    """The compiled twin's reduced matrices through the one eigen step (on
    CasADi's virtual machine when the tests hide the compiler)."""
    return fp.solve_modes(model, modal.reduced_matrices(model, q), **options)


def _same_reduced(ours, ref, tol=1e-12):
    assert ours.names == ref.names and ours.dep.tolist() == ref.dep.tolist()
    assert ours.choice == ref.choice
    for name in FIELDS:
        a, b = getattr(ours, name), getattr(ref, name)
        assert np.abs(a - b).max() <= tol * np.abs(b).max(), name


def test_dualemps_reduced_model_and_modes_agree():
    model = fp.build_model(dualemps.robot())
    q = np.stack([dualemps.configuration(model, a, b) for a, b in [(0, 0), (0.05, 0.1), (0.2, 0.03)]])
    _same_reduced(modal.reduced_matrices(model, q), fp.reduced_matrices(model, q))
    ours = fp.natural_frequencies(model, q, backend="compiled")
    ref = fp.natural_frequencies(model, q, backend="numpy")
    assert (ours.backend, ours.reduced.backend, ref.backend) == ("compiled", "compiled", "numpy")
    assert ours.backend_reason == ref.backend_reason == "asked"
    assert np.abs(ours.frequencies_hz - ref.frequencies_hz).max() < 1e-12 * ref.frequencies_hz.max()
    assert np.abs(ours.shapes_tot - ref.shapes_tot).max() < 1e-9 * np.abs(ref.shapes_tot).max()
    for name in ("cond_pencil", "singularity_measure"):
        assert np.allclose(getattr(ours, name), getattr(ref, name), rtol=1e-9)
    one = fp.natural_frequencies(model, q[1], n_modes=3, shapes=False, backend="compiled")
    assert one.frequencies_hz.shape == (3,)
    assert np.allclose(one.frequencies_hz, ref.frequencies_hz[1, :3], rtol=1e-12)


def test_open_loop_is_refused_naming_the_closure():
    model = fp.build_model(dualemps.robot())
    q = dualemps.configuration(model, 0.05, 0.1)
    q[model.layout.index("q11")] += 0.05
    with pytest.raises(OpenLoopError, match="closure"):
        modal.reduced_matrices(model, q)


@pytest.mark.parametrize("graph", ["unrolled", "kernels"])
def test_navaro_on_the_virtual_machine(monkeypatch, tmp_path, graph):
    """The compiler hidden: CasADi's virtual machine, with a warning. The
    lowest frequencies agree to a few 1e-12 relative: the round-off floor of
    this eigenproblem (see test_round_off_floor_of_the_navaro_eigenproblem).
    On the unrolled SX graph (the one-element NaVARo's) and on the kernel
    graph of the refined robots (flexpkm.compiled.recursive)."""
    monkeypatch.setattr(modal, "MODAL_UNROLLED_MAX", 1000 if graph == "unrolled" else 0)
    monkeypatch.setenv("FLEXPKM_CC", "")
    monkeypatch.setenv("FLEXPKM_CACHE", str(tmp_path))
    model = fp.build_model(navaro.robot())
    q = navaro.pose_configurations(model, [[0.0, 0.0, 0.0], [0.0, 0.02, -1.0]])
    with pytest.warns(UserWarning, match="no C compiler"):
        ours = _twin_modes(model, q, shapes=False)
    ref = fp.natural_frequencies(model, q, shapes=False, backend="numpy")
    _same_reduced(ours.reduced, ref.reduced)
    f, f_ref = ours.frequencies_hz, ref.frequencies_hz
    assert (np.abs(f - f_ref) / f_ref).max() < 3e-11
    assert np.median(np.abs(f - f_ref) / f_ref) < 2e-12


def test_round_off_floor_of_the_navaro_eigenproblem():
    """Why the lowest NaVARo frequencies cannot agree to 1e-12 between two
    correct paths: a one-ulp relative perturbation of M_r and K_r moves them
    by more than that (lambda_max / lambda_min is about 1e5)."""
    model = fp.build_model(navaro.robot())
    q = navaro.pose_configurations(model, [[0.0, 0.0, 0.0], [0.0, 0.02, -1.0]])
    red = fp.reduced_matrices(model, q)
    na = red.n_a
    M, K = red.M_r[:, na:, na:], red.K_r[:, na:, na:]
    rng = np.random.default_rng(1)
    E = rng.standard_normal(M.shape)
    E = 2.2e-16 * (E + np.swapaxes(E, 1, 2)) / 2
    lam = generalized_eigh(K, M, vectors=False)[0]
    lam_p = generalized_eigh(K * (1 + E), M * (1 - E), vectors=False)[0]
    assert (np.abs(lam_p - lam) / lam)[:, :3].max() > 2e-12


def test_sweep_on_the_compiled_backend():
    model = fp.build_model(dualemps.robot())
    args = (model, lambda p: dualemps.configuration(model, *p), [0.0, 0.0], [0.1, 0.05], 4)
    ours = fp.frequency_sweep(*args, backend="compiled")
    ref = fp.frequency_sweep(*args, backend="numpy")
    assert (ours.backend, ref.backend) == ("compiled", "numpy")
    assert np.abs(ours.frequencies_hz - ref.frequencies_hz).max() < 1e-12 * ref.frequencies_hz.max()
    with pytest.raises(fp.InvalidArgumentError, match="backend"):
        fp.frequency_sweep(*args, backend="fortran")


def test_flexible_delta_with_its_free_platform_on_the_virtual_machine(monkeypatch, tmp_path):
    """The Delta's completed platform (rx, ry, rz dependent on x, y, z,
    issue 16): same reduced model and frequencies as numpy (measured 3.6e-11:
    the pencil's condition number 2e4 times the reduced matrices' agreement;
    2.4e-13 with the q_dep that LAPACK took among exactly tied columns)."""
    from flexpkm.cases import delta
    monkeypatch.setenv("FLEXPKM_CC", "")
    monkeypatch.setenv("FLEXPKM_CACHE", str(tmp_path))
    model = fp.build_model(delta.robot(flexible=True))
    assert model.layout.n_p == 6
    q = np.stack([fp.assemble(model, pose=np.array(P)) for P in [(0, 0, -0.8), (0.2, 0.1, -0.95)]])
    with pytest.warns(UserWarning, match="no C compiler"):
        ours = _twin_modes(model, q, shapes=False)
    ref = fp.natural_frequencies(model, q, shapes=False, backend="numpy")
    _same_reduced(ours.reduced, ref.reduced)
    assert np.abs(ours.frequencies_hz / ref.frequencies_hz - 1).max() < 1e-10


def test_a_batch_runs_in_blocks_of_few_map_sizes_with_the_same_matrices():
    """A batch of 21 poses runs as blocks of 16, 4 and 1 (CasADi's map costs
    O(B) to build: a few sizes, kept); each pose's matrices equal the
    one-pose call to the bit."""
    assert modal._blocks(21) == [(0, 16), (16, 4), (20, 1)] and modal._blocks(0) == []
    assert sum(s for _, s in modal._blocks(1000)) == 1000
    model = fp.build_model(dualemps.robot())
    q = np.stack([dualemps.configuration(model, a, b)
                  for a, b in zip(np.linspace(0, 0.2, 21), np.linspace(0.1, 0.03, 21))])
    batch = modal.reduced_matrices(model, q)
    for i in (0, 15, 16, 19, 20):
        one = modal.reduced_matrices(model, q[i])
        assert np.array_equal(batch.M_r[i], one.M_r) and np.array_equal(batch.K_r[i], one.K_r)
    sizes = {B for _, B in model.compiled.modal.maps}
    assert sizes <= {1, 2, 4, 8, modal.MAP_BLOCK}
