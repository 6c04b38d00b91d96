"""Step 0 completed (flexpkm.algorithms.reference): the reference state is
computed once by flexpkm.build_model and held by the model; the analyses
read it instead of a module cache."""
import dataclasses

import numpy as np
import pytest

import flexpkm as fp
from flexpkm.cases import dualemps, navaro
from flexpkm.model.build import build_structure


def _rough(robot, shift=0.05):
    """The robot with its passive reference coordinates off by ``shift``
    (a rough guess: the loops open)."""
    ref = dict(robot.reference)
    for k in ("q12", "q22", "q25"):
        ref[k] += shift
    return dataclasses.replace(robot, reference=ref)


def test_reference_state_is_the_closed_form_assembly():
    """From a rough guess, the state's configuration is the dual EMPS's
    closed-form direct geometric model at q11 = q21 = 0 (Table 11.1's mode)."""
    model = fp.build_model(_rough(dualemps.robot()))
    state = model.reference_state
    g = dualemps.direct_geometric_model(0.0, 0.0)
    L = model.layout
    for k in ("q12", "q22", "q25"):
        assert abs(state.q_tot[L.index(k)] - g[k]) < 1e-10, k
    assert np.allclose(state.q_tot[[L.index("x_P"), L.index("z_P")]], g["P"], atol=1e-10)
    assert state.J_tot.shape == (5, L.n_tot)
    assert state.solution.choice.endswith("at the reference configuration")
    assert state.modes == {"1": 1, "2": 1, "assembly": -1}


def test_built_once_and_kept_by_the_model():
    model = fp.build_model(navaro.robot())
    assert fp.build_model(model) is model                    # nothing recomputed
    assert build_structure(model) is model
    structural = build_structure(navaro.robot())
    assert structural.reference_state is None
    full = fp.build_model(structural)
    assert full.reference_state is not None and full.compiled is not structural.compiled


def test_same_choice_from_a_structural_model():
    """A structural model (flexpkm.model.build_structure) gets the same q_dep and
    frequencies: the entry points complete it (on each call)."""
    nav = navaro.robot()
    full, structural = fp.build_model(nav), build_structure(nav)
    q = navaro.configuration(full, 0.02, -0.01, 0.1)
    a, b = fp.natural_frequencies(full, q), fp.natural_frequencies(structural, q)
    assert a.names == b.names and a.reduced.choice == b.reduced.choice
    assert "reference" in a.reduced.choice
    assert np.array_equal(a.frequencies_hz, b.frequencies_hz)


def test_without_a_reference_the_choice_is_at_the_first_pose():
    robot = dataclasses.replace(dualemps.robot(), reference={})
    model = fp.build_model(robot)
    assert model.reference_state.J_tot is None and model.reference_state.solution is None
    q = dualemps.configuration(model, 0.05, 0.1)
    red = fp.reduced_matrices(model, q)
    assert "reference" not in red.choice


def test_compiled_modal_function_made_once_per_model(monkeypatch, tmp_path):
    """The compiled modal analysis keeps its CompiledRobot in the model's
    slot: a second call does not make another one."""
    pytest.importorskip("casadi")
    from flexpkm.compiled import modal
    monkeypatch.setenv("FLEXPKM_CC", "")
    monkeypatch.setenv("FLEXPKM_CACHE", str(tmp_path))
    model = fp.build_model(dualemps.robot())
    assert model.compiled.modal is None
    q = dualemps.configuration(model, 0.05, 0.1)
    with pytest.warns(UserWarning):
        modal.reduced_matrices(model, q)
    cm = model.compiled.modal
    modal.reduced_matrices(model, q[None].repeat(2, axis=0))
    assert model.compiled.modal is cm and {B for _, B in cm.maps} == {1, 2}
    assert np.array_equal(cm.dep, model.reference_state.solution.dep)
