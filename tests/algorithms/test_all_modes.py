"""Every assembly and working mode (flexpkm.algorithms.all_modes) against
closed forms written here from the book, not from the code:

* the rigid five-bar (cases/rigid_five_bar.toml, Section 8.4.3.1's data):
  the two assembly modes of the forward problem (7.38)-(7.41), P on the
  perpendicular bisector of A_12 A_22 at +-h from its midpoint, and the
  four working modes of the inverse one (7.11)-(7.16), each elbow A_i2 one
  of the two intersections of the circles (A_i1, d_i2) and (P, d_i3);
* the 3-RPR: the assembly modes of the shipped file at a q_a with 4 real
  roots against the real roots of the sextic (7.48) (cases/three_rpr.fgm,
  the book's elimination), and Gosselin, Sefrioui and Richard's 3-RPR with
  6 real assembly modes (J. Mech. Des. 1994; Merlet, Parallel Robots,
  Section 4.2) against an independent elimination: a scan of phi for the
  sign changes of the first leg's equation once p solved from the two
  others (no polynomial);
* the Orthoglide (cases/orthoglide.toml): its two assembly modes at the
  reference's q_a, the two intersections of the spheres (7.49)-(7.50)
  (cases/orthoglide.fgm, the book's elimination).
"""
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import brentq

import flexpkm as fp
from flexpkm.algorithms.all_modes import assembly_modes, canonical, working_modes
from flexpkm.cases import three_rpr as rpr
from flexpkm.errors import InvalidArgumentError, UnreachablePoseError
from flexpkm.model.files import tomllib              # tomli on Python 3.10
from tests.cases.closed_forms import file_model, wrap

CASES = Path(fp.cases.__file__).parent
#: Section 8.4.3.1: A_i1 on x_0 at d_i1, |A_i1 A_i2| = d_i2, |A_i2 P| = d_i3 (m)
FIVE_BAR = {"1": (-0.14, 0.213, 0.1878), "2": (0.14, 0.213, 0.1878)}


def circle_intersections(c1, r1, c2, r2):
    """The two intersections (2, 2) of the circles (c1, r1), (c2, r2): the
    foot of the common chord on c1 -> c2 at a, +- h along its normal."""
    d = np.asarray(c2) - np.asarray(c1)
    L = np.hypot(*d)
    a = (r1 ** 2 - r2 ** 2 + L ** 2) / (2 * L)
    h = np.sqrt(r1 ** 2 - a ** 2)
    mid = np.asarray(c1) + a * d / L
    n = np.array([-d[1], d[0]]) / L
    return np.array([mid + h * n, mid - h * n])


def five_bar_fgm(q11, q21):
    """(7.38)-(7.41): the two positions of P (2, 2) at the actuated angles:
    the elbows A_i2 = A_i1 + d_i2 (cos q_i1, sin q_i1), P at d_i3 of both."""
    elbows = [np.array([d1 + d2 * np.cos(q), d2 * np.sin(q)])
              for (d1, d2, _), q in zip(FIVE_BAR.values(), (q11, q21))]
    return circle_intersections(elbows[0], FIVE_BAR["1"][2], elbows[1], FIVE_BAR["2"][2])


def five_bar_igm(P):
    """(7.11)-(7.16): the four (q11, q12, q21, q22) (rad) placing P (2,):
    each elbow one of the two intersections, q_i1 its angle from A_i1,
    q_i2 the angle of A_i2 -> P minus q_i1."""
    legs = []
    for d1, d2, d3 in FIVE_BAR.values():
        A = np.array([d1, 0.0])
        legs.append([(np.arctan2(*(B - A)[::-1]), np.arctan2(*(P - B)[::-1]) - np.arctan2(*(B - A)[::-1]))
                     for B in circle_intersections(A, d2, P, d3)])
    return np.array([[*a, *b] for a in legs[0] for b in legs[1]])


@pytest.fixture(scope="module")
def five_bar():
    return file_model("rigid_five_bar.toml")


def test_five_bar_two_assembly_modes_are_the_closed_form(five_bar):
    L = five_bar.layout
    q11, q21 = 1.8, 1.4
    found = assembly_modes(five_bar, [q11, q21])
    assert found.complete and found.bound == 2 and len(found) == 2
    expected = five_bar_fgm(q11, q21)
    for P in expected:
        k = np.argmin(np.abs(found.x_p - P).max(axis=1))
        assert np.abs(found.x_p[k] - P).max() < 1e-10
    assert np.allclose(found.q_a, [q11, q21], atol=1e-12)
    assert sorted(m["assembly"] for m in found.modes) == [-1, 1]     # one per sign of det A_p
    assert found.residual.max() < 1e-12 and found.distance.min() > 1e-3
    q = canonical(five_bar, found.q_tot)
    assert np.allclose(found.q_tot, q) and np.all(np.abs(q[:, [L.index("q12")]]) <= np.pi)


