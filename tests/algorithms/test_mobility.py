"""Mobility (Appendix A): the generic rank of J_c over random closed
configurations gives the book's counts (A.4.1-A.4.4), also from a singular
reference configuration, where the rank at that one configuration does not."""
import re
from pathlib import Path

import numpy as np
import pytest

import flexpkm as fp
from flexpkm.algorithms.mobility import mobility, rigid_columns
from flexpkm.model import files

CASES = Path(fp.cases.__file__).parent


@pytest.mark.parametrize("file, n_dof", [
    ("rigid_five_bar.toml", 2),        # A.4.1
    ("three_rpr.toml", 3),             # A.4.2
    ("orthoglide.toml", 3),            # A.4.3
    ("tripteron.toml", 3),             # A.4.4
    ("gough_stewart.toml", 6),
    ("dualv.toml", 3),                 # 4 actuators, 3 dofs (Section 8.5)
])
def test_the_books_counts(file, n_dof):
    m = mobility(files.load(CASES / file))
    assert m.n_dof == n_dof and m.n_platform == n_dof
    assert len(m.ranks) == 6 and min(m.ranks) == max(m.ranks) == m.rank


def test_a_flexible_model_counts_its_rigid_mechanism():
    """Beams add elastic coordinates but no degree of freedom: the flexible
    five-bar and 3-RRR keep 2 and 3 (elastic coordinates held at 0)."""
    assert mobility(files.load(CASES / "examples" / "five_bar.toml")).n_dof == 2
    rrr = files.load(CASES / "examples" / "three_rrr.toml")
    m = mobility(rrr)
    assert (m.n_dof, m.n_rigid) == (3, 15) and len(rigid_columns(fp.build_model(rrr))) == 15


#: a parallelogram four-bar A(0, 0) B C D(0.4, 0) m, crank AB 0.1 m, coupler BC
#: 0.4 m, rocker CD 0.1 m, closed by a revolute at D; its reference is flat
#: (A, B, C, D on x_0: q_11 = 0, q_12 = 0, q_13 = pi), where J_c loses a rank
FLAT_FOUR_BAR = """
name = "flat four-bar"
plane_normal = [0.0, 0.0, 1.0]
[reference]
q11 = 0.0
q12 = 0.0
q13 = 3.141592653589793
[[legs]]
name = "1"
frames = [{j = "11", sigma = 0, mu = 1}, {j = "12", a = "11", sigma = 0, d = 0.1},
          {j = "13", a = "12", sigma = 0, d = 0.4}, {j = "1D", a = "13", sigma = 2, d = 0.1}]
[[legs]]
name = "ground"
frames = [{j = "D", sigma = 2, d = 0.4}]
[[closures]]
frame = "1D"
other = "D"
joint = "revolute"
"""


def test_generic_rank_from_a_singular_reference():
    robot = files.loads(FLAT_FOUR_BAR)
    model = fp.build_model(robot)
    q_ref = fp.reference_configuration(model)
    assert np.abs(fp.closure_residual(model, q_ref)).max() < 1e-12
    kin = fp.tree_kinematics(model, q_ref[:model.layout.n_t])
    J_c = fp.constraint_jacobian(model, kin, fp.platform_pose(model, q_ref[None]))[0][0]
    assert J_c.shape == (2, 3) and np.linalg.matrix_rank(J_c, tol=1e-9) == 1   # count here: 2
    m = mobility(robot)
    assert (m.rank, m.n_dof, m.n_platform) == (2, 1, 0)                      # generic: 1


def test_a_serial_chain_has_its_joints():
    """(A.1) without loops: N_dof = L, the rank of an empty J_c is 0."""
    arm = files.loads("""
name = "serial arm"
[[legs]]
name = "1"
frames = [{j = "11", sigma = 0, mu = 1}, {j = "12", a = "11", sigma = 0, d = 0.3}]
""")
    m = mobility(arm)
    assert (m.n_dof, m.rank, m.n_platform) == (2, 0, 0)


def test_reproducible_and_refuses_bad_arguments():
    robot = files.load(CASES / "tripteron.toml")
    assert mobility(robot, seed=3) == mobility(robot, seed=3)
    for kwargs, what in (({"samples": 1}, "samples"), ({"samples": 2.0}, "samples"),
                         ({"spread": 0.0}, "spread"), ({"spread": float("nan")}, "spread"),
                         ({"spread": True}, "spread")):
        with pytest.raises(fp.InvalidArgumentError, match=re.escape(what)):
            mobility(robot, **kwargs)


def test_loops_that_never_close_are_reported(monkeypatch, capsys):
    """Fewer than 2 closed configurations: SingularConfigurationError saying
    so; ``flexpkm check`` prints that the mobility is not determined and
    still validates the file."""
    from flexpkm.algorithms import mobility as mob
    from flexpkm.cli.app import main

    def never(*args, **kwargs):
        raise fp.SingularConfigurationError("the loops cannot be closed")
    monkeypatch.setattr(mob, "project_on_loops", never)
    with pytest.raises(fp.SingularConfigurationError, match="closed at 0 of 24"):
        mobility(files.load(CASES / "three_rpr.toml"))
    assert main(["check", str(CASES / "three_rpr.toml")]) == 0
    assert "mobility (Appendix A): not determined (mobility: the loops closed at 0" \
        in capsys.readouterr().out


def _gogu(model, q):
    """Gogu's count (A.13) at the closed configuration q, for legs closed on
    the platform (weld or spherical cut joints): N = sum n_j - sum dim E_j +
    dim of their intersection, E_j the twists (at the base origin O, a point
    common to the legs) that leg j gives its end (its joints' columns of
    [Jv; Jw], plus three rotations for a spherical joint), from the tree
    kinematics only, not from J_c."""
    kin = fp.tree_kinematics(model, q[:model.layout.n_t])
    L, dims, complements = 0, 0, []
    for c in model.closures:
        k = model.frame_index[c.frame]
        Jv, Jw = kin.Jv[0, k], kin.Jw[0, k]
        cols = np.flatnonzero(np.abs(np.vstack([Jv, Jw])).max(axis=0) > 1e-12)
        arm = -kin.p[0, k]                                     # the end point to O
        T = np.vstack([Jv[:, cols] + np.cross(Jw[:, cols].T, arm).T, Jw[:, cols]])
        if c.joint == "spherical":
            T = np.hstack([T, np.vstack([np.cross(np.eye(3), arm).T, np.eye(3)])])
        else:
            assert c.joint == "weld"
        L += T.shape[1]
        r = np.linalg.matrix_rank(T, tol=1e-9)
        dims += r
        complements.append(np.linalg.svd(T)[0][:, r:].T)       # E_j's orthogonal complement
    common = 6 - np.linalg.matrix_rank(np.vstack(complements), tol=1e-9)
    return L - dims + common, common


@pytest.mark.parametrize("file, pose", [
    ("three_rpr.toml", [0.05, 0.0, 0.45]), ("orthoglide.toml", [0.12, 0.08, 0.22]),
    ("tripteron.toml", [0.17, 0.1, 0.37]),
    ("gough_stewart.toml", [0.04, 0.0, 0.62, 0.06, -0.02, 0.12])])
def test_gogus_method_gives_the_same_count(file, pose):
    """Appendix A.3.2 (A.13) on the legs' motion spaces, an independent
    formula, agrees with the generic rank of J_c (A.3)-(A.5)."""
    model = fp.build_model(files.load(CASES / file))
    q = fp.assemble(model, pose=np.array(pose))
    m = mobility(model)
    assert _gogu(model, q) == (m.n_dof, m.n_platform)
