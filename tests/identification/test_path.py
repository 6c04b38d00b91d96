"""The forward geometric model along a sampled path equals
:func:`flexpkm.assemble` pose by pose, its loops closed; a path leaving the
workspace is refused naming a sample."""
import numpy as np
import pytest

import flexpkm as fp
from flexpkm import cases
from flexpkm.algorithms.closure import closure_residual
from flexpkm.errors import UnreachablePoseError
from flexpkm.identification.path import assemble_path


@pytest.mark.parametrize("name", ["rigid_five_bar", "orthoglide"])
def test_equals_assemble(name):
    model = fp.build_model(fp.load_robot(cases.file_of(name)))
    q0 = fp.reference_configuration(model)
    act = list(model.layout.actuated)
    t = np.linspace(0, 1, 201)[:, None]
    q_a = q0[act] + 0.02 * np.sin(2 * np.pi * t * np.arange(1, len(act) + 1))
    q = assemble_path(model, q_a)
    assert np.abs(closure_residual(model, q)).max() < 1e-11
    ref = fp.assemble(model, q_a=q_a[::50])
    assert np.abs(q[::50] - ref).max() < 1e-9


def test_leaving_the_workspace_is_refused():
    model = fp.build_model(fp.load_robot(cases.file_of("rigid_five_bar")))
    q0 = fp.reference_configuration(model)
    q_a = q0[[0, 2]] + np.linspace(0, 1, 101)[:, None] * np.array([0.5, -0.5])
    with pytest.raises(UnreachablePoseError, match="sample [0-9]+ of the path stay open|unreachable"):
        assemble_path(model, q_a)
