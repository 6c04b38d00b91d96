"""Independent linear FE model of the NaVARo (3D frame) in OpenSeesPy.

This module deliberately does NOT import ``flexpkm`` nor ``cases``: it checks
flexpkm's natural frequencies of the NaVARo (Briot & Khalil, *Dynamics of
Parallel Robots*, Section 11.6.2, Tables 11.2-11.4) with a different method.

Geometry (every joint axis along the global Z; plane of motion Z = 0):

* A_i = 0.4041 m (cos g_i, sin g_i), g_i = pi/2, -5pi/6, -pi/6;
* E_i = P + 0.2027 m (cos a_i, sin a_i), a_i = g_i + pi/3 + theta (the
  platform orientation settled with Table 11.4, see docs/navaro.md);
* D_i = the intersection of the circles (A_i, 0.21) and (E_i, 0.21) on the
  side ``sign((E_i - A_i) x (D_i - A_i)) . Z = s_i`` (working mode s_i,
  -1 in Table 11.4); B_i = A_i + D_i - E_i, C_i = B_i + D_i - A_i
  (parallelogram A_iB_iC_iD_i, D_i the middle of C_iE_i).

Model (``ndm=3, ndf=6``):

* one ``elasticBeamColumn`` element per beam: A_iD_i, A_iB_i, B_iC_i,
  C_iD_i, D_iE_i, E_iP (the same discretisation as flexpkm's), consistent
  mass ``-cMass``, ``Linear`` transformation with local z = global Z (local y
  in the plane: ``Iz`` is the in-plane bending inertia);
* every link has its own end nodes; a revolute joint is two coincident
  nodes with u_X, u_Y, u_Z, r_X, r_Y equal (r_Z free); links C_iD_i and
  D_iE_i share their node at D_i (link i4 is one body); the three E_iP
  ends are welded at P (all six DOFs equal; P is massless);
* base: the first nodes of links i1 and i2 at A_i are clamped when the
  joint is locked (clutch locked / actuated), else revolute to the ground,
  optionally with a torsional spring (``zeroLength``) about Z;
* refined model: 0.3 kg point masses (translational) at B_i, C_i, D_i, E_i.

Two inertia terms are adjusted so that the model is the same continuum as
flexpkm's Appendix F beam (Eqs. F.13-F.14):

* OpenSees' consistent mass of ``ElasticBeam3d`` has the torsional block
  ``rho J L / 3`` with J the torsion constant (massDens * J / A), whereas the
  polar inertia of the section is ``rho Ip L / 3`` with Ip = Iy + Iz. The
  element is given ``J' = Ip`` and ``G' = G I0 / Ip``: same torsional
  stiffness ``G I0 / L``, torsional mass ``rho Ip L / 3``
  (``torsion_mass="polar"``, default; ``"opensees"`` keeps rho I0 L / 3);
* OpenSees has no rotary inertia of the section; the consistent (Rayleigh)
  rotary-inertia matrix ``int rho I N'^T N' dx`` of the cubic Hermite shape
  functions (Przemieniecki, *Theory of Matrix Structural Analysis*, 1968,
  Sect. 11.6) is added to the extracted mass matrix
  (``rotary_inertia=True``, default).

The constraints are not given to OpenSees (chains of equalDOF / rigidLink
are unreliable, see opensees_dualemps.py): K and M are extracted with the
``GimmeMCK`` integrator, the ties are eliminated exactly (each tied DOF is
replaced by its representative) and ``scipy.linalg.eigh`` solves the
generalised eigenproblem.
"""
from __future__ import annotations

import math
import time

import numpy as np

from .opensees_tools import assemble
import scipy.linalg as sla

# ----------------------------------------------------------------------------
# Data (Section 11.6.2.1, Table 11.3; settled values, see docs/navaro.md)
# ----------------------------------------------------------------------------
E_DURAL = 74e9            # Pa
NU_DURAL = 0.33
G_DURAL = E_DURAL / (2 * (1 + NU_DURAL))   # 27.82 GPa
RHO_DURAL = 2800.0        # kg/m^3

