"""Müller's Delta (cases/delta.py): closed-form inverse geometry = fp.assemble;
redundant rows of the rigid limbs (3 of the parallelogram's 5, 2 of the
wrist's 5) dropped and none in the flexible model; rigid inverse dynamics
along the quintic straight line: power balance and an independent Lagrange
model (tests/independent/rigid_delta.py)."""
import numpy as np
import pytest

import flexpkm as fp
from flexpkm.cases import delta as D
from tests.independent import rigid_delta as R

START, STOP, DURATION = np.array([0.0, 0.0, -0.80]), np.array([0.20, 0.10, -0.95]), 0.5


@pytest.fixture(scope="module")
def rigid():
    return fp.build_model(D.robot())


@pytest.fixture(scope="module")
def path(rigid):
    return D.idm_path(rigid, START, STOP, DURATION)


def test_closed_form_inverse_geometry_equals_assemble(rigid):
    poses = np.array([[0.0, 0.0, -0.8], [0.2, 0.1, -0.95], [-0.15, 0.12, -0.7], [0.1, -0.2, -1.0]])
    q_closed = D.configuration(rigid, poses)
    q_num = fp.assemble(rigid, pose=poses)
    assert np.abs(q_num - q_closed).max() < 1e-10
    assert np.abs(fp.closure_residual(rigid, q_closed)).max() < 1e-12
    # knee outward: the elbows are farther from the axis than the shoulders
    for leg in D.LEGS:
        assert np.all(np.cos(q_closed[:, rigid.layout.index(f"q{leg}1")]) > 0)


def test_independent_geometry_agrees(rigid):
    """The test model's closed form (written again) gives the same arm angles."""
    P = np.array([0.05, -0.1, -0.9])
    q = D.actuator_angles(P)
    for i in range(3):
        g = R.leg_geometry(P, i)
        assert abs(np.arctan2(g["sq"], g["cq"]) - q[i]) < 1e-14


def test_redundant_rows_rigid_and_flexible(rigid):
    q = D.configuration(rigid, np.array([0.05, 0.02, -0.85]))
    red = fp.full_dynamics(rigid, q, np.zeros(3)).rows
    assert len(red.kept) == 15 and len(red.dropped) == 15
    for leg in "123":
        dropped = sorted(comp for lab, lg, comp in red.dropped_labels if lg == leg and
                         lab.startswith("parallelogram"))
        assert dropped == ["v_z", "w_x", "w_y"]          # the out-of-plane rows of the planar loop
    assert "15 redundant" in red.summary()
    flex = fp.build_model(D.robot(flexible=True))
    modes = fp.natural_frequencies(flex, D.configuration(flex, np.array([0.05, 0.02, -0.85])))
    assert len(modes.reduced.rows.dropped) == 0          # elastic rods move the cut out of plane


def test_power_balance(rigid, path):
    """sum tau_i qd_i = dE/dt, E = T + V of the package's own model: T =
    qd_a^T M qd_a / 2 (differentiated in time on the 1 kHz grid, 6th order),
    dV/dt = -sum m g . v_c exactly from the bodies' centre velocities."""
    t, q_a, tau = path
    _, P, Pd, _ = D.straight_line(START, STOP, DURATION)
    q = D.configuration(rigid, P)
    fm = fp.full_dynamics(rigid, q, np.zeros((len(t), 3)))
    n_t = rigid.layout.n_t
    qd = np.linalg.solve(fm.J[:, n_t:], Pd[..., None])[..., 0]
    T = 0.5 * np.einsum("bi,bij,bj->b", qd, fm.M, qd)
    qd_t = np.einsum("bij,bj->bi", fm.J, qd)[:, :n_t]
    kin = fm.kin
    g = np.asarray(rigid.gravity)
    dV = -rigid.platform.body.invariants.m * (Pd @ g)
    for entry in rigid.body_entries:
        inv = entry.body.invariants
        c = np.einsum("bij,j->bi", kin.R[:, entry.frame], inv.ms_r / inv.m)
        v = (np.einsum("bij,bj->bi", kin.Jv[:, entry.frame], qd_t)
             + np.cross(np.einsum("bij,bj->bi", kin.Jw[:, entry.frame], qd_t), c))
        dV -= inv.m * (v @ g)
    w = np.array([-1, 9, -45, 0, 45, -9, 1]) / 60 / (t[1] - t[0])
    dT = np.convolve(T, w[::-1], mode="valid")
    power = np.sum(tau * qd, -1)[3:-3]
    err = np.abs(power - dT - dV[3:-3]).max()
    assert err < 1e-9 * np.abs(power).max()


