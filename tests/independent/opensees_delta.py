"""Independent OpenSeesPy frame model of the flexible Delta of
``cases/delta.py`` (upper arms and rods flexible, links 2 and 4 and the
platform rigid, actuators locked). Does NOT import flexpkm; the geometry is
the closed form of :mod:`tests.independent.rigid_delta`.

3D (``ndm=3, ndf=6``): each upper arm and each rod is ``n_el``
``elasticBeamColumn`` elements (consistent mass ``-cMass``, Linear
transformation), the arms clamped at A_i. OpenSees gives K and M of the
beams (GimmeMCK); the rigid bodies (link 2 at B_i, link 4 at C_i: 6 DOFs at
their centres; the platform: 6 DOFs at P, FREE in every direction) and the
joints are added here, linearised at the configuration: a revolute about
axis a between a node or body X and a point r of a rigid body b is ``u_X =
u_b + theta_b x r`` and ``(theta_X - theta_b) . p = 0`` for the two
directions p normal to a; the wrist is such a revolute (about u_i) between
link 4 at C_i and the platform's point ``C_i - P``. Nothing keeps the
platform from turning but the joints and the beams (the robot's parallelograms
do only while they are rigid). The constraints are eliminated exactly with a
null-space basis; scipy solves the eigenproblem.

``rotary=True`` adds to each element the consistent rotary-inertia matrix of
its cross-section (rho I in bending, Eq. of the Rayleigh beam: ``rho I /
(30 L) [[36, 3L, -36, 3L], [3L, 4L^2, -3L, -L^2], ...]`` per bending plane),
which OpenSees' elements leave out and flexpkm's beams keep.
"""
from __future__ import annotations

import math

import numpy as np
import scipy.linalg as sla

from .opensees_tools import assemble
from .rigid_delta import EZ, H, LINK, PLATFORM, leg_geometry

E, NU, RHO = 70e9, 0.33, 2700.0
G = E / (2 * (1 + NU))


def _section(d):
    a, i = math.pi * d * d / 4, math.pi * d ** 4 / 64
    return a, i, 2 * i


def _rigid_mass(body, axis):
    m, it, ia = body
    M = np.zeros((6, 6))
    M[:3, :3] = m * np.eye(3)
    M[3:, 3:] = it * (np.eye(3) - np.outer(axis, axis)) + ia * np.outer(axis, axis)
    return M


def _rotary(L, I, ex, ey, ez):
    """12 x 12 rotary inertia of one element (node DOFs u1, th1, u2, th2,
    global) from bending in its two planes (local y, z)."""
    k = RHO * I / (30 * L)
    B = k * np.array([[36, 3 * L, -36, 3 * L], [3 * L, 4 * L * L, -3 * L, -L * L],
                      [-36, -3 * L, 36, -3 * L], [3 * L, -L * L, -3 * L, 4 * L * L]])
    M = np.zeros((12, 12))
    # plane x-y: v (along ey) and theta about ez; plane x-z: w (along ez) and theta about -ey
    for disp, rot in ((ey, ez), (ez, -ey)):
        vecs = [np.r_[disp, 0, 0, 0, np.zeros(6)], np.r_[0, 0, 0, rot, np.zeros(6)],
                np.r_[np.zeros(6), disp, 0, 0, 0], np.r_[np.zeros(6), 0, 0, 0, rot]]
        T = np.array(vecs)
        M += T.T @ B @ T
    return M


def frame_builder(ops, n_el):
    """``(node, beam, extra, cnt)`` for a 3D OpenSees model: ``node(p)``
    adds a node at p, returns its tag; ``beam(pa, pb, d, side)`` adds
    ``n_el`` elastic beam-columns of a round section of diameter d (consistent
    mass, local x-z plane containing ``side``) from pa to pb and returns its
    end nodes; ``extra`` collects ``((tag_a, tag_b), 12 x 12)`` rotary inertia
    per element (:func:`_rotary`); ``cnt`` counts nodes, elements and
    transformations."""
    cnt = {"node": 0, "ele": 0, "tr": 0}
    extra = []                                         # (node tags, 12 x 12) rotary inertia

    def node(p):
        cnt["node"] += 1
        ops.node(cnt["node"], *map(float, p))
        return cnt["node"]

    def beam(pa, pb, d, side):
        area, i, j = _section(d)
        cnt["tr"] += 1
        ops.geomTransf("Linear", cnt["tr"], *map(float, side))
        tags = [node(pa + (pb - pa) * k / n_el) for k in range(n_el + 1)]
        L = np.linalg.norm(pb - pa) / n_el
        ex = (pb - pa) / np.linalg.norm(pb - pa)
        ez = np.cross(ex, side)
        ez /= np.linalg.norm(ez)
        ey = np.cross(ez, ex)
        for a, b in zip(tags[:-1], tags[1:]):
            cnt["ele"] += 1
            ops.element("elasticBeamColumn", cnt["ele"], a, b, area, E, G, j, i, i, cnt["tr"],
                        "-mass", RHO * area, "-cMass")
            extra.append(((a, b), _rotary(L, i, ex, ey, ez)))
        return tags[0], tags[-1]

    return node, beam, extra, cnt


