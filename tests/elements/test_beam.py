"""Beam closed forms (Appendix F) against quadrature and textbook formulas."""
import numpy as np
import pytest

from flexpkm.elements import newton_euler as ne
from flexpkm.elements.beam import (Beam3D, Material, PlanarBeam, Section,
                           rectangle_torsion_constant)
from flexpkm.elements.shape_body import ShapeFunctionBody

# a thick beam so that the rotary (section) terms are not negligible
SEC = Section.rectangle(0.03, 0.05)
MAT = Material(E=7e10, rho=2700.0, nu=0.33)
L = 0.35
FIELDS = ("ms_r", "I_rr", "MS_de", "J_re", "J_ee", "K_ee")
DERIVED = ("beta", "lam", "I_re", "I_ee", "M_ee")


def _assert_same(a, b, rtol=1e-12):
    a, b = np.asarray(a), np.asarray(b)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-14 * max(np.abs(b).max(), 1e-300))


def _generic_section(sec):
    return Section(A=sec.A, Iy=sec.Iy, Iz=sec.Iz, I0=sec.I0)


@pytest.mark.parametrize("cls", [Beam3D, PlanarBeam])
@pytest.mark.parametrize("section", [SEC, _generic_section(SEC)], ids=["rect", "generic"])
def test_closed_forms_equal_quadrature(cls, section):
    beam = cls(L, section, MAT)
    quad = ShapeFunctionBody.from_beam(beam)
    a, b = beam.invariants, quad.invariants
    assert a.m == pytest.approx(b.m, rel=1e-13)
    for f in FIELDS:
        _assert_same(getattr(a, f), getattr(b, f))
    da, db = ne.derived(a), ne.derived(b)
    for f in DERIVED:
        _assert_same(getattr(da, f), getattr(db, f))
    assert quad.coordinate_names == beam.coordinate_names


def test_planar_is_restriction_of_3d():
    b3, b2 = Beam3D(L, SEC, MAT), PlanarBeam(L, SEC, MAT)
    cols = [0, 1, 5]
    assert b2.coordinate_names == ("u_x", "u_y", "theta_z")
    P = np.random.default_rng(0).uniform([0, -0.01, -0.02], [L, 0.01, 0.02], (5, 3))
    np.testing.assert_array_equal(b2.phi_d(P), b3.phi_d(P)[..., cols])
    np.testing.assert_array_equal(b2.phi_r(P), b3.phi_r(P)[..., cols])
    np.testing.assert_array_equal(b2.invariants.K_ee, b3.invariants.K_ee[np.ix_(cols, cols)])
    np.testing.assert_array_equal(b2.invariants.J_ee,
                                  b3.invariants.J_ee[np.ix_(cols, cols)])


def test_shape_function_kinematics():
    """Clamp at x = 0, free-end coordinates at x = l, and theta = slope (F.1)."""
    beam = Beam3D(L, SEC, MAT)
    np.testing.assert_allclose(beam.phi(np.zeros(3)), 0.0, atol=1e-15)
    np.testing.assert_allclose(beam.phi(np.array([L, 0, 0])), np.eye(6), atol=1e-14)
    x = np.linspace(0, L, 7)
    P = np.stack([x, 0 * x, 0 * x], -1)
    h = 1e-6
    dD = (beam.phi_d(P + [h, 0, 0]) - beam.phi_d(P - [h, 0, 0])) / (2 * h)
    R = beam.phi_r(P)
    np.testing.assert_allclose(R[:, 2], dD[:, 1], atol=1e-8)    # theta_z = du_y/dx
    np.testing.assert_allclose(R[:, 1], -dD[:, 2], atol=1e-8)   # theta_y = -du_z/dx
    # off-axis point: rigid section motion (F.2), u = u0 + theta x (0, y, z)
    p = np.array([0.2, 0.01, -0.02])
    p0 = np.array([0.2, 0.0, 0.0])
    ref = beam.phi_d(p0) + np.cross(beam.phi_r(p0).T, [0, p[1], p[2]]).T
    np.testing.assert_allclose(beam.phi_d(p), ref, atol=1e-15)
    assert beam.phi_d(np.zeros((2, 4, 3))).shape == (2, 4, 3, 6)


def test_strain_operator_is_symmetric_gradient():
    beam = Beam3D(L, SEC, MAT)
    P = np.random.default_rng(1).uniform([0, -0.015, -0.025], [L, 0.015, 0.025], (6, 3))
    h = 1e-6
    grad = np.stack([(beam.phi_d(P + h * e) - beam.phi_d(P - h * e)) / (2 * h)
                     for e in np.eye(3)], axis=-1)            # (P, a, k, b)
    sym = 0.5 * (grad + np.swapaxes(grad, 1, 3))
    ref = np.stack([sym[:, a, :, b] for a, b in
                    [(0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2)]], axis=1)
    np.testing.assert_allclose(beam.phi_eps(P), ref, atol=1e-7)


