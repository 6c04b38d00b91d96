"""Ground reactions along a simulation: a prescribed motion of the rigid
five-bar against the book's (8.207)-(8.215) at the samples (the actuators'
accelerations from the motion law, the passive ones from J and b), and the
flexible five-bar's legs summing to the total in the plane."""
from pathlib import Path

import numpy as np

import flexpkm as fp
from flexpkm.analysis.ground_history import simulation_ground_reactions
from flexpkm.cases import rigid_five_bar as five_bar
from flexpkm.model import files

from ..algorithms import book_five_bar as bk


def _move(model, q0, target, duration):
    """A prescribed quintic move; loops closed at every step (the recorded
    efforts come from the model before the projection of the sample: with
    the default projection at the outputs they satisfy (10.123) at the
    recorded state to 8e-7 only, with ``project="step"`` to 7e-8)."""
    q_a0 = q0[list(model.layout.actuated)]
    traj = fp.Trajectory(np.array([q_a0, target]), (duration,), (0.0,))
    return traj, fp.simulate(model, q0, duration, fp.PrescribedMotion(traj), friction=False,
                             backend="numpy", h=5e-4, dt_out=5e-3, project="step")


def test_prescribed_five_bar_equals_8_215_at_the_samples():
    model = fp.build_model(bk.robot(gravity=(0.0, 0.0, 0.0)))
    q0 = five_bar.configuration(model, 0.0, 0.24)
    target = five_bar.configuration(model, 0.03, 0.26)[list(model.layout.actuated)]
    traj, res = _move(model, q0, target, 0.1)
    gr = simulation_ground_reactions(model, res, friction=False)
    assert gr.total.shape == (len(res.t), 6)
    _, _, qdd_a = traj(res.t)
    worst = 0.0
    for k in range(1, len(res.t) - 1):
        full = fp.full_dynamics(model, res.q[k], res.qd_r[k])
        qd, qdd = full.J @ res.qd_r[k], full.J @ qdd_a[k] + full.b
        name = lambda v: dict(zip(model.layout.names, v))
        ref = bk.ground_wrench(name(res.q[k]), name(qd), name(qdd), np.r_[res.q[k, -2:], 0],
                               qdd[-2:])
        worst = max(worst, np.abs(gr.total[k] - ref).max() / np.abs(ref).max())
    assert worst < 1e-6                     # measured 5.4e-7


def test_flexible_legs_sum_to_the_total_in_the_plane():
    path = Path(five_bar.__file__).parent / "examples" / "five_bar.toml"
    model = fp.build_model(files.load(path))
    q0 = fp.assemble(model, q_a=[1.9, 1.2])
    _, res = _move(model, q0, [2.0, 1.1], 0.02)
    gr = simulation_ground_reactions(model, res, friction=False)
    plane = [0, 1, 5]
    np.testing.assert_allclose(sum(gr.legs.values())[:, plane], gr.total[:, plane],
                               atol=1e-9 * np.abs(gr.total).max())


def test_blocks_of_samples_do_not_change_the_reactions(monkeypatch):
    """The samples in blocks of 3 (the last one partial) give the reactions
    of one block of all (the flexible five-bar; block_size by the stacked
    Jacobian's bytes, within its bounds)."""
    from flexpkm.analysis import ground_history as gh
    path = Path(five_bar.__file__).parent / "examples" / "five_bar.toml"
    model = fp.build_model(files.load(path))
    assert gh.BLOCK_MIN <= gh.block_size(model) <= gh.BLOCK_MAX
    _, res = _move(model, fp.assemble(model, q_a=[1.9, 1.2]), [2.0, 1.1], 0.02)
    whole = simulation_ground_reactions(model, res, friction=False)
    monkeypatch.setattr(gh, "BLOCK_MIN", 3)
    monkeypatch.setattr(gh, "BLOCK_MAX", 3)
    assert gh.block_size(model) == 3 and len(res.t) % 3
    parts = simulation_ground_reactions(model, res, friction=False)
    scale = np.abs(whole.total).max()
    for a, b in [(whole.total, parts.total), (whole.platform, parts.platform)] + [
            (whole.legs[k], parts.legs[k]) for k in whole.legs]:
        assert a.shape == (len(res.t), 6)
        np.testing.assert_allclose(b, a, rtol=0, atol=1e-12 * scale)