R_BASE = 0.4041           # |O A_i|, m
R_PLATFORM = 0.2027       # |P E_i|, m
L_LINK = 0.21             # m
BASE_ANGLES = (math.pi / 2, -5 * math.pi / 6, -math.pi / 6)
PLATFORM_ANGLE = math.pi / 3


def rectangle(b_in_plane, h_out_of_plane, J=None):
    """Section (A, Iy out-of-plane bending, Iz in-plane bending, J torsion
    constant) of a rectangle, m and m^4; J by Roark's formula unless given."""
    a, b = max(b_in_plane, h_out_of_plane), min(b_in_plane, h_out_of_plane)
    if J is None:
        J = a * b ** 3 * (1 / 3 - 0.21 * (b / a) * (1 - b ** 4 / (12 * a ** 4)))
    return {"A": b_in_plane * h_out_of_plane,
            "Iy": b_in_plane * h_out_of_plane ** 3 / 12,
            "Iz": h_out_of_plane * b_in_plane ** 3 / 12, "J": J}


#: links i1-i4: 10 mm in the plane x 24 mm, J = 5.902e-9 (Table 11.3)
SEC_LINK = rectangle(0.010, 0.024, J=5.902e-9)
#: link i5: 40 mm in the plane x 10 mm (Iz = 5.333e-8, J = 1.123e-8)
SEC_I5 = rectangle(0.040, 0.010)

JOINT_MASS = 0.3          # kg, refined model
CLUTCH_K = 2000.0         # N m/rad, refined model

#: Table 11.4, pose 1, Hz
BOOK_POSE_1 = np.array([44.10, 44.10, 53.98, 60.63, 95.62])


# ----------------------------------------------------------------------------
# Geometry
# ----------------------------------------------------------------------------
def _circle_intersection(c1, c2, r, side):
    """Point at distance r from c1 and c2 (2D) with sign(cross(c2 - c1,
    p - c1)) = side. Raises ValueError when |c2 - c1| > 2 r."""
    d = c2 - c1
    dist = float(np.hypot(*d))
    if dist > 2 * r or dist == 0.0:
        raise ValueError(f"no intersection: |c2 - c1| = {dist:.6g} m, 2 r = {2 * r} m")
    h = math.sqrt(max(r * r - dist * dist / 4, 0.0))
    n = np.array([-d[1], d[0]]) / dist
    return c1 + d / 2 + side * h * n


def navaro_geometry(x=0.0, y=0.0, theta=0.0, modes=(-1, -1, -1)):
    """Joint points of the rigid NaVARo (2D, m): dict leg -> {A, B, C, D, E}
    and "P". Raises ValueError when a leg cannot reach its E_i."""
    P = np.array([x, y], float)
    geo = {"P": P}
    for i, (g, s) in enumerate(zip(BASE_ANGLES, modes)):
        A = R_BASE * np.array([math.cos(g), math.sin(g)])
        a = g + PLATFORM_ANGLE + theta
        E = P + R_PLATFORM * np.array([math.cos(a), math.sin(a)])
        try:
            D = _circle_intersection(A, E, L_LINK, s)
        except ValueError as e:
            raise ValueError(f"leg {i + 1}: {e}") from None
        B = A + D - E
        C = B + D - A
        geo[str(i + 1)] = {"A": A, "B": B, "C": C, "D": D, "E": E}
    return geo


# ----------------------------------------------------------------------------
# Rotary inertia (Rayleigh beam), local element DOFs (ux uy uz rx ry rz) x 2
# ----------------------------------------------------------------------------
def rotary_inertia_local(L, rho, Iy, Iz):
    """int rho (Iz v'^2 + Iy w'^2) dx of the cubic Hermite element, 12x12 in
    the element's local DOFs (theta_z = v', theta_y = -w')."""
    M = np.zeros((12, 12))
    base = np.array([[36, 3 * L, -36, 3 * L], [3 * L, 4 * L * L, -3 * L, -L * L],
                     [-36, -3 * L, 36, -3 * L], [3 * L, -L * L, -3 * L, 4 * L * L]]) / (30 * L)
    flip = np.diag([1.0, -1.0, 1.0, -1.0])
    for dofs, I, m in (([1, 5, 7, 11], Iz, base), ([2, 4, 8, 10], Iy, flip @ base @ flip)):
        M[np.ix_(dofs, dofs)] += rho * I * m
    return M


