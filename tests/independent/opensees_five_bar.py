"""Independent OpenSeesPy frame model of the flexible planar five-bar of
``cases/examples/five_bar.toml``. Does NOT import flexpkm.

Plane (X, Y), ``ndm=2, ndf=3``; actuators locked (the proximal links are
clamped at A1 = (0, 0) and A2 = (0.2, 0)); each 0.3 m link is ``n_el``
``elasticBeamColumn`` elements with consistent mass (``-cMass``); the elbow
revolutes and the pin at P are two coincident nodes with equal translations
(``equalDOF 1 2``); point masses 0.1 kg at each elbow and 0.2 kg at P
(translational mass). K and M are extracted (GimmeMCK, Transformation
handler) and the generalised eigenproblem is solved with scipy.
"""
from __future__ import annotations

import math

import numpy as np
import scipy.linalg as sla

from .opensees_tools import assemble

E, RHO = 210e9, 7800.0
B, H = 0.005, 0.030             # in-plane thickness, out-of-plane height (m)
A, I = B * H, H * B ** 3 / 12.0
L = 0.3
A1, A2 = np.array([0.0, 0.0]), np.array([0.2, 0.0])
M_ELBOW, M_TOOL = 0.1, 0.2


def five_bar_geometry(q11: float, q21: float) -> dict:
    """Elbows B1, B2 and the tip P (upper assembly mode), and the joint
    angles q12, q22 (relative to the proximal link), rad. ValueError if the
    elbows are more than 2 L apart."""
    b1 = A1 + L * np.array([math.cos(q11), math.sin(q11)])
    b2 = A2 + L * np.array([math.cos(q21), math.sin(q21)])
    d = b2 - b1
    dist = float(np.hypot(*d))
    if dist >= 2 * L:
        raise ValueError(f"five-bar cannot be assembled: |B1 B2| = {dist} m")
    h = math.sqrt(L ** 2 - dist ** 2 / 4)
    n = np.array([-d[1], d[0]]) / dist
    p = b1 + d / 2 + h * n
    q12 = math.atan2(p[1] - b1[1], p[0] - b1[0]) - q11
    q22 = math.atan2(p[1] - b2[1], p[0] - b2[0]) - q21
    return {"B1": b1, "B2": b2, "P": p, "q12": q12, "q22": q22}


def _chain(ops, tags, a, b, n_el, label, counter):
    """n_el elements from node tag a (point pa) to node tag b."""
    pa, pb = tags[a][1], tags[b][1]
    prev = tags[a][0]
    for k in range(1, n_el + 1):
        if k < n_el:
            counter["node"] += 1
            ops.node(counter["node"], *(pa + (pb - pa) * k / n_el))
            nxt = counter["node"]
        else:
            nxt = tags[b][0]
        counter["ele"] += 1
        ops.element("elasticBeamColumn", counter["ele"], prev, nxt, A, E, I, 1,
                    "-mass", RHO * A, "-cMass")
        prev = nxt


def _build(ops, q11: float, q21: float, n_el: int):
    """The frame model (actuators clamped) in a fresh OpenSees domain;
    returns the node tags by name."""
    g = five_bar_geometry(q11, q21)
    ops.wipe()
    ops.model("basic", "-ndm", 2, "-ndf", 3)
    points = {"A1": A1, "B1a": g["B1"], "B1b": g["B1"], "P1": g["P"],
              "A2": A2, "B2a": g["B2"], "B2b": g["B2"], "P2": g["P"]}
    tags = {}
    for k, (name, p) in enumerate(points.items(), start=1):
        ops.node(k, *p)
        tags[name] = (k, np.asarray(p, float))
    counter = {"node": len(points), "ele": 0}
    ops.geomTransf("Linear", 1)
    for leg in "12":
        _chain(ops, tags, f"A{leg}", f"B{leg}a", n_el, f"prox{leg}", counter)
        _chain(ops, tags, f"B{leg}b", f"P{leg}", n_el, f"dist{leg}", counter)
        ops.fix(tags[f"A{leg}"][0], 1, 1, 1)
        ops.equalDOF(tags[f"B{leg}a"][0], tags[f"B{leg}b"][0], 1, 2)
        ops.mass(tags[f"B{leg}b"][0], M_ELBOW, M_ELBOW, 0.0)
    ops.equalDOF(tags["P1"][0], tags["P2"][0], 1, 2)
    ops.mass(tags["P1"][0], M_TOOL, M_TOOL, 0.0)
    return tags


def five_bar_frequencies(q11: float, q21: float, n_el: int = 1, n_modes: int = 6):
    """First ``n_modes`` natural frequencies (Hz) with locked actuators."""
    import openseespy.opensees as ops

    _build(ops, q11, q21, n_el)
    K = assemble(ops, 0.0, 1.0)
    M = assemble(ops, 1.0, 0.0)
    ops.wipe()
    lam = sla.eigh(K, M, eigvals_only=True)
    return np.sqrt(lam[:n_modes]) / (2 * math.pi)


def five_bar_static_deflection(q11: float, q21: float, force, n_el: int = 1):
    """Displacement (2,) of P (m) under the in-plane force ``force`` (N) at P,
    actuators locked: one linear static analysis (no gravity)."""
    import openseespy.opensees as ops

    tags = _build(ops, q11, q21, n_el)
    ops.timeSeries("Constant", 1)
    ops.pattern("Plain", 1, 1)
    ops.load(tags["P1"][0], float(force[0]), float(force[1]), 0.0)
    ops.constraints("Transformation")
    ops.numberer("Plain")
    ops.system("FullGeneral")
    ops.algorithm("Linear")
    ops.integrator("LoadControl", 1.0)
    ops.analysis("Static")
    if ops.analyze(1) != 0:
        raise RuntimeError("OpenSees static analysis failed")
    u = np.array(ops.nodeDisp(tags["P1"][0])[:2])
    ops.wipe()
    return u