def test_appendix_F_inertia_formulas():
    """(F.10)-(F.14), with (F.12) corrected: MS_de[y, theta_z] = -m l / 12."""
    beam = Beam3D(L, SEC, MAT)
    inv, d = beam.invariants, ne.derived(beam.invariants)
    rho, l, Iy, Iz, Ip = MAT.rho, L, SEC.Iy, SEC.Iz, SEC.Ip
    m = rho * SEC.A * l
    MS_de = np.array([[m / 2, 0, 0, 0, 0, 0],
                      [0, m / 2, 0, 0, 0, -m * l / 12],
                      [0, 0, m / 2, 0, m * l / 12, 0]])
    MS_re = np.array([[0, 0, 0, rho * l * Ip / 2, 0, 0],
                      [0, 0, -rho * Iy - 7 * m * l / 20, 0, -m * l**2 / 20, 0],
                      [0, rho * Iz + 7 * m * l / 20, 0, 0, 0, -m * l**2 / 20]])
    a_y, a_z = (11 * m * l + 21 * rho * Iy) / 210, (11 * m * l + 21 * rho * Iz) / 210
    M_ee = np.zeros((6, 6))
    M_ee[0, 0] = m / 3
    M_ee[1, 1] = 13 * m / 35 + 6 * rho * Iz / (5 * l)
    M_ee[2, 2] = 13 * m / 35 + 6 * rho * Iy / (5 * l)
    M_ee[3, 3] = rho * l * Ip / 3
    M_ee[4, 4] = (m * l**2 + 14 * rho * Iy * l) / 105
    M_ee[5, 5] = (m * l**2 + 14 * rho * Iz * l) / 105
    M_ee[1, 5] = M_ee[5, 1] = -a_z
    M_ee[2, 4] = M_ee[4, 2] = a_y
    _assert_same(inv.MS_de, MS_de)
    _assert_same(d.beta.T, MS_re)
    _assert_same(d.M_ee, M_ee)
    M0 = ne.mass_matrix(inv)
    _assert_same(M0[3:6, 6:], MS_re)
    assert inv.m == pytest.approx(m, rel=1e-14)
    _assert_same(inv.I_rr, np.diag([rho * l * Ip, m * l**2 / 3 + rho * l * Iy,
                                    m * l**2 / 3 + rho * l * Iz]))


def test_stiffness_gives_cantilever_compliance():
    """K_ee^{-1} = textbook tip compliances of a clamped-free beam."""
    E, G, l = MAT.E, MAT.G, L
    C = np.linalg.inv(Beam3D(l, SEC, MAT).invariants.K_ee)
    assert C[0, 0] == pytest.approx(l / (E * SEC.A), rel=1e-12)
    assert C[1, 1] == pytest.approx(l**3 / (3 * E * SEC.Iz), rel=1e-12)
    assert C[1, 5] == pytest.approx(l**2 / (2 * E * SEC.Iz), rel=1e-12)
    assert C[5, 5] == pytest.approx(l / (E * SEC.Iz), rel=1e-12)
    assert C[2, 2] == pytest.approx(l**3 / (3 * E * SEC.Iy), rel=1e-12)
    assert C[2, 4] == pytest.approx(-l**2 / (2 * E * SEC.Iy), rel=1e-12)  # theta_y = -w'
    assert C[3, 3] == pytest.approx(l / (G * SEC.I0), rel=1e-12)


def test_section_table_11_3():
    s = Section.rectangle(0.010, 0.024)
    assert s.A == pytest.approx(2.4e-4, rel=1e-12)
    assert s.Iy == pytest.approx(1.152e-8, rel=1e-12)
    assert s.Iz == pytest.approx(2.000e-9, rel=1e-12)
    assert s.Ip == pytest.approx(1.352e-8, rel=1e-12)
    # printed 5.902e-9; Roark 5.9053e-9, exact series 5.9014e-9 (docs/typos_elements.md)
    assert s.I0 == pytest.approx(5.902e-9, rel=1e-3)
    assert rectangle_torsion_constant(0.01, 0.024, "series") == pytest.approx(5.9014e-9, rel=1e-4)
    # square: exact 0.140577 a^4
    assert rectangle_torsion_constant(1.0, 1.0, "series") == pytest.approx(0.140577, rel=1e-5)
    assert rectangle_torsion_constant(0.024, 0.01) == rectangle_torsion_constant(0.01, 0.024)
    # row i5: a 40 mm (y) x 10 mm (z) rectangle; printed Iy = 3.333e-8 is a typo
    s5 = Section.rectangle(0.040, 0.010)
    assert (s5.A, s5.Iz, s5.I0) == pytest.approx((4e-4, 5.333e-8, 1.123e-8), rel=5e-4)
    assert s5.Iy == pytest.approx(3.333e-9, rel=1e-3)
    with pytest.raises(ValueError):
        rectangle_torsion_constant(0.01, 0.02, "bogus")


def test_material_and_errors():
    assert Material(E=2.6e9, rho=1.0, nu=0.3).G == pytest.approx(1e9)
    assert Material(E=1.0, rho=1.0, nu=0.3, G=5.0).G == 5.0
    assert Material(E=1.0, rho=1.0).G is None
    with pytest.raises(ValueError):
        Beam3D(L, SEC, Material(E=7e10, rho=2700.0))
    PlanarBeam(L, SEC, Material(E=7e10, rho=2700.0))   # no G needed
    with pytest.raises(ValueError):
        Beam3D(0.0, SEC, MAT)
    with pytest.raises(ValueError):
        Section(A=-1.0, Iy=1.0, Iz=1.0, I0=1.0)
    with pytest.raises(ValueError):
        Beam3D(L, SEC, MAT).phi_d(np.zeros(2))
