"""Modal analysis on structures with analytical answers: chained
Euler-Bernoulli elements vs the cantilever and free-free beam frequencies,
rigid-body modes of a free flexible body, actuator elasticity (11.36-11.42)."""
import numpy as np
import pytest

from flexpkm.elements.beam import Beam3D, Material, PlanarBeam, Section
from flexpkm.model.description import Frame, Robot
from flexpkm.errors import SingularConfigurationError
from flexpkm.analysis.modal import natural_frequencies
from tests.independent.analytic_beams import cantilever_frequencies, free_free_frequencies

ALU = Material(E=70e9, rho=2700.0, nu=0.33)
L = 1.0
SEC = Section.rectangle(0.01, 0.02)              # I_z = 1.667e-9, I_y = 6.667e-9


def beam_chain(n, first_antecedent=None, beam=PlanarBeam, plane_normal=(0.0, 0.0, 1.0)):
    frames, bodies = [], {}
    ant = first_antecedent
    for k in range(n):
        name = f"b{k}"
        frames.append(Frame(name, ant, sigma=2, d=0.0 if k == 0 else L / n))
        bodies[name] = (beam(L / n, SEC, ALU),)
        ant = name
    return frames, bodies


def cantilever(n):
    frames, bodies = beam_chain(n)
    return Robot("cantilever", tuple(frames), bodies, plane_normal=(0.0, 0.0, 1.0))


def free_floating(n, beam):
    """Beam chain on a floating base: prismatic z0, x0, y0 then three revolutes."""
    joints = (
        Frame("pz", None, sigma=1),
        Frame("px", "pz", sigma=1, gamma=np.pi / 2, alpha=np.pi / 2),
        Frame("py", "px", sigma=1, gamma=-np.pi / 2, alpha=-np.pi / 2),
        Frame("r1", "py", sigma=0),
        Frame("r2", "r1", sigma=0, alpha=np.pi / 2, theta=0.3),
        Frame("r3", "r2", sigma=0, alpha=np.pi / 2, theta=0.4),
    )
    frames, bodies = beam_chain(n, "r3", beam)
    return Robot("free", joints + tuple(frames), bodies)


def free_floating_planar(n):
    """Beam chain in the plane normal to y0: prismatic z0 and x0, revolute y0."""
    joints = (
        Frame("pz", None, sigma=1),
        Frame("px", "pz", sigma=1, gamma=np.pi / 2, alpha=np.pi / 2),
        Frame("ry", "px", sigma=0, gamma=-np.pi / 2, alpha=-np.pi / 2, theta=0.2),
    )
    frames, bodies = beam_chain(n, "ry")
    return Robot("free planar", joints + tuple(frames), bodies, plane_normal=(0.0, 1.0, 0.0))


def analytic(kind, I, n):
    f = cantilever_frequencies if kind == "cantilever" else free_free_frequencies
    return f(ALU.E, I, ALU.rho, SEC.A, L, n)


def test_cantilever_converges_to_euler_bernoulli():
    exact = analytic("cantilever", SEC.Iz, 1)[0]
    errors = []
    for n in (1, 2, 4, 8):
        r = cantilever(n)
        f = natural_frequencies(r, np.zeros(r.layout.n_t)).frequencies_hz
        errors.append((f[0] - exact) / exact)
    assert abs(errors[2]) < 1e-3                       # 4 elements: within 0.1 %
    # Rayleigh-Ritz converges from above to the model with the section's
    # rotary inertia, which is ~2e-5 below the Euler-Bernoulli value here
    assert all(e > -5e-5 for e in errors)
    assert abs(errors[3]) < abs(errors[1]) < abs(errors[0])


def test_cantilever_higher_modes_with_refinement():
    r = cantilever(16)
    f = natural_frequencies(r, np.zeros(r.layout.n_t)).frequencies_hz
    bending = np.sort(f)[:3]
    np.testing.assert_allclose(bending, analytic("cantilever", SEC.Iz, 3), rtol=2e-3)


def test_free_flexible_body_has_six_rigid_modes_and_free_free_frequencies():
    n = 8
    r = free_floating(n, Beam3D)
    modes = natural_frequencies(r, np.zeros(r.layout.n_t), allow_zero=True)
    f = modes.frequencies_hz
    assert np.sum(f < 1e-3) == 6 and f[6] > 1.0
    for I in (SEC.Iz, SEC.Iy):                        # bending in both planes
        target = analytic("free", I, 2)
        for ft in target:
            assert np.min(np.abs(f - ft) / ft) < 5e-3


def test_planar_free_body_has_three_rigid_modes():
    r = free_floating_planar(8)
    f = natural_frequencies(r, np.zeros(r.layout.n_t), allow_zero=True).frequencies_hz
    assert np.sum(f < 1e-3) == 3 and f[3] > 1.0
    np.testing.assert_allclose(f[3:5], analytic("free", SEC.Iz, 2), rtol=5e-3)


def test_zero_stiffness_motion_raises():
    r = free_floating_planar(2)
    with pytest.raises(SingularConfigurationError, match="zero-stiffness"):
        natural_frequencies(r, np.zeros(r.layout.n_t))


@pytest.mark.parametrize("k", [1e12, 1e15, 1e19])
def test_very_stiff_actuators_are_the_locked_limit(k):
    """Issue 16 item 8: a stiff gearbox is not a singularity. The DualEMPS
    with actuator stiffness k (the structure's scale is 1.06e8 N/m): no
    error, no near-singular flag, and the 9 lowest frequencies tend to the
    locked ones (a different eigenproblem: the actuated coordinates removed)
    as 1 / k (the shift is below 2e-5 at 1e12; 1e-11 at 1e19, was 1.6e-4
    and a SingularConfigurationError before)."""
    import flexpkm as fp
    from flexpkm.cases import dualemps
    model = fp.build_model(dualemps.robot())
    q = dualemps.configuration(model)
    locked = fp.natural_frequencies(model, q)
    elastic = fp.natural_frequencies(model, q, actuator_stiffness=[k, k])
    assert not elastic.near_singular and elastic.singularity_measure > 1e-4
    shift = np.abs(elastic.frequencies_hz[:9] / locked.frequencies_hz - 1).max()
    assert shift < 2e-5 * 1e12 / k + 1e-11
