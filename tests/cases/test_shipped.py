"""One source per robot (issue 17 item 1): every shipped robot is one
description file and only that; the closed forms of the case modules are
oracles of the files' assemblies (the reference configurations are solved
from rough guesses, not copied)."""
import re
from pathlib import Path

import numpy as np
import pytest

import flexpkm as fp
from flexpkm import cases
from flexpkm.algorithms.assembly import assemble, assemble_reference
from flexpkm.cases import delta, dualemps, dualv, navaro, rigid_five_bar

CASES = Path(cases.__file__).parent


def test_each_shipped_robot_is_exactly_one_file():
    tomls = sorted(p.relative_to(CASES).as_posix() for p in CASES.rglob("*.toml"))
    assert tomls == sorted(cases.FILES.values())
    assert len(set(cases.FILES.values())) == len(cases.FILES)
    for name in cases.CASES:
        assert cases.file_of(name).is_file()
        assert cases.get(name).source == str(cases.file_of(name))


@pytest.mark.parametrize("module", sorted(CASES.glob("*.py")), ids=lambda p: p.name)
def test_no_case_module_builds_a_robot(module):
    """No Robot, Frame, Closure, Limb or body is constructed in cases/*.py:
    the robots come from the files (grep of the source)."""
    text = module.read_text()
    for pattern in (r"\bRobot\(", r"\bFrame\(", r"\bClosure\(", r"\bLimb\(", r"\bPlatform\(",
                    r"\bRigidBody[.(]", r"\bBeam3D\(", r"\bPlanarBeam\(", r"combine_limbs",
                    r"files\.dumps", r"\.toml\b.*write"):
        assert not re.search(pattern, text), f"{module.name}: {pattern}"


def test_no_generated_file_and_no_frozen_python_number():
    """No file says it was generated from Python; the shipped cases' files
    give their reference as a rough guess (degrees) plus what is held."""
    for path in CASES.rglob("*.toml"):
        assert "Generated from" not in path.read_text(), path
    for name in cases.MODULES:
        text = cases.file_of(name).read_text()
        assert "rough guess" in text and re.search(r'^q\d+ = "-?\d+ deg"$', text, re.M), name


@pytest.mark.parametrize("name, variant, closed_form", [
    ("dualemps", None, lambda m: dualemps.configuration(m, 0.0, 0.0)),
    ("navaro", None, lambda m: navaro.configuration(m, 0.0, 0.0, 0.0)),
    ("navaro", "refined", lambda m: navaro.configuration(m, 0.0, 0.0, 0.0)),
    ("navaro", "actuation_1_2_1", lambda m: navaro.configuration(m, 0.0, 0.0, 0.0)),
    ("rigid_five_bar", None, lambda m: rigid_five_bar.configuration(m, *rigid_five_bar.HOME)),
    ("dualv", None, lambda m: dualv.configuration(m, *dualv.HOME)),
    ("delta", None, lambda m: delta.configuration(m, np.array(delta.HOME))),
    ("delta", "rigid", lambda m: delta.configuration(m, np.array(delta.HOME)))])
def test_reference_assembled_from_the_rough_guess_is_the_closed_form(name, variant, closed_form):
    model = fp.build_model(fp.load_robot(cases.file_of(name), variant=variant))
    np.testing.assert_allclose(assemble_reference(model), closed_form(model), atol=1e-10)


@pytest.mark.parametrize("name, poses, closed_form", [
    ("rigid_five_bar", [(0.05, 0.22), (-0.04, 0.28)],
     lambda m, p: rigid_five_bar.configuration(m, *p)),
    ("dualv", [(0.03, -0.02, 0.05), (-0.05, 0.04, -0.1)], lambda m, p: dualv.configuration(m, *p)),
    ("navaro", [(0.05, 0.02, -0.3), (0.117, 0.068, -np.pi / 3)],
     lambda m, p: navaro.configuration(m, *p)),
    ("delta", [(0.2, 0.1, -0.95), (-0.1, 0.15, -0.7)],
     lambda m, p: delta.configuration(m, np.array(p)))])
def test_inverse_geometric_models_equal_the_files_assembly(name, poses, closed_form):
    """The closed-form IGMs (five-bar (7.15)-(7.16), DualV (8.184), NaVARo,
    Delta ``joint_angles``) against the numerical assembly of the file."""
    model = fp.build_model(fp.load_robot(cases.file_of(name)))
    for pose in poses:
        q_cf = closed_form(model, pose)
        q = assemble(model, pose=q_cf[list(model.layout.commanded)])
        np.testing.assert_allclose(np.angle(np.exp(1j * (q - q_cf))), 0.0, atol=1e-9)  # mod 2 pi


def test_dualemps_direct_geometric_model_equals_the_files_assembly():
    model = fp.build_model(dualemps.robot())
    for q_a in ((0.1, 0.05), (0.2, 0.0), (-0.02, 0.15)):
        np.testing.assert_allclose(assemble(model, q_a=np.array(q_a)),
                                   dualemps.configuration(model, *q_a), atol=1e-10)


def test_a_case_name_and_its_file_take_the_same_route():
    """`flexpkm modal dualemps` and `flexpkm modal <its file>` read one file:
    the same robot (same description hash) and the same reference."""
    from flexpkm.model.fingerprint import description_digest
    for name in cases.CASES:
        by_name = cases.get(name)
        by_file = cases.get(str(cases.file_of(name)))
        options = {o.name: o.default for o in by_name.options}
        assert description_digest(by_name.robot(options)) == \
            description_digest(by_file.robot({"variant": None}))
