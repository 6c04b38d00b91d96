"""The symbolic copy of a model whose frame constants are CasADi symbols
(flexpkm.compiled.geometric), against the numpy model it copies."""
from pathlib import Path

import casadi as ca
import numpy as np
import pytest

import flexpkm as fp
from flexpkm.algorithms.tree import tree_kinematics
from flexpkm.cases import navaro
from flexpkm.compiled import symbolic as sym
from flexpkm.compiled.geometric import frame_vector, held_columns, symbolic_view
from flexpkm.compiled.sensitivity import frequency_sensitivities
from flexpkm.errors import SingularConfigurationError
from flexpkm.model.files import Where, from_dict, parse


def test_symbolic_view_reproduces_the_frames():
    """With every frame constant a symbol set to its value, the symbolic
    frame poses and loop equations equal the numpy ones at a random state
    (elastic coordinates too: the tip shapes are symbols)."""
    model = fp.build_model(navaro.robot())
    theta0 = frame_vector(model)
    view, theta = symbolic_view(model, theta0, np.ones(len(theta0), bool))
    q = navaro.pose_configurations(model, [[0.0, 0.01, -0.3]])[0]
    q = q + 1e-3 * np.random.default_rng(2).standard_normal(len(q))
    n_t = model.layout.n_t
    q_sym = ca.SX.sym("q", n_t)
    R, p = sym.frame_poses(view, q_sym)
    f = ca.Function("poses", [q_sym, theta], [ca.horzcat(*p)])
    kin = tree_kinematics(model, q[None, :n_t])
    assert np.abs(np.array(f(q[:n_t], theta0)).T - kin.p[0]).max() < 1e-14


def test_held_columns():
    model = fp.build_model(navaro.robot())
    layout = model.layout
    pose = held_columns(model, "pose")
    assert set(range(layout.n_t, layout.n_tot)) <= set(pose)
    assert not set(layout.actuated) & set(pose)
    assert set(layout.actuated) <= set(held_columns(model, "q_a"))


def test_an_undetermined_configuration_is_refused():
    """The refined NaVARo has no actuators: holding q_a holds nothing, and a
    change of geometry has no unique configuration to follow."""
    from .test_sensitivity import refined_navaro_data
    data = refined_navaro_data()
    model = fp.build_model(from_dict(data))
    from flexpkm.algorithms.assembly import assemble_reference
    q = assemble_reference(model)
    with pytest.raises(SingularConfigurationError, match="undetermined"):
        frequency_sensitivities(data, ["limbs.RL.frames[3].d"], q, n_modes=2, hold="q_a")


def _delta_data():
    from flexpkm.cases import delta
    model = fp.build_model(delta.robot(flexible=True))
    return model, parse(fp.dumps_robot(model.robot), Where("delta"))


def test_the_completed_platform_follows_the_geometry():
    """The flexible Delta (issue 16): holding the pose holds x, y, z, not the
    dependent rx, ry, rz; moving leg 1's base joint outward (A_1) gives the
    derivatives of central differences of the re-assembled numpy model
    (h = 5e-4 m: -0.163017, 23.078896, 0.0831951 Hz/m)."""
    model, data = _delta_data()
    layout = model.layout
    assert set(layout.commanded) <= set(held_columns(model, "pose"))
    assert not set(layout.platform_dependent) & set(held_columns(model, "pose"))
    q = fp.assemble(model, pose=[0.2, 0.1, -0.95])
    _, df = frequency_sensitivities(data, ["legs[0].frames[0].d"], q, n_modes=3)
    np.testing.assert_allclose(df[:, 0], [-0.163017, 23.078896, 0.0831951], rtol=2e-4)


def test_a_change_that_breaks_an_overconstrained_loop_is_refused():
    """One rod of the Delta's parallelogram 1 longer: the rigid loops cannot
    close at all (fp.assemble raises), so no least-squares derivative."""
    model, data = _delta_data()
    q = fp.assemble(model, pose=[0.2, 0.1, -0.95])
    with pytest.raises(SingularConfigurationError, match="cannot stay closed"):
        frequency_sensitivities(data, ["legs[0].frames[3].d"], q, n_modes=3)
