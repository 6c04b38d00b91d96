"""The robot: its immutable description (Ch. 4 of Briot & Khalil, Müller's
modular limbs) and the :class:`Model` built from it once (Step 0 of
Section 10.6)."""
from flexpkm.model.build import Model, build_structure
from flexpkm.model.description import (FIXED, PRISMATIC, REVOLUTE, Closure, Frame,
                                       MDHParameters, Platform, Robot)
from flexpkm.model.layout import CoordinateLayout
from flexpkm.model.limbs import Limb, Mount, PlacedLimb, combine_limbs
from flexpkm.model.refine import refine
from flexpkm.model.files import (dump as dump_robot, dumps as dumps_robot, load as load_robot,
                                 loads as loads_robot)

__all__ = ["Model", "build_structure", "Robot", "Frame", "MDHParameters", "Platform", "Closure",
           "CoordinateLayout", "Limb", "Mount", "PlacedLimb", "combine_limbs",
           "REVOLUTE", "PRISMATIC", "FIXED", "refine",
           "load_robot", "loads_robot", "dump_robot", "dumps_robot"]
