"""SimulationOptions: one frozen object, every setting checked once, naming it."""
import dataclasses

import numpy as np
import pytest

import flexpkm as fp
from flexpkm.analysis.simulate import options_of
from flexpkm.analysis.simulation_options import MAX_SUBSTEPS, SimulationOptions


@pytest.mark.parametrize("setting, value, words", [
    ("h", 0.0, "h must be a positive"), ("h", float("nan"), "h must be a positive"),
    ("dt_out", -1.0, "dt_out must be a positive"), ("h", True, "h must be a positive"),
    ("hht_alpha", 0.5, "hht_alpha must be in"), ("hht_alpha", "0.1", "hht_alpha must be in"),
    ("tol", 1.5, "tol"), ("iterations", 0, "iterations"),
    ("project", "sample", "project must be"), ("friction", 1, "friction must be True or False"),
    ("exact_tangent", None, "exact_tangent must be"),
    ("coulomb_smoothing", -1e-3, "coulomb_smoothing must be"),
    ("gravity", (0.0, 0.0), "gravity must be a finite 3-vector"),
    ("gravity", (0.0, np.inf, 0.0), "gravity must be a finite 3-vector")])
def test_each_setting_is_checked_by_name(setting, value, words):
    with pytest.raises(fp.InvalidArgumentError, match=words):
        SimulationOptions(**{setting: value})


def test_step_and_output_period_together():
    with pytest.raises(fp.InvalidArgumentError, match="shorter than the step"):
        SimulationOptions(h=1e-3, dt_out=1e-4)
    with pytest.raises(fp.InvalidArgumentError, match=f"at most {MAX_SUBSTEPS}"):
        SimulationOptions(h=1e-8, dt_out=1e-3)


def test_frozen_and_keywords_on_top():
    o = SimulationOptions(h=1e-4)
    with pytest.raises(dataclasses.FrozenInstanceError):
        o.h = 1.0
    assert options_of(o, {"tol": 1e-8}) == SimulationOptions(h=1e-4, tol=1e-8)
    assert options_of(None, {}) == SimulationOptions()
    with pytest.raises(fp.InvalidArgumentError, match="unknown setting step"):
        options_of(o, {"step": 1e-3})
    with pytest.raises(fp.InvalidArgumentError, match="must be a SimulationOptions"):
        options_of({"h": 1e-3}, {})
    with pytest.raises(fp.InvalidArgumentError, match="hht_alpha"):
        options_of(o, {"hht_alpha": -1.0})


def test_options_and_keywords_give_the_same_run():
    """The same settings as an object or as keywords: the same samples."""
    from flexpkm.cases import dualemps
    model = fp.build_model(dualemps.robot())
    q0 = dualemps.initial_state(model)
    settings = dict(h=1e-3, dt_out=2e-3, hht_alpha=0.0, friction=False)
    a = fp.simulate(model, q0, 0.004, fp.Free(), options=SimulationOptions(**settings),
                    backend="numpy")
    b = fp.simulate(model, q0, 0.004, fp.Free(), backend="numpy", **settings)
    assert np.array_equal(a.q, b.q) and a.cost["h"] == 1e-3
    assert (a.backend, a.backend_reason) == ("numpy", "asked")