def test_independent_lagrange_model(rigid, path):
    t, _, tau = path
    _, P, Pd, Pdd = D.straight_line(START, STOP, DURATION)
    scale = np.abs(tau).max()
    worst = 0.0
    for k in range(0, len(t), 5):
        tau_ref, _, _ = R.inverse_dynamics(P[k], Pd[k], Pdd[k])
        worst = max(worst, np.abs(tau[k] - tau_ref).max())
    assert worst < 1e-6 * scale


def test_per_limb_evaluation_equals_monolithic(rigid, path):
    """Müller's Fig. 13 / Eq. (144): limbs' task-space contributions computed
    on separate one-limb models and summed give the same torques."""
    from flexpkm.cases import delta_limbs as L
    t, _, tau = path
    _, P, Pd, Pdd = D.straight_line(START, STOP, DURATION)
    tau_limbs = L.idm_per_limb(L.limb_models(), P, Pd, Pdd,
                               rigid.robot.platform.body.invariants.m)
    assert np.abs(tau_limbs - tau).max() < 1e-10 * np.abs(tau).max()


def test_description_file_equals_the_python_description():
    """cases/delta.toml (representative limb + placements) is the same robot
    as robot(flexible=True): same coordinates, same frequencies."""
    from pathlib import Path
    from flexpkm.model import files
    path = Path(D.__file__).with_name("delta.toml")
    m_file = fp.build_model(files.load(path))
    m_py = fp.build_model(D.robot(flexible=True))
    assert m_file.layout.names == m_py.layout.names
    P = np.array([0.2, 0.1, -0.95])
    f = [fp.natural_frequencies(m, fp.assemble(m, pose=P), shapes=False).frequencies_hz
         for m in (m_file, m_py)]
    np.testing.assert_allclose(f[0], f[1], rtol=1e-10)
    assert fp.cases.get("delta").extra["idm"]


def test_projection_on_the_loops_uses_the_independent_rows(rigid):
    """The simulation's projection (project_on_loops) closes every loop of a
    perturbed rigid Delta although 15 of its 30 rows are redundant."""
    q = D.configuration(rigid, np.array([0.05, -0.03, -0.9]))
    dep = fp.full_dynamics(rigid, q, np.zeros(3)).dep
    rng = np.random.default_rng(2)
    q_pert = q + 1e-3 * rng.normal(size=q.size)
    q_proj, err = fp.project_on_loops(rigid, q_pert, dep)
    assert err < 1e-12 and np.abs(fp.closure_residual(rigid, q_proj)).max() < 1e-12
    indep = np.setdiff1d(np.arange(q.size), dep)
    np.testing.assert_array_equal(q_proj[indep], q_pert[indep])
    # off the loops (inside a time step), dep fixed: the 15 rows best conditioned on dep
    off = fp.full_dynamics(rigid, q_pert, np.zeros(3), dep=dep, loop_tol=None)
    assert len(off.rows.kept) == 15 and off.M.shape == (3, 3)


def potential(model, q_tot):
    """Gravitational energy (B,) J of every body and the platform at q_tot (B, n_tot)."""
    kin = fp.tree_kinematics(model, q_tot[:, :model.layout.n_t])
    g = np.asarray(model.gravity)
    P = q_tot[:, model.layout.n_t:]
    V = -model.robot.platform.body.invariants.m * (P @ g)
    for entry in model.body_entries:
        inv = entry.body.invariants
        c = kin.p[:, entry.frame] + np.einsum("bij,j->bi", kin.R[:, entry.frame], inv.ms_r / inv.m)
        V -= inv.m * (c @ g)
    return V


def test_simulation_with_redundant_rows_conserves_energy(rigid):
    """Free motion of the rigid Delta (actuators free, Newmark): the loops stay
    closed and kinetic + potential energy is conserved (dropped rows and the
    projection on the loops work along a simulation)."""
    q0 = D.configuration(rigid, np.array([0.05, 0.0, -0.85]))
    res = fp.simulate(rigid, q0, 0.1, fp.Free(), h=5e-4, dt_out=1e-2, hht_alpha=0.0, tol=1e-10,
                      backend="numpy")     # the compiled one: tests/compiled/test_compiled_simulate.py
    assert res.drift.max() < 1e-12
    E = res.energy + potential(rigid, res.q)
    assert res.energy[-1] > 1.0                         # it moved: 1.9 J of kinetic energy
    assert np.abs(E - E[0]).max() < 1e-5 * res.energy[-1]    # measured 4.6e-7