def test_five_bar_four_working_modes_are_the_closed_form(five_bar):
    L = five_bar.layout
    P = np.array([0.03, 0.22])
    found = working_modes(five_bar, P)
    assert found.complete and found.bound == 4 and len(found) == 4
    cols = [L.index(n) for n in ("q11", "q12", "q21", "q22")]
    for q in five_bar_igm(P):
        err = np.abs(wrap(found.q_tot[:, cols] - q)).max(axis=1)
        assert err.min() < 1e-10
    assert np.allclose(found.x_p, P, atol=1e-12)
    signs = {(m["1"], m["2"]) for m in found.modes}
    assert signs == {(1, 1), (1, -1), (-1, 1), (-1, -1)}        # the 2 x 2 working modes


def test_five_bar_is_fast(five_bar):
    import time
    assembly_modes(five_bar, [1.8, 1.4])                           # imports done
    t0 = time.perf_counter()
    assembly_modes(five_bar, [1.8, 1.4])
    working_modes(five_bar, [0.03, 0.22])
    assert time.perf_counter() - t0 < 2.5          # 0.45 s alone, 1.3 s with the 2 cores loaded 5x


def test_unreachable_actuators_and_pose_are_refused(five_bar):
    with pytest.raises(UnreachablePoseError, match="no real solution"):
        working_modes(five_bar, [0.0, 0.9], starts=64)         # |A_i1 P| > d_i2 + d_i3
    with pytest.raises(UnreachablePoseError, match="actuated coordinates"):
        assembly_modes(five_bar, [1.7, 1.2], starts=64)          # |A12 A22| > d13 + d23
    with pytest.raises(InvalidArgumentError, match="q_a must be 2 finite values"):
        assembly_modes(five_bar, [1.0, np.nan])
    with pytest.raises(InvalidArgumentError, match="starts"):
        assembly_modes(five_bar, [1.7, 1.2], starts=0)


def test_three_rpr_assembly_modes_are_the_real_roots_of_the_sextic():
    model = file_model("three_rpr.toml")
    q_a = np.array([0.811131, 0.79136615, 0.06573964])       # 4 real roots of (7.48)
    expected = rpr.fgm(q_a)
    found = assembly_modes(model, q_a, starts=257)     # the rounds alone (step 5 costs 3 s more)
    assert len(expected) == 4 and len(found) == 4 and found.bound == 6 and not found.complete
    assert found.saturated
    for pose in expected:
        err = np.abs(found.x_p - pose)
        err[:, 2] = np.abs(wrap(err[:, 2]))
        assert err.max(axis=1).min() < 1e-10


# Gosselin, Sefrioui & Richard's 3-RPR (lengths in cm there, m x 0.01 here)
BASE = 0.01 * np.array([[0.0, 0.0], [15.91, 0.0], [0.0, 10.0]])
PLATFORM = 0.01 * np.array([[0.0, 0.0], [17.04, 0.0], [20.84 * np.cos(0.8843), 20.84 * np.sin(0.8843)]])
RHO = 0.01 * np.array([14.98, 15.38, 12.0])


def _rot(phi):
    return np.array([[np.cos(phi), -np.sin(phi)], [np.sin(phi), np.cos(phi)]])


def gosselin_poses():
    """Every real (x, y, phi) of the example: p = B_1 from the two linear
    equations |p + R b_i - A_i|^2 - |p - A_1|^2 = rho_i^2 - rho_1^2 (i = 2, 3),
    then the sign changes over phi of |p - A_1|^2 - rho_1^2, refined by
    Brent's method; P is the platform's centroid, x_p along B_1 B_2."""
    b = PLATFORM - PLATFORM[0]
    c = PLATFORM.mean(axis=0) - PLATFORM[0]

    def p_of(phi):                                      # phi (n,) -> p (n, 2)
        R = np.moveaxis(_rot(np.asarray(phi, float)), [0, 1], [-2, -1])
        Rb = R @ b.T                                    # (n, 2, 3): R b_i in the columns
        u = [Rb[..., i] - BASE[i] for i in (1, 2)]
        M = np.stack([2 * (u[k] + BASE[0]) for k in (0, 1)], axis=-2)
        h = np.stack([RHO[i] ** 2 - RHO[0] ** 2 - np.sum(u[k] ** 2, axis=-1) + BASE[0] @ BASE[0]
                      for k, i in enumerate((1, 2))], axis=-1)
        return np.linalg.solve(M, h[..., None])[..., 0]

    f = lambda phi: np.sum((p_of(np.atleast_1d(phi)) - BASE[0]) ** 2, axis=-1) - RHO[0] ** 2
    grid = np.linspace(-np.pi, np.pi, 20001)
    values = f(grid)
    out = []
    for a, b_, fa, fb in zip(grid[:-1], grid[1:], values[:-1], values[1:]):
        if fa * fb < 0 and abs(fa) + abs(fb) < 1.0:          # not a pole of p(phi)
            phi = brentq(lambda x: f(x)[0], a, b_, xtol=1e-15)
            out.append([*(p_of([phi])[0] + _rot(phi) @ c), phi])
    return np.array(out)


