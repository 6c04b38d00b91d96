"""M_t and c_t of the virtual tree (10.99)-(10.103): M_t is the Hessian of the
kinetic energy computed from finite-differenced frame poses; c_t satisfies
Lagrange's equations (Coriolis/centrifugal from dM/dq, gravity from the
potential energy of the centres of mass, elasticity from K_ee)."""
import numpy as np

from flexpkm.elements import newton_euler as ne
from flexpkm.algorithms.tree import tree_kinematics
from flexpkm.algorithms.virtual_system import tree_bias_forces, tree_mass_matrix
from flexpkm.model import build_structure

from tests.conftest import random_state, spatial_tree


def kinetic_energy_fd(robot, q, qd, eps=1e-6):
    """Kinetic energy from finite differences of the frame poses (no Jacobian)."""
    kp = tree_kinematics(robot, q + eps * qd)
    km = tree_kinematics(robot, q - eps * qd)
    k0 = tree_kinematics(robot, q)
    T = 0.0
    for j, body, sl in ((e.frame, e.body, e.elastic) for e in build_structure(robot).body_entries):
        R = k0.R[0, j]
        v = R.T @ (kp.p[0, j] - km.p[0, j]) / (2 * eps)
        W = R.T @ (kp.R[0, j] - km.R[0, j]) / (2 * eps)
        w = np.array([W[2, 1], W[0, 2], W[1, 0]])
        qe = q[sl] if sl is not None else np.zeros(0)
        qde = qd[sl] if sl is not None else np.zeros(0)
        T += ne.kinetic_energy(body.invariants, np.concatenate([v, w]), qe, qde)
    return float(T)


def potential_energy(robot, q, g):
    """Gravity + elastic potential energy from the frame poses."""
    k = tree_kinematics(robot, q)
    V = 0.5 * q @ build_structure(robot).K_tot[:robot.layout.n_t, :robot.layout.n_t] @ q
    for j, body, sl in ((e.frame, e.body, e.elastic) for e in build_structure(robot).body_entries):
        inv = body.invariants
        ms = inv.ms_r + (inv.MS_de @ q[sl] if sl is not None else 0.0)
        V -= g @ (inv.m * k.p[0, j] + k.R[0, j] @ ms)
    return V


def test_mass_matrix_is_kinetic_energy_hessian():
    robot = spatial_tree()
    q, _, _ = random_state(robot, seed=5)
    M = tree_mass_matrix(robot, q)[0]
    rng = np.random.default_rng(0)
    for _ in range(5):
        qd = rng.uniform(-1, 1, q.size)
        assert abs(0.5 * qd @ M @ qd - kinetic_energy_fd(robot, q, qd)) < 1e-7 * (qd @ M @ qd)
    np.testing.assert_allclose(M, M.T, atol=1e-14)
    assert np.linalg.eigvalsh(M).min() > 0


def test_bias_forces_satisfy_lagrange_equations():
    g = np.array([0.3, -1.0, -9.81])
    robot = spatial_tree(gravity=g)
    q, qd, _ = random_state(robot, seed=6)
    c = tree_bias_forces(robot, q, qd, friction=False)[0]
    n = q.size
    eps = 1e-6
    # d/dt (M qd) - dT/dq + dV/dq with qdd = 0
    Mdot = (tree_mass_matrix(robot, q + eps * qd)[0] - tree_mass_matrix(robot, q - eps * qd)[0]) / (2 * eps)
    dT = np.zeros(n)
    dV = np.zeros(n)
    for i in range(n):
        e = np.zeros(n)
        e[i] = eps
        Mp, Mm = tree_mass_matrix(robot, q + e)[0], tree_mass_matrix(robot, q - e)[0]
        dT[i] = 0.5 * qd @ (Mp - Mm) @ qd / (2 * eps)
        dV[i] = (potential_energy(robot, q + e, g) - potential_energy(robot, q - e, g)) / (2 * eps)
    lagrange = Mdot @ qd - dT + dV
    assert np.max(np.abs(c - lagrange)) < 1e-6 * np.abs(lagrange).max()


