import numpy as np

from flexpkm.analysis.trajectories import Trajectory, quintic


def test_quintic_boundary_conditions_and_derivatives():
    s, ds, dds = quintic(np.array([0.0, 1.0]))
    np.testing.assert_allclose(s, [0, 1]); np.testing.assert_allclose(ds, [0, 0])
    np.testing.assert_allclose(dds, [0, 0], atol=1e-12)
    t = np.linspace(0.05, 0.95, 19)
    h = 1e-6
    np.testing.assert_allclose(quintic(t)[1], (quintic(t + h)[0] - quintic(t - h)[0]) / (2 * h), atol=1e-7)
    np.testing.assert_allclose(quintic(t)[2], (quintic(t + h)[1] - quintic(t - h)[1]) / (2 * h), atol=1e-6)


def test_trajectory_segments_and_rest():
    tr = Trajectory(np.array([[0, 0], [0.2, 0], [0.2, 0.1]]), (1.8, 1.0), (1.2, 0.5))
    q, qd, qdd = tr(np.array([0.0, 0.9, 1.8, 2.5, 3.0, 3.5, 4.5]))
    np.testing.assert_allclose(q[0], [0, 0]); np.testing.assert_allclose(q[1], [0.1, 0])
    np.testing.assert_allclose(q[3], [0.2, 0]); np.testing.assert_allclose(qd[3], [0, 0])
    np.testing.assert_allclose(q[5], [0.2, 0.05]); np.testing.assert_allclose(q[6], [0.2, 0.1])
    assert tr.duration == 4.5
