"""Newton on the loop equations from many starts at once
(flexpkm.algorithms.batch_newton), on the rigid five-bar: the roots it
reaches close the loops, the starts it cannot take to a root are flagged,
and the distance to singularity is 0 at the Type 2 singularity of the
book's geometry (the distal links aligned, Section 7.5.6.1) written here."""
import numpy as np
import pytest

import flexpkm as fp
from flexpkm.algorithms.all_modes import assembly_modes
from flexpkm.algorithms.assembly import free_columns
from flexpkm.algorithms.batch_newton import batch_newton, distance_to_singularity, loop_error
from tests.cases.closed_forms import file_model


@pytest.fixture(scope="module")
def five_bar():
    return file_model("rigid_five_bar.toml")


def test_roots_close_the_loops_and_other_starts_are_flagged(five_bar):
    L = five_bar.layout
    fixed = np.array(L.actuated)
    free = free_columns(five_bar, fixed)
    rng = np.random.default_rng(3)
    q0 = np.tile(fp.reference_configuration(five_bar), (16, 1))
    q0[:, free] += rng.uniform(-1.0, 1.0, (16, len(free)))
    q0[:8, fixed] = [1.7, 1.2]                   # |A12 A22| > d13 + d23: no root
    q, err = batch_newton(five_bar, q0, free, 1e-12, 60)
    assert q.shape == q0.shape and np.all(q[:, fixed] == q0[:, fixed])
    assert np.all(err[:8] > 1e-6)                # unreachable: never a root
    ok = err < 1e-12
    assert ok[8:].sum() >= 4
    assert np.all(loop_error(five_bar, q[ok])[1] < 1e-12)
    assert batch_newton(five_bar, q0[:0], free, 1e-12, 5)[0].shape == (0, L.n_tot)


def test_distance_to_singularity_vanishes_at_a_type_2_singularity(five_bar):
    """Five-bar with the distal links aligned, A_12 P A_22 on one line
    (Type 2, Section 7.5.6.1; the two circles of (7.38) tangent): the
    forward problem's distance is 0 there, and positive at the two
    assembly modes nearby."""
    L = five_bar.layout
    q11 = np.arccos((0.28 - 2 * 0.1878) / (2 * 0.213))     # |A12 A22| = d13 + d23
    q21 = np.pi - q11
    q = np.zeros((1, L.n_tot))
    q[0, [L.index(n) for n in ("q11", "q12", "q21", "q22")]] = q11, -q11, q21, np.pi - q21
    q[0, [L.index("x"), L.index("y")]] = 0.0, 0.213 * np.sin(q11)
    assert np.abs(fp.closure_residual(five_bar, q)).max() < 1e-12     # a closed configuration
    free = np.array([L.index(n) for n in ("q12", "q22", "x", "y")])
    assert distance_to_singularity(five_bar, q, free)[0] < 1e-7
    near = assembly_modes(five_bar, [q11 - 0.01, q21 + 0.01])
    assert len(near) == 2 and 0 < near.distance.max() < 0.2
