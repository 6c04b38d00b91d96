"""Body models of flexpkm: rigid bodies, Euler-Bernoulli beams and general
Rayleigh-Ritz shape-function bodies, with one common interface
(:class:`flexpkm.elements.base.Body`) and the generalized Newton-Euler model of
Briot & Khalil Section 10.2 (:mod:`flexpkm.elements.newton_euler`)."""

from .base import Body, BodyInvariants
from .beam import Beam3D, Material, PlanarBeam, Section
from .rigid import RigidBody
from .shape_body import ShapeFunctionBody

__all__ = ["Body", "BodyInvariants", "Beam3D", "PlanarBeam", "Section", "Material",
           "RigidBody", "ShapeFunctionBody"]
