"""Bodies of description files (flexpkm.model.files_body): the solid
cylinder's standard parameters against a numerical integration over its
volume."""
import numpy as np
import pytest

from flexpkm.model import files


def _cylinder_by_quadrature(length, diameter, rho, axis, centre, n=60):
    """Mass, first moments and inertia at the frame origin of a solid
    cylinder, by a midpoint rule in (r, phi, s) (Jacobian r)."""
    R = diameter / 2
    r = (np.arange(n) + 0.5) * R / n
    phi = (np.arange(2 * n) + 0.5) * np.pi / n
    s = (np.arange(n) - n / 2 + 0.5) * length / n
    rr, pp, ss = np.meshgrid(r, phi, s, indexing="ij")
    w = rho * rr * (R / n) * (np.pi / n) * (length / n)
    a, b = [k for k in range(3) if k != axis]
    p = np.zeros(rr.shape + (3,))
    p[..., axis], p[..., a], p[..., b] = ss, rr * np.cos(pp), rr * np.sin(pp)
    p += centre
    w, p = w.ravel(), p.reshape(-1, 3)
    I = (w * (p * p).sum(1)).sum() * np.eye(3) - np.einsum("k,ki,kj->ij", w, p, p)
    return w.sum(), w @ p, I


@pytest.mark.parametrize("axis, centre", [("x", (0.175, 0.0, 0.0)), ("z", (0.0, 0.0, 0.0)),
                                          ("y", (0.01, -0.02, 0.03))])
def test_cylinder_equals_the_volume_integral(axis, centre):
    text = f'''name = "c"
[[legs]]
name = "1"
[[legs.frames]]
j = "1"
sigma = 0
bodies = [{{type = "cylinder", length = 0.35, diameter = 0.03, rho = 2700.0, axis = "{axis}", centre = {list(centre)}}}]
'''
    body = files.loads(text).bodies["1"][0]
    m, ms, I = _cylinder_by_quadrature(0.35, 0.03, 2700.0, "xyz".index(axis), np.array(centre))
    p = body.standard_parameters
    assert p["M"] == pytest.approx(m, rel=1e-12)
    np.testing.assert_allclose([p["MX"], p["MY"], p["MZ"]], ms, atol=1e-12)
    got = np.array([[p["XX"], p["XY"], p["XZ"]], [p["XY"], p["YY"], p["YZ"]],
                    [p["XZ"], p["YZ"], p["ZZ"]]])
    np.testing.assert_allclose(got, I, rtol=2e-3, atol=1e-3 * np.abs(I).max())
