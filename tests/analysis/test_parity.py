"""The twin contained: every pair of the declared table
(flexpkm/analysis/parity.py) agrees on the shipped robots at a random state,
and a mirrored function missing from the table fails a test."""
import ast
import importlib
import inspect
import pkgutil
import warnings

import numpy as np
import pytest

import flexpkm
import flexpkm.compiled

pytest.importorskip("casadi")
from flexpkm.analysis import parity  # noqa: E402
from flexpkm.cases import delta, dualemps, dualv, navaro, rigid_five_bar as five_bar  # noqa: E402

#: the shipped robots (the NaVARo's symbolic model takes minutes: its
#: frames are checked by the compiled modal tests)
ROBOTS = {"dualemps": dualemps.robot, "five_bar": five_bar.robot, "dualv": dualv.robot,
          "delta_flexible": lambda: delta.robot(flexible=True),
          "delta_rigid": lambda: delta.robot(flexible=False)}
#: relative agreement of the twins (round-off of two formulations)
TOL = 1e-11


@pytest.fixture(scope="module", params=sorted(ROBOTS))
def state(request, tmp_path_factory):
    mp = pytest.MonkeyPatch()
    try:                                        # undone even when the set-up fails
        mp.setenv("FLEXPKM_CC", "")             # the twin on CasADi's virtual machine
        mp.setenv("FLEXPKM_CACHE", str(tmp_path_factory.mktemp("cache")))
        model = flexpkm.build_model(ROBOTS[request.param]())
        yield model, parity.random_state(model, np.random.default_rng(17))
    finally:
        mp.undo()


@pytest.mark.parametrize("pair", parity.PAIRS, ids=lambda p: p.numpy.__name__)
def test_pair_agrees(pair, state):
    model, s = state
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)         # "no C compiler"
        values = pair.values(model, s)
    for what, ref, ours in values:
        ref, ours = np.asarray(ref, float), np.asarray(ours, float).reshape(np.shape(ref))
        scale = max(np.abs(ref).max(initial=0.0), 1e-300)
        assert np.abs(ours - ref).max(initial=0.0) <= TOL * scale, (what, model.name)


def _public_functions(package, skip=()):
    """name -> [function] of the public functions defined in the modules of ``package``."""
    out = {}
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        if info.name in skip:
            continue
        module = importlib.import_module(info.name)
        for name, f in vars(module).items():
            if inspect.isfunction(f) and f.__module__ == info.name and not name.startswith("_"):
                out.setdefault(name, []).append(f)
    return out


def _numpy_names():
    import flexpkm.algorithms
    import flexpkm.analysis
    names = set(_public_functions(flexpkm.algorithms))
    names |= set(_public_functions(flexpkm.analysis, skip={"flexpkm.analysis.compiled_simulate",
                                                           "flexpkm.analysis.parity",
                                                           "flexpkm.analysis.backend"}))
    return names | {n for n, f in vars(flexpkm.spatial).items() if inspect.isfunction(f)}


def mirrored_but_undeclared(compiled_functions, numpy_names, pairs):
    declared = {p.compiled for p in pairs}
    return sorted(f"{f.__module__}.{name}" for name, fs in compiled_functions.items()
                  if name in numpy_names for f in fs if f not in declared)


def test_every_mirrored_name_is_in_the_table():
    missing = mirrored_but_undeclared(_public_functions(flexpkm.compiled), _numpy_names(),
                                      parity.PAIRS)
    assert not missing, f"mirror numpy names but are not in parity.PAIRS: {missing}"


def test_the_check_sees_a_missing_pair():
    """The checker itself: a compiled function named like a numpy one and
    left out of the table is reported."""
    def closure_residual(model, q_tot, kin=None):
        return None
    closure_residual.__module__ = "flexpkm.compiled.fake"
    found = mirrored_but_undeclared({"closure_residual": [closure_residual]},
                                    {"closure_residual"}, parity.PAIRS)
    assert found == ["flexpkm.compiled.fake.closure_residual"]


def test_every_function_of_the_twin_is_paired_or_covered():
    from flexpkm.compiled import full, symbolic
    paired = {p.compiled for p in parity.PAIRS} | set(parity.COVERED)
    for module in (symbolic, full):
        for name, f in vars(module).items():
            if inspect.isfunction(f) and f.__module__ == module.__name__ \
                    and not name.startswith("_"):
                assert f in paired, f"{module.__name__}.{name}: neither in PAIRS nor COVERED"


def test_one_name_same_arguments():
    """Paired functions of one name take the same arguments in the same
    order, unless the table says why not."""
    for p in parity.PAIRS:
        a, b = (list(inspect.signature(f).parameters) for f in (p.numpy, p.compiled))
        if p.signature == "same":
            assert p.numpy.__name__ == p.compiled.__name__, p
            assert a == b, (p.numpy.__name__, a, b)
        else:
            assert len(p.signature) > 10
