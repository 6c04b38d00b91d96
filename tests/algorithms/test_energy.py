"""The energy model (Section 8.6.2) against the five-bar's closed forms
(8.221)-(8.230) (written in book_five_bar.py from the seed), against
``1/2 qd_r^T M qd_r`` of the full model (10.123), and by the power balance
``dH/dt = qd_a^T tau + t_p^T w`` along trajectories (finite differences)
for a rigid and a flexible robot with gravity and an external wrench."""
from pathlib import Path

import numpy as np
import pytest

import flexpkm as fp
from flexpkm.algorithms.energy import energy, gravity_energy, kinetic_energy
from flexpkm.cases import rigid_five_bar as five_bar
from flexpkm.errors import InvalidArgumentError
from flexpkm.model import files

from . import book_five_bar as bk

G_Y = -9.81
FLEXIBLE = Path(five_bar.__file__).parent / "examples" / "five_bar.toml"


def _states(model, n, seed):
    """n random states (q_tot, qd_tot, qd_a, full) of the rigid five-bar."""
    rng = np.random.default_rng(seed)
    for _ in range(n):
        q = five_bar.configuration(model, rng.uniform(-0.08, 0.08), rng.uniform(0.18, 0.30))
        qd_a = rng.normal(size=2)
        full = fp.full_dynamics(model, q, qd_a)
        yield q, full.J @ qd_a, qd_a, full


@pytest.mark.parametrize("robot, printed", [(bk.robot, False), (five_bar.robot, True)])
def test_five_bar_energy_equals_8_221_to_8_230(robot, printed):
    """Kinetic (8.224)-(8.227) and gravity (8.228)-(8.230) energies with
    ^0g = [0, g, 0]; the book's identified parameters against the printed
    forms, full standard parameters against the corrected ones."""
    rob = robot(gravity=(0.0, G_Y, 0.0))
    model, links = fp.build_model(rob), bk.links_of(rob)
    for q, qd, _, _ in _states(model, 6, 3):
        name = lambda x: dict(zip(model.layout.names, x))
        e = energy(model, q, qd)
        assert e.kinetic == pytest.approx(bk.kinetic_energy(name(q), name(qd), qd[-2:], links,
                                                            printed), rel=1e-10, abs=1e-14)
        assert e.gravity == pytest.approx(bk.gravity_energy(name(q), q[-1], G_Y, links),
                                          rel=1e-10, abs=1e-14)
        assert e.elastic == 0.0 and e.total == e.kinetic + e.gravity


def test_printed_sign_of_my_i2_differs():
    """The correction of (8.222)/(8.225) is needed: with my_i2 != 0 the
    printed form misses the model by the cross term (several 1e-3 J)."""
    model = fp.build_model(bk.robot())
    q, qd, _, _ = next(_states(model, 1, 5))
    name = lambda x: dict(zip(model.layout.names, x))
    printed = bk.kinetic_energy(name(q), name(qd), qd[-2:], bk.LINKS, printed=True)
    assert abs(printed - kinetic_energy(model, q, qd)) > 1e-4


def test_kinetic_energy_is_the_quadratic_form_of_full_dynamics():
    """Body by body (8.218) = 1/2 qd_r^T M qd_r (10.123), rigid and flexible, batched."""
    rigid = fp.build_model(bk.robot())
    flexible = fp.build_model(files.load(FLEXIBLE, elements=2))
    rng = np.random.default_rng(1)
    for model, q in ((rigid, five_bar.configuration(rigid, np.array([0.0, 0.05]),
                                                    np.array([0.22, 0.25]))),
                     (flexible, np.stack([fp.assemble(flexible, q_a=[1.9, 1.2]),
                                          fp.assemble(flexible, q_a=[2.0, 1.1])]))):
        dep = fp.full_dynamics(model, q[0], 0.0).dep
        qd_r = rng.normal(size=(2, len(fp.full_dynamics(model, q[0], 0.0).indep)))
        full = fp.full_dynamics(model, q, qd_r, dep=dep)
        E = kinetic_energy(model, q, (full.J @ qd_r[..., None])[..., 0])
        assert E.shape == (2,)
        np.testing.assert_allclose(E, 0.5 * np.einsum("bi,bij,bj->b", qd_r, full.M, qd_r),
                                   rtol=1e-12)


def _power_balance(model, path, wrench, n_a):
    """Largest |dH/dt - qd_a^T tau - t_p^T w| / max|qd_a^T tau| along ``path(t)
    -> (q_tot, qd_r, qdd_r)``, dH/dt by central differences (h = 1e-5 s)."""
    worst, scale, h = 0.0, 0.0, 1e-5
    dep = fp.full_dynamics(model, path(0.0)[0], 0.0).dep
    H = lambda t: energy(model, path(t)[0], fp.full_dynamics(model, path(t)[0], path(t)[1],
                                                          dep=dep).J @ path(t)[1]).total
    for t in (0.02, 0.05, 0.08):
        q, qd_r, qdd_r = path(t)
        full = fp.full_dynamics(model, q, qd_r, dep=dep, friction=False, wrench=wrench)
        tau = fp.inverse_dynamics(full, qdd_r[:n_a])[0]
        qd_tot = full.J @ qd_r
        t_p = np.zeros(6)
        t_p[list(model.platform.dofs)] = qd_tot[model.layout.n_t:]
        power = qd_r[:n_a] @ tau + (t_p @ wrench if wrench is not None else 0.0)
        worst = max(worst, abs((H(t + h) - H(t - h)) / (2 * h) - power))
        scale = max(scale, abs(qd_r[:n_a] @ tau))
    return worst / scale


