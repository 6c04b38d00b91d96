"""Independent OpenSeesPy frame model of the spatial-beam 3-RRR of
``cases/examples/three_rrr.toml``. Does NOT import flexpkm.

3D (``ndm=3, ndf=6``): each leg is a proximal and a distal link of ``n_el``
``elasticBeamColumn`` elements each (consistent mass ``-cMass``, Linear
transformation, local z along Z), clamped at A_i (actuator locked), the
passive elbow revolute as two coincident nodes with equal displacements and
rotations except the rotation about Z. OpenSees builds the legs; K and M are
extracted (GimmeMCK). The rigid platform (mass, inertia at P) is added here:
its 6 DOFs (u_P, theta_P) and the revolutes at C_i, u(C_i) = u_P + theta_P x
(C_i - P), theta_x,y(C_i) = theta_P x,y, are eliminated exactly with a
null-space basis; scipy solves the eigenproblem.
"""
from __future__ import annotations

import math

import numpy as np
import scipy.linalg as sla

from .opensees_tools import assemble

E, NU, RHO = 70e9, 0.33, 2700.0
G = E / (2 * (1 + NU))
D = 0.008
AREA = math.pi * D ** 2 / 4
I_SEC = math.pi * D ** 4 / 64
J_SEC = 2 * I_SEC
L, R_BASE, R_PLAT = 0.25, 0.3, 0.1
GAMMA = np.radians([90.0, 210.0, 330.0])
M_PLAT, I_PLAT = 1.0, np.diag([0.004, 0.004, 0.008])


def _u(a):
    return np.array([math.cos(a), math.sin(a)])


def three_rrr_geometry(x, y, phi, elbow=1.0) -> dict:
    """Inverse geometric model: joint angles q_i1 (absolute), q_i2, q_i3
    (relative), rad, and the points A, B, C (3, 2) for the platform pose
    (x, y, phi); elbow = +1/-1 working mode. ValueError if unreachable."""
    out = {"A": [], "B": [], "C": [], "q": []}
    p = np.array([x, y], float)
    for g in GAMMA:
        a, c = R_BASE * _u(g), p + R_PLAT * _u(phi + g)
        v = c - a
        n = float(np.hypot(*v))
        if n >= 2 * L:
            raise ValueError(f"3-RRR leg at {math.degrees(g)} deg cannot reach C: {n} m")
        q1 = math.atan2(v[1], v[0]) + elbow * math.acos(n / (2 * L))
        b = a + L * _u(q1)
        a2 = math.atan2(c[1] - b[1], c[0] - b[0])
        a3 = math.atan2(p[1] - c[1], p[0] - c[0])
        out["A"].append(a); out["B"].append(b); out["C"].append(c)
        out["q"].append((q1, a2 - q1, a3 - a2))
    return {k: np.array(v) for k, v in out.items()}


def _leg(ops, pts, n_el, counter):
    """Nodes/elements of one leg; returns the node tags (A, B_prox, B_dist, C)."""
    def node(p):
        counter["node"] += 1
        ops.node(counter["node"], float(p[0]), float(p[1]), 0.0)
        return counter["node"]

    def link(pa, pb):
        tags = [node(pa)] + [node(pa + (pb - pa) * k / n_el) for k in range(1, n_el + 1)]
        for a, b in zip(tags[:-1], tags[1:]):
            counter["ele"] += 1
            ops.element("elasticBeamColumn", counter["ele"], a, b, AREA, E, G, J_SEC, I_SEC,
                        I_SEC, 1, "-mass", RHO * AREA, "-cMass")
        return tags[0], tags[-1]

    a, b1 = link(pts[0], pts[1])
    b2, c = link(pts[1], pts[2])
    ops.fix(a, 1, 1, 1, 1, 1, 1)
    return a, b1, b2, c


def _dofs(ops, tag):
    return [d for d in ops.nodeDOFs(tag)]


def _platform_model(x, y, phi, n_el):
    """``(K, M, T, n)``: the legs' K and M with the platform's 6 DOFs
    appended (the last six: u_P, theta_P) and the null-space basis T of the
    revolutes at the elbows and at C_i (see the module)."""
    import openseespy.opensees as ops

    geo = three_rrr_geometry(x, y, phi)
    ops.wipe()
    ops.model("basic", "-ndm", 3, "-ndf", 6)
    ops.geomTransf("Linear", 1, 0.0, 0.0, 1.0)
    counter = {"node": 0, "ele": 0}
    legs = [_leg(ops, (geo["A"][i], geo["B"][i], geo["C"][i]), n_el, counter) for i in range(3)]
    K = assemble(ops, 0.0, 1.0)
    M = assemble(ops, 1.0, 0.0)
    tags = [(_dofs(ops, b1), _dofs(ops, b2), _dofs(ops, c)) for _, b1, b2, c in legs]
    ops.wipe()
    n = K.shape[0]
    # add the platform (u_P, theta_P) at the end
    Kt, Mt = np.zeros((n + 6, n + 6)), np.zeros((n + 6, n + 6))
    Kt[:n, :n], Mt[:n, :n] = K, M
    Mt[n:n + 3, n:n + 3] = M_PLAT * np.eye(3)
    Mt[n + 3:, n + 3:] = I_PLAT     # rotation about Z only: I_PLAT is axisymmetric
    rows = []
    for (b1, b2, c), cp in zip(tags, geo["C"]):
        for k in range(5):              # elbow revolute: all but theta_Z
            r = np.zeros(n + 6); r[b1[k]] = 1; r[b2[k]] = -1; rows.append(r)
        rel = np.array([cp[0] - x, cp[1] - y, 0.0])
        for k in range(3):              # u_C = u_P + theta_P x rel
            r = np.zeros(n + 6); r[c[k]] = 1; r[n + k] = -1
            e = np.zeros(3); e[k] = 1
            r[n + 3:] = -np.cross(rel, e)   # d(theta x rel)_k / d theta = -(rel x e_k)
            rows.append(r)
        for k in range(2):              # theta_x,y(C) = theta_P x,y
            r = np.zeros(n + 6); r[c[3 + k]] = 1; r[n + 3 + k] = -1; rows.append(r)
    return Kt, Mt, sla.null_space(np.array(rows)), n


def three_rrr_frequencies(x=0.0, y=0.0, phi=0.0, n_el=1, n_modes=8):
    """First ``n_modes`` natural frequencies (Hz), actuators locked."""
    Kt, Mt, T, _ = _platform_model(x, y, phi, n_el)
    lam = sla.eigh(T.T @ Kt @ T, T.T @ Mt @ T, eigvals_only=True)
    return np.sqrt(lam[:n_modes]) / (2 * math.pi)


def three_rrr_static_deflection(wrench, x=0.0, y=0.0, phi=0.0, n_el=1):
    """Displacement and small rotation of the platform (6,) (m, rad) under
    the wrench ``[F; M]`` (6,) (N, N m) at P, actuators locked, linear
    statics on the constrained stiffness ``T^T K T`` (no gravity)."""
    Kt, _, T, n = _platform_model(x, y, phi, n_el)
    f = np.zeros(Kt.shape[0])
    f[n:] = wrench
    u = T @ np.linalg.solve(T.T @ Kt @ T, T.T @ f)
    return u[n:]
