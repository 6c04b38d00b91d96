"""Clamped-free Euler-Bernoulli beams (Briot & Khalil, Appendix F).

Frame F_j: origin O_j at the clamped end, x_j along the neutral axis, the
section principal axes along y_j, z_j. One element, six elastic coordinates
at the free end, in this order::

    q_e = (u_x, u_y, u_z, theta_x, theta_y, theta_z)

Shape functions along the axis (F.1), xi = x / l::

    Phi_dx = [xi, 0,  0,  0,  0,   0 ]
    Phi_dy = [0,  N1, 0,  0,  0,   N2]
    Phi_dz = [0,  0,  N1, 0,  -N2, 0 ]
    Phi_rx = [0,  0,  0,  xi, 0,   0 ]
    Phi_ry = [0,  0,  -G, 0,  H,   0 ]
    Phi_rz = [0,  G,  0,  0,  0,   H ]

with N1 = 3 xi^2 - 2 xi^3, N2 = l (xi^3 - xi^2), G = N1' = 6 (xi - xi^2) / l,
H = N2' = 3 xi^2 - 2 xi. At an off-axis point (x, y, z) (F.2)::

    Phi_d = [Phi_dx - y Phi_rz + z Phi_ry; Phi_dy - z Phi_rx; Phi_dz + y Phi_rx]

and Phi_r = [Phi_rx; Phi_ry; Phi_rz] (F.3).

The invariants below are closed forms of the integrals (10.40)-(10.58) over
the full prismatic volume (section integrals: int dA = A, int y dA = int z dA
= int y z dA = 0, int y^2 dA = Iz, int z^2 dA = Iy), derived with sympy, so
they include the rotary-inertia terms of (F.13)-(F.14). The stiffness is
(F.9). See docs/typos_elements.md for the misprints of (F.12).
"""
from __future__ import annotations

from dataclasses import dataclass

import math

import numpy as np

from flexpkm.errors import InvalidDescriptionError

from .base import Body, BodyInvariants

__all__ = ["Section", "Material", "rectangle_torsion_constant",
           "beam_invariants", "Beam3D", "PlanarBeam"]


def rectangle_torsion_constant(b_y: float, h_z: float, method: str = "roark") -> float:
    """Saint-Venant torsion constant J (m^4) of a b_y x h_z rectangle (m).

    method="roark": J = a b^3 [1/3 - 0.21 (b/a)(1 - b^4 / (12 a^4))], with
    a >= b the long and short sides (Roark, error < 0.1 %).
    method="series": exact series
    J = a b^3 / 3 [1 - 192/pi^5 (b/a) sum_{n odd} tanh(n pi a / (2 b)) / n^5].

    For 10 mm x 24 mm: roark 5.9053e-9, series 5.9014e-9; the book's
    Table 11.3 prints 5.902e-9.

    Raises ValueError for non-positive sides or an unknown method.
    """
    if b_y <= 0 or h_z <= 0:
        raise InvalidDescriptionError(f"rectangle sides must be > 0, got {b_y}, {h_z}")
    a, b = max(b_y, h_z), min(b_y, h_z)
    if method == "roark":
        return a * b**3 * (1.0 / 3.0 - 0.21 * (b / a) * (1.0 - b**4 / (12.0 * a**4)))
    if method == "series":
        n = np.arange(1, 400, 2, dtype=float)
        s = np.sum(np.tanh(n * np.pi * a / (2.0 * b)) / n**5)
        return a * b**3 / 3.0 * (1.0 - 192.0 / np.pi**5 * (b / a) * s)
    raise InvalidDescriptionError(f"unknown torsion method {method!r}")


