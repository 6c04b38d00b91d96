"""General Rayleigh-Ritz body: invariants by volume quadrature (Section 10.2).

The user supplies the shape functions Phi_d (10.3), Phi_r (10.5), the strain
operator Phi_eps (10.30), a quadrature of the body volume and the material.
Every invariant of :class:`flexpkm.elements.base.BodyInvariants` is then a weighted
sum over the quadrature points M_p (dm_p = rho w_p)::

    m = sum dm,  ms_r = sum dm r,  I_rr = sum dm hat(r)^T hat(r),
    MS_de = sum dm Phi_d,  J_re[k] = sum dm r Phi_dk^T,
    J_ee[i, k] = sum dm Phi_di Phi_dk^T,
    K_ee = sum w Phi_eps^T H^T I_t Phi_eps                          (10.35)

with I_t = diag(1, 1, 1, 2, 2, 2) (10.27) and the strain vector
(eps11, eps22, eps33, eps12, eps13, eps23) of TENSOR components (10.30).

Hooke's matrix convention. With tensor shear strains and the factor 2 of
I_t, the strain energy 1/2 sigma : eps is recovered only if sigma_12 =
2 G eps_12, i.e. the shear block of H is 2 G 1_3. Eq. (10.32) prints G 1_3
(the Voigt matrix for *engineering* strains gamma = 2 eps), which with
(10.27)/(10.30) halves the shear energy; :func:`hooke_matrix` returns the
consistent matrix. Likewise (F.7)-(F.8) must read sigma_12 = 2 G eps_12 to
give the torsion term of (F.9): see :meth:`ShapeFunctionBody.from_beam`.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from flexpkm.errors import InvalidDescriptionError

from .base import Body, BodyInvariants

__all__ = ["I_T", "hooke_matrix", "beam_hooke_matrix", "gauss_box",
           "ShapeFunctionBody"]

I_T = np.diag([1.0, 1.0, 1.0, 2.0, 2.0, 2.0])
"""The (6, 6) matrix I_t of (10.27)."""


def hooke_matrix(E: float, nu: float) -> np.ndarray:
    """Isotropic Hooke matrix H (6, 6), sigma = H eps, tensor shear strains.

    sigma_ii = lambda tr(eps) + 2 mu eps_ii, sigma_ij = 2 mu eps_ij (i != j),
    lambda = E nu / ((1 + nu)(1 - 2 nu)), mu = G = E / (2 (1 + nu)). Pa.
    This is (10.32) with its shear block doubled (see module docstring).

    Raises ValueError unless E > 0 and -1 < nu < 1/2.
    """
    if E <= 0 or not -1.0 < nu < 0.5:
        raise InvalidDescriptionError(f"invalid isotropic material E={E}, nu={nu}")
    lam = E * nu / ((1 + nu) * (1 - 2 * nu))
    mu = E / (2 * (1 + nu))
    H = np.zeros((6, 6))
    H[:3, :3] = lam
    H[:3, :3] += 2 * mu * np.eye(3)
    H[3:, 3:] = 2 * mu * np.eye(3)
    return H


def beam_hooke_matrix(E: float, G: float, torsion_factor: float = 1.0) -> np.ndarray:
    """Euler-Bernoulli beam stress law (F.4)-(F.8) as a (6, 6) H, Pa.

    H = diag(E, 0, 0, 2 G k, 2 G k, 0) with k = ``torsion_factor``:
    sigma_22 = sigma_33 = sigma_23 = 0, sigma_11 = E eps_11 and
    sigma_1j = 2 G k eps_1j (tensor strains; see module docstring). For the
    beam kinematics (F.2) only the torsion coordinate produces shear, with
    energy G k Ip / l; k = I0 / Ip replaces the polar moment by the torsion
    constant as in (F.9).
    """
    return np.diag([E, 0.0, 0.0, 2 * G * torsion_factor, 2 * G * torsion_factor, 0.0])


def gauss_box(lower, upper, n) -> tuple[np.ndarray, np.ndarray]:
    """Tensor Gauss-Legendre quadrature of the box [lower, upper] (3D).

    lower, upper : (3,) corners, m; n : int or (3,) points per axis
    (exact for polynomials of degree <= 2 n - 1 per axis).
    Returns points (P, 3) in m and weights (P,) in m^3, P = prod(n).
    """
    n = np.broadcast_to(np.asarray(n, dtype=int), (3,))
    axes, wts = [], []
    for lo, hi, k in zip(lower, upper, n):
        t, w = np.polynomial.legendre.leggauss(int(k))
        axes.append(0.5 * (hi - lo) * t + 0.5 * (hi + lo))
        wts.append(0.5 * (hi - lo) * w)
    X = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 3)
    W = np.einsum("i,j,k->ijk", *wts).reshape(-1)
    return X, W


class ShapeFunctionBody(Body):
    """Rayleigh-Ritz body with invariants computed by quadrature.

    Parameters
    ----------
    phi_d : callable, points (P, 3) -> (P, 3, N), displacement shapes (10.3)
    phi_r : callable, points (P, 3) -> (P, 3, N), rotation shapes (10.5), or
            None (then :meth:`phi_r` raises NotImplementedError)
    strain : callable, points (P, 3) -> (P, 6, N), strain operator Phi_eps
            (10.30), tensor shear components
    points : (P, 3) quadrature points in F_j, m
    weights : (P,) quadrature weights (volumes), m^3
    rho : float or (P,), density, kg/m^3
    H : (6, 6) Hooke matrix (Pa), sigma = H eps; or give E and nu instead
        (then H = :func:`hooke_matrix`)
    E, nu : isotropic material (keyword only)
    name, coordinate_names, length : see :class:`flexpkm.elements.base.Body`

    Raises
    ------
    ValueError if neither/both H and (E, nu) are given, or on shape errors.
    """

    def __init__(self, phi_d: Callable, phi_r: Callable | None, strain: Callable,
                 points, weights, rho, H=None, *, E=None, nu=None,
                 name: str = "shape_body", coordinate_names=None, length: float = 0.0):
        if (H is None) == (E is None or nu is None):
            raise InvalidDescriptionError("give either H or (E, nu)")
        H = hooke_matrix(E, nu) if H is None else np.asarray(H, dtype=float)
        X = np.asarray(points, dtype=float)
        W = np.asarray(weights, dtype=float)
        if X.ndim != 2 or X.shape[1] != 3 or W.shape != X.shape[:1] or H.shape != (6, 6):
            raise InvalidDescriptionError(f"bad shapes: points {X.shape}, weights {W.shape}, H {H.shape}")
        self._phi_d, self._phi_r, self._strain = phi_d, phi_r, strain
        self.points, self.weights, self.H = X, W, H
        self.dm = np.broadcast_to(np.asarray(rho, dtype=float), W.shape) * W
        self.name, self.length = name, float(length)
        D = np.asarray(phi_d(X), dtype=float)
        S = np.asarray(strain(X), dtype=float)
        n = D.shape[-1]
        if D.shape != (len(W), 3, n) or S.shape != (len(W), 6, n):
            raise InvalidDescriptionError(f"phi_d gave {D.shape}, strain gave {S.shape}")
        self.coordinate_names = (tuple(coordinate_names) if coordinate_names is not None
                                 else tuple(f"q{k + 1}" for k in range(n)))
        dm = self.dm
        r2 = np.einsum("p,pa,pa->p", dm, X, X)
        self.invariants = BodyInvariants(
            m=dm.sum(),
            ms_r=dm @ X,
            I_rr=r2.sum() * np.eye(3) - np.einsum("p,pa,pb->ab", dm, X, X),
            MS_de=np.einsum("p,pak->ak", dm, D),
            J_re=np.einsum("p,pa,pbk->kab", dm, X, D),
            J_ee=np.einsum("p,pai,pbk->ikab", dm, D, D),
            K_ee=np.einsum("p,pai,ba,bc,pck->ik", W, S, H, I_T, S),
        )

    def phi_d(self, points) -> np.ndarray:
        """User Phi_d: (..., 3) points in F_j (m) -> (..., 3, N)."""
        p = np.asarray(points, dtype=float)
        out = np.asarray(self._phi_d(p.reshape(-1, 3)))
        return out.reshape(p.shape[:-1] + out.shape[-2:])

    def phi_r(self, points) -> np.ndarray:
        """User Phi_r: (..., 3) points in F_j (m) -> (..., 3, N), rad.

        Raises NotImplementedError if no phi_r was given.
        """
        if self._phi_r is None:
            raise NotImplementedError(f"{self.name}: no rotation shape functions")
        p = np.asarray(points, dtype=float)
        out = np.asarray(self._phi_r(p.reshape(-1, 3)))
        return out.reshape(p.shape[:-1] + out.shape[-2:])

    @classmethod
    def from_beam(cls, beam, n_gauss: int = 4, n_section: int = 2,
                  name: str | None = None) -> "ShapeFunctionBody":
        """Quadrature twin of a :class:`flexpkm.elements.beam.Beam3D`/``PlanarBeam``.

        Same Phi_d, Phi_r, Phi_eps as ``beam``; Gauss-Legendre quadrature with
        ``n_gauss`` points along [0, l] (integrands of degree <= 6 in x: 4 is
        exact) times ``n_section`` x ``n_section`` over the rectangle
        [-b_y/2, b_y/2] x [-h_z/2, h_z/2] (degree <= 2 in y, z: 2 is exact).
        A section without rectangle sides (b_y/h_z None) uses the 4-point
        rule (+-sqrt(Iz/A), +-sqrt(Iy/A)) of weight A/4, exact for the
        quadratic section moments used here.

        Stress law :func:`beam_hooke_matrix` with torsion_factor = I0 / Ip,
        so that K_ee reproduces (F.9) (the shape functions give a torsion
        energy G Ip / l; the Saint-Venant warping is accounted for only
        through I0). G = 0 when the material has no G (planar beams).
        """
        sec, mat, l = beam.section, beam.material, beam.length
        if sec.b_y is not None and sec.h_z is not None:
            lo = (0.0, -sec.b_y / 2, -sec.h_z / 2)
            X, W = gauss_box(lo, (l, sec.b_y / 2, sec.h_z / 2), (n_gauss, n_section, n_section))
        else:
            x, wx = gauss_box((0.0, 0.0, 0.0), (l, 1.0, 1.0), (n_gauss, 1, 1))
            cy, cz = np.sqrt(sec.Iz / sec.A), np.sqrt(sec.Iy / sec.A)
            yz = np.array([[cy, cz], [cy, -cz], [-cy, cz], [-cy, -cz]])
            X = np.concatenate([np.repeat(x[:, :1], 4, axis=0),
                                np.tile(yz, (len(x), 1))], axis=1)
            W = np.repeat(wx, 4) * sec.A / 4
        H = beam_hooke_matrix(mat.E, mat.G or 0.0, sec.I0 / sec.Ip)
        return cls(beam.phi_d, beam.phi_r, beam.phi_eps, X, W, mat.rho, H,
                   name=name or f"{beam.name}_quadrature",
                   coordinate_names=beam.coordinate_names, length=l)
