"""The corrections of the kernel graph's HHT step (flexpkm.compiled.corrections):
a slow step goes on with Newton's matrix at each iterate (on CasADi's
virtual machine, the numpy model as the reference)."""
import numpy as np
import pytest

import flexpkm as fp
from flexpkm.analysis.kept_matrix import kept_step
from flexpkm.compiled import modified_newton
from flexpkm.compiled.robot import CompiledRobot
from tests.compiled.test_newton_euler import _refined_dualemps, virtual_machine  # noqa: F401

pytest.importorskip("casadi")


def test_slow_step_goes_on_with_newtons_matrix(virtual_machine, monkeypatch):
    """A step not converged after SLOW corrections makes its next ones with
    the iteration matrix of their own iterate: flagged (evals -1), the same
    converged step as the kept-matrix iterations, and the next step, all
    its corrections with Newton's matrix, converges to tol 1e-13 in no
    more evaluations than the kept matrix's; its kept matrix is then
    formed again (age past REFRESH_AGE)."""
    from flexpkm.compiled.step import layout
    model, q0 = _refined_dualemps(2)
    ref = fp.full_dynamics(model, q0, 0.0)
    runs = {}
    for slow in (1, 10):          # 1: Newton's matrix from the 3rd correction (of 4)
        monkeypatch.setattr(modified_newton, "SLOW", slow)
        cm = CompiledRobot(model, dep=ref.dep, compile=False)
        n_r, n_a = len(cm.indep), cm.n_a
        par = cm.parameters(np.full(n_a, 50.0), np.full(n_a, 2.0), 1e-4, 0.05, model.gravity,
                            1.0, 1e-3, 1e-13)
        config = (False, 4 if slow == 1 else 6, (), False)
        x, S = cm.pack(q0, np.zeros(n_r), np.zeros(n_r), np.zeros(n_r), ref.J, ref.b), None
        runs[slow] = []
        for _ in range(2):
            x, rho, evaluations, S = kept_step(cm, config, x, np.array([5.0, -3, 0, 0, 0, 0]),
                                               par, S)
            runs[slow].append((x, rho, evaluations))
    sl = layout(model.layout.n_tot, n_r, n_a)[0]
    (x, rho, evaluations), (x2, rho2, evaluations2) = runs[1]
    (x_kept, rho_kept, _), (_, _, evaluations_kept) = runs[10]
    assert x[sl["evals"]] == -1 and x_kept[sl["evals"]] > 0 and evaluations > 2
    assert max(rho, rho_kept, rho2) <= 1e-13 and evaluations2 <= evaluations_kept
    assert x2[sl["age"]] >= modified_newton.REFRESH_AGE
    assert np.abs(x[sl["a"]] - x_kept[sl["a"]]).max() <= 1e-10 * np.abs(x_kept[sl["a"]]).max()