@pytest.mark.parametrize("wrench", [None, [3.0, -2.0, 0.0, 0.0, 0.0, 0.0]])
def test_power_balance_rigid(wrench):
    """Rigid five-bar with in-plane gravity along a smooth actuator path."""
    model = fp.build_model(bk.robot(gravity=(0.0, G_Y, 0.0)))
    x0, v, a = np.array([0.02, 0.23]), np.array([0.4, -0.3]), np.array([-2.0, 3.0])

    def path(t):                      # the platform's quadratic path, through the IGM
        q = five_bar.configuration(model, *(x0 + v * t + a * t * t / 2))
        m = fp.full_dynamics(model, q, 0.0)
        qd_r = np.linalg.solve(m.J[-2:], v + a * t)
        m = fp.full_dynamics(model, q, qd_r)
        return q, qd_r, np.linalg.solve(m.J[-2:], a - m.b[-2:])
    assert _power_balance(model, path, wrench, 2) < 1e-8     # measured 3e-10, 5e-10


def test_power_balance_flexible():
    """Flexible five-bar (beams, gravity along y): with the elastic
    coordinates moving too, dH/dt = qd_a^T tau + t_p^T w where tau and the
    elastic accelerations satisfy (10.123)-(10.124) (qdd_c from the inverse
    problem: a state of the motion, not an arbitrary path)."""
    model = fp.build_model(files.load(FLEXIBLE, elements=1))
    wrench = np.array([1.5, -4.0, 0.0, 0.0, 0.0, 0.0])
    q0 = fp.assemble(model, q_a=[1.9, 1.2])
    full = fp.full_dynamics(model, q0, 0.0, wrench=wrench)
    n_a, n_r = full.n_a, len(full.indep)
    rng = np.random.default_rng(4)
    qd_r = rng.normal(size=n_r) * np.r_[np.ones(n_a), 1e-3 * np.ones(n_r - n_a)]
    full = fp.full_dynamics(model, q0, qd_r, friction=False, wrench=wrench, dep=full.dep)
    qdd_a = np.array([0.7, -0.4])
    tau, qdd_c = fp.inverse_dynamics(full, qdd_a)
    qd_tot = full.J @ qd_r
    # dH/dt along the motion through this state, fourth-order central
    # difference (the stiff elastic energy makes the second-order one's
    # error 1e-2 relative at h = 1e-6 s)
    h = 1e-5

    def H(s):
        qdd_r = np.r_[qdd_a, qdd_c]
        v = qd_r + s * qdd_r
        q = fp.project_on_loops(model, q0 + s * qd_tot + 0.5 * s * s * (full.J @ qdd_r + full.b),
                                full.dep)[0]
        m = fp.full_dynamics(model, q, 0.0, dep=full.dep, loop_tol=None)
        return energy(model, q, m.J @ v).total
    t_p = np.zeros(6)
    t_p[list(model.platform.dofs)] = qd_tot[model.layout.n_t:]
    power = qd_r[:n_a] @ tau + t_p @ wrench
    dH = (8 * (H(h) - H(-h)) - (H(2 * h) - H(-2 * h))) / (12 * h)
    assert dH == pytest.approx(power, rel=1e-6)                  # measured 2.6e-8


def test_gravity_energy_zero_at_the_origin_and_linear_in_g():
    model = fp.build_model(bk.robot())
    q = five_bar.configuration(model, 0.0, 0.25)
    assert gravity_energy(model, q, gravity=(0, 0, 0)) == 0.0
    assert gravity_energy(model, q, (0, 2 * G_Y, 0)) == pytest.approx(
        2 * gravity_energy(model, q, (0, G_Y, 0)), rel=1e-14)
    with pytest.raises(InvalidArgumentError, match="gravity"):
        gravity_energy(model, q, (0, 1))
    with pytest.raises(InvalidArgumentError, match="qd_tot"):
        energy(model, q, np.zeros(5))


@pytest.mark.parametrize("name", ["delta", "three_rrr"])
def test_spatial_robots_kinetic_form_and_gravity_gradient(name):
    """A translating platform with mass (Müller's rigid Delta) and a rotating
    one with inertia (the spatial-beam 3-RRR): kinetic energy =
    ``1/2 qd_r^T M qd_r``, and the gradient of the gravity energy (central
    differences) = the gravity part of ``c_tot`` at rest (at phi = 0, where
    the platform's angular coordinates are the rotation vector's)."""
    from flexpkm.cases import delta
    if name == "delta":
        model = fp.build_model(delta.robot())
        q = delta.configuration(model, np.array([0.05, -0.03, -0.85]))
    else:
        model = fp.build_model(files.load(FLEXIBLE.parent / "three_rrr.toml"))
        q = fp.assemble(model, q_a=[model.robot.reference[model.layout.names[c]]
                                    for c in model.layout.actuated])
    full0 = fp.full_dynamics(model, q, 0.0)
    qd_r = np.random.default_rng(3).normal(size=len(full0.indep))
    full = fp.full_dynamics(model, q, qd_r, dep=full0.dep)
    assert kinetic_energy(model, q, full.J @ qd_r) == pytest.approx(
        0.5 * qd_r @ full.M @ qd_r, rel=1e-12)
    g = np.array([0.3, -1.2, -9.81])
    force = fp.full_dynamics(model, q, 0.0, gravity=g, friction=False).c_tot - \
        fp.full_dynamics(model, q, 0.0, gravity=np.zeros(3), friction=False).c_tot
    h = 1e-6
    grad = np.array([(gravity_energy(model, q + h * e, g) - gravity_energy(model, q - h * e, g))
                     / (2 * h) for e in np.eye(model.layout.n_tot)])
    np.testing.assert_allclose(grad, force, rtol=0, atol=1e-7 * np.abs(force).max())
