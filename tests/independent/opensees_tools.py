"""Small OpenSeesPy utilities shared by the independent FE models."""
from __future__ import annotations

import numpy as np


def assemble(ops, m, k):
    """``m M + k K`` of the current model, reduced by its constraints
    (Transformation handler, plain numbering), extracted with the GimmeMCK
    integrator as a dense symmetric (n, n) array."""
    ops.wipeAnalysis()
    ops.constraints("Transformation")
    ops.numberer("Plain")
    ops.system("FullGeneral")
    ops.algorithm("Linear")
    ops.integrator("GimmeMCK", float(m), 0.0, float(k))
    ops.analysis("Transient")
    ops.analyze(1, 0.0)
    n = int(ops.systemSize())
    a = np.array(ops.printA("-ret"), dtype=float).reshape(n, n)
    return 0.5 * (a + a.T)
