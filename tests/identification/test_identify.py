"""Identification of the five-bar's base parameters from simulated
measurements (the present IDM along an exciting trajectory, 1 % Gaussian
noise on the efforts, a fixed seed): the file's base parameters recovered
within three standard deviations; without noise, to the accuracy of the
Savitzky-Golay differentiation. The CSV of a measurement and the refusals."""
import numpy as np
import pytest

import flexpkm as fp
from flexpkm import cases
from flexpkm.errors import InvalidArgumentError
from flexpkm.identification.base import base_parameters
from flexpkm.identification.data import Measurement, differentiate, read_csv, write_csv
from flexpkm.identification.exciting import exciting_trajectory, simulate_measurement
from flexpkm.identification.identify import identify


@pytest.fixture(scope="module")
def setup():
    model = fp.build_model(fp.load_robot(cases.file_of("rigid_five_bar")))
    bp = base_parameters(model)
    trajectory = exciting_trajectory(model, period=1.0, amplitude=0.03, evaluations=1, base=bp)
    return model, bp, trajectory


def test_noisy_measurement_recovers_the_base_parameters(setup):
    model, bp, trajectory = setup
    data = simulate_measurement(model, trajectory, duration=2.0, rate=500.0, noise=0.01, seed=0)
    res = identify(model, data, base=bp)
    z = (res.values - bp.values) / res.std
    assert np.abs(z).max() < 3.0, dict(zip(bp.symbols, z.round(2)))
    assert np.abs(z).mean() < 1.5                 # about one standard deviation on average
    assert 190 <= res.samples <= 200 and res.cond < 2e4
    for s in ("FV11", "FS11", "FV21", "FS21"):    # the actuators' friction: well excited
        assert res.relative_std[bp.symbols.index(s)] < 5.0
    # the noise estimated per actuator: 1 % of the rms effort
    rms = np.sqrt(np.mean(data.tau ** 2, axis=0))
    assert np.allclose(res.sigma, 0.01 * rms, rtol=0.2)


def test_without_noise_only_the_differentiation_error_remains(setup):
    model, bp, trajectory = setup
    data = simulate_measurement(model, trajectory, duration=1.0, rate=1000.0, noise=0.0)
    q, qd, qdd = differentiate(data)
    exact = trajectory.states(data.t)
    assert np.abs(qdd - exact[2]).max() < 1e-3 * np.abs(exact[2]).max()
    res = identify(model, data, base=bp)
    assert np.abs(res.values - bp.values).max() < 1e-3 * np.abs(bp.values).max()


def test_csv_round_trip_and_refusals(setup, tmp_path):
    model, bp, trajectory = setup
    data = simulate_measurement(model, trajectory, duration=1.0, rate=200.0, noise=0.01)
    path = write_csv(tmp_path / "m.csv", data)
    assert path.read_text().splitlines()[0] == "t,q11,q21,tau_q11,tau_q21"
    back = read_csv(path, model)
    assert np.array_equal(back.q_a, data.q_a) and np.array_equal(back.tau, data.tau)
    text = path.read_text().splitlines()
    (tmp_path / "bad.csv").write_text("\n".join(text[:5] + [text[5].replace(",", ",x", 1)]))
    with pytest.raises(InvalidArgumentError, match="line 6, column q11: not a finite number"):
        read_csv(tmp_path / "bad.csv", model)
    (tmp_path / "cols.csv").write_text("t,q11,tau_q11\n0,0,0\n")
    with pytest.raises(InvalidArgumentError, match="no column q21, tau_q21"):
        identify(model, tmp_path / "cols.csv", base=bp)
    still = Measurement(data.t, np.tile(data.q_a[:1], (len(data.t), 1)), data.tau, data.names)
    with pytest.raises(InvalidArgumentError, match="does not excite"):
        identify(model, still, base=bp)
    uneven = Measurement(data.t ** 2, data.q_a, data.tau, data.names)
    with pytest.raises(InvalidArgumentError, match="uniformly increasing"):
        identify(model, uneven, base=bp)
