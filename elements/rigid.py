"""Rigid body from Khalil's standard inertial parameters (Briot & Khalil, 6.2).

The ten standard parameters of body B_j, all at O_j and in F_j (SI):

* ``XX, YY, ZZ``: moments of inertia, e.g. XX = int (y^2 + z^2) dm (6.10), kg m^2
* ``XY, XZ, YZ``: products of inertia with Khalil's sign, XY = -int x y dm
  (6.13), so that the inertia matrix is [[XX, XY, XZ], [XY, YY, YZ],
  [XZ, YZ, ZZ]] (6.9)
* ``MX, MY, MZ``: first moments int r dm, kg m
* ``M``: mass, kg
"""
from __future__ import annotations

import numpy as np

from flexpkm.errors import InvalidDescriptionError

from .base import Body, BodyInvariants

__all__ = ["RigidBody"]


class RigidBody(Body):
    """Rigid body (N = 0 elastic coordinates).

    Parameters
    ----------
    XX, XY, XZ, YY, YZ, ZZ : float
        Inertia matrix at O_j in F_j (Khalil's convention, see module), kg m^2.
    MX, MY, MZ : float
        First moments at O_j in F_j, kg m.
    M : float
        Mass, kg.
    name : str

    Raises
    ------
    ValueError if M < 0.
    """

    def __init__(self, XX=0.0, XY=0.0, XZ=0.0, YY=0.0, YZ=0.0, ZZ=0.0,
                 MX=0.0, MY=0.0, MZ=0.0, M=0.0, name: str = "rigid"):
        if M < 0:
            raise InvalidDescriptionError(f"RigidBody: negative mass {M}")
        self.name = name
        self.coordinate_names = ()
        self.length = 0.0
        self.invariants = BodyInvariants(
            m=M, ms_r=np.array([MX, MY, MZ], dtype=float),
            I_rr=np.array([[XX, XY, XZ], [XY, YY, YZ], [XZ, YZ, ZZ]], dtype=float),
            MS_de=np.zeros((3, 0)), J_re=np.zeros((0, 3, 3)),
            J_ee=np.zeros((0, 0, 3, 3)), K_ee=np.zeros((0, 0)))

    @classmethod
    def point_mass(cls, m: float, position=(0.0, 0.0, 0.0), name: str = "point_mass"):
        """Point mass ``m`` (kg) at ``position`` (3,) in F_j (m)."""
        x, y, z = (float(c) for c in position)
        return cls(XX=m * (y * y + z * z), XY=-m * x * y, XZ=-m * x * z,
                   YY=m * (x * x + z * z), YZ=-m * y * z, ZZ=m * (x * x + y * y),
                   MX=m * x, MY=m * y, MZ=m * z, M=m, name=name)

    @property
    def standard_parameters(self) -> dict:
        """The ten standard parameters as a dict (keys XX ... M)."""
        inv = self.invariants
        (XX, XY, XZ), (_, YY, YZ), (_, _, ZZ) = inv.I_rr
        MX, MY, MZ = inv.ms_r
        return dict(XX=XX, XY=XY, XZ=XZ, YY=YY, YZ=YZ, ZZ=ZZ,
                    MX=MX, MY=MY, MZ=MZ, M=inv.m)

    def phi_d(self, points) -> np.ndarray:
        """Shape (..., 3, 0): a rigid body has no elastic displacement."""
        return np.zeros(np.shape(points)[:-1] + (3, 0))

    def phi_r(self, points) -> np.ndarray:
        """Shape (..., 3, 0): a rigid body has no elastic rotation."""
        return np.zeros(np.shape(points)[:-1] + (3, 0))
