"""The kept iteration matrix formed by the compiled simulation's driver
(flexpkm.analysis.kept_matrix): LAPACK's inverse against numpy's, and a
sample stopped before a step whose matrix is due, then called again from
that step, equal to the same steps made one by one as the driver makes
them (CasADi's virtual machine, DualEMPS with two elements per link)."""
import numpy as np
import pytest

import flexpkm as fp
from flexpkm.analysis import kept_matrix
from flexpkm.cases import dualemps
from flexpkm.cli.simulate import _refined
from flexpkm.compiled import modified_newton
from flexpkm.compiled.robot import CompiledRobot

ca = pytest.importorskip("casadi")


def test_spd_inverse_is_numpys():
    rng = np.random.default_rng(1)
    B = rng.normal(size=(9, 9))
    A = B @ B.T + 9 * np.eye(9)                         # positive definite: Cholesky
    np.testing.assert_allclose(kept_matrix.spd_inverse(A) @ A, np.eye(9), atol=1e-12)
    C = B + B.T                                         # indefinite: LU
    np.testing.assert_allclose(kept_matrix.spd_inverse(C), np.linalg.inv(C), rtol=1e-10)
    assert np.isnan(kept_matrix.spd_inverse(np.full((3, 3), np.nan))).all()


@pytest.fixture
def refined(monkeypatch, tmp_path):
    """The DualEMPS at two elements per link on CasADi's virtual machine:
    (cm, x0, par, u) of a PD-free step from rest with efforts."""
    monkeypatch.setenv("FLEXPKM_CC", "")
    monkeypatch.setenv("FLEXPKM_CACHE", str(tmp_path))
    base = fp.build_model(dualemps.robot())
    model, q0 = _refined(dualemps.robot(), dualemps.initial_state(base), 2)
    cm = CompiledRobot(model, q_ref=q0, compile=False)
    ref = fp.full_dynamics(model, q0, 0.0, dep=cm.dep)
    n_r, n_a = len(cm.indep), cm.n_a
    par = cm.parameters(np.full(n_a, 50.0), np.full(n_a, 2.0), 2.5e-4, 0.05, model.gravity,
                        1.0, 1e-3, 1e-8)
    x0 = cm.pack(q0, np.zeros(n_r), np.zeros(n_r), np.zeros(n_r), ref.J, ref.b)
    return cm, x0, par, np.array([5.0, -3, 0, 0, 0, 0])


def test_a_sample_stopped_at_a_due_step_equals_the_steps_one_by_one(refined):
    """The state's age two short of the refresh age: the sample's first two
    steps use the matrix formed at its start, it stops before the third,
    the driver forms the matrix there and calls it again from that step;
    the accelerations, velocities and Newton evaluations equal those of
    the four steps made one by one by kept_step (the same matrices, to
    round-off: the sample's MX composition is not bit for bit the direct
    calls') to 1e-12, and the record sums the evaluations of both calls."""
    cm, x0, par, u = refined
    config, n_sub = (False, 6, (), False), 4
    x, _, _, S = kept_matrix.kept_step(cm, config, x0, u, par)         # S formed first
    sl = cm.state_slices()
    x[sl["age"]] = modified_newton.refresh_age(len(cm.indep)) - 2
    fn = cm.sample(False, 6, n_sub, False)
    buf, evaluate = fn.buffer()
    ins = [x.copy(), np.tile(u, n_sub), np.asarray(par, float), None, np.zeros(1)]
    sizes = [fn.nnz_out(i) for i in range(3)]
    outs = np.split(np.zeros(sum(sizes)), np.cumsum(sizes)[:-1])
    for i in (0, 1, 2, 4):
        buf.set_arg(i, memoryview(ins[i]))
    for i, a in enumerate(outs):
        buf.set_res(i, memoryview(a))
    sample = kept_matrix.KeptSample(cm.iteration(*config), (buf, evaluate, ins, outs), n_sub, cm,
                                    False)
    S_end, start = sample(S)
    assert S_end is not S and sample.start_matrix is S and np.array_equal(start, x)
    one, total, S1 = x.copy(), 0.0, S
    for _ in range(n_sub):
        one, _, e, S1 = kept_matrix.kept_step(cm, config, one, u, par, S1)
        total += e
    assert np.abs(S1 - S_end).max() <= 1e-12 * np.abs(S1).max()       # 1.4e-13: round-off
    for name in ("v", "a", "age", "S_h"):
        np.testing.assert_allclose(outs[0][sl[name]], one[sl[name]], rtol=0,
                                   atol=1e-12 * max(1.0, np.abs(one[sl[name]]).max()))
    assert outs[0][sl["age"].start] == 1 and outs[1][-2] == total and outs[1][-3] <= 1e-8

