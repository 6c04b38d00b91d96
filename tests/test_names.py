"""One name per concept (issue 17 item 5, docs/design.md "One name per concept"):
the rules a grep or a signature can check, over the whole package."""
import dataclasses
import inspect
import re
from pathlib import Path

import flexpkm as fp
from flexpkm.algorithms.closure import ClosureSolution
from flexpkm.algorithms.dynamics import FullDynamics
from flexpkm.algorithms.modal import ReducedMatrices
from flexpkm.algorithms.platform import PlatformPose

PACKAGE = Path(fp.__file__).parent
#: public functions whose ``q_t`` is the tree coordinates (n_t,) (they read no x_p)
TREE_FUNCTIONS = {"tree_kinematics", "with_platform"}
#: the only public names that say "model": the Model and the function that builds it
MODEL_NAMES = {"Model", "build_model"}


def sources():
    return [(p.relative_to(PACKAGE.parent), p.read_text()) for p in sorted(PACKAGE.rglob("*.py"))]


def public_callables():
    for name in fp.__all__:
        obj = getattr(fp, name)
        if inspect.isfunction(obj):
            yield name, obj


def test_no_reversed_platform_pose():
    """One pose order, PlatformPose(R, P): nothing flips a pose to pass it on."""
    assert PlatformPose._fields == ("R", "P")
    found = [f"{path}:{k + 1}" for path, text in sources()
             for k, line in enumerate(text.splitlines())
             if "[::-1]" in line and re.search(r"pose|\bR_p\b|\bR_0p\b", line)]
    assert not found, found


def test_constraint_functions_take_the_pose_value():
    from flexpkm.algorithms.closure import constraint_bias
    from flexpkm.algorithms.cut_joints import cut_sides
    assert list(inspect.signature(fp.constraint_jacobian).parameters) == ["model", "kin", "pose"]
    assert list(inspect.signature(constraint_bias).parameters)[-1] == "pose"
    assert list(inspect.signature(cut_sides).parameters)[-1] == "pose"
    model = fp.build_model(fp.cases.dualemps.robot())
    pose = fp.platform_pose(model, fp.cases.dualemps.configuration(model, 0.0, 0.0)[None])
    assert isinstance(pose, PlatformPose) and pose.R.shape == (1, 3, 3) and pose.P.shape == (1, 3)


def test_no_coordinate_name_surgery():
    """A column's frame comes from layout.frame_of, not from stripping the 'q'."""
    pattern = re.compile(r"""names\[[^\]]+\]\[1:\]|\.lstrip\(["']q["']\)|"""
                         r"""removeprefix\(["']q["']\)|\bn\[1:\]|\bname\[1:\]""")
    found = [f"{path}:{k + 1}: {line.strip()}" for path, text in sources()
             for k, line in enumerate(text.splitlines()) if pattern.search(line)]
    assert not found, found


def test_public_q_t_parameters_are_tree_coordinates():
    """No public function takes a whole configuration under the name q_t."""
    named = {name for name, fn in public_callables() if "q_t" in inspect.signature(fn).parameters}
    assert named == TREE_FUNCTIONS, named ^ TREE_FUNCTIONS


def test_model_means_one_thing():
    """Public names: "model" only for Model and build_model; a first
    parameter named model is a Model (or a Robot built on entry), never a
    FullDynamics, which is "full"."""
    assert {n for n in fp.__all__ if "model" in n.lower()} == MODEL_NAMES
    for name, fn in public_callables():
        hint = inspect.signature(fn).parameters.get("model")
        assert hint is None or hint.annotation in (inspect.Parameter.empty, fp.Model, "Model"), name
    for fn in (fp.inverse_dynamics, fp.direct_dynamics, fp.joint_reactions, fp.is_redundant):
        assert next(iter(inspect.signature(fn).parameters)) == "full", fn.__name__
    import flexpkm.model.build as structural
    assert not hasattr(structural, "build_model") and hasattr(structural, "build_structure")


def test_one_name_for_the_independent_columns():
    for cls in (ClosureSolution, FullDynamics, ReducedMatrices):
        fields = {f.name for f in dataclasses.fields(cls)}
        assert "indep" in fields and not fields & {"ind", "r_index"}, cls.__name__
    found = [f"{path}:{k + 1}" for path, text in sources()
             for k, line in enumerate(text.splitlines()) if re.search(r"\br_index\b|\.ind\b", line)]
    assert not found, found
