"""The compiled simulation's driver (flexpkm.analysis.compiled_simulate._block)
on a stand-in sample function (an SX function on CasADi's virtual machine:
no compiler, milliseconds): each sample is given its own columns of the
drive table, column-major, and a sample whose state is not finite stops
the block although its residual is below tol."""
import numpy as np
import pytest

ca = pytest.importorskip("casadi")
from flexpkm.analysis import compiled_simulate as cs  # noqa: E402  (imports casadi)
N_SUB = 3
NAMES = ("q", "v", "a", "q_ev", "v_ev")


class StandIn:
    """What ``_block`` reads of a CompiledRobot: ``blocks``, ``sample()``,
    ``state_slices()``. The state x (5,): [samples done; the weighted sum
    of the sample's drive input U (2, N_SUB) in column-major order; NaN
    from sample ``bad`` on; 0; 0]; the record [tau, energy, drift, rho,
    evaluations, converged] with rho = 0 (every sample below tol)."""

    def __init__(self, bad):
        self.blocks, self.bad = {}, bad

    def state_slices(self):
        return {name: slice(k, k + 1) for k, name in enumerate(NAMES)}

    def sample(self, prescribed, iterations, n_sub, project_each, specs, exact):
        x, U, par = ca.SX.sym("x", 5), ca.SX.sym("U", 2, n_sub), ca.SX.sym("par", 2)
        weights = ca.DM(np.arange(1.0, 2 * n_sub + 1))
        nan = ca.if_else(x[0] >= self.bad, np.nan, 0.0)
        x1 = ca.vertcat(x[0] + 1, ca.dot(ca.vec(U), weights), nan, 0, 0)
        rec = ca.vertcat(0, 0, 0, 0, n_sub, n_sub)
        return ca.Function("sample", [x, U, par], [x1, rec])


def run(bad, K=6):
    U = np.random.default_rng(0).uniform(-1, 1, (2, K * N_SUB))
    config = (True, 8, N_SUB, False, (), False)
    rows, recs, n_ok, (x_before, _), (x_after, _) = cs._block(StandIn(bad), config)(
        (np.zeros(5), None), U, np.array([0.0, 1e-6]))
    weights = np.arange(1.0, 2 * N_SUB + 1)
    expected = [U[:, k * N_SUB:(k + 1) * N_SUB].ravel(order="F") @ weights for k in range(K)]
    return rows, n_ok, x_before, x_after, np.array(expected)


def test_each_sample_gets_its_drive_columns():
    rows, n_ok, _, x_after, expected = run(bad=100)
    assert n_ok == 6 and np.array_equal(rows[0], np.arange(1.0, 7.0))
    assert np.allclose(rows[1], expected, rtol=1e-15, atol=0)
    assert x_after[0] == 6


def test_a_sample_with_a_non_finite_state_stops_the_block():
    """Its residual (0) is below tol: the state's NaN alone stops it; the
    samples before it are kept, the ones after it are not computed."""
    rows, n_ok, x_before, x_after, expected = run(bad=2)
    assert n_ok == 2 and x_before[0] == 2 and np.isnan(x_after[2])
    assert np.allclose(rows[1, :3], expected[:3], rtol=1e-15, atol=0)
    assert np.isnan(rows[:, 3:]).all()