# ----------------------------------------------------------------------------
# OpenSees model
# ----------------------------------------------------------------------------
def _build(ops, geo, locked, springs, joint_mass, torsion_mass):
    """Nodes, elements, supports. Returns (tags, elements, ties, k_springs)
    with elements = [(i, j, section)], ties = [(node a, node b, dofs)]."""
    ops.wipe()
    ops.model("basic", "-ndm", 3, "-ndf", 6)
    tags, elements, ties = {}, [], []

    def node(name, xy):
        tags[name] = len(tags) + 1
        ops.node(tags[name], float(xy[0]), float(xy[1]), 0.0)
        return tags[name]

    n_ele = [0]
    ops.geomTransf("Linear", 1, 0.0, 0.0, 1.0)

    def beam(a, b, sec):
        n_ele[0] += 1
        G, J = G_DURAL, sec["J"]
        if torsion_mass == "polar":
            J = sec["Iy"] + sec["Iz"]
            G = G_DURAL * sec["J"] / J
        elif torsion_mass != "opensees":
            raise ValueError(f"unknown torsion_mass {torsion_mass!r}")
        ops.element("elasticBeamColumn", n_ele[0], tags[a], tags[b], sec["A"], E_DURAL, G, J,
                    sec["Iy"], sec["Iz"], 1, "-mass", RHO_DURAL * sec["A"], "-cMass")
        elements.append((a, b, sec))

    revolute = (0, 1, 2, 3, 4)
    ground = []
    for leg in ("1", "2", "3"):
        p = geo[leg]
        for n in ("A1", "D1", "A2", "B2", "B3", "C3", "C4", "D4", "E4", "E5"):
            node(leg + n, p[n[0]])
        node(leg + "P5", geo["P"])
        beam(leg + "A1", leg + "D1", SEC_LINK)      # link i1
        beam(leg + "A2", leg + "B2", SEC_LINK)      # link i2
        beam(leg + "B3", leg + "C3", SEC_LINK)      # link i3
        beam(leg + "C4", leg + "D4", SEC_LINK)      # link i4, C-D
        beam(leg + "D4", leg + "E4", SEC_LINK)      # link i4, D-E
        beam(leg + "E5", leg + "P5", SEC_I5)        # link i5
        ties += [(leg + "B2", leg + "B3", revolute), (leg + "C3", leg + "C4", revolute),
                 (leg + "D4", leg + "D1", revolute), (leg + "E4", leg + "E5", revolute)]
        for j in ("1", "2"):
            n = leg + "A" + j
            if locked[leg][j]:
                ops.fix(tags[n], 1, 1, 1, 1, 1, 1)
            else:
                ops.fix(tags[n], 1, 1, 1, 1, 1, 0)
                if springs:
                    ground.append(n)
        if joint_mass:
            for n in ("B3", "C4", "D4", "E5"):
                ops.mass(tags[leg + n], joint_mass, joint_mass, joint_mass, 0.0, 0.0, 0.0)
    ties += [("1P5", "2P5", tuple(range(6))), ("1P5", "3P5", tuple(range(6)))]
    return tags, elements, ties, ground


def _assemble(ops, m, k):
    """m M + k K of the model, reduced by its constraints (GimmeMCK)."""
    return assemble(ops, m, k)


def _direction_cosines(ops, tags, a, b):
    pa, pb = (np.array(ops.nodeCoord(tags[n])) for n in (a, b))
    ex = (pb - pa) / np.linalg.norm(pb - pa)
    ey = np.cross([0.0, 0.0, 1.0], ex)
    ey /= np.linalg.norm(ey)
    return np.stack([ex, ey, np.cross(ex, ey)]), float(np.linalg.norm(pb - pa))