@dataclass(frozen=True)
class Section:
    """Beam cross-section properties (SI).

    A  : area, m^2
    Iy : second moment int z^2 dA about y_j (bending in the x-z plane), m^4
    Iz : second moment int y^2 dA about z_j (bending in the x-y plane), m^4
    I0 : torsion constant J, m^4 (NOT the polar moment Ip = Iy + Iz)
    b_y, h_z : rectangle sides along y_j and z_j (m) when known, else None;
               needed by :meth:`flexpkm.elements.shape_body.ShapeFunctionBody.from_beam`
               for a Gauss quadrature over the section.
    """

    A: float
    Iy: float
    Iz: float
    I0: float
    b_y: float | None = None
    h_z: float | None = None

    def __post_init__(self):
        if not (0 < self.A < math.inf and 0 < self.Iy < math.inf and 0 < self.Iz < math.inf
                and 0 <= self.I0 < math.inf):
            raise InvalidDescriptionError(f"invalid section properties {self}: A, Iy, Iz must be "
                                          "positive and finite, I0 >= 0 and finite")

    @property
    def Ip(self) -> float:
        """Polar moment Iy + Iz, m^4."""
        return self.Iy + self.Iz

    @classmethod
    def rectangle(cls, b_y: float, h_z: float, torsion: str = "roark") -> "Section":
        """Rectangle of side b_y along y_j and h_z along z_j (m).

        A = b h, Iz = h b^3 / 12, Iy = b h^3 / 12, I0 from
        :func:`rectangle_torsion_constant` (``torsion`` = "roark"/"series").
        """
        I0 = rectangle_torsion_constant(b_y, h_z, torsion)
        return cls(A=b_y * h_z, Iy=b_y * h_z**3 / 12.0, Iz=h_z * b_y**3 / 12.0,
                   I0=I0, b_y=float(b_y), h_z=float(h_z))


@dataclass(frozen=True)
class Material:
    """Linear elastic isotropic material (SI).

    E : Young modulus, Pa;  rho : density, kg/m^3;  nu : Poisson ratio;
    G : shear modulus, Pa, set to E / (2 (1 + nu)) when not given and nu is.
    G stays None when neither nu nor G is given (enough for planar beams).
    """

    E: float
    rho: float
    nu: float | None = None
    G: float | None = None

    def __post_init__(self):
        if not (0 < self.E < math.inf and 0 < self.rho < math.inf):
            raise InvalidDescriptionError(f"invalid material {self}: E and rho must be positive "
                                          "and finite")
        if self.nu is not None and not -1.0 < self.nu < 0.5:
            raise InvalidDescriptionError(f"invalid material {self}: the Poisson ratio nu must "
                                          "be in (-1, 0.5)")
        if self.G is not None and not 0 < self.G < math.inf:
            raise InvalidDescriptionError(f"invalid material {self}: G must be positive and finite")
        if self.G is None and self.nu is not None:
            object.__setattr__(self, "G", self.E / (2.0 * (1.0 + self.nu)))


def _axis_shapes(x, l: float):
    """Axis shape functions (F.1) and their x-derivatives.

    x : (...,) abscissae, m. Returns (S, dS), each (..., 6, 6): rows
    [Phi_dx, Phi_dy, Phi_dz, Phi_rx, Phi_ry, Phi_rz], columns the 6
    coordinates; dS = dS/dx.
    """
    xi = np.asarray(x, dtype=float) / l
    one, zero = np.ones_like(xi), np.zeros_like(xi)
    N1, dN1 = 3 * xi**2 - 2 * xi**3, 6 * (xi - xi**2) / l
    N2, dN2 = l * (xi**3 - xi**2), 3 * xi**2 - 2 * xi
    G, dG = dN1, 6 * (1 - 2 * xi) / l**2
    H, dH = dN2, (6 * xi - 2) / l

    def table(xi_, N1_, N2_, G_, H_):
        rows = [[xi_, zero, zero, zero, zero, zero],
                [zero, N1_, zero, zero, zero, N2_],
                [zero, zero, N1_, zero, -N2_, zero],
                [zero, zero, zero, xi_, zero, zero],
                [zero, zero, -G_, zero, H_, zero],
                [zero, G_, zero, zero, zero, H_]]
        return np.moveaxis(np.array(rows), (0, 1), (-2, -1))

    return table(xi, N1, N2, G, H), table(one / l, dN1, dN2, dG, dH)


