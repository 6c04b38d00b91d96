"""The one backend rule (flexpkm/analysis/backend.py): the same keyword,
default and refusals on every public analysis; the result says what ran."""
import inspect

import numpy as np
import pytest

import flexpkm as fp
from flexpkm.analysis import backend
from flexpkm.analysis.drives import Free
from flexpkm.cases import dualemps, navaro

pytest.importorskip("casadi")

ANALYSES = (fp.natural_frequencies, fp.frequency_sweep, fp.simulate, fp.path_inverse_dynamics)


@pytest.fixture(scope="module")
def model():
    return fp.build_model(dualemps.robot())


def test_every_public_analysis_has_the_same_switch():
    for f in ANALYSES:
        p = inspect.signature(f).parameters["backend"]
        assert p.default == "auto" == backend.DEFAULT_BACKEND, f.__name__


def test_a_bad_value_is_refused_by_every_analysis(model):
    q = dualemps.configuration(model, 0.0, 0.0)
    calls = [lambda b: fp.natural_frequencies(model, q, backend=b),
             lambda b: fp.frequency_sweep(model, None, [0, 0], [0.1, 0], 2, backend=b),
             lambda b: fp.simulate(model, q, 0.002, Free(), backend=b),
             lambda b: fp.path_inverse_dynamics(model, None, [0], [1], 1.0, backend=b)]
    for call in calls:
        for bad in ("fortran", None, 1):
            with pytest.raises(fp.InvalidArgumentError, match="backend must be one of"):
                call(bad)


def test_auto_rule(model, monkeypatch):
    choice = backend.choose_backend("auto", "natural_frequencies", model)
    assert (choice.name, choice.asked) == ("compiled", "auto")
    assert "any size" in choice.reason
    # the kernel graphs compile in seconds at any size (issue 18): no bound,
    # for the modal analyses (the NaVARo, 129 coordinates) and the simulation
    nav = fp.build_model(navaro.robot())
    for analysis, kw in (("natural_frequencies", {}), ("frequency_sweep", {}),
                         ("simulate", {"drive": Free()})):
        choice = backend.choose_backend("auto", analysis, nav, **kw)
        assert choice.name == "compiled" and "any size" in choice.reason
    assert backend.choose_backend("numpy", "simulate", model, drive=Free()).reason == "asked"


def test_no_compiler_refuses_compiled_and_auto_says_why(model, monkeypatch):
    monkeypatch.setenv("FLEXPKM_CC", "")
    q = dualemps.configuration(model, 0.05, 0.1)
    with pytest.raises(fp.BackendUnavailableError, match="no C compiler") as e:
        fp.natural_frequencies(model, q, backend="compiled")
    assert e.value.analysis == "natural_frequencies" and "compiler" in e.value.reason
    with pytest.raises(fp.BackendUnavailableError, match="no C compiler"):
        fp.simulate(model, q, 0.002, Free(), backend="compiled")
    modes = fp.natural_frequencies(model, q, n_modes=2)
    assert modes.backend == "numpy" and modes.backend_reason.startswith("auto: no C compiler")


def test_idm_has_no_compiled_path():
    from flexpkm.cases import rigid_five_bar as five_bar
    model = fp.build_model(five_bar.robot())
    state = lambda poses: fp.cases.get("rigid_five_bar").configure(model, poses, {})
    args = (model, state, [0.0, 0.22], [0.05, 0.28], 0.3)     # clear of Type 2 (issue 19)
    with pytest.raises(fp.BackendUnavailableError, match="no compiled path"):
        fp.path_inverse_dynamics(*args, backend="compiled")
    res = fp.path_inverse_dynamics(*args, rate=100.0)
    assert res.backend == "numpy" and res.backend_reason == ("auto: the IDM along a path has "
                                                             "no compiled path")


def test_unsupported_drive_and_redundant_rows_are_reasons(model):
    class Other:
        prescribes_actuators = False
    assert "not one of" in backend.compiled_problem("simulate", model, drive=Other())
    rigid_delta = fp.build_model(fp.cases.delta.robot(flexible=False))
    why = backend.compiled_problem("natural_frequencies", rigid_delta)
    assert why is None or "redundant constraint rows" in why


def test_ill_conditioned_reference_choice(model, monkeypatch):
    """The compiled function fixes q_dep at the reference: where that choice
    is ill-conditioned, "compiled" refuses (with the pose and the condition
    number) and "auto" runs numpy and says why (the threshold lowered to
    make any pose ill-conditioned)."""
    import flexpkm.compiled.modal as cmodal
    monkeypatch.setattr(cmodal, "RCOND_KEEP_REFERENCE", 1.0)
    q = dualemps.configuration(model, 0.05, 0.1)
    with pytest.raises(fp.BackendUnavailableError, match="ill-conditioned at pose 0"):
        fp.natural_frequencies(model, q, backend="compiled")
    modes = fp.natural_frequencies(model, q)
    assert modes.backend == "numpy" and "ill-conditioned" in modes.backend_reason
    ref = fp.natural_frequencies(model, q, backend="numpy")
    assert np.array_equal(modes.frequencies_hz, ref.frequencies_hz)