def test_power_balance_without_gravity():
    robot = spatial_tree(gravity=(0.0, 0.0, 0.0))
    q, qd, _ = random_state(robot, seed=7)
    c = tree_bias_forces(robot, q, qd, friction=False)[0]
    eps = 1e-6
    Mdot = (tree_mass_matrix(robot, q + eps * qd)[0] - tree_mass_matrix(robot, q - eps * qd)[0]) / (2 * eps)
    K = build_structure(robot).K_tot[:robot.layout.n_t, :robot.layout.n_t]
    # tau . qd = dE/dt with qdd = 0: qd^T c = 1/2 qd^T Mdot qd + qd^T K q
    lhs = qd @ c
    rhs = 0.5 * qd @ Mdot @ qd + qd @ K @ q
    assert abs(lhs - rhs) < 1e-7 * abs(rhs)


def test_many_point_masses_of_one_frame_are_one_rigid_body():
    """Issue 16 item 8: 2,000 point masses on one frame took 1.25 GB (a dense
    12,000 x 12,000 stacked mass). They are one entry now: M_t and c_t equal
    those of the single rigid body with the summed standard parameters
    (m, m c, sum m (|p|^2 1 - p p^T): the parallel-axis sums, computed here
    independently), and building the model costs no memory worth counting."""
    import dataclasses
    import resource
    from flexpkm.cases import rigid_five_bar as five_bar
    from flexpkm.elements.rigid import RigidBody
    from flexpkm.algorithms.virtual_system import tree_dynamics
    rob = five_bar.robot()
    rng = np.random.default_rng(3)
    m, P = rng.uniform(1e-3, 2e-3, 2000), rng.normal(scale=0.05, size=(2000, 3))
    points = tuple(RigidBody.point_mass(mi, tuple(p)) for mi, p in zip(m, P))
    I = np.einsum("k,kij->ij", m, np.einsum("ki,ki->k", P, P)[:, None, None] * np.eye(3)
                  - P[:, :, None] * P[:, None, :])
    ms = m @ P
    one = RigidBody(XX=I[0, 0], XY=I[0, 1], XZ=I[0, 2], YY=I[1, 1], YZ=I[1, 2], ZZ=I[2, 2],
                    MX=ms[0], MY=ms[1], MZ=ms[2], M=m.sum())
    frame = "12"
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    many = build_structure(dataclasses.replace(rob, bodies={**rob.bodies, frame: points}))
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100_000    # kB
    single = build_structure(dataclasses.replace(rob, bodies={**rob.bodies, frame: (one,)}))
    q, qd = rng.normal(size=(4, many.layout.n_t)), rng.normal(size=(4, many.layout.n_t))
    for a, b in zip(tree_dynamics(many, q, qd), tree_dynamics(single, q, qd)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12 * np.abs(b).max())


def test_one_pass_mass_matrix_on_the_column_groups_is_the_kinetic_energy_hessian():
    """tree_dynamics' M_t, summed leg by leg on the columns each body can
    depend on (model.stacked.columns: leading blocks on a chain, scattered
    columns on the Delta's and the five-bar's branches), against finite
    differences of the frame poses."""
    from pathlib import Path
    from flexpkm.algorithms.virtual_system import tree_dynamics
    from flexpkm.model.files import load
    cases = Path(__file__).resolve().parents[2] / "cases"
    for path in (cases / "delta.toml", cases / "examples" / "five_bar.toml", cases / "dualemps.toml"):
        robot = build_structure(load(path, elements=2))
        entries = robot.stacked.columns.entries.values()
        rng = np.random.default_rng(3)
        q = rng.uniform(-0.3, 0.3, robot.layout.n_t)
        M = tree_dynamics(robot, q, np.zeros_like(q), friction=False)[0][0]
        for _ in range(3):
            qd = rng.uniform(-1, 1, q.size)
            assert abs(0.5 * qd @ M @ qd - kinetic_energy_fd(robot, q, qd)) < 1e-7 * (qd @ M @ qd)
        if path.stem != "dualemps":
            assert any(not isinstance(at, int) for _, _, at in entries)   # both branches run
