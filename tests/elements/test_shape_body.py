"""ShapeFunctionBody: quadrature invariants and the Hooke/I_t convention."""
import numpy as np
import pytest

from flexpkm.elements.shape_body import (ShapeFunctionBody, beam_hooke_matrix, gauss_box,
                                 hooke_matrix)

from .helpers import polynomial_body

E, NU = 7e10, 0.3
G = E / (2 * (1 + NU))
BOX = ((0.0, -0.1, -0.05), (0.4, 0.1, 0.05))
VOL = 0.4 * 0.2 * 0.1


def _linear_body(grad, H=None):
    """One coordinate, u(r) = grad @ r (homogeneous strain), on BOX."""
    grad = np.asarray(grad, dtype=float)
    eps = 0.5 * (grad + grad.T)
    evec = np.array([eps[0, 0], eps[1, 1], eps[2, 2], eps[0, 1], eps[0, 2], eps[1, 2]])
    X, W = gauss_box(*BOX, 2)
    kw = dict(H=H) if H is not None else dict(E=E, nu=NU)
    return ShapeFunctionBody(lambda P: np.einsum("ab,pb->pa", grad, P)[..., None],
                             None, lambda P: np.broadcast_to(evec[:, None], (len(P), 6, 1)),
                             X, W, 2000.0, **kw)


def test_uniaxial_stress_energy():
    """u = eps (x, -nu y, -nu z): U = 1/2 E eps^2 V."""
    body = _linear_body(np.diag([1.0, -NU, -NU]))
    assert body.invariants.K_ee[0, 0] == pytest.approx(E * VOL, rel=1e-12)


@pytest.mark.parametrize("grad", [[[0, 1, 0], [0, 0, 0], [0, 0, 0]],      # gamma_xy = 1
                                  [[0, 0, 0], [0, 0, 0], [1, 0, 0]],      # gamma_xz = 1
                                  [[0, 0, 0], [0, 0, 0.5], [0, 0.5, 0]]])  # gamma_yz = 1
def test_simple_shear_energy(grad):
    """Engineering shear gamma = 1: U = 1/2 G gamma^2 V (needs sigma_12 = 2 G eps_12)."""
    body = _linear_body(grad)
    assert body.invariants.K_ee[0, 0] == pytest.approx(G * VOL, rel=1e-12)
    # Eq. (10.32) as printed (shear block G) halves the shear energy
    H_book = hooke_matrix(E, NU)
    H_book[3:, 3:] /= 2
    assert _linear_body(grad, H=H_book).invariants.K_ee[0, 0] == pytest.approx(G * VOL / 2)


def test_rigid_motion_has_no_energy():
    w = np.array([0.3, -0.2, 0.5])
    body = _linear_body(np.cross(w, np.eye(3)).T)   # u = w x r
    assert body.invariants.K_ee[0, 0] == pytest.approx(0.0, abs=1e-6)


def test_inertia_by_quadrature_of_a_box():
    body = polynomial_body()
    (x0, y0, z0), (x1, y1, z1) = (0.0, -0.05, -0.03), (0.5, 0.05, 0.04)
    rho = 2700.0
    V = (x1 - x0) * (y1 - y0) * (z1 - z0)
    m = rho * V
    mean_sq = [(b**3 - a**3) / (3 * (b - a)) for a, b in ((x0, x1), (y0, y1), (z0, z1))]
    mean = [(a + b) / 2 for a, b in ((x0, x1), (y0, y1), (z0, z1))]
    inv = body.invariants
    assert inv.m == pytest.approx(m, rel=1e-13)
    np.testing.assert_allclose(inv.ms_r, m * np.array(mean), rtol=1e-12, atol=1e-15)
    Ixx = m * (mean_sq[1] + mean_sq[2])
    Ixy = -m * mean[0] * mean[1]
    assert inv.I_rr[0, 0] == pytest.approx(Ixx, rel=1e-12)
    assert inv.I_rr[0, 1] == pytest.approx(Ixy, rel=1e-12)
    np.testing.assert_allclose(inv.K_ee, inv.K_ee.T, rtol=1e-10, atol=1e-6 * np.abs(inv.K_ee).max())
    assert np.all(np.linalg.eigvalsh(inv.K_ee) > 0)


def test_beam_hooke_matrix():
    np.testing.assert_array_equal(np.diag(beam_hooke_matrix(2.0, 3.0, 0.5)),
                                  [2.0, 0, 0, 3.0, 3.0, 0])


def test_constructor_errors():
    X, W = gauss_box(*BOX, 2)
    f = lambda P: np.zeros((len(P), 3, 1))
    s = lambda P: np.zeros((len(P), 6, 1))
    with pytest.raises(ValueError):
        ShapeFunctionBody(f, None, s, X, W, 1.0)                         # no material
    with pytest.raises(ValueError):
        ShapeFunctionBody(f, None, s, X, W, 1.0, np.eye(6), E=1.0, nu=0.3)  # both
    with pytest.raises(ValueError):
        ShapeFunctionBody(f, None, s, X, W[:-1], 1.0, np.eye(6))        # weights
    with pytest.raises(ValueError):
        ShapeFunctionBody(f, None, lambda P: np.zeros((len(P), 5, 1)), X, W, 1.0, np.eye(6))
    with pytest.raises(ValueError):
        hooke_matrix(E, 0.5)
    body = ShapeFunctionBody(f, None, s, X, W, 1.0, np.eye(6))
    assert body.phi_d(np.zeros((2, 5, 3))).shape == (2, 5, 3, 1)
    with pytest.raises(NotImplementedError):
        body.phi_r(np.zeros(3))