def navaro_eigen(x=0.0, y=0.0, theta=0.0, modes=(-1, -1, -1), actuation="locked",
                 refined=False, torsion_mass="polar", rotary_inertia=True):
    """All eigenvalues omega^2 (rad^2/s^2, ascending) of the NaVARo and an
    info dict.

    actuation : "locked" (q_i1 and q_i2 clamped, Table 11.4) or three digits
        1/2 (the clamped joint of each leg, the other one is a free revolute).
    refined : point masses at B, C, D, E and 2000 N m/rad springs on q_i1,
        q_i2 (no clamp).
    """
    import openseespy.opensees as ops

    t0 = time.perf_counter()
    geo = navaro_geometry(x, y, theta, modes)
    if refined:
        locked = {leg: {"1": False, "2": False} for leg in "123"}
    elif actuation == "locked":
        locked = {leg: {"1": True, "2": True} for leg in "123"}
    else:
        digits = [str(d) for d in actuation]
        locked = {leg: {j: j == d for j in "12"} for leg, d in zip("123", digits)}
    tags, elements, ties, ground = _build(ops, geo, locked, refined,
                                          JOINT_MASS if refined else 0.0, torsion_mass)
    # K alone is singular before the ties (the links are free to swing):
    # assemble M + K (regular) and M, so that OpenSees' solve step succeeds
    M = _assemble(ops, 1.0, 0.0)
    K = _assemble(ops, 1.0, 1.0) - M
    n = K.shape[0]
    eq = {name: ops.nodeDOFs(t) for name, t in tags.items()}
    if rotary_inertia:
        for a, b, sec in elements:
            R, L = _direction_cosines(ops, tags, a, b)
            T = np.kron(np.eye(4), R)
            Mg = T.T @ rotary_inertia_local(L, RHO_DURAL, sec["Iy"], sec["Iz"]) @ T
            idx = np.array(eq[a] + eq[b])
            ok = idx >= 0
            M[np.ix_(idx[ok], idx[ok])] += Mg[np.ix_(ok, ok)]
    for name in ground:                       # clutch springs about Z
        K[eq[name][5], eq[name][5]] += CLUTCH_K
    # exact elimination of the ties: union-find of the equation numbers
    parent = list(range(n))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b, dofs in ties:
        for d in dofs:
            ia, ib = eq[a][d], eq[b][d]
            if ia >= 0 and ib >= 0:
                parent[find(ib)] = find(ia)
            elif (ia >= 0) != (ib >= 0):
                raise RuntimeError(f"tie {a}-{b} dof {d} between a fixed and a free DOF")
    reps = sorted({find(i) for i in range(n)})
    col = {r: c for c, r in enumerate(reps)}
    T = np.zeros((n, len(reps)))
    for i in range(n):
        T[i, col[find(i)]] = 1.0
    Kr, Mr = T.T @ K @ T, T.T @ M @ T
    lam = sla.eigh(0.5 * (Kr + Kr.T), 0.5 * (Mr + Mr.T), eigvals_only=True)
    ops.wipe()
    info = {"n_equations": n, "n_dof": len(reps), "n_elements": len(elements),
            "n_nodes": len(tags), "time_s": time.perf_counter() - t0}
    return np.sort(lam), info


def navaro_frequencies(x=0.0, y=0.0, theta=0.0, modes=(-1, -1, -1), n_modes=10, **kw):
    """First ``n_modes`` natural frequencies (Hz, ascending); keywords of
    :func:`navaro_eigen`. Raises RuntimeError for a non-positive eigenvalue."""
    lam, _ = navaro_eigen(x, y, theta, modes, **kw)
    lam = lam[:n_modes]
    if lam[0] <= 0.0:
        raise RuntimeError(f"non-positive eigenvalue (mechanism?): {lam[:3]}")
    return np.sqrt(lam) / (2 * math.pi)


if __name__ == "__main__":
    np.set_printoptions(precision=4, suppress=True, linewidth=140)
    f = navaro_frequencies()
    print("pose 1:", f, "\nbook:  ", BOOK_POSE_1, "\nrel:", f[:5] / BOOK_POSE_1 - 1)
    print("no rotary inertia:", navaro_frequencies(rotary_inertia=False))
    print("OpenSees torsional mass:", navaro_frequencies(torsion_mass="opensees"))
    print("refined:", navaro_frequencies(refined=True))
