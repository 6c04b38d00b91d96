"""The compiled step's loop projection (flexpkm.compiled.step.project_function)
against the numpy projection (flexpkm.algorithms.closure.project_on_loops):
Newton while the drift is at least LOOP_TOL, on the unrolled SX graph and
the kernel graph's nested switches (CasADi's virtual machine)."""
import numpy as np
import pytest

from flexpkm.algorithms.closure import project_on_loops
from flexpkm.compiled import step
from flexpkm.compiled.robot import CompiledRobot
from tests.compiled.test_newton_euler import _refined_dualemps

pytest.importorskip("casadi")


@pytest.mark.parametrize("n", [1, 2])
def test_projection_stops_as_numpy_does(n):
    """A state off its loops by 1e-5 (dependent coordinates moved): the
    projection's coordinates equal numpy's to 1e-12 and its drift is below
    LOOP_TOL; a state on its loops (drift below LOOP_TOL: projected once
    already) is returned as it is; N = 1 on the unrolled SX graph, N = 2 on
    the kernel graph."""
    model, q0 = _refined_dualemps(n)
    cm = CompiledRobot(model, q_ref=q0, compile=False)
    assert cm.unrolled == (n == 1)
    graph = cm.simulation_graph
    project = step.project_function(graph)
    n_a = cm.n_a
    par = cm.parameters(np.zeros(n_a), np.zeros(n_a), 1e-4, 0.05, model.gravity, 1.0, 1e-3)
    q_on = np.array(project(project_on_loops(model, q0, cm.dep)[0], par)[0]).ravel()
    q_off = q_on.copy()
    q_off[cm.dep] += 1e-5 * np.linspace(1.0, -1.0, len(cm.dep))
    ref, ref_drift = project_on_loops(model, q_off, cm.dep)
    q, drift = (np.array(v).ravel() for v in project(q_off, par))
    assert np.abs(q - ref).max() <= 1e-12 and drift[0] < step.LOOP_TOL and ref_drift < 1e-12
    q, drift = (np.array(v).ravel() for v in project(q_on, par))
    assert np.array_equal(q, q_on) and drift[0] < step.LOOP_TOL
