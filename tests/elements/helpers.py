"""Independent reference computations for the elements tests.

Everything here works on a cloud of particles (positions r0_p in F_j, masses
dm_p, shape functions Phi_d(r0_p)) with plain loops / cross products, without
using elements.newton_euler, so that the tests can fail.
"""
import numpy as np

from flexpkm.elements.shape_body import ShapeFunctionBody, gauss_box


def hat(v):
    """Cross-product matrix built from np.cross (not from the code under test)."""
    return np.stack([np.cross(v, e) for e in np.eye(3)], axis=-1)


class Particles:
    """Particles of a body: positions X (P, 3), masses dm (P,), Phi_d (P, 3, N)."""

    def __init__(self, X, dm, D, K=None):
        self.X, self.dm, self.D = np.asarray(X), np.asarray(dm), np.asarray(D)
        n = self.D.shape[-1]
        self.K = np.zeros((n, n)) if K is None else np.asarray(K)

    @classmethod
    def of(cls, body, K=None):
        """Particles from the quadrature of a ShapeFunctionBody ``body``."""
        return cls(body.points, body.dm, body.phi_d(body.points), K)

    def positions(self, q):
        return self.X + self.D @ q

    def velocity_matrix(self, q):
        """B_p (P, 3, 6+N) with v_M = B_p [v; omega; qd] (10.9)."""
        r = self.positions(q)
        return np.concatenate(
            [np.broadcast_to(np.eye(3), r.shape + (3,)),
             -np.array([hat(rp) for rp in r]), self.D], axis=-1)

    def mass_matrix(self, q):
        """Hessian of the kinetic energy: sum dm B_p^T B_p."""
        B = self.velocity_matrix(q)
        return np.einsum("p,pai,paj->ij", self.dm, B, B)

    def kinetic_energy(self, v, w, q, qd):
        r = self.positions(q)
        vM = v + np.cross(w, r) + self.D @ qd
        return 0.5 * np.sum(self.dm * np.sum(vM * vM, axis=-1))

    def wrench(self, a, alpha, w, q, qd, qdd, g):
        """[Sigma f; Sigma m; Sigma s] from the particle accelerations (10.12)."""
        r = self.positions(q)
        aM = (a + np.cross(alpha, r) + np.cross(w, np.cross(w, r))
              + 2 * np.cross(w, self.D @ qd) + self.D @ qdd)
        f = self.dm[:, None] * (aM - g)
        return np.concatenate([f.sum(0), np.cross(r, f).sum(0),
                               np.einsum("pak,pa->k", self.D, f) + self.K @ q])


def polynomial_body(n=4, seed=0, H=None):
    """A ShapeFunctionBody with random quadratic shape functions on a box.

    Phi_d(r)[a, k] = C0[a, k] + C1[a, k, b] r_b + C2[a, k, b, c] r_b r_c;
    strain by central differences (exact for quadratics up to round-off).
    """
    rng = np.random.default_rng(seed)
    C0 = rng.normal(size=(3, n)) * 0.1
    C1 = rng.normal(size=(3, n, 3))
    C2 = rng.normal(size=(3, n, 3, 3)) * 3

    def phi_d(X):
        return C0 + np.einsum("akb,pb->pak", C1, X) + np.einsum("akbc,pb,pc->pak", C2, X, X)

    def strain(X, h=1e-4):
        grad = np.stack([(phi_d(X + h * e) - phi_d(X - h * e)) / (2 * h) for e in np.eye(3)],
                        axis=-1)  # (P, a, k, b) = d Phi_d[a, k] / d r_b
        s = 0.5 * (grad + np.swapaxes(grad, 1, 3))  # symmetric part in (a, b)
        idx = [(0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2)]
        return np.stack([s[:, a, :, b] for a, b in idx], axis=1)

    X, W = gauss_box((0.0, -0.05, -0.03), (0.5, 0.05, 0.04), (4, 3, 3))
    kw = dict(H=H) if H is not None else dict(E=7e10, nu=0.3)
    return ShapeFunctionBody(phi_d, None, strain, X, W, 2700.0, name="poly", **kw)
