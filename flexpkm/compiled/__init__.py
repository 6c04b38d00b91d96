"""Generated C models of a robot (CasADi, the ``compiled`` extra:
``pip install 'flexpkm[compiled]'``)."""
from flexpkm.optional import require

require("casadi", "the compiled backend (generated C models)")
