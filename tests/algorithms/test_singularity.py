"""Singularities (issue 19 items 1-2): the five-bar's Type 2 loci and t_s
against the closed forms of Section 7.5.6.1 (written again here from the
geometry: A_i2 by two-circle intersection, the locus where A12, P, A22 are
aligned), its serial singularity against the null vector of a stretched
2R leg, the Tripteron's LPJTS (Section 9.5) against the null vector of a
stretched planar 3R chain, the distances' scale invariance."""
from dataclasses import replace

import numpy as np
import pytest
from scipy.optimize import brentq

import flexpkm as fp
from flexpkm.cases import rigid_five_bar as F
from flexpkm.cases import tripteron as T
from flexpkm.errors import InvalidArgumentError

@pytest.fixture(scope="module")
def five_bar():
    case = fp.cases.get("rigid_five_bar")
    model = fp.build_model(case.robot({}))
    return model, lambda poses: case.configure(model, poses, {})


def elbow(leg, P):
    """A_i2 of leg i (m) placing A_i3 at P: intersection of the circles
    (A_i1, d_i2) and (P, d_i3); working mode +1 left of A_i1 -> P (7.15)."""
    d1, d2, d3 = F.D[leg]
    A = np.array([d1, 0.0])
    e = np.linalg.norm(P - A)
    u = (P - A) / e
    a = (d2 ** 2 - d3 ** 2 + e ** 2) / (2 * e)
    mode = F.WORKING_MODES[int(leg) - 1]
    return A + a * u + mode * np.sqrt(d2 ** 2 - a ** 2) * np.array([-u[1], u[0]])


def aligned(x, y):
    """sin of the angle between A12 -> P and A22 -> P: 0 on the Type 2 locus."""
    P = np.array([x, y])
    a, b = P - elbow("1", P), P - elbow("2", P)
    return (a[0] * b[1] - a[1] * b[0]) / np.linalg.norm(a) / np.linalg.norm(b)


def test_elbow_is_the_models_working_mode(five_bar):
    model, state = five_bar
    q = state(np.array([0.03, 0.22]))
    q11 = q[model.layout.index("q11")]
    np.testing.assert_allclose(elbow("1", np.array([0.03, 0.22])),
                               [-0.14 + 0.213 * np.cos(q11), 0.213 * np.sin(q11)], atol=1e-12)


def test_t_s_on_the_type_2_locus(five_bar):
    """At the closed-form locus point of x = 0.03 (A12, P, A22 aligned), the
    Type 2 distance is 0 and t_s = [-sin(q11 + q12), cos(q11 + q12)] (7.5.6.1)."""
    model, state = five_bar
    P = np.array([0.03, brentq(lambda v: aligned(0.03, v), 0.15, 0.3, xtol=1e-15)])
    res = fp.singularity(model, q_tot=state(P))
    assert res.kinds == ("type 2",) and res["type 2"].distance < 1e-9
    phi = np.arctan2(*(P - elbow("1", P))[::-1])
    ref = np.array([-np.sin(phi), np.cos(phi)])
    assert min(np.abs(res.t_s - ref).max(), np.abs(res.t_s + ref).max()) < 1e-9


def test_five_bar_serial_singularity_and_its_vector(five_bar):
    """Leg 1 stretched (q12 = 0): the leg's joints move with A13 still along
    (d13, -(d12 + d13)) (the tip's velocity is (d12 + d13) qd11 + d13 qd12
    times the normal of the leg)."""
    model, _ = five_bar
    d1, d2, d3 = F.D["1"]
    th = 1.0
    P = np.array([d1, 0.0]) + (d2 + d3) * np.array([np.cos(th), np.sin(th)])
    B = elbow("2", P)
    q21 = np.arctan2(B[1], B[0] - F.D["2"][0])
    q22 = np.arctan2(*(P - B)[::-1]) - q21
    q = np.zeros(model.layout.n_tot)
    for name, v in {"q11": th, "q12": 0.0, "q21": q21, "q22": q22, "x": P[0], "y": P[1]}.items():
        q[model.layout.index(name)] = v
    res = fp.singularity(model, q_tot=q)
    assert "serial leg 1" in res.kinds and "type 2" not in res.kinds
    v = res["serial leg 1"].vector
    ref = np.array([d3, -(d2 + d3)]) / np.hypot(d3, d2 + d3)
    assert min(np.abs(v - ref).max(), np.abs(v + ref).max()) < 1e-9
    assert res.to_dict()["singular"] == list(res.kinds)


def test_tripteron_lpjts_vector_and_distance():
    """Leg 1 of the Tripteron (planar 3R q12, q13, q14 after its prismatic
    actuator) near stretched, |A_11 A_14| = rho (d13 + d14): the LPJTS
    distance goes to 0 with q13, its vector to the stretched chain's
    (d14, -(d13 + d14), d13) (tip and platform orientation fixed)."""
    model = fp.build_model(fp.cases.get("tripteron").robot({}))
    dist = []
    for rho in (0.99, 0.9999, 0.999999):
        x, y = rho * (T.D3 + T.D4) * np.array([np.cos(0.7), np.sin(0.7)])
        q = fp.assemble(model, pose=[x, y, T.A], guess=_tripteron_guess(model, [x, y, T.A]))
        res = fp.singularity(model, q_tot=q)
        dist.append(res["LPJTS leg 1"].distance)
        assert res["LPJTS leg 2"].distance > 0.1 and res["LPJTS leg 3"].distance > 0.1
    assert dist[0] > 10 * dist[1] > 100 * dist[2] and dist[2] < 1e-2
    assert "LPJTS leg 1" in res.nearby
    v = res["LPJTS leg 1"].vector
    ref = np.array([T.D4, -(T.D3 + T.D4), T.D3]) / np.linalg.norm([T.D4, T.D3 + T.D4, T.D3])
    assert min(np.abs(v - ref).max(), np.abs(v + ref).max()) < 1e-2


def _tripteron_guess(model, pose):
    q = np.zeros(model.layout.n_tot)
    for name, v in {**T.igm(pose), "x": pose[0], "y": pose[1], "z": pose[2]}.items():
        if name in model.layout.names:
            q[model.layout.index(name)] = v
    return q


def test_distances_do_not_depend_on_the_robot_scale(five_bar):
    """Every length (MDH d, b, r; platform points) times 3: the same
    distances at the same angles (the homogenisation by L)."""
    model, state = five_bar
    robot = model.robot
    big = replace(robot, frames=tuple(replace(f, d=3 * f.d, b=3 * f.b, r=3 * f.r)
                                      for f in robot.frames))
    big_model = fp.build_model(big)
    q = state(np.array([0.03, 0.22]))
    q_big = q.copy()
    q_big[model.layout.n_t:] *= 3
    a = fp.singularity(model, q_tot=q)
    b = fp.singularity(big_model, q_tot=q_big)
    assert b.length == pytest.approx(3 * a.length)
    for m in a.measures:
        assert b[m.name].distance == pytest.approx(m.distance, rel=1e-10)


def test_arguments_are_checked(five_bar):
    model, _ = five_bar
    with pytest.raises(InvalidArgumentError):
        fp.singularity(model, pose=[0.0, 0.25], q_a=[1.0, 2.0])
    with pytest.raises(InvalidArgumentError):
        fp.singularity(model, pose=[0.0, 0.25], near=1e-9, singular=1e-6)