def delta_frequencies(P, n_el=1, n_modes=10, rotary=False):
    """First ``n_modes`` natural frequencies (Hz) of the flexible Delta with
    its platform at P (3,), m, actuators locked."""
    import openseespy.opensees as ops

    P = np.asarray(P, float)
    ops.wipe()
    ops.model("basic", "-ndm", 3, "-ndf", 6)
    node, beam, extra, cnt = frame_builder(ops, n_el)

    legs = []
    for i in range(3):
        g = leg_geometry(P, i)
        A = 0.2 * g["e"]
        a0, b = beam(A, g["B"], 0.03, g["u"])
        ops.fix(a0, 1, 1, 1, 1, 1, 1)
        rods = [beam(g["B"] + s * H * g["u"], g["C"] + s * H * g["u"], 0.01, g["n"]) for s in (1, -1)]
        legs.append((g, b, rods))
    K = assemble(ops, 0.0, 1.0)
    M = assemble(ops, 1.0, 0.0)
    dofs = {t: list(ops.nodeDOFs(t)) for t in range(1, cnt["node"] + 1)}
    ops.wipe()
    if rotary:
        for (a, b), Mr in extra:
            idx = dofs[a] + dofs[b]
            keep = [k for k, d in enumerate(idx) if d >= 0]
            M[np.ix_([idx[k] for k in keep], [idx[k] for k in keep])] += Mr[np.ix_(keep, keep)]
    return _solve(K, M, P, legs, dofs, n_modes)


def _solve(K, M, P, legs, dofs, n_modes):
    n = K.shape[0]
    N = n + 12 * 3 + 6                                 # + links 2, 4 of each leg + platform
    Kt, Mt = np.zeros((N, N)), np.zeros((N, N))
    Kt[:n, :n], Mt[:n, :n] = K, M
    plat = list(range(N - 6, N))
    Mt[N - 6:, N - 6:] = _rigid_mass(PLATFORM, EZ)     # the platform's axis is z_0
    rows = []

    def row():
        r = np.zeros(N)
        rows.append(r)
        return r

    def revolute(node_dofs, body, r, axis):
        S = np.array([[0, -r[2], r[1]], [r[2], 0, -r[0]], [-r[1], r[0], 0]])
        for k in range(3):                             # u_X - u_b + r x theta_b = 0
            q = row(); q[node_dofs[k]] = 1; q[body[k]] = -1; q[body[3:]] = S[k]
        for p in sla.null_space(axis[None]).T:
            q = row(); q[node_dofs[3:]] = p; q[body[3:]] = -p

    for i, (g, b, rods) in enumerate(legs):
        l2 = list(range(n + 12 * i, n + 12 * i + 6))
        l4 = list(range(n + 12 * i + 6, n + 12 * i + 12))
        Mt[np.ix_(l2, l2)] = _rigid_mass(LINK, g["u"])
        Mt[np.ix_(l4, l4)] = _rigid_mass(LINK, g["u"])
        revolute(dofs[b], l2, np.zeros(3), g["u"])
        for (ra, rb), s in zip(rods, (1, -1)):
            revolute(dofs[ra], l2, s * H * g["u"], g["n"])
            revolute(dofs[rb], l4, s * H * g["u"], g["n"])
        revolute(l4, plat, g["C"] - P, g["u"])         # wrist: link 4 - platform about u_i
    T = sla.null_space(np.array(rows))
    lam = sla.eigh(T.T @ Kt @ T, T.T @ Mt @ T, eigvals_only=True)
    return np.sqrt(np.clip(lam[:n_modes], 0, None)) / (2 * math.pi)