def gosselin_model():
    """cases/three_rpr.toml with the example's geometry (MDH as the file's
    comments say: gamma_i, d_i1 = |O A_i1|, theta_i1 = 90 deg - gamma_i,
    d_iP = |A_i3 P|, theta_iP = -epsilon_i) and a reference configuration
    at a pose of its workspace, by the closed-form IGM (7.20)-(7.22)."""
    data = tomllib.loads((CASES / "three_rpr.toml").read_text())
    centre = PLATFORM.mean(axis=0)
    pose = np.array([0.05, 0.05, 0.3])
    for i, leg in enumerate(data["legs"]):
        gamma = np.arctan2(*BASE[i][::-1])
        eps = np.arctan2(*(centre - PLATFORM[i])[::-1])
        f1, fP = leg["frames"][0], leg["frames"][3]
        f1.update(gamma=float(gamma), d=float(np.hypot(*BASE[i])), theta=float(np.pi / 2 - gamma))
        fP.update(d=float(np.hypot(*(centre - PLATFORM[i]))), theta=float(-eps))
        A3 = pose[:2] + _rot(pose[2]) @ (PLATFORM[i] - centre)
        u = A3 - BASE[i]
        q1 = np.arctan2(u[1], u[0])
        data["reference"].update({f"q{i + 1}1": q1, f"q{i + 1}2": np.hypot(*u),
                                  f"q{i + 1}3": pose[2] + eps - q1})
    data["reference"].update(x=pose[0], y=pose[1], phi=pose[2])
    from flexpkm.model import files
    return fp.build_model(files.from_dict(data))


def test_gosselin_three_rpr_six_real_assembly_modes():
    expected = gosselin_poses()
    assert len(expected) == 6                              # the example's 6 real roots
    found = assembly_modes(gosselin_model(), RHO)
    assert len(found) == 6 and found.complete
    for pose in expected:
        err = np.abs(found.x_p - pose)
        err[:, 2] = np.abs(wrap(err[:, 2]))
        assert err.max(axis=1).min() < 1e-10
    assert np.allclose(found.q_a, RHO, atol=1e-12)


def test_a_bound_not_reached_is_said(five_bar):
    """bound=3 at the five-bar's 2 assembly modes: not complete; the last
    round (as many starts as the rounds before) found nothing new."""
    found = assembly_modes(five_bar, [1.8, 1.4], bound=3, starts=129)    # rounds 65 + 64
    assert len(found) == 2 and not found.complete and found.saturated
    assert found.starts == 129 and found.bound == 3
    assert found.summary() == ("2 assembly modes from 129 Newton starts (the bound is 3); the "
                               "last round of starts found no new root")
    assert found.labels() == ["leg 1 -, leg 2 +, assembly +", "leg 1 -, leg 2 +, assembly -"]


def test_orthoglide_two_assembly_modes_are_the_spheres_intersections():
    """The Orthoglide's two poses (7.49)-(7.50) at the reference's q_a; the
    second has leg 1 in the other working mode of (7.29), found by step 5
    (module doc). Each pose comes with several configurations of the U-U
    legs (joint space), all with the same x_p."""
    from flexpkm.cases import orthoglide
    model = file_model("orthoglide.toml")
    q_a = fp.reference_configuration(model)[list(model.layout.actuated)]
    found = assembly_modes(model, q_a)
    poses = np.unique(np.round(found.x_p, 8), axis=0)
    assert len(poses) == 2
    for mode in (1, -1):
        P = orthoglide.fgm(q_a, mode)
        assert np.abs(found.x_p - P).max(axis=1).min() < 1e-10
    assert np.allclose(found.q_a, q_a, atol=1e-12) and found.residual.max() < 1e-9
