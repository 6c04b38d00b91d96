"""Singular loci over the workspace (issue 19 item 2): the five-bar's Type 2
loci refined from an 11 x 9 grid against the closed-form locus (A12, P,
A22 aligned, Section 7.5.6.1, written again from the geometry in
:mod:`tests.algorithms.test_singularity`) to 1e-6 m (measured 2.5e-13 m),
t_s at each point against [-sin(q11 + q12), cos(q11 + q12)] (1.2e-12)."""
import numpy as np
import pytest
from scipy.optimize import brentq

import flexpkm as fp
from flexpkm.errors import InvalidArgumentError

from ..algorithms.test_singularity import aligned, elbow, five_bar  # noqa: F401 (fixture)


def test_five_bar_loci_and_t_s_match_the_closed_forms(five_bar):
    model, state = five_bar
    loci = fp.singular_loci(model, (-0.08, 0.12, 11), (0.12, 0.28, 9), state=state)
    assert loci.distance.shape == (9, 11) and not np.isnan(loci.distance).any()
    assert len(loci.points) >= 8
    for x, y in loci.points:
        try:
            y_ref = brentq(lambda v: aligned(x, v), y - 2e-3, y + 2e-3, xtol=1e-14)
            assert abs(y_ref - y) < 1e-6
        except ValueError:                      # the locus is steep here: solve for x
            x_ref = brentq(lambda u: aligned(u, y), x - 2e-3, x + 2e-3, xtol=1e-14)
            assert abs(x_ref - x) < 1e-6
        P = np.array([x, y])
        phi = np.arctan2(*(P - elbow("1", P))[::-1])         # q11 + q12, the angle of A12 A13
        t_s = fp.uncontrollable_twist(model, state(P))
        assert min(np.abs(t_s - [-np.sin(phi), np.cos(phi)]).max(),
                   np.abs(t_s + [-np.sin(phi), np.cos(phi)]).max()) < 1e-6
        assert fp.singularity(model, q_tot=state(P)).kinds == ("type 2",)
    assert set(np.unique(loci.sign)) == {-1, 1}


def test_loci_over_q_a_and_bad_arguments(five_bar):
    """Over the actuated coordinates, assembled point by point (no closed
    form; the reference assembly mode kept): the distances of a small grid
    are those of :func:`flexpkm.singularity` at the same q_a."""
    model, state = five_bar
    q11, q21 = model.reference_state.q_tot[[0, 2]]
    loci = fp.singular_loci(model, [q11, q11 + 0.02], [q21, q21 + 0.02], kind="serial leg 1",
                            over="q_a")
    assert loci.axes == ("q11", "q21") and loci.distance.shape == (2, 2)
    assert loci.distance[1, 0] == pytest.approx(
        fp.singularity(model, q_a=[q11, q21 + 0.02])["serial leg 1"].distance, rel=1e-9)
    with pytest.raises(InvalidArgumentError, match="unknown kind"):
        fp.singular_loci(model, (0, 0.1, 3), (0.2, 0.3, 3), kind="type 9", state=state)
    with pytest.raises(InvalidArgumentError):
        fp.singular_loci(model, (0.1, 0, 3), (0.2, 0.3, 3), state=state)
    with pytest.raises(InvalidArgumentError):
        fp.singular_loci(model, (0, 0.1, 3), (0.2, 0.3, 3), over="q", state=state)
