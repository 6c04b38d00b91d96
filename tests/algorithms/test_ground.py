"""Ground reactions (Section 8.6.1) against the five-bar's closed forms
(8.207)-(8.215) (book_five_bar.py, from the seed), and by conservation laws
that do not use (8.206): the legs' wrenches of the actual robot (through the
cut-joint reactions) sum to the total; at rest under gravity and a wrench
the base carries the weight and the wrench; for a flexible robot the total
equals the rate of momentum of all the bodies by finite differences."""
from pathlib import Path

import numpy as np
import pytest

import flexpkm as fp
from flexpkm.algorithms.ground import ground_reactions
from flexpkm.cases import rigid_five_bar as five_bar
from flexpkm.model import files

from . import book_five_bar as bk

FLEXIBLE = Path(five_bar.__file__).parent / "examples" / "five_bar.toml"


def _state(model, x, qd_a, qdd_a, **kw):
    q = five_bar.configuration(model, *x)
    full = fp.full_dynamics(model, q, qd_a, friction=False, **kw)
    tau, _ = fp.inverse_dynamics(full, qdd_a)
    return q, full, tau


@pytest.mark.parametrize("robot, printed", [(bk.robot, False), (five_bar.robot, True)])
def test_five_bar_ground_reactions_equal_8_207_to_8_215(robot, printed):
    """Gravity normal to the plane, as in the book: the tree legs' wrenches
    at O_i1 in F_i1 equal (8.207)-(8.209), the total (8.215); the book's
    identified parameters against the printed forms."""
    rob = robot(gravity=(0.0, 0.0, 0.0))
    model, links = fp.build_model(rob), bk.links_of(rob)
    rng = np.random.default_rng(7)
    for _ in range(5):
        x = (rng.uniform(-0.08, 0.08), rng.uniform(0.18, 0.30))
        qd_a, qdd_a = rng.normal(size=2), 5 * rng.normal(size=2)
        q, full, tau = _state(model, x, qd_a, qdd_a)
        gr = ground_reactions(model, full, q, qd_a, qdd_a, tau)
        name = lambda v: dict(zip(model.layout.names, v))
        qd, qdd = full.J @ qd_a, full.J @ qdd_a + full.b
        ref = bk.ground_wrench(name(q), name(qd), name(qdd), np.r_[q[-2:], 0.0], qdd[-2:],
                               links, printed)
        np.testing.assert_allclose(gr.total, ref, rtol=0, atol=1e-10 * np.abs(ref).max())
        for leg in "12":
            j = model.frame_index[f"{leg}1"]
            R, p = full.kin.R[0, j], full.kin.p[0, j]
            w = gr.tree_legs[leg]                       # back to O_i1, F_i1 (8.212)
            f, m = R.T @ w[:3], R.T @ (w[3:] - np.cross(p, w[:3]))
            f_ref, m_ref = bk.leg_wrench(leg, name(q), name(qd), name(qdd), links, printed)
            np.testing.assert_allclose(np.r_[f, m], np.r_[f_ref, m_ref], rtol=0,
                                       atol=1e-10 * np.abs(np.r_[f_ref, m_ref]).max())


def test_legs_of_the_robot_sum_to_the_total_and_carry_the_efforts():
    """The physical legs (tree legs minus the cut-joint wrenches) sum to
    (8.206); each leg's moment about its actuated axis is its torque tau_i
    (the base holds the stator; no friction, no rotor inertia)."""
    model = fp.build_model(five_bar.robot(gravity=(0.0, 0.0, 0.0)))
    q, full, tau = _state(model, (0.03, 0.24), np.array([0.5, -0.2]), np.array([3.0, 1.0]),
                          wrench=[2.0, -1.0, 0, 0, 0, 0])
    gr = ground_reactions(model, full, q, [0.5, -0.2], [3.0, 1.0], tau)
    np.testing.assert_allclose(sum(gr.legs.values()), gr.total, atol=1e-12)
    for k, leg in enumerate("12"):
        A = full.kin.p[0, model.frame_index[f"{leg}1"]]
        w = gr.legs[leg]
        assert w[5] - np.cross(A, w[:3])[2] == pytest.approx(tau[k], rel=1e-10)


def test_static_ground_reaction_is_weight_minus_wrench():
    """At rest with gravity in the plane and a force F at P: the base holds
    ``-m_tot g - F`` and the moment of both about O (statics, no (8.206))."""
    g = np.array([0.0, -9.81, 0.0])
    rob = bk.robot(gravity=tuple(g))
    model = fp.build_model(rob)
    F = np.array([3.0, -2.0, 0.0])
    q, full, tau = _state(model, (0.02, 0.21), np.zeros(2), np.zeros(2), wrench=np.r_[F, 0, 0, 0])
    gr = ground_reactions(model, full, q, np.zeros(2), np.zeros(2), tau)
    m_tot = bk.M_P + sum(p[0] + p[4] for p in bk.LINKS.values())
    P = np.r_[q[-2:], 0.0]
    moment = -np.cross(P, bk.M_P * g + F)
    for leg, p in bk.LINKS.items():
        for name, m, ms in ((f"{leg}1", p[0], p[1:3]), (f"{leg}2", p[4], p[5:7])):
            j = model.frame_index[name]
            c = full.kin.p[0, j] * m + full.kin.R[0, j] @ np.r_[ms, 0.0]
            moment -= np.cross(c, g)
    np.testing.assert_allclose(gr.total, np.r_[-m_tot * g - F, moment], atol=1e-12)
    np.testing.assert_allclose(sum(gr.legs.values()), gr.total, atol=1e-12)


