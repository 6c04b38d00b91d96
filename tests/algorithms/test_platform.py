"""Platform Newton-Euler (8.57), (8.97)-(8.98) in the base frame against a
cloud of point masses moving rigidly with the platform."""
import numpy as np

from flexpkm.elements.rigid import RigidBody
from flexpkm.model.description import Platform
from flexpkm.algorithms.platform import platform_mass_matrix, platform_wrench
from flexpkm.spatial import euler_xyz


def cloud(seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(0.2, 1.0, 5), rng.uniform(-0.3, 0.3, (5, 3))


def equivalent_body(m, r):
    """Khalil parameters of the cloud at P, in the platform frame."""
    p = {k: 0.0 for k in ("XX", "XY", "XZ", "YY", "YZ", "ZZ", "MX", "MY", "MZ", "M")}
    for mk, rk in zip(m, r):
        for k, v in RigidBody.point_mass(mk, rk).standard_parameters.items():
            p[k] += v
    return RigidBody(**p)


def test_platform_mass_matrix_and_wrench_match_point_masses():
    m, r = cloud()
    plat = Platform(body=equivalent_body(m, r))
    R = euler_xyz(np.array([0.3, -0.7, 1.1]))[None]
    rng = np.random.default_rng(1)
    t, tdot = rng.normal(size=(1, 6)), rng.normal(size=(1, 6))
    g = np.array([0.0, 0.0, -9.81])
    v, w = t[0, :3], t[0, 3:]
    a, al = tdot[0, :3], tdot[0, 3:]
    rho = (R[0] @ r.T).T                                   # P -> masses, base frame
    vk = v + np.cross(w, rho)
    T = 0.5 * np.sum(m * np.sum(vk * vk, axis=1))
    M = platform_mass_matrix(plat, R)[0]
    assert abs(0.5 * t[0] @ M @ t[0] - T) < 1e-12 * T
    ak = a + np.cross(al, rho) + np.cross(w, np.cross(w, rho))
    f = np.sum(m[:, None] * (ak - g), axis=0)
    mo = np.sum(np.cross(rho, m[:, None] * (ak - g)), axis=0)
    np.testing.assert_allclose(platform_wrench(plat, R, t, tdot, g)[0], np.concatenate([f, mo]),
                               rtol=1e-12, atol=1e-12)
