"""Unique names (issue 16 item 6): coordinates, platform coordinates, frames
and closures of a Robot made through the API; a collision names both owners."""
import pytest

from flexpkm.elements.beam import Material, PlanarBeam, Section
from flexpkm.errors import InvalidArgumentError, NameCollisionError
from flexpkm.model.description import Closure, Frame, Platform, Robot


def robot(names=("11", "12"), dof_names=("x", "y"), closures=None, beam_on="11"):
    """A two-joint planar chain to a platform point, a beam on ``beam_on``."""
    a, b = names
    beam = PlanarBeam(0.3, Section.rectangle(0.005, 0.03), Material(2.1e11, 7800.0))
    if closures is None:
        closures = (Closure(b, None, "revolute", leg="1"),)
    return Robot(name="chain", frames=(Frame(a, None, 0, mu=1, leg="1"),
                                       Frame(b, a, 0, d=0.3, leg="1")),
                 bodies={beam_on: (beam,)}, platform=Platform(dofs=(0, 1), dof_names=dof_names),
                 closures=closures, plane_normal=(0.0, 0.0, 1.0))


def test_distinct_names_are_accepted():
    assert robot().layout.names[:3] == ("q11", "q12", "qe11_1")


@pytest.mark.parametrize("kwargs, message", [
    ({"dof_names": ("x", "x")},
     "coordinate name 'x' is given twice: platform coordinate dof_names[0] and platform "
     "coordinate dof_names[1]"),
    ({"dof_names": ("q11", "y")},
     "coordinate name 'q11' is given twice: the joint coordinate of frame '11' and platform "
     "coordinate dof_names[0]"),
    ({"names": ("11", "e11_1")},
     "coordinate name 'qe11_1' is given twice: the joint coordinate of frame 'e11_1' and "
     "elastic coordinate 1 of frame '11'"),
    ({"names": ("11", "11")}, "frame '11' is defined twice"),
    ({"closures": (Closure("12", None, "revolute", name="P"),
                   Closure("12", "11", "revolute", name="P"))},
     "closures 0 and 1 are both named 'P'"),
])
def test_a_collision_names_both(kwargs, message):
    with pytest.raises(NameCollisionError) as info:
        robot(**kwargs)
    assert str(info.value) == message
    assert len(info.value.things) == 2


def test_unnamed_closures_may_share_their_default_label():
    """Two cut joints between the same frames, not named: labels repeat, no error."""
    closures = (Closure("12", None, "revolute"), Closure("12", None, "revolute"))
    assert robot(closures=closures).closures[0].label == "12-platform"


def test_frame_of_a_column_is_the_frame_that_owns_it():
    """layout.frame_of, not name surgery: 'qe11_1'[1:] would be 'e11_1', not a frame;
    a frame named 'q1' has the coordinate 'qq1' (stripping every 'q' would give '1')."""
    layout = robot(names=("q1", "12"), beam_on="q1").layout
    assert layout.names == ("qq1", "q12", "qeq1_1", "qeq1_2", "qeq1_3", "x", "y")
    assert [layout.frame_of(c) for c in range(layout.n_t)] == ["q1", "12", "q1", "q1", "q1"]
    assert layout.frame_of(layout.actuated[0]) == "q1"
    for column in (layout.n_t, layout.n_tot, -1):
        with pytest.raises(InvalidArgumentError, match=f"column {column} of q_tot"):
            layout.frame_of(column)
