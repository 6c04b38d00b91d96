"""flexpkm.compiled.recursive: the limbs' block solve that expands into SX,
and the expanded model whose instructions grow linearly with the
coordinates (the compiled simulation's Newton correction on the kernel
graph, :mod:`flexpkm.compiled.modified_newton`)."""
import casadi as ca
import numpy as np

import flexpkm as fp
from flexpkm.cases import dualemps
from flexpkm.cli.simulate import _refined
from flexpkm.compiled import modified_newton
from flexpkm.compiled.recursive import block_solve, kernel_dynamics


def test_block_solve_equals_numpy_and_expands():
    """A^-1 B of a sparse B against numpy's LU solve, on CasADi's virtual
    machine and once expanded into one SX function (a linear-solver node
    could not be)."""
    rng = np.random.default_rng(3)
    A = rng.normal(size=(5, 5)) + 5 * np.eye(5)
    B = rng.normal(size=(5, 7))
    B[:, 2] = 0.0
    As, Bs = ca.MX.sym("A", 5, 5), ca.MX.sym("B", ca.Sparsity.dense(5, 7))
    fn = ca.Function("f", [As, Bs], [block_solve(As, Bs)])
    flat = fn.expand()
    assert flat.is_a("SXFunction")
    ref = np.linalg.solve(A, B)
    for f in (fn, flat):
        assert np.abs(np.array(f(A, B)) - ref).max() < 1e-14 * np.abs(ref).max()


def _model_instructions(n):
    base = fp.build_model(dualemps.robot())
    model, q0 = _refined(dualemps.robot(), dualemps.initial_state(base), n)
    kd = kernel_dynamics(model, fp.full_dynamics(model, q0, 0.0).dep)
    return model.layout.n_tot, modified_newton.model_function(kd, True).expand().n_instructions()


def test_expanded_model_grows_linearly_with_the_coordinates():
    """The residual's model ``(M a, g, J, b, forces)`` expanded into SX: its
    instructions per coordinate grow by less than 1.2x from 2 to 8
    elements per link (25 -> 79 coordinates; measured 1.04x; the unrolled
    graph grew as n^3)."""
    (n2, i2), (n8, i8) = _model_instructions(2), _model_instructions(8)
    assert i8 / n8 < 1.2 * i2 / n2, (i2, i8)
