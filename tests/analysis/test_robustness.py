"""Bounded and interruptible analyses: simulate's time arguments are checked
before anything is allocated; Ctrl-C (a KeyboardInterrupt raised from the
progress callback, as the signal handler would) gives back the complete
samples / poses in :class:`flexpkm.errors.Interrupted`."""
import numpy as np
import pytest

from flexpkm.analysis.simulate import MAX_SAMPLES, simulate
from flexpkm.analysis.simulation_options import MAX_SUBSTEPS
from flexpkm.analysis.sweep import MAX_POSES, frequency_sweep, path_poses
from flexpkm.cases import dualemps as D
from flexpkm.errors import Interrupted, InvalidArgumentError


@pytest.fixture(scope="module")
def sim():
    from flexpkm import cases
    return cases.get("dualemps").simulation("edge", "prescribed", {})


@pytest.mark.parametrize("t_end, h, match", [
    (float("nan"), 2.5e-4, "t_end"), (float("inf"), 2.5e-4, "t_end"), (1e9, 2.5e-4, "samples"),
    (0.01, 1e-300, "steps per output"), (0.01, float("nan"), "h"), (1e-4, 2.5e-5, "shorter"),
    (0.01, -1.0, "h"), ("1", 2.5e-4, "t_end"), (True, 2.5e-4, "t_end")])
def test_simulate_refuses_unbounded_or_empty_runs(sim, t_end, h, match):
    robot, q0, drive, sensors = sim
    with pytest.raises(InvalidArgumentError, match=match):
        simulate(robot, q0, t_end, drive, h=h)
    assert MAX_SUBSTEPS * 1e-7 >= 1e-3 and MAX_SAMPLES >= 1e6   # what the bounds still allow


@pytest.mark.parametrize("kw", [dict(gravity=(0.0, -9.81)), dict(gravity=(0, float("nan"), 0)),
                                dict(hht_alpha=0.5), dict(hht_alpha=float("nan"))])
def test_simulate_refuses_bad_gravity_and_damping(sim, kw):
    robot, q0, drive, sensors = sim
    with pytest.raises(InvalidArgumentError, match=next(iter(kw))):
        simulate(robot, q0, 0.01, drive, **kw)


@pytest.mark.parametrize("which, bad", [("q0_tot", "short"), ("q0_tot", "two"), ("q0_tot", "nan"),
                                        ("qd0_r", "short")])
def test_simulate_checks_its_initial_state(sim, which, bad):
    robot, q0, drive, sensors = sim
    x = {"short": q0[:3], "two": np.stack([q0, q0]), "nan": np.where(q0 == q0[0], np.nan, q0)}[bad]
    kw = {"q0_tot": x} if which == "q0_tot" else {"q0_tot": q0, "qd0_r": x}
    with pytest.raises(InvalidArgumentError, match=which):
        simulate(robot, t_end=0.002, drive=drive, **kw)


def test_simulate_interrupt_keeps_the_complete_samples(sim):
    robot, q0, drive, sensors = sim

    def ctrl_c(done, total):
        if done == 7:
            raise KeyboardInterrupt

    with pytest.raises(Interrupted) as e:
        simulate(robot, q0, 0.05, drive, sensors=sensors, progress=ctrl_c)
    res = e.value.partial
    assert isinstance(e.value, KeyboardInterrupt)
    assert res.t.shape == (8,) and res.q.shape[0] == 8 and res.tau.shape == (8, 2)
    assert all(v.shape == (8,) for v in res.sensors.values())
    full = simulate(robot, q0, 0.007, drive, sensors=sensors)
    assert np.array_equal(full.q, res.q) and np.array_equal(full.tau, res.tau)
    assert full.cost["h"] == pytest.approx(2.5e-4)


def test_sweep_interrupt_keeps_the_finished_chunks():
    model = D.robot()
    from flexpkm.model.build import build_structure
    model = build_structure(model)
    calls = []

    def ctrl_c(done, total):
        calls.append(done)
        if done > 2 * 6:                             # after the second chunk's configurations
            raise KeyboardInterrupt

    with pytest.raises(Interrupted) as e:
        frequency_sweep(model, lambda p: D.configuration(model, *p), (0, 0), (0.1, 0), 20,
                        chunk=3, progress=ctrl_c)
    part = e.value.partial
    assert not part.complete and part.frequencies_hz.shape == (6, 5) and len(part.status) == 6
    whole = frequency_sweep(model, lambda p: D.configuration(model, *p), (0, 0), (0.1, 0), 20)
    assert np.allclose(part.frequencies_hz, whole.frequencies_hz[:6], rtol=1e-12)
    assert np.array_equal(part.poses, whole.poses[:6])


