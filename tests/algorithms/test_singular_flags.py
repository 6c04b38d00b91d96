"""Singularity flags along sampled motions (issue 19 item 1): the rigid IDM
along the book's 9.4 quintic through the five-bar's Type 2 singularity
(where it returned 12 or 165 N m depending on the sampling, with no flag)
warns before the crossing and refuses across it."""
import warnings

import numpy as np
import pytest

import flexpkm as fp
from flexpkm.algorithms.singular_flags import _first_event, check_samples
from flexpkm.errors import NearSingularWarning, SingularConfigurationError

from .test_singularity import aligned, five_bar  # noqa: F401 (fixture)

#: the book's 9.4 path of P (m) and duration (s)
P0, PF, TF = np.array([0.0, 0.338]), np.array([0.1, 0.1]), 1.5


def test_idm_along_the_book_quintic_flags_then_refuses(five_bar):
    """Issue 19: along 9.4's quintic through the Type 2 singularity the IDM
    returned 12 or 165 N m with no flag. 100 Hz sampling (151 samples)."""
    model, state = five_bar
    with pytest.raises(SingularConfigurationError, match="type 2 singularity between t = "):
        fp.path_inverse_dynamics(model, state, P0, PF, TF, rate=100.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = fp.path_inverse_dynamics(model, state, P0, PF, TF, rate=100.0, singular=0.0)
    flags = [w for w in caught if issubclass(w.category, NearSingularWarning)]
    assert len(flags) == 1
    t_flag = float(str(flags[0].message).split("from t = ")[1].split(" s")[0])
    d = res.distances[:, res.distance_names.index("type 2")]
    crossing = np.flatnonzero(np.diff(np.sign(np.array([aligned(*p) for p in res.x_p]))))[0]
    assert t_flag <= res.t[crossing] < res.t[crossing + 1] and d[crossing] < 1e-2
    assert "crosses the type 2 singularity between" in str(flags[0].message)
    assert np.all(d[:3] > 0.3) and res.distances.shape == (151, 3)


def test_check_samples_threshold_and_arguments(five_bar):
    model, state = five_bar
    q = state(np.array([[0.03, 0.22], [0.035, 0.22]]))
    names, d = check_samples(model, q, near=1e-3)
    assert names[0] == "type 2" and d.shape == (2, 3)
    with pytest.raises(SingularConfigurationError, match="at t = 0"):
        check_samples(model, q, near=1.0, singular=0.5)


def test_first_event_is_the_earliest_and_a_leg_on_a_tie():
    """An LPJTS singularity also drops the Type 2 block's rank (module doc of
    :mod:`flexpkm.algorithms.singularity`): on the same sample the leg is named."""
    d = np.array([0.5, 0.1, 0.1, 0.5])
    flip = np.array([1, 1, -1, -1])
    raw = {"type 2": (d, flip, None), "LPJTS leg 2": (d, flip, None),
           "LPJTS leg 1": (d, np.ones(4, int), None)}
    assert _first_event(raw, 1e-6) == (1, "LPJTS leg 2", False)
    assert _first_event(raw, 0.2) == (1, "LPJTS leg 2", True)
    assert _first_event({"type 2": (d, np.ones(4, int), None)}, 0.0) is None
