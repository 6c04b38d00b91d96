"""The robots and paths of the crossing tests (Section 9.4): the five-bar of
Section 8.4.3.1 with its closed-form IGM as the state function."""
import pytest

import flexpkm as fp
from flexpkm.cases import get

#: Section 9.4: P0, Pf (m), t_f (s)
P0, PF, TF = [0.0, 0.338], [0.1, 0.1], 1.5


@pytest.fixture(scope="module")
def five_bar():
    """``(model, state)`` of the rigid five-bar."""
    case = get("rigid_five_bar")
    model = fp.build_model(case.robot({}))
    return model, lambda poses: case.configure(model, poses, {})
