"""The gravity energy of recorded states on generated code
(flexpkm.compiled.energies) against numpy's gravity_energy (the batched
tree recursion of flexpkm.algorithms): the DualEMPS with its flexible
links, a gravity that is not the model's, and a compiled simulation's
energies (their gravity part now from the generated function) against the
numpy backend's on the same motion."""
import numpy as np
import pytest

import flexpkm as fp
from flexpkm.algorithms.energy import gravity_energy
from flexpkm.cases import dualemps as D

pytest.importorskip("casadi")
from flexpkm.compiled.energies import CHUNK, gravity_energies  # noqa: E402
from flexpkm.compiled.robot import CompiledRobot  # noqa: E402


def test_gravity_energy_equals_numpys_on_the_virtual_machine():
    """Random states around the reference (elastic coordinates included),
    more than one chunk and a padded last one; a tilted gravity."""
    robot, q0, _, _ = D.simulation_setup("square")
    model = fp.build_model(robot)
    cm = CompiledRobot(model, q_ref=q0, compile=False)
    q = q0 + 0.05 * np.random.default_rng(0).standard_normal((CHUNK + 7, len(q0)))
    for g in (model.gravity, (1.5, -2.0, -9.0)):
        ref = gravity_energy(model, q, g)
        assert np.abs(gravity_energies(cm, q, g) - ref).max() <= 1e-13 * np.abs(ref).max()
    assert np.ptp(ref) > 1e-3 * np.abs(ref).max()          # the states differ


def test_compiled_simulation_energies_equal_the_numpy_backends():
    """20 ms of the square maneuver on both backends: the gravity energies
    equal numpy's of the compiled positions to round-off, and the numpy
    run's to the motions' agreement."""
    from flexpkm.analysis.simulate import simulate
    robot, q0, drive, sensors = D.simulation_setup("square")
    c, n = (simulate(robot, q0, 0.02, drive, sensors=sensors, backend=b, tol=1e-12)
            for b in ("compiled", "numpy"))
    model = fp.build_model(robot)
    own = gravity_energy(model, c.q)
    assert np.abs(c.energies.gravity - own).max() <= 1e-13 * np.abs(own).max()
    assert np.abs(c.energies.gravity - n.energies.gravity).max() <= 1e-9 * np.abs(own).max()
    assert np.abs(c.energies.total - n.energies.total).max() <= 1e-8 * np.abs(n.energies.total).max()