def beam_invariants(length: float, section: Section, material: Material) -> BodyInvariants:
    """Closed-form invariants of the 6-coordinate 3D beam (Appendix F).

    Returns a BodyInvariants in F_j (SI) with N = 6; stiffness (F.9) uses
    G I0 for torsion (0 if material.G is None).

    Raises ValueError if length <= 0.
    """
    l = float(length)
    if l <= 0:
        raise InvalidDescriptionError(f"beam length must be > 0, got {length}")
    rho, A, Iy, Iz = material.rho, section.A, section.Iy, section.Iz
    m = rho * A * l
    ry, rz = rho * Iy, rho * Iz          # rotary inertia per unit length, kg m
    ms_r = np.array([m * l / 2, 0.0, 0.0])
    I_rr = np.diag([(ry + rz) * l, m * l**2 / 3 + ry * l, m * l**2 / 3 + rz * l])

    MS_de = np.zeros((3, 6))
    MS_de[0, 0] = MS_de[1, 1] = MS_de[2, 2] = m / 2
    MS_de[1, 5] = -m * l / 12            # (F.12) prints +m l / 12
    MS_de[2, 4] = m * l / 12

    # J_re[k][a, b] = int r_a Phi_d[b, k] dm
    J_re = np.zeros((6, 3, 3))
    for (k, a, b), v in {
            (0, 0, 0): m * l / 3,
            (1, 0, 1): 7 * m * l / 20, (1, 1, 0): -rz,
            (2, 0, 2): 7 * m * l / 20, (2, 2, 0): -ry,
            (3, 1, 2): rz * l / 2, (3, 2, 1): -ry * l / 2,
            (4, 0, 2): m * l**2 / 20,
            (5, 0, 1): -m * l**2 / 20}.items():
        J_re[k, a, b] = v

    # J_ee[i, k][a, b] = int Phi_d[a, i] Phi_d[b, k] dm, listed for i <= k;
    # J_ee[k, i] = J_ee[i, k]^T.
    J_ee = np.zeros((6, 6, 3, 3))
    for (i, k, a, b), v in {
            (0, 0, 0, 0): m / 3,
            (0, 1, 0, 1): 7 * m / 20, (0, 2, 0, 2): 7 * m / 20,
            (0, 4, 0, 2): m * l / 20, (0, 5, 0, 1): -m * l / 20,
            (1, 1, 0, 0): 6 * rz / (5 * l), (1, 1, 1, 1): 13 * m / 35,
            (1, 2, 1, 2): 13 * m / 35, (1, 3, 0, 2): -rz / 2,
            (1, 4, 1, 2): 11 * m * l / 210,
            (1, 5, 0, 0): -rz / 10, (1, 5, 1, 1): -11 * m * l / 210,
            (2, 2, 0, 0): 6 * ry / (5 * l), (2, 2, 2, 2): 13 * m / 35,
            (2, 3, 0, 1): ry / 2,
            (2, 4, 0, 0): ry / 10, (2, 4, 2, 2): 11 * m * l / 210,
            (2, 5, 2, 1): -11 * m * l / 210,
            (3, 3, 1, 1): ry * l / 3, (3, 3, 2, 2): rz * l / 3,
            (3, 4, 1, 0): -ry * l / 12, (3, 5, 2, 0): -rz * l / 12,
            (4, 4, 0, 0): 2 * ry * l / 15, (4, 4, 2, 2): m * l**2 / 105,
            (4, 5, 2, 1): -m * l**2 / 105,
            (5, 5, 0, 0): 2 * rz * l / 15, (5, 5, 1, 1): m * l**2 / 105}.items():
        J_ee[i, k, a, b] = v
        J_ee[k, i, b, a] = v

    E, G = material.E, (material.G or 0.0)
    EIy, EIz = E * Iy, E * Iz
    K = np.zeros((6, 6))
    K[0, 0] = E * A / l
    K[1, 1], K[1, 5], K[5, 5] = 12 * EIz / l**3, -6 * EIz / l**2, 4 * EIz / l
    K[2, 2], K[2, 4], K[4, 4] = 12 * EIy / l**3, 6 * EIy / l**2, 4 * EIy / l
    K[3, 3] = G * section.I0 / l
    K[5, 1], K[4, 2] = K[1, 5], K[2, 4]
    return BodyInvariants(m=m, ms_r=ms_r, I_rr=I_rr, MS_de=MS_de,
                          J_re=J_re, J_ee=J_ee, K_ee=K)


