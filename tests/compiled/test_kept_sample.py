"""The kept-matrix sample's pieces (flexpkm.compiled.kept_sample) on
stand-in functions (SX, CasADi's virtual machine, milliseconds): the end
of a sample projects and records unless the sample stopped, and the
sample runs the steps from k0 on, stops before the first one due and
reports it; the stand-in step counts its calls in the state."""
import numpy as np
import pytest

ca = pytest.importorskip("casadi")
from flexpkm.compiled.kept_sample import finish_function, kept_sample_function  # noqa: E402

N_X, N_SUB = 4, 4


def stand_ins():
    """``project (q (2,), par) -> (q / 2, drift |q|_inf)``, ``record (x, u,
    par) -> [x_0 + u_0]``; ``step (x, u, par, S, go)``: x = [steps made;
    due from now on (1 when x_0 >= x_3); 0; threshold], with go 0 x
    unchanged; due1 of its output, rho 1e-9, evaluations 2 per step run."""
    q, par = ca.SX.sym("q", 2), ca.SX.sym("par", 1)
    project = ca.Function("project", [q, par], [q / 2, ca.mmax(ca.fabs(q))])
    x, u, S, go = ca.SX.sym("x", N_X), ca.SX.sym("u", 1), ca.SX.sym("S", 2, 2), ca.SX.sym("go")
    record = ca.Function("record", [x, u, par], [x[0] + u[0]])
    x1 = ca.vertcat(x[0] + go, x[1:])
    step = ca.Function("step", [x, u, par, S, go], [x1, 1e-9 * go, 2 * go, x1[0] >= x1[3]])
    return project, record, step


def test_finish_records_unless_stopped():
    project, record, _ = stand_ins()
    finish = finish_function(project, record)
    x, u, par = np.array([4.0, 2, 7, 9]), np.array([0.5]), np.array([0.0])
    xp, drift, rec = (np.array(v).ravel() for v in finish(0, x, u, par))
    assert np.array_equal(xp, [2, 1, 7, 9]) and drift == 4 and rec == 2.5
    xs, drift, rec = (np.array(v).ravel() for v in finish(1, x, u, par))
    assert np.array_equal(xs, x) and drift == 0 and rec == 0


@pytest.mark.parametrize("k0, limit, stop, made", [(0, 9, N_SUB, N_SUB), (0, 2, 2, 2),
                                                     (2, 1, 3, 1), (1, 9, N_SUB, 3)])
def test_the_steps_from_k0_stop_before_the_first_due(k0, limit, stop, made):
    """``limit``: the step count from which a step is due (x_3)."""
    project, record, step = stand_ins()
    finish = finish_function(project, record)

    def due(x, par):
        return x[0] >= x[3]
    sample = kept_sample_function(step, project, finish, due, N_SUB, False)
    x0 = np.array([0.0, 0, 0, limit])
    x, rec, at = (np.array(v).ravel() for v in sample(x0, np.ones((1, N_SUB)), [1e-6],
                                                      np.zeros((2, 2)), k0))
    assert at == stop and rec[-2] == 2 * made           # evaluations of the steps run
    assert rec[-3] == (1e-9 if made else 0) and rec[-1] == N_SUB     # rho, none above tol
    if stop == N_SUB:                                   # projected (q / 2) and recorded
        assert x[0] == made / 2 and rec[0] == made / 2 + 1
    else:                                               # the state at the stop, as it is
        assert x[0] == made and rec[0] == 0
