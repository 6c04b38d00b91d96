"""The regressor W of the IDM in the standard parameters (Briot & Khalil
(8.256)-(8.265)): ``W chi`` equals the present IDM
(:func:`flexpkm.inverse_dynamics`, the full model (10.123)-(10.124)) for
the file's parameters and for random ones (the IDM is linear in them:
every column checked), refused for flexible bodies."""
from dataclasses import replace

import numpy as np
import pytest

import flexpkm as fp
from flexpkm import cases
from flexpkm.algorithms.dynamics import full_dynamics, inverse_dynamics
from flexpkm.cases.file_case import shipped_robot
from flexpkm.elements.rigid import RigidBody
from flexpkm.errors import InvalidArgumentError
from flexpkm.identification.base import random_states
from flexpkm.identification.regressor import regressor
from flexpkm.identification.standard import INERTIAL, link_frames, standard_parameters

ROBOTS = ["rigid_five_bar", "orthoglide", "three_rpr"]


def _idm(model, q, qd_a, qdd_a):
    """tau (B, n_a) of the present IDM, actuators in layout order."""
    full = full_dynamics(model, q, qd_a)
    assert list(full.indep) == list(model.layout.actuated)
    return inverse_dynamics(full, qdd_a)[0]


def _random_robot(robot, model, rng):
    """``robot`` with random standard parameters on every link, platform and joint."""
    def body():                         # three point masses: a physical body
        points = [RigidBody.point_mass(rng.uniform(0.1, 1), rng.uniform(-0.2, 0.2, 3))
                  for _ in range(3)]
        return RigidBody(**{k: sum(p.standard_parameters[k] for p in points) for k in INERTIAL})
    names = [model.frames[j].name for j in link_frames(model)]
    joints = list(model.layout.joint_index)
    return replace(robot, bodies={n: (body(),) for n in names},
                   platform=replace(robot.platform, body=body()),
                   rotor_inertia={n: rng.uniform(0.1, 1) for n in joints
                                  if n in robot.rotor_inertia or model.frames[
                                      model.frame_index[n]].mu == 1},
                   viscous_friction={n: rng.uniform(0.1, 1) for n in joints},
                   coulomb_friction={n: rng.uniform(0.1, 1) for n in joints})


@pytest.mark.parametrize("name", ROBOTS)
def test_w_chi_is_the_idm(name):
    model = fp.build_model(fp.load_robot(cases.file_of(name)))
    q, qd, qdd = random_states(model, 6, seed=1)
    W = regressor(model, q, qd, qdd)
    tau = _idm(model, q, qd, qdd)
    chi = standard_parameters(model).values
    assert np.abs(W @ chi - tau).max() <= 1e-12 * np.abs(tau).max()
    one = regressor(model, q[0], qd[0], qdd[0])            # one state in, one out
    assert one.shape == W.shape[1:] and np.allclose(one, W[0], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["rigid_five_bar", "orthoglide"])
def test_every_column_random_parameters(name):
    """Linearity: W of the file's geometry times random standard parameters
    is the IDM of the robot carrying them (every column of W exercised)."""
    robot = fp.load_robot(cases.file_of(name))
    model = fp.build_model(robot)
    q, qd, qdd = random_states(model, 5, seed=2)
    W = regressor(model, q, qd, qdd)
    for seed in (3, 4):
        other = fp.build_model(_random_robot(robot, model, np.random.default_rng(seed)))
        std = standard_parameters(other)
        assert std.symbols == standard_parameters(model).symbols
        tau = _idm(other, q, qd, qdd)
        assert np.abs(W @ std.values - tau).max() <= 1e-12 * np.abs(tau).max()


def test_flexible_and_redundant_refused():
    flexible = cases.file_of("orthoglide").parent / "examples" / "orthoglide_flexible.toml"
    model = fp.build_model(fp.load_robot(flexible))
    q = fp.reference_configuration(model)
    with pytest.raises(InvalidArgumentError, match="flexible bodies.*rigid robots"):
        regressor(model, q, np.zeros(3), np.zeros(3))
    sprung = replace(fp.load_robot(cases.file_of("rigid_five_bar")), joint_stiffness={"11": 10.0})
    with pytest.raises(InvalidArgumentError, match="joint springs \\(11\\)"):
        regressor(sprung, fp.reference_configuration(fp.build_model(sprung)), [0, 0], [0, 0])
    dualv = fp.build_model(shipped_robot("dualv"))
    q = fp.reference_configuration(dualv)
    n_a = len(dualv.layout.actuated)
    with pytest.raises(InvalidArgumentError, match="actuation redundancy"):
        regressor(dualv, q, np.zeros(n_a), np.zeros(n_a))