def test_flexible_total_is_the_rate_of_momentum():
    """Flexible five-bar (beams): the total force equals the time derivative
    of the linear momentum of all the bodies minus their weight, the
    momentum from each body's mass matrix (10.61) along the motion through
    the state (fourth-order central difference)."""
    from flexpkm.elements import newton_euler as ne
    g = np.array([0.0, -9.81, 0.0])
    model = fp.build_model(files.load(FLEXIBLE, elements=1))
    q0 = fp.assemble(model, q_a=[1.9, 1.2])
    dep = fp.full_dynamics(model, q0, 0.0).dep
    n_r = len(fp.full_dynamics(model, q0, 0.0, dep=dep).indep)
    qd_r = np.random.default_rng(2).normal(size=n_r) * np.r_[1, 1, 1e-3 * np.ones(n_r - 2)]
    full = fp.full_dynamics(model, q0, qd_r, dep=dep, friction=False)
    tau, qdd_c = fp.inverse_dynamics(full, [0.7, -0.4])
    qdd_r = np.r_[0.7, -0.4, qdd_c]
    gr = ground_reactions(model, full, q0, qd_r, qdd_r, tau)
    qd_tot, qdd_tot = full.J @ qd_r, full.J @ qdd_r + full.b
    n_t = model.layout.n_t

    def momentum(s):
        q = fp.project_on_loops(model, q0 + s * qd_tot + 0.5 * s * s * qdd_tot, dep)[0]
        v = fp.full_dynamics(model, q, 0.0, dep=dep, loop_tol=None).J @ (qd_r + s * qdd_r)
        kin = fp.tree_kinematics(model, q[:n_t])
        p = np.zeros(3)
        for e in model.body_entries:
            R = kin.R[0, e.frame]
            t = np.r_[R.T @ kin.Jv[0, e.frame] @ v[:n_t], R.T @ kin.Jw[0, e.frame] @ v[:n_t]]
            x = t if e.elastic is None else np.r_[t, v[e.elastic]]
            qe = None if e.elastic is None else q[e.elastic]
            p += R @ (ne.mass_matrix(e.body.invariants, qe) @ x)[:3]
        return p
    h = 1e-5
    dp = (8 * (momentum(h) - momentum(-h)) - (momentum(2 * h) - momentum(-2 * h))) / (12 * h)
    mass = sum(e.body.invariants.m for e in model.body_entries)
    np.testing.assert_allclose(gr.total[:3], dp - mass * g, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(sum(gr.legs.values()), gr.total, atol=1e-9)


def test_delta_at_rest_holds_its_weight_and_the_wrench():
    """Müller's rigid Delta (spatial, redundant rows dropped): at rest under
    gravity and a force F at P the base holds ``-m_tot g - F`` and the moment
    of the weights and of F about O. The legs sum to its force; not to its
    moment: the platform's rotations are no coordinates of the rigid Delta,
    so its moment balance is carried by dropped constraint rows the model
    does not solve (ground.py)."""
    from flexpkm.cases import delta
    model = fp.build_model(delta.robot())
    q = delta.configuration(model, np.array([0.05, -0.03, -0.85]))
    F = np.array([10.0, -5.0, 20.0])
    full = fp.full_dynamics(model, q, 0.0, friction=False, wrench=np.r_[F, 0, 0, 0])
    tau, _ = fp.inverse_dynamics(full, np.zeros(3))
    gr = ground_reactions(model, full, q, np.zeros(3), np.zeros(3), tau)
    g = np.asarray(model.gravity)
    m_tot, moment = 0.0, np.zeros(3)
    for e in model.body_entries:
        inv = e.body.invariants
        c = inv.m * full.kin.p[0, e.frame] + full.kin.R[0, e.frame] @ inv.ms_r
        m_tot, moment = m_tot + inv.m, moment - np.cross(c, g)
    P = q[-3:]
    inv = model.platform.body.invariants
    m_tot += inv.m
    moment -= np.cross(inv.m * P + inv.ms_r, g) + np.cross(P, F)
    expected = np.r_[-m_tot * g - F, moment]
    np.testing.assert_allclose(gr.total, expected, atol=1e-10 * np.abs(expected).max())
    np.testing.assert_allclose(sum(gr.legs.values())[:3], gr.total[:3],
                               atol=1e-10 * np.abs(expected).max())
