"""The kept iteration matrix's pieces (flexpkm.compiled.modified_newton) and
the kernel graph's step state (flexpkm.compiled.step): the refresh's mass
matrix against the numpy reference full model (an independent formulation:
the projected Newton-Euler equations), the state's J on its structural
non-zeros against the numpy J; on CasADi's virtual machine (no compiler)."""
import casadi as ca
import numpy as np
import pytest

import flexpkm as fp
from flexpkm.compiled import modified_newton, step
from flexpkm.compiled.robot import CompiledRobot
from tests.compiled.test_newton_euler import _delta, _refined_dualemps

pytest.importorskip("casadi")


@pytest.mark.parametrize("robot", ["dualemps_N2", "delta_flexible"])
def test_refresh_mass_matrix_equals_the_numpy_M_r(robot):
    """M of the refresh (the acceleration-independent terms once, the
    linear product per column) equals numpy's M_r to 1e-12 at a state with
    q_e != 0 and random rates, on the parametric graph of the simulation
    (design vector an input)."""
    model, q0 = _refined_dualemps(2) if robot == "dualemps_N2" else _delta()
    cm = CompiledRobot(model, q_ref=q0, compile=False)
    kd = cm.simulation_kernels
    rng = np.random.default_rng(3)
    n_r = len(cm.indep)
    q, v = q0 + 1e-3 * rng.standard_normal(len(q0)), rng.uniform(-1, 1, n_r)
    ref = fp.full_dynamics(model, q, v, dep=cm.dep, loop_tol=None)
    par = cm.parameters(np.zeros(cm.n_a), np.zeros(cm.n_a), 1e-4, 0.05, model.gravity, 1.0,
                        1e-3)
    M = modified_newton.mass_matrix_function(kd)(
        *step.graph_arguments(kd, ca.DM(q), ca.DM(v), ca.DM(par)))
    assert np.abs(np.array(M) - ref.M).max() <= 1e-12 * np.abs(ref.M).max()


def test_kernel_state_holds_the_structural_entries_of_J():
    """The kernel graph's step state stores J by its structural non-zeros
    (last; the O(n) state: 444 of 79 x 74 entries at 8 elements per body),
    read back as numpy's J; a dense pack (the motors' augmented model) keeps
    n_tot n_r entries; q, v, a and the kept matrix's counters (S_h, age; the
    matrix itself is not in the state) where layout() puts them without the
    pattern."""
    model, q0 = _refined_dualemps(2)
    cm = CompiledRobot(model, q_ref=q0, compile=False)
    n_tot, n_r, n_a = model.layout.n_tot, len(cm.indep), cm.n_a
    v = np.full(n_r, 0.3)
    ref = fp.full_dynamics(model, q0, v, dep=cm.dep)
    pattern = cm.state_pattern
    assert pattern is not None and pattern.nnz() < n_tot * n_r / 4
    x = cm.pack(q0, v, np.ones(n_r), np.zeros(n_r), ref.J, ref.b)
    sl = cm.state_slices()
    assert len(x) == sl["J"].stop == step.layout(n_tot, n_r, n_a, 0, pattern.nnz())[1]
    J = step.state_jacobian(ca.DM(x), sl, n_tot, n_r, pattern)
    assert np.array_equal(np.array(ca.densify(J)), ref.J)
    dense = cm.pack(q0, v, np.ones(n_r), np.zeros(n_r), ref.J, ref.b, dense=True)
    plain = step.layout(n_tot, n_r, n_a)[0]
    assert len(dense) == plain["J"].stop
    assert np.array_equal(dense[plain["J"]].reshape(n_tot, n_r, order="F"), ref.J)
    for name in ("q", "v", "a", "b", "S_h", "age"):
        assert sl[name] == plain[name]