def _energy_functions(model, q, qd):
    """(B, n_st): ``e_k + u_k`` of the book's (8.234)-(8.252) for each
    inertial column (kinetic and gravity energy of a unit parameter), and
    ``qd^2 / 2`` for a rotor inertia; 0 for friction."""
    from flexpkm.algorithms.platform import platform_pose, selection
    from flexpkm.algorithms.tree import tree_kinematics
    layout, g = model.layout, np.asarray(model.gravity)
    std = standard_parameters(model)
    kin = tree_kinematics(model, q[:, :layout.n_t])
    out = np.zeros((len(q), len(std.symbols)))
    for k, (j, kind) in enumerate(zip(std.frames, std.kinds)):
        if kind in ("FV", "FS"):
            continue
        if kind == "IA":
            out[:, k] = 0.5 * qd[:, layout.joint_index[model.frames[j].name]] ** 2
            continue
        if j < 0:
            R, p = platform_pose(model, q)
            t = qd[:, layout.n_t:] @ selection(model.platform).T
            vel, omega = t[:, :3], t[:, 3:]
        else:
            R, p = kin.R[:, j], kin.p[:, j]
            vel = (kin.Jv[:, j] @ qd[:, :layout.n_t, None])[..., 0]
            omega = (kin.Jw[:, j] @ qd[:, :layout.n_t, None])[..., 0]
        v = np.einsum("bji,bj->bi", R, vel)               # ^ij v_ij, ^ij omega_ij
        w1, w2, w3 = np.einsum("bji,bj->bi", R, omega).T
        v1, v2, v3 = v.T
        e = {"XX": w1 * w1 / 2, "XY": w1 * w2, "XZ": w1 * w3, "YY": w2 * w2 / 2, "YZ": w2 * w3,
             "ZZ": w3 * w3 / 2, "MX": w3 * v2 - w2 * v3, "MY": w1 * v3 - w3 * v1,
             "MZ": w2 * v1 - w1 * v2, "M": np.sum(v * v, axis=1) / 2}          # (8.234)-(8.243)
        u = {"MX": -R[:, :, 0] @ g, "MY": -R[:, :, 1] @ g, "MZ": -R[:, :, 2] @ g,
             "M": -p @ g}                                                      # (8.249)-(8.252)
        out[:, k] = e[kind] + u.get(kind, 0.0)
    return out


@pytest.mark.parametrize("name", ["rigid_five_bar", "orthoglide"])
def test_power_of_every_column_is_its_energy_rate(name):
    """Each column's power ``qd_a . W_k`` is the time derivative of the
    book's energy functions of that parameter (8.231)-(8.255): the
    Lagrangian route of Section 8.7.2, independent of the Newton-Euler one,
    along a trajectory (fourth-order central differences, 1 ms)."""
    from flexpkm.identification.exciting import ExcitingTrajectory
    from flexpkm.identification.path import assemble_path
    model = fp.build_model(shipped_robot(name, gravity=(0.3, -2.0, -9.81)))
    q0 = fp.reference_configuration(model)[list(model.layout.actuated)]
    rng = np.random.default_rng(7)
    tr = ExcitingTrajectory(q0, 0.004 * rng.standard_normal((len(q0), 2)),
                            0.004 * rng.standard_normal((len(q0), 2)), 0.5, ())
    t = np.arange(301) * 1e-3
    qa, qda, qdda = tr.states(t)
    q = assemble_path(model, qa)
    full = full_dynamics(model, q, qda)
    qd = (full.J @ qda[..., None])[..., 0]
    W = regressor(model, q, qda, qdda, friction=False, full=full)
    power = np.einsum("ba,bak->bk", qda, W)
    E = _energy_functions(model, q, qd)
    rate = (E[:-4] - 8 * E[1:-3] + 8 * E[3:-1] - E[4:]) / 12e-3       # O(h^4) central
    error = np.abs(power[2:-2] - rate)
    assert error.max() <= 1e-6 * np.abs(power).max()
    scale = np.abs(power).max(axis=0)
    live = scale > 1e-6 * scale.max()                  # every column that moves
    assert live.sum() >= 10 and (error.max(axis=0)[live] / scale[live]).max() < 1e-5
