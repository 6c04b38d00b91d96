"""Independent OpenSeesPy frame model of the flexible IRSBot-2 of
cases/examples/irsbot2_flexible.toml (proximal links and distal bars
flexible; elbows, links 4, auxiliary bars and the platform rigid; actuators
locked). Does NOT import flexpkm; the geometry is the closed form of
:mod:`tests.independent.irsbot2_geometry`.

3D (``ndm=3, ndf=6``): each proximal link and distal bar is ``n_el``
``elasticBeamColumn`` elements (consistent mass, plus the sections' rotary
inertia as in :mod:`tests.independent.opensees_delta`), the proximal links
clamped at A_i. OpenSees gives K and M of the beams; the rigid bodies (6
DOFs at their centres; the platform FREE in every direction) and the joints
are added here, linearised at the configuration: a point r of a body moves
by ``u + theta x r``; a revolute about s_i y_0 equates the two sides' points
and their rotations normal to the axis, the weld of link 4 to the platform
all three rotations. The constraints are eliminated with a null-space basis;
scipy solves the eigenproblem."""
from __future__ import annotations

import math

import numpy as np
import scipy.linalg as sla

from .irsbot2_geometry import C, leg_points
from .opensees_delta import RHO, _rigid_mass, frame_builder
from .opensees_tools import assemble

EZ = np.array([0.0, 0.0, 1.0])


def _cylinder(length, diameter):
    """(m, inertia across, inertia about the axis) of a solid cylinder."""
    m = RHO * math.pi * diameter ** 2 * length / 4
    return m, m * (3 * diameter ** 2 / 4 + length ** 2) / 12, m * diameter ** 2 / 8


def _bodies(x, z, legs):
    """The rigid bodies: (centre, (m, it, ia), axis) of each leg's elbow,
    link 4 and auxiliary bar, then the platform."""
    P = np.array([x, 0.0, z])
    out = []
    for g in legs:
        aux_axis = (g["E"] - g["Ah"]) / np.linalg.norm(g["E"] - g["Ah"])
        out += [(g["B"] - 0.02 * EZ, _cylinder(0.10, 0.020), g["u"]),
                (P + g["s"] * C * np.array([1.0, 0, 0]) - 0.02 * EZ, _cylinder(0.10, 0.020), g["u"]),
                ((g["Ah"] + g["E"]) / 2, _cylinder(0.28, 0.012), aux_axis)]
    return out + [(P, _cylinder(0.020, 0.100), EZ)]


def irsbot2_frequencies(x, z, n_el=1, n_modes=10):
    """First ``n_modes`` natural frequencies (Hz) of the flexible IRSBot-2
    with its platform at (x, 0, z), m, actuators locked."""
    import openseespy.opensees as ops

    legs = leg_points(x, z)
    ops.wipe()
    ops.model("basic", "-ndm", 3, "-ndf", 6)
    _, beam, extra, cnt = frame_builder(ops, n_el)
    ends = []
    for g in legs:
        a0, b = beam(g["A"], g["B"], 0.030, g["u"])
        ops.fix(a0, 1, 1, 1, 1, 1, 1)
        ends.append((b, beam(g["b1"], g["c1"], 0.012, g["u"]), beam(g["b2"], g["c2"], 0.012, g["u"])))
    K = assemble(ops, 0.0, 1.0)
    M = assemble(ops, 1.0, 0.0)
    dofs = {t: list(ops.nodeDOFs(t)) for t in range(1, cnt["node"] + 1)}
    ops.wipe()
    for (a, b), Mr in extra:
        idx = dofs[a] + dofs[b]
        keep = [k for k, d in enumerate(idx) if d >= 0]
        M[np.ix_([idx[k] for k in keep], [idx[k] for k in keep])] += Mr[np.ix_(keep, keep)]
    return _solve(K, M, legs, ends, dofs, _bodies(x, z, legs), n_modes)


def _solve(K, M, legs, ends, dofs, bodies, n_modes):
    n = K.shape[0]
    N = n + 6 * len(bodies)
    Kt, Mt = np.zeros((N, N)), np.zeros((N, N))
    Kt[:n, :n], Mt[:n, :n] = K, M
    body_dofs = [list(range(n + 6 * k, n + 6 * k + 6)) for k in range(len(bodies))]
    for (centre, inertia, axis), d in zip(bodies, body_dofs):
        Mt[np.ix_(d, d)] = _rigid_mass(inertia, axis)
    rows = []

    def side(tag=None, body=None, point=None):
        """(dofs, r): a beam node (r = 0), a body's point, or the ground."""
        if tag is not None:
            return dofs[tag], np.zeros(3)
        return (body_dofs[body], point - bodies[body][0]) if body is not None else (None, None)

    def joint(one, two, axes):
        """Points of the two sides together; their rotations about ``axes``."""
        for k in range(3):
            r = np.zeros(N)
            for sign, (d, rr) in ((1, one), (-1, two)):
                if d is not None:                      # u + theta x r = u - S(r) theta
                    S = np.array([[0, -rr[2], rr[1]], [rr[2], 0, -rr[0]], [-rr[1], rr[0], 0]])
                    r[d[k]] += sign
                    r[d[3:]] -= sign * S[k]
            rows.append(r)
        for p in axes:
            r = np.zeros(N)
            for sign, (d, _) in ((1, one), (-1, two)):
                if d is not None:
                    r[d[3:]] += sign * p
            rows.append(r)

    platform = len(bodies) - 1
    for i, (g, (tip, bar1, bar2)) in enumerate(zip(legs, ends)):
        elbow, link4, aux = 3 * i, 3 * i + 1, 3 * i + 2
        normal = sla.null_space(g["u"][None]).T       # rotations a revolute about u blocks
        joint(side(tip), side(body=elbow, point=g["B"]), normal)
        joint(side(body=aux, point=g["Ah"]), side(), normal)          # to the ground
        joint(side(body=aux, point=g["E"]), side(body=elbow, point=g["E"]), normal)
        joint(side(bar1[0]), side(body=elbow, point=g["b1"]), normal)
        joint(side(bar2[0]), side(body=elbow, point=g["b2"]), normal)
        joint(side(bar1[1]), side(body=link4, point=g["c1"]), normal)
        joint(side(bar2[1]), side(body=link4, point=g["c2"]), normal)
        mount = bodies[link4][0] + 0.02 * EZ                           # P + s c x_0
        joint(side(body=link4, point=mount), side(body=platform, point=mount), np.eye(3))
    T = sla.null_space(np.array(rows))
    lam = sla.eigh(T.T @ Kt @ T, T.T @ Mt @ T, eigvals_only=True)
    return np.sqrt(np.clip(lam[:n_modes], 0, None)) / (2 * math.pi)
