"""No module-level mutable state (issue 17 item 2): the model's state is in
the model (:class:`flexpkm.model.build.Model`, its ``reference_state`` and
its ``compiled`` slot), what varies per call is returned. Every module of
the package is imported, the contents of every module-level mutable
container (dict, list, set, deque, weak dictionaries...) are recorded, a few
analyses run (assembly, numpy and compiled modal analyses on the dual EMPS
and the NaVARo, a short compiled simulation), and the contents must not
have changed."""
import collections
import importlib
import pkgutil
import types
import weakref

import numpy as np
import pytest

import flexpkm

MUTABLE = (dict, list, set, bytearray, collections.deque, weakref.WeakKeyDictionary,
           weakref.WeakValueDictionary, weakref.WeakSet)


def _modules(package=flexpkm):
    yield package
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        if info.name.endswith("__main__"):
            continue
        yield importlib.import_module(info.name)


def _contents(x):
    """What a container holds, by identity of its items (a value replaced
    by another, equal or not, is a write)."""
    if isinstance(x, (dict, weakref.WeakKeyDictionary, weakref.WeakValueDictionary)):
        return sorted((repr(k), id(v)) for k, v in list(x.items()))
    if isinstance(x, (set, weakref.WeakSet)):
        return sorted(id(v) for v in list(x))
    return [id(v) for v in x]


def snapshot(modules):
    """(module name, attribute) -> contents of each module-level mutable container
    (``__warningregistry__``, Python's record of the warnings already shown
    from a module, aside: an earlier test of the session may have made it)."""
    out = {}
    for m in modules:
        for name, value in vars(m).items():
            if name == "__warningregistry__":
                continue
            if isinstance(value, MUTABLE) and not isinstance(value, types.ModuleType):
                out[m.__name__, name] = _contents(value)
    return out


def _analyses():
    from flexpkm.analysis.drives import Free
    from flexpkm.cases import dualemps, navaro
    from flexpkm.compiled import modal
    model = flexpkm.build_model(dualemps.robot())
    q = dualemps.configuration(model, 0.05, 0.1)
    flexpkm.assemble(model, q_a=q[list(model.layout.actuated)] + 0.01)
    flexpkm.assemble(dualemps.robot(), q_a=q[list(model.layout.actuated)])
    flexpkm.natural_frequencies(model, q)
    modal.reduced_matrices(model, q)
    flexpkm.simulate(model, q, 0.004, Free(), h=1e-3, dt_out=2e-3, backend="compiled")
    nav = flexpkm.build_model(navaro.robot())
    flexpkm.natural_frequencies(nav, navaro.configuration(nav, 0.01, 0.0, 0.05))
    flexpkm.natural_frequencies(navaro.robot(), navaro.configuration(nav))


def test_no_module_level_container_is_written(monkeypatch, tmp_path):
    pytest.importorskip("casadi")
    monkeypatch.setenv("FLEXPKM_CC", "")            # CasADi's virtual machine: no compile
    monkeypatch.setenv("FLEXPKM_CACHE", str(tmp_path))
    # the backend rule refuses "compiled" without a compiler; here the compiled
    # path runs on the virtual machine all the same (the twin, not the switch)
    import flexpkm.analysis.backend as backend
    monkeypatch.setattr(backend, "compiled_problem", lambda *a, **k: None)
    modules = list(_modules())
    before = snapshot(modules)
    with pytest.warns(UserWarning):                 # "no C compiler"
        _analyses()
    after = snapshot(modules)
    written = sorted(k for k in before if after[k] != before[k])
    assert not written, f"module-level containers written after import: {written}"


def test_no_weak_cache_at_module_level():
    """A weak dictionary at module level is a cache keyed by model object."""
    weak = [(m.__name__, n) for m in _modules() for n, v in vars(m).items()
            if isinstance(v, (weakref.WeakKeyDictionary, weakref.WeakValueDictionary))]
    assert not weak, weak


def test_the_check_sees_a_write():
    """The checker itself: a cache filled after the snapshot is seen."""
    m = types.ModuleType("fake")
    m.CACHE = {"a": np.zeros(1)}
    before = snapshot([m])
    m.CACHE["b"] = 1
    assert snapshot([m]) != before
    m.CACHE.pop("b")
    m.CACHE["a"] = np.zeros(1)                      # replaced by an equal value: a write too
    assert snapshot([m]) != before