class Beam(Body):
    """Common base of the beams (:class:`Beam3D`, :class:`PlanarBeam`):
    shape functions restricted to ``columns``; ``isinstance(body, Beam)``
    tells a beam of either kind."""

    columns: tuple = tuple(range(6))
    _names = ("u_x", "u_y", "u_z", "theta_x", "theta_y", "theta_z")

    def __init__(self, length: float, section: Section, material: Material,
                 name: str = "beam"):
        self.name = name
        self.length = float(length)
        self.section = section
        self.material = material
        self.coordinate_names = tuple(self._names[c] for c in self.columns)
        self.invariants = beam_invariants(length, section, material).select(self.columns)

    def _split(self, points):
        p = np.asarray(points, dtype=float)
        if p.ndim == 0 or p.shape[-1] != 3:
            raise InvalidDescriptionError(f"points must have shape (..., 3), got {p.shape}")
        S, dS = _axis_shapes(p[..., 0], self.length)
        cols = list(self.columns)
        return p[..., 1, None], p[..., 2, None], S[..., cols], dS[..., cols]

    def phi_d(self, points) -> np.ndarray:
        """Displacement shape functions (F.2).

        points : (..., 3) reference points (x, y, z) in F_j, m.
        Returns (..., 3, N), m per unit coordinate (rad for rotations), F_j.
        Raises ValueError if points does not end with an axis of length 3.
        """
        y, z, S, _ = self._split(points)
        dx, dy, dz, rx, ry, rz = np.moveaxis(S, -2, 0)
        return np.stack([dx - y * rz + z * ry, dy - z * rx, dz + y * rx], axis=-2)

    def phi_r(self, points) -> np.ndarray:
        """Rotation shape functions (F.3): (..., 3) points -> (..., 3, N), rad."""
        return self._split(points)[2][..., 3:, :]

    def phi_eps(self, points) -> np.ndarray:
        """Strain operator Phi_eps of (10.30) for the displacement (F.2).

        points : (..., 3) in F_j, m. Returns (..., 6, N): rows
        (eps11, eps22, eps33, eps12, eps13, eps23), tensor shear strains
        (eps12 = 1/2 (du_x/dy + du_y/dx)), per unit coordinate.
        """
        y, z, S, dS = self._split(points)
        ry, rz = S[..., 4, :], S[..., 5, :]
        ddx, ddy, ddz, drx, dry, drz = np.moveaxis(dS, -2, 0)
        zero = np.zeros_like(ddx + y + z)
        return np.stack([
            ddx - y * drz + z * dry + zero,        # du_x/dx
            zero,                                  # du_y/dy
            zero,                                  # du_z/dz
            0.5 * (-rz + ddy - z * drx),           # (du_x/dy + du_y/dx) / 2
            0.5 * (ry + ddz + y * drx),            # (du_x/dz + du_z/dx) / 2
            zero,                                  # (-Phi_rx + Phi_rx) / 2
        ], axis=-2)


class Beam3D(Beam):
    """Clamped-free 3D Euler-Bernoulli beam, 6 coordinates (Appendix F).

    Parameters
    ----------
    length : float, m (> 0)
    section : Section
    material : Material (its shear modulus G is required, for torsion)
    name : str

    Attributes: invariants (closed forms, see :func:`beam_invariants`),
    coordinate_names = (u_x, u_y, u_z, theta_x, theta_y, theta_z) at the
    free end, length, section, material.

    Raises ValueError if length <= 0 or material.G is None.
    """

    def __init__(self, length: float, section: Section, material: Material,
                 name: str = "beam3d"):
        if material.G is None:
            raise InvalidDescriptionError("Beam3D needs the shear modulus: give Material(nu=...) or G")
        super().__init__(length, section, material, name)


class PlanarBeam(Beam):
    """Planar clamped-free beam (in the x_j-y_j plane), 3 coordinates.

    The columns (u_x, u_y, theta_z) = [0, 1, 5] of :class:`Beam3D`: same
    shape functions and invariants, restricted. The body is still the full
    prismatic volume (m, ms_r, I_rr unchanged). Parameters as Beam3D; G is
    not needed.
    """

    columns = (0, 1, 5)

    def __init__(self, length: float, section: Section, material: Material,
                 name: str = "planar_beam"):
        super().__init__(length, section, material, name)
