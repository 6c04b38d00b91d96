"""Variants of a description file (flexpkm.model.variants): the name, limb
frames, bodies replaced or added, placements; errors name the key path."""
import pytest

from flexpkm.errors import InvalidDescriptionError
from flexpkm.model import files

BASE = '''
name = "two legs"
[[legs]]
name = "1"
[[legs.frames]]
j = "11"
sigma = 0
bodies = [{type = "rigid", name = "arm", M = 1.0}]
[limbs.RL]
[[limbs.RL.frames]]
j = "1"
sigma = 0
bodies = [{type = "rigid", name = "link", M = 2.0}]
[[placements]]
limb = "RL"
leg = "2"
[[placements]]
limb = "RL"
leg = "3"
'''


def load(variant_table, name="v"):
    return files.loads(BASE + f"[variants.{name}]\n" + variant_table, variant=name)


def test_name_bodies_joint_values_and_placements():
    rob = load('name = "other"\n"11".add_bodies = [{type = "point", mass = 0.5}]\n'
               'limbs.RL."1" = {joint_stiffness = 10.0, bodies = [{type = "rigid", M = 3.0}]}\n'
               'placements = [{actuated = ["1"]}, {actuated = []}]\n')
    assert rob.name == "other"
    assert [b.invariants.m for b in rob.bodies["11"]] == [1.0, 0.5]
    assert [b.invariants.m for b in rob.bodies["21"]] == [3.0] == [b.invariants.m
                                                                  for b in rob.bodies["31"]]
    assert rob.joint_stiffness == {"21": 10.0, "31": 10.0}
    assert [rob.layout.names[c] for c in rob.layout.actuated] == ["q21"]
    base = files.loads(BASE)
    assert base.name == "two legs" and [b.invariants.m for b in base.bodies["11"]] == [1.0]


@pytest.mark.parametrize("table, where", [
    ('limbs.XX."1" = {mu = 1}\n', r"variants.v.limbs.XX: unknown limb 'XX'"),
    ('limbs.RL."9" = {mu = 1}\n', r"variants.v.limbs.RL.9: unknown frame '9'"),
    ('"11" = {d = 1.0}\n', r"variants.v.11: expected a table of"),
    ('name = 3\n', r"variants.v.name: expected a string"),
    ('placements = [{actuated = ["1"]}]\n', r"variants.v.placements: expected a list of 2"),
    ('"11".bodies = [{type = "rigid"}]\n', r"M"),
])
def test_errors_name_the_key(table, where):
    with pytest.raises(InvalidDescriptionError, match=where):
        load(table)
