"""A description's values and types are checked once, when the Robot is
made: each bad value is an InvalidDescriptionError naming the field."""
import dataclasses
from pathlib import Path

import pytest

from flexpkm.cases import dualemps
from flexpkm.elements.beam import Material, Section
from flexpkm.elements.rigid import RigidBody
from flexpkm.errors import InvalidDescriptionError

R = dualemps.robot()


@pytest.mark.parametrize("change, match", [
    (dict(plane_normal=(float("nan"), 0.0, 1.0)), "plane_normal"),
    (dict(plane_normal=(0.0, 0.0, 2.0)), "unit"),
    (dict(gravity=(0.0, -9.81)), "gravity"),
    (dict(gravity=(0.0, float("inf"), 0.0)), "gravity"),
    (dict(frames=(dataclasses.replace(R.frames[0], mu=2),) + R.frames[1:]), "mu"),
    (dict(frames=(dataclasses.replace(R.frames[0], d=float("nan")),) + R.frames[1:]), ": d"),
    (dict(frames=()), "frames"),
    (dict(frames=("11",)), "Frame"),
    (dict(coulomb_friction={"99": 1.0}), "coulomb_friction: '99'"),
    (dict(viscous_friction={"11": -1.0}), r"viscous_friction\['11'\]"),
    (dict(rotor_inertia={"11": float("nan")}), "rotor_inertia"),
    (dict(bodies={**R.bodies, "12": RigidBody(M=1.0)}), "tuple of bodies"),
    (dict(bodies={**R.bodies, "12": ("a body",)}), "not a body"),
    (dict(bodies=[1, 2]), "bodies must map"),
])
def test_robot_values(change, match):
    with pytest.raises(InvalidDescriptionError, match=match):
        dataclasses.replace(R, **change)


@pytest.mark.parametrize("dofs", [(0, 1, 7), (0, 0, 5), (), (0, 1, True)])
def test_platform_dofs(dofs):
    p = dataclasses.replace(R.platform, dofs=dofs, dof_names=("a",) * len(dofs))
    with pytest.raises(InvalidDescriptionError, match="dofs"):
        dataclasses.replace(R, platform=p)


@pytest.mark.parametrize("kw", [dict(nu=0.6), dict(nu=-1.0), dict(nu=0.5), dict(E=float("nan")),
                                dict(rho=float("inf")), dict(G=-1.0)])
def test_material(kw):
    with pytest.raises(InvalidDescriptionError, match="material"):
        Material(**{"E": 2e11, "rho": 7800.0, **kw})


def test_section_and_body():
    with pytest.raises(InvalidDescriptionError, match="section"):
        Section(A=float("nan"), Iy=1.0, Iz=1.0, I0=1.0)
    with pytest.raises(InvalidDescriptionError, match="negative principal moment"):
        RigidBody(XX=-1.0, YY=1.0, ZZ=1.0, M=1.0)
    with pytest.raises(InvalidDescriptionError, match="non-finite"):
        RigidBody(XX=float("nan"), M=1.0)
    assert RigidBody(XX=1.0, YY=1.0, ZZ=1.0, M=1.0).invariants.m == 1.0
    assert Material(E=2e11, rho=7800.0, nu=0.3).G == pytest.approx(2e11 / 2.6)


def test_huge_element_counts_are_refused_before_allocation(monkeypatch):
    """Issue 16 item 8: --elements 100000 ran until memory was gone; now a
    ModelTooLargeError with the estimate, from refine (API and files) before
    any frame is made."""
    import resource
    from flexpkm.errors import ModelTooLargeError
    from flexpkm.model import files
    from flexpkm.model.refine import refine
    text = (Path(__file__).parents[2] / "cases" / "examples" / "five_bar.toml").read_text()
    robot = files.loads(text)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(ModelTooLargeError, match=r"refined to 100,000 elements per beam would "
                       r"have 1,200,006 coordinates .* about 276 TB, above the limit of 4 GB"):
        refine(robot, 100000)
    with pytest.raises(ModelTooLargeError, match="FLEXPKM_MAX_MEMORY_GB"):
        files.loads(text.replace("plane_normal", "elements = 100000\nplane_normal", 1))
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 50_000   # kB
    monkeypatch.setenv("FLEXPKM_MAX_MEMORY_GB", "0.001")
    with pytest.raises(ModelTooLargeError, match="above the limit of 1 MB"):
        refine(robot, 20)
    monkeypatch.setenv("FLEXPKM_MAX_MEMORY_GB", "-1")
    with pytest.raises(ModelTooLargeError, match=r"FLEXPKM_MAX_MEMORY_GB='-1': expected a positive number of GB"):
        refine(robot, 2)


def test_the_estimate_is_the_dense_matrices():
    """12 dense n_tot^2 float64 matrices and 4 rows x n_tot Jacobians."""
    from flexpkm.errors import ModelTooLargeError
    from flexpkm.model.checks import MAX_MEMORY, check_model_size
    n = int((MAX_MEMORY / 8 / 12) ** 0.5)
    check_model_size(n - 1)
    with pytest.raises(ModelTooLargeError):
        check_model_size(n + 1)
