"""Redundant constraint rows (flexpkm.algorithms.constraint_rows, Müller
Remark 2): a planar four-bar described as a spatial mechanism has 5 rows
of which 2 are independent; J_d equals the derivative of the hand-written
planar loop equations; redundancy across limbs; a dropped row that is not
redundant at another pose of the batch is an error."""
import numpy as np
import pytest
import scipy.optimize as so

import flexpkm as fp
from flexpkm.algorithms.closure import constraint_jacobian, solve_closure
from flexpkm.algorithms.constraint_rows import select_rows
from flexpkm.algorithms.platform import platform_pose
from flexpkm.algorithms.tree import tree_kinematics
from flexpkm.errors import SingularConfigurationError
from flexpkm.model.description import Closure, Frame, Robot

A, B, C, G = 0.3, 0.5, 0.45, 0.4          # crank, coupler, rocker, ground (m)


def four_bar():
    frames = (Frame("1", None, sigma=0, mu=1, leg="L"), Frame("2", "1", sigma=0, d=A, leg="L"),
              Frame("3", "2", sigma=0, d=B, leg="L"), Frame("4", "3", sigma=2, d=C, leg="L"),
              Frame("g", None, sigma=2, d=G, leg="L"))
    return fp.build_model(Robot("four-bar", frames, {}, closures=(Closure("4", "g", "revolute", leg="L"),),
                                reference={"q1": 1.2, "q2": -1.0, "q3": -1.5}))


def planar_loop(q):
    """End of the chain minus the ground pivot, in the plane (written here)."""
    a1, a12, a123 = q[0], q[0] + q[1], q[0] + q[1] + q[2]
    return np.array([A * np.cos(a1) + B * np.cos(a12) + C * np.cos(a123) - G,
                     A * np.sin(a1) + B * np.sin(a12) + C * np.sin(a123)])


def jacobian(model, q):
    kin = tree_kinematics(model, q[None, :model.layout.n_t])
    return constraint_jacobian(model, kin, platform_pose(model, q[None]))


def test_planar_loop_in_a_spatial_description():
    model = four_bar()
    q = fp.assemble(model, q_a=[1.0])
    assert np.abs(planar_loop(q)).max() < 1e-12
    J_tot, labels = jacobian(model, q)
    sol = solve_closure(model, J_tot, labels)
    assert [lab[2] for lab in sol.rows.dropped_labels] == ["v_z", "w_x", "w_y"]
    assert "5 in all, 2 independent, 3 redundant" in sol.rows.summary()
    assert sol.J_d.shape == (1, 2, 1)

    def passive(q1):                                   # the loop solved by hand, numerically
        return so.fsolve(lambda x: planar_loop(np.r_[q1, x]), q[1:], xtol=1e-13)
    h = 1e-6
    np.testing.assert_allclose(sol.J_d[0][:, 0], (passive(q[0] + h) - passive(q[0] - h)) / (2 * h),
                               rtol=1e-6)


def test_redundancy_across_limbs_and_zero_rows():
    e = np.eye(4)
    J = np.array([e[0], e[1], e[0] + e[1], 1e-20 * e[2], e[2], e[0]])[None]
    labels = [("a", "A", "v_x"), ("a", "A", "v_y"), ("a", "A", "v_z"), ("b", "A", "w_x"),
              ("c", "B", "v_x"), ("c", "B", "v_y")]
    sel = select_rows(J, labels)
    np.testing.assert_array_equal(sel.kept, [0, 1, 4])
    assert sel.across == 1 and sel.blocks == (("A", 4, 2), ("B", 2, 1))
    assert "1 more dropped as redundant across limbs" in sel.summary()


def test_dropped_row_must_stay_redundant_over_the_batch():
    model = four_bar()
    q = fp.assemble(model, q_a=[1.0])
    J_tot, labels = jacobian(model, q)
    batch = np.concatenate([J_tot, J_tot], 0)
    batch[1, 2, 0] += 0.3                              # v_z is no longer redundant at pose 1
    with pytest.raises(SingularConfigurationError, match="not redundant at pose 1"):
        solve_closure(model, batch, labels)
