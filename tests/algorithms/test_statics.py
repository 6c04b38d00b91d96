"""The static model (6.53) against finite virtual work, with the wrench's
generalized force checked against the full model; the linear static
deflection of a flexible robot against its own definition (K_r), the locked
actuators' efforts and the actuator-stiffness limit. The comparison with an
independent FE model (OpenSeesPy) is in tests/independent/test_opensees_five_bar.py."""
from pathlib import Path

import numpy as np
import pytest

import flexpkm as fp
from flexpkm.algorithms.statics import static_deflection, static_efforts
from flexpkm.cases import delta, rigid_five_bar as five_bar
from flexpkm.errors import InvalidArgumentError
from flexpkm.model import files

EXAMPLES = Path(five_bar.__file__).parent / "examples"


def _virtual_work(model, q_a, wrench, h=1e-6):
    """tau_k = -wrench . d(pose)/dq_ak by central differences of the
    assembled robot (forward geometric problem, elastic coordinates 0);
    the pose's rotation components as angles about fixed axes."""
    dofs = list(model.platform.dofs)
    out = []
    for e in np.eye(len(q_a)):
        dx = fp.assemble(model, q_a=q_a + h * e)[model.layout.n_t:] - \
            fp.assemble(model, q_a=q_a - h * e)[model.layout.n_t:]
        out.append(-np.asarray(wrench)[dofs] @ dx / (2 * h))
    return np.array(out)


@pytest.mark.parametrize("case, pose, wrench", [
    ("five_bar", (0.03, 0.24), [3.0, -5.0, 0, 0, 0, 0]),
    ("delta", (0.05, -0.03, -0.85), [10.0, -5.0, 20.0, 0, 0, 0]),
])
def test_static_efforts_equal_virtual_work_rigid(case, pose, wrench):
    module = {"five_bar": five_bar, "delta": delta}[case]
    model = fp.build_model(module.robot())
    q = module.configuration(model, *pose) if case == "five_bar" else \
        module.configuration(model, np.array(pose))
    tau = static_efforts(model, q, wrench)
    ref = _virtual_work(model, q[list(model.layout.actuated)], wrench)
    np.testing.assert_allclose(tau, ref, rtol=1e-7, atol=1e-7 * np.abs(ref).max())


@pytest.mark.parametrize("name, q_a, wrench", [
    ("five_bar.toml", [1.9, 1.2], [3.0, -5.0, 0, 0, 0, 0]),
    ("three_rrr.toml", None, [4.0, -2.0, 30.0, 0.5, -0.3, 1.5]),
])
def test_static_efforts_equal_virtual_work_flexible(name, q_a, wrench):
    """The rigid kinematics of a flexible robot (elastic coordinates held);
    the 3-RRR's out-of-plane force and moments are carried by the structure
    (no effort), its in-plane moment M_z by the actuators."""
    model = fp.build_model(files.load(EXAMPLES / name))
    q_a = [model.robot.reference[model.layout.names[c]] for c in model.layout.actuated] \
        if q_a is None else q_a
    q = fp.assemble(model, q_a=q_a)
    tau = static_efforts(model, q, wrench)
    ref = _virtual_work(model, q_a, wrench)
    np.testing.assert_allclose(tau, ref, rtol=1e-7, atol=1e-7 * np.abs(ref).max())


def test_static_efforts_batch_and_the_efforts_of_full_dynamics():
    """A batch gives a batch; at rest without gravity the inverse dynamics
    with the wrench in full_dynamics gives the same efforts."""
    model = fp.build_model(five_bar.robot())
    q = five_bar.configuration(model, np.array([0.0, 0.04]), np.array([0.22, 0.26]))
    w = np.array([[1.0, 2.0, 0, 0, 0, 0], [-3.0, 0.5, 0, 0, 0, 0]])
    tau = static_efforts(model, q, w)
    assert tau.shape == (2, 2)
    for b in range(2):
        full = fp.full_dynamics(model, q[b], 0.0, gravity=np.zeros(3), friction=False, wrench=w[b])
        np.testing.assert_allclose(fp.inverse_dynamics(full, np.zeros(2))[0], tau[b], rtol=1e-12)


def test_deflection_solves_K_r_and_the_locked_actuators_hold_the_wrench():
    model = fp.build_model(files.load(EXAMPLES / "five_bar.toml", elements=2))
    q = fp.assemble(model, q_a=[1.9, 1.2])
    w = np.array([3.0, -5.0, 0, 0, 0, 0])
    d = static_deflection(model, q, w)
    red = fp.reduced_matrices(model, q)
    Q = red.J.T @ np.r_[np.zeros(model.layout.n_t), w[:2]]
    na = red.n_a
    assert np.all(d.dq_r[:na] == 0.0)
    np.testing.assert_allclose(red.K_r[na:] @ d.dq_r, Q[na:], rtol=0, atol=1e-9 * np.abs(Q).max())
    np.testing.assert_allclose(d.tau, static_efforts(model, q, w), rtol=1e-9)
    np.testing.assert_allclose(d.dq_tot, red.J @ d.dq_r, rtol=1e-14)
    assert d.dx_p @ w[:2] > 0                          # the load does positive work
    # linear in the wrench
    np.testing.assert_allclose(static_deflection(model, q, -2 * w).dx_p, -2 * d.dx_p, rtol=1e-12)


def test_actuator_stiffness_tends_to_locked_and_gives_tau():
    model = fp.build_model(files.load(EXAMPLES / "five_bar.toml"))
    q = fp.assemble(model, q_a=[1.9, 1.2])
    w = np.array([3.0, -5.0, 0, 0, 0, 0])
    locked = static_deflection(model, q, w)
    previous = np.inf
    for k in (1e3, 1e5, 1e7):
        d = static_deflection(model, q, w, actuator_stiffness=[k, k])
        np.testing.assert_allclose(d.tau, -k * d.dq_r[:2], rtol=1e-12)
        gap = np.abs(d.dx_p - locked.dx_p).max()
        assert gap < previous
        previous = gap
    assert previous < 1e-4 * np.abs(locked.dx_p).max()
    rigid = fp.build_model(five_bar.robot())
    qr = five_bar.configuration(rigid, 0.0, 0.25)
    assert np.all(static_deflection(rigid, qr, w).dx_p == 0.0)   # nothing to deflect


def test_wrench_refusals():
    model = fp.build_model(five_bar.robot())
    q = five_bar.configuration(model, 0.0, 0.25)
    with pytest.raises(InvalidArgumentError, match="Mz .* no platform coordinate"):
        static_efforts(model, q, [1.0, 0, 0, 0, 0, 0.1])
    with pytest.raises(InvalidArgumentError, match=r"\(6,\)"):
        fp.full_dynamics(model, q, 0.0, wrench=[1.0, 2.0])
    with pytest.raises(InvalidArgumentError, match="finite"):
        static_deflection(model, q, [np.nan, 0, 0, 0, 0, 0])
    with pytest.raises(InvalidArgumentError, match="actuator_stiffness"):
        static_deflection(model, q, [1.0, 0, 0, 0, 0, 0], actuator_stiffness=[1.0])
