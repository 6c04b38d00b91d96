"""The loop model's kernels (flexpkm.compiled.loops): a kernel specialised
on the entries of its inputs known as numbers, the fold's fixed point of
those entries, the folds and the blocked products, against closed forms
and plain numpy on small SX functions (CasADi's virtual machine; no C);
on the refined DualEMPS, the planar zeros that reach the motion kernels."""
import casadi as ca
import numpy as np
import pytest

from flexpkm.algorithms.tree import tree_kinematics
from flexpkm.compiled import loop_model
from flexpkm.compiled.kernels import Kernels
from flexpkm.compiled.loops import LoopKernels
from flexpkm.compiled.robot import CompiledRobot
from tests.compiled.test_newton_euler import _refined_dualemps

pytest.importorskip("casadi")
SX = ca.SX


def _kernel():
    """``(x (3), u (2)) -> ([x0 u0 + x1 u1; x1 u1; 2 + x2], [x2 u0])``: x1 = 0
    stays 0 along a fold, x2 = 1 does not (it becomes 3)."""
    x, u = SX.sym("x", 3), SX.sym("u", 2)
    return ca.Function("k", [x, u], [ca.vertcat(x[0] * u[0] + x[1] * u[1], x[1] * u[1],
                                                2 + x[2]), x[2] * u[0]])


def test_special_substitutes_known_entries_and_reports_the_numbers_out():
    """x1 = 0 and u1 = 0 known: the first output is ``[x0 u0; 0; 2 + x2]``
    (its middle entry a number), fewer operations, same values elsewhere."""
    lk = LoopKernels(Kernels())
    F = _kernel()
    G, known = lk.special(F, (((1, 0.0),), ((1, 0.0),)))
    assert known[0] == ((1, 0.0),) and known[1] == ()
    assert G.n_instructions() < F.n_instructions()
    x, u = np.array([0.3, 0.0, -1.2]), np.array([2.0, 0.0])
    for a, b in zip(G(x, u), F(x, u)):
        assert np.array_equal(np.array(a), np.array(b))
    assert lk.special(F, (((1, 0.0),), ((1, 0.0),)))[0] is G          # made once


def test_settled_keeps_only_the_entries_a_fold_keeps():
    """Over several steps x1 = 0 holds at every step (0 * u1 = 0) but x2 = 1
    does not (2 + 1 = 3): the fixed point keeps x1 only; over one step both
    parent entries hold."""
    lk = LoopKernels(Kernels())
    F = _kernel()
    start = ((1, 0.0), (2, 1.0))
    G, known = lk.settled(F, (start, ()), steps=4)
    assert known[0] == ((1, 0.0),)
    assert lk.settled(F, (start, ()), steps=1)[1][0] == ((1, 0.0), (2, 3.0))
    xs = [np.array([0.5, 0.0, 1.0])]
    U = np.array([[1.0, -2.0, 0.5, 3.0], [4.0, 1.0, -1.0, 2.0]])
    X, Y = lk.fold(G, ca.DM(xs[0]), ca.DM(U))
    for i in range(4):
        x, u = xs[-1], U[:, i]
        xs.append(np.array([x[0] * u[0] + x[1] * u[1], x[1] * u[1], 2 + x[2]]))
        assert np.allclose(np.array(X[:, i]).ravel(), xs[-1], rtol=0, atol=1e-15)
        assert abs(float(Y[0, i]) - x[2] * u[0]) <= 1e-15


def test_reverse_fold_runs_from_the_last_column():
    """The backward pass's fold: the accumulator visits the columns from
    the last, its outputs stay in column order."""
    lk = LoopKernels(Kernels())
    x, u = SX.sym("x"), SX.sym("u")
    F = ca.Function("f", [x, u], [2 * x + u, x])
    X, Y = lk.fold(F, ca.DM(1.0), ca.DM([[1.0, 10.0, 100.0]]), reverse=True)
    assert np.array_equal(np.array(X).ravel(), [429.0, 214.0, 102.0])     # 2 x + u from x = 1
    assert np.array_equal(np.array(Y).ravel(), [214.0, 102.0, 1.0])


@pytest.mark.parametrize("transpose", [False, True])
def test_blocked_product_equals_numpy(transpose):
    """``A B`` by blocks of the flat kernel (5 x 5 x 74 at 500 multiply-adds
    per block: three blocks of 20 columns mapped, one of 14) equals numpy's."""
    rng = np.random.default_rng(3)
    A, B = rng.standard_normal((5, 5)), rng.standard_normal((5, 74))
    lk = LoopKernels(Kernels())
    As, Bs = ca.MX.sym("A", 5, 5), ca.MX.sym("B", 5, 74)
    out = ca.Function("p", [As, Bs], [lk.product(As, Bs, transpose)])(A, B)
    ref = (A.T if transpose else A) @ B
    assert np.abs(np.array(out) - ref).max() <= 1e-14 * np.abs(ref).max()


def test_planar_zeros_reach_every_motion_kernel():
    """The DualEMPS moves in its x-z plane (every joint axis along y): past
    the first two frames every chain's motion ``[v; w; a; al]`` is known to
    have v_y = w_x = w_z = al_x = al_z = 0 (entries 1, 3, 5, 9, 11), found
    from the frames' constants (design_vector's exact zeros of R_fix), and
    the numpy model agrees (its twists at a random state: those components
    below 1e-12 of the largest)."""
    model, q0 = _refined_dualemps(2)
    cm = CompiledRobot(model, q_ref=q0, compile=False)
    lm = loop_model.loop_model(cm.simulation_kernels)
    planar = {(1, 0.0), (3, 0.0), (5, 0.0), (9, 0.0), (11, 0.0)}
    late = [ci for ci, c in enumerate(lm.chains) if c.parent >= 0
            and lm.chains[lm.known["chain"][c.parent]].parent >= 0]
    assert late and all(planar <= set(lm.known["motion"][ci]) for ci in late)
    rng = np.random.default_rng(7)
    n_t = model.layout.n_t
    q = np.asarray(q0, float)[:n_t] + 1e-3 * rng.standard_normal(n_t)
    qd = rng.uniform(-1, 1, n_t)
    kin = tree_kinematics(model, q, qd)
    v, w = kin.Jv[0] @ qd, kin.Jw[0] @ qd                       # (nf, 3), base frame
    al = kin.alpha_bias[0]
    frames = [k for ci in late for k in lm.chains[ci].frames]
    scale = max(np.abs(v).max(), np.abs(w).max())
    for x, comps in ((v, [1]), (w, [0, 2]), (al, [0, 2])):
        assert np.abs(x[frames][:, comps]).max() <= 1e-12 * scale
    assert np.abs(w[frames][:, 1]).max() > 0.1 and np.abs(v[frames]).max() > 0.01