def test_sweep_masks_bad_poses_with_their_true_index_and_measures():
    from flexpkm.model.build import build_structure
    model = build_structure(D.robot())
    res = frequency_sweep(model, lambda p: D.configuration(model, *p), (0, 0), (0.3, 0.3), 11,
                          chunk=4, on_error="nan")
    bad = [k for k, s in enumerate(res.status) if s != "ok"]
    assert bad == [k for k in range(11) if res.poses[k, 0] > 0.225 + 1e-12]   # the stroke
    assert np.isnan(res.frequencies_hz[bad]).all() and np.isfinite(np.delete(res.frequencies_hz, bad, 0)).all()
    assert np.isnan(res.measures["cond_closure"][bad]).all()
    assert (res.measures["cond_closure"][:bad[0]] >= 1).all()
    with pytest.raises(Exception, match=f"pose {bad[0]} "):
        frequency_sweep(model, lambda p: D.configuration(model, *p), (0, 0), (0.3, 0.3), 11,
                        chunk=4)


@pytest.mark.parametrize("start, stop, steps", [((0, float("nan")), (0, 0), 3),
                                                ((0, 0), (0, 0), MAX_POSES + 1), ((0,), (0, 0), 3)])
def test_path_poses_checked_before_allocation(start, stop, steps):
    with pytest.raises(InvalidArgumentError):
        path_poses(start, stop, steps)


def test_non_finite_poses_are_refused_by_the_geometric_models():
    from flexpkm.cases import navaro
    from flexpkm.model.build import build_structure
    model = build_structure(D.robot())
    with pytest.raises(InvalidArgumentError, match="q11"):
        D.configuration(model, float("nan"), 0.0)
    nav = build_structure(navaro.robot())
    with pytest.raises(InvalidArgumentError, match="not finite"):
        navaro.pose_configurations(nav, [[0, 0, 0], [0, float("inf"), 0]])


def test_drives_check_their_parameters():
    from flexpkm.analysis.drives import EffortHistory, PDControl, PrescribedMotion
    traj = lambda t: (np.zeros((1, 2)),) * 3
    with pytest.raises(InvalidArgumentError, match="trajectory"):
        PrescribedMotion(np.zeros(2))
    with pytest.raises(InvalidArgumentError, match="kp"):
        PDControl(traj, kp=[float("nan"), 1.0], kd=1.0)
    with pytest.raises(InvalidArgumentError, match="kd"):
        PDControl(traj, kp=1.0, kd=-1.0)
    with pytest.raises(InvalidArgumentError, match="tau_of_t"):
        EffortHistory([1.0, 2.0])
    assert PDControl(traj, kp=[1.0, 2.0], kd=0.0).gains(2)[0].tolist() == [1.0, 2.0]


def test_sweep_across_a_type2_singularity_marks_the_poses_near_it():
    """NaVARo, q_i1 actuated, theta from -0.6 to -0.45 rad (singular at
    -0.527572): the poses within ~2e-3 rad are computed and marked
    near-singular (or singular, masked), the others ok."""
    from flexpkm.cases import navaro
    from flexpkm.model.build import build_structure
    model = build_structure(navaro.robot(actuation="111"))
    res = frequency_sweep(model, lambda p: navaro.configuration(model, *p), (0, 0, -0.6),
                          (0, 0, -0.45), 76, n_modes=2, on_error="nan")
    dist = np.abs(res.poses[:, 2] + 0.527572)
    near = np.array([s != "ok" for s in res.status])
    assert near.any() and (dist[near] < 3e-3).all() and (dist[~near] > 1e-3).all()
    assert all(s == "near-singular" or s.startswith("SingularConfigurationError")
               for s in np.array(res.status)[near])
    m = res.measures["singularity_measure"]
    assert (m[dist > 0.02] > 1e-7).all()


def test_a_sweep_with_no_computable_pose_has_no_frequency_column():
    """All poses unreachable and n_modes huge: no column per requested mode
    (20,000 NaN columns and a plot of 20,000 lines, before)."""
    from flexpkm.model.build import build_structure
    model = build_structure(D.robot())
    res = frequency_sweep(model, lambda p: D.configuration(model, *p), (1, 1), (0.5, 3), 3,
                          n_modes=20000, on_error="nan")
    assert res.frequencies_hz.shape == (3, 0)
    mixed = frequency_sweep(model, lambda p: D.configuration(model, *p), (0, 0), (1, 0), 4,
                            n_modes=20000, chunk=1, on_error="nan")
    assert mixed.frequencies_hz.shape == (4, 9) and np.isnan(mixed.frequencies_hz[1:]).all()
