"""flexpkm: natural frequencies, mode shapes and elastodynamics of flexible
parallel robots, after Briot & Khalil, *Dynamics of Parallel Robots*
(Springer 2015), Part III, and Müller's complex-limb method."""
from .errors import (FlexPKMError, IndefiniteMassMatrixError, InvalidArgumentError,
                     InvalidDescriptionError, SingularConfigurationError, UnreachablePoseError)

__version__ = "0.1.0"
__all__ = ["FlexPKMError", "InvalidDescriptionError", "UnreachablePoseError",
           "SingularConfigurationError", "IndefiniteMassMatrixError", "InvalidArgumentError"]
