"""Independent linear FE model of the planar DualEMPS robot in OpenSeesPy.

This module deliberately does NOT import ``flexpkm``: it is an independent
check of flexpkm's natural frequencies (Briot & Khalil, *Dynamics of Parallel
Robots*, Part III, Table 11.1).

Model (plane (X, Z), ``ndm=2, ndf=3``), actuators locked, no gravity:

* leg 1 from the base pin O12 = (0, q11) with unit direction e1; leg 2 from
  the base pin O22 = (0.4, q21) with unit direction e2; the legs are pinned
  together at O15 = O25 (0.6 m from both base pins, apex with the larger Z);
* flexible bodies 13 (O13-O14), 16 (O16-O17), 23 (O23-O24): Euler-Bernoulli
  ``elasticBeamColumn`` elements, consistent mass (``-cMass``), Linear
  geomTransf, ``n_el`` elements per body (rotary inertia rho*I neglected);
* rigid bodies 12, 14(+15), 17(+18), 22, 24(+25): ``rigidLink('beam')``
  constraints (Transformation handler, exact), the mass of each body lumped at
  a node at its centre of mass (distance mx/m from the frame origin along the
  leg) with rotational mass zz - m (mx/m)^2 (parallel axis theorem);
* base revolutes: ``fix(node, 1, 1, 0)``; passive revolute O15/O25: X and Z of
  two distinct coincident nodes (one per leg) are equal.

Why the pin needs care: each of the two nodes at O15/O25 already belongs to a
rigidLink constraint, and OpenSees' Transformation handler does not follow
chained constraints (an ``equalDOF`` between them silently gives a wrong
result with a spurious zero mode).  Two treatments are therefore provided:

* ``method="exact"`` (default): OpenSees builds the model *without* the pin,
  the reduced stiffness and mass matrices (rigid links already condensed by
  the Transformation handler) are extracted with the ``GimmeMCK`` integrator,
  and the two pin equations u_X(O15) = u_X(O25), u_Z(O15) = u_Z(O25) are
  eliminated exactly (null-space basis); the symmetric-definite generalised
  eigenproblem is solved with ``scipy.linalg.eigh``.  With n_el = 1 this is
  exactly a 9-DOF problem (11 equations - 2 pin constraints).
* ``method="opensees"``: pure OpenSees eigen analysis (``-fullGenLapack``)
  with the pin realised as a ``zeroLength`` element with stiff translational
  springs (``pin_k``, default 1e12 N/m, converged to ~1e-5; see
  ``pin_convergence``).

For verification the rigid bodies can also be modelled with very stiff
massless elastic elements (``rigid="stiff"``, with ``method="exact"``: the
massless DOFs are condensed statically, which is exact for massless DOFs).
"""

from __future__ import annotations

import math
import time

import numpy as np

from .opensees_tools import assemble
import scipy.linalg as sla

# ----------------------------------------------------------------------------
# Data
# ----------------------------------------------------------------------------
E_DURAL = 74e9  # Pa
RHO_DURAL = 2800.0  # kg/m^3
B_SEC = 0.004  # in-plane thickness (m)
H_SEC = 0.050  # out-of-plane height (m)
A_SEC = B_SEC * H_SEC  # 2e-4 m^2
I_SEC = H_SEC * B_SEC**3 / 12.0  # in-plane bending, 2.6667e-10 m^4

BASE_DISTANCE = 0.4  # X distance between O12 and O22
L_LEG_TO_PIN = 0.600  # |O12 O15| = |O22 O25|

# distances along the legs from the base revolute (m)
S1 = {"O12": 0.0, "O13": 0.0675, "O14": 0.518, "O15": 0.600, "O16": 0.665,
      "O17": 0.805, "O18": 0.840}
S2 = {"O22": 0.0, "O23": 0.0675, "O24": 0.518, "O25": 0.600}

# Khalil inertial parameters of the rigid bodies (frame origin = first point
# of the body, x axis along the leg): m (kg), mx (kg m), zz (kg m^2, about the
# frame origin), and the frame origin abscissa along its leg.
RIGID = {
    "12": (0.843, 0.004, 7.06e-4, S1["O12"]),
    "14": (0.396, 0.030, 0.003, S1["O14"]),
    "17": (0.177, 0.006, 2.56e-4, S1["O17"]),
    "22": (0.843, 0.004, 7.06e-4, S2["O22"]),
    "24": (0.190, 0.011, 9.44e-4, S2["O24"]),
}

# Book (Briot & Khalil), Table 11.1, "Model" row, q11 = q21 = 0 (Hz)
BOOK_TABLE_11_1 = np.array([14.22, 25.09, 48.22, 92.37, 109.08, 423.39])

DEFAULT_PIN_K = 1e12  # N/m, zeroLength pin springs (method="opensees")
BIG_EIG = 1e30  # |omega^2| above this: infinite eigenvalue (massless DOF)


# ----------------------------------------------------------------------------
# Geometry
# ----------------------------------------------------------------------------
def dualemps_geometry(q11: float = 0.0, q21: float = 0.0) -> dict:
    """Joint positions (X, Z) of the DualEMPS robot with locked actuators.

    Returns a dict of numpy arrays: O12..O18 (and ``P`` = O18), O22..O25, the
    unit leg directions ``e1``, ``e2``.  Raises ValueError if the robot
    cannot be assembled (|O12 O22| > 1.2 m).
    """
    o12 = np.array([0.0, float(q11)])
    o22 = np.array([BASE_DISTANCE, float(q21)])
    d = o22 - o12
    dist = float(np.hypot(d[0], d[1]))
    if dist > 2.0 * L_LEG_TO_PIN:
        raise ValueError(
            f"DualEMPS cannot be assembled: |O12 O22| = {dist:.6g} m "
            f"> {2 * L_LEG_TO_PIN} m")
    u = d / dist
    n = np.array([-u[1], u[0]])
    h = math.sqrt(max(L_LEG_TO_PIN**2 - (0.5 * dist) ** 2, 0.0))
    mid = o12 + 0.5 * d
    o15 = max((mid + h * n, mid - h * n), key=lambda p: p[1])  # larger Z
    e1 = (o15 - o12) / L_LEG_TO_PIN
    e2 = (o15 - o22) / L_LEG_TO_PIN
    geo = {name: o12 + s * e1 for name, s in S1.items()}
    geo.update({name: o22 + s * e2 for name, s in S2.items()})
    geo["P"] = geo["O18"].copy()
    geo["e1"] = e1
    geo["e2"] = e2
    return geo


# ----------------------------------------------------------------------------
# OpenSees model
# ----------------------------------------------------------------------------
def _build_model(ops, q11, q21, n_el=1, rigid="link", stiff_factor=1e6,
                 pin="none", pin_k=DEFAULT_PIN_K):
    """Create the OpenSees domain.  pin: 'none' | 'spring' | 'equalDOF'
    ('equalDOF' is WRONG with rigid='link' -- chained constraints -- and is
    only kept to document the pitfall).  Returns (geo, node tags, n_elements).
    """
    if n_el < 1:
        raise ValueError("n_el must be >= 1")
    geo = dualemps_geometry(q11, q21)
    base = {"1": geo["O12"], "2": geo["O22"]}
    edir = {"1": geo["e1"], "2": geo["e2"]}

    ops.wipe()
    ops.model("basic", "-ndm", 2, "-ndf", 3)
    ops.geomTransf("Linear", 1)

    tags: dict[str, int] = {}
    n_ele = [0]

    def node(name, xz):
        tag = len(tags) + 1
        ops.node(tag, float(xz[0]), float(xz[1]))
        tags[name] = tag
        return tag

    def elastic(a, b, area, inertia, mass_per_length=None):
        n_ele[0] += 1
        args = ["elasticBeamColumn", n_ele[0], a, b, area, E_DURAL, inertia, 1]
        if mass_per_length:
            args += ["-mass", mass_per_length, "-cMass"]
        ops.element(*args)

    def flex_body(name_a, name_b, label):
        """n_el consistent-mass Euler-Bernoulli elements from a to b."""
        pa, pb = geo[name_a], geo[name_b]
        chain = [tags[name_a]]
        for k in range(1, n_el):
            chain.append(node(f"{label}_{k}", pa + (pb - pa) * k / n_el))
        chain.append(tags[name_b])
        for a, b in zip(chain[:-1], chain[1:]):
            elastic(a, b, A_SEC, I_SEC, RHO_DURAL * A_SEC)

    def com_node(body):
        m, mx, zz, s0 = RIGID[body]
        leg = body[0]
        d = mx / m
        name = "C" + body
        tag = node(name, base[leg] + (s0 + d) * edir[leg])
        ops.mass(tag, m, m, zz - m * d * d)
        return name

    def rigid_body(retained, members):
        """Tie the nodes `members` rigidly to node `retained` (all names)."""
        if rigid == "link":
            for name in members:
                ops.rigidLink("beam", tags[retained], tags[name])
        elif rigid == "stiff":
            leg = retained[1]  # "O12" -> "1", "O25" -> "2"
            names = sorted([retained] + list(members),
                           key=lambda nm: float(np.dot(
                               np.array(ops.nodeCoord(tags[nm])) - base[leg],
                               edir[leg])))
            for a, b in zip(names[:-1], names[1:]):
                elastic(tags[a], tags[b], A_SEC * stiff_factor,
                        I_SEC * stiff_factor)
        else:
            raise ValueError(f"unknown rigid model {rigid!r}")

    # nodes, ordered along each leg
    node("O12", geo["O12"]); ops.fix(tags["O12"], 1, 1, 0)
    c12 = com_node("12")
    node("O13", geo["O13"])
    node("O14", geo["O14"])
    c14 = com_node("14")
    node("O15", geo["O15"])          # pin node belonging to leg 1
    node("O16", geo["O16"])
    node("O17", geo["O17"])
    c17 = com_node("17")
    node("P", geo["P"])              # O18 (massless body 18)
    node("O22", geo["O22"]); ops.fix(tags["O22"], 1, 1, 0)
    c22 = com_node("22")
    node("O23", geo["O23"])
    node("O24", geo["O24"])
    c24 = com_node("24")
    node("O25", geo["O25"])          # pin node belonging to leg 2

    # flexible bodies
    flex_body("O13", "O14", "b13")
    flex_body("O16", "O17", "b16")
    flex_body("O23", "O24", "b23")

    # rigid bodies; the pin nodes are the retained nodes of their bodies so
    # that they carry independent (X, Z, theta) equations.
    rigid_body("O12", [c12, "O13"])                 # body 12
    rigid_body("O15", ["O14", c14, "O16"])          # bodies 14 + 15
    rigid_body("O17", [c17, "P"])                   # bodies 17 + 18
    rigid_body("O22", [c22, "O23"])                 # body 22
    rigid_body("O25", ["O24", c24])                 # bodies 24 + 25

    # passive revolute O15/O25
    if pin == "spring":
        ops.uniaxialMaterial("Elastic", 1, float(pin_k))
        n_ele[0] += 1
        ops.element("zeroLength", n_ele[0], tags["O15"], tags["O25"],
                    "-mat", 1, 1, "-dir", 1, 2)
    elif pin == "equalDOF":
        ops.equalDOF(tags["O15"], tags["O25"], 1, 2)
    elif pin != "none":
        raise ValueError(f"unknown pin model {pin!r}")
    return geo, tags, n_ele[0]


def _set_analysis(ops):
    ops.wipeAnalysis()
    ops.constraints("Transformation")
    ops.numberer("Plain")


def _assemble(ops, m, k):
    """m M + k K of the model, reduced by its constraints (GimmeMCK)."""
    return assemble(ops, m, k)


def _eig_exact(ops, tags):
    K = _assemble(ops, 0.0, 1.0)
    M = _assemble(ops, 1.0, 0.0)
    n = K.shape[0]
    d15 = ops.nodeDOFs(tags["O15"])
    d25 = ops.nodeDOFs(tags["O25"])
    # exact elimination of the pin equations u_X,Z(O25) = u_X,Z(O15):
    # u = T v, v = all equations except X, Z of O25
    slave = {d25[0]: d15[0], d25[1]: d15[1]}
    keep = [j for j in range(n) if j not in slave]
    col = {j: c for c, j in enumerate(keep)}
    T = np.zeros((n, len(keep)))
    for j in range(n):
        T[j, col[slave.get(j, j)]] = 1.0
    Kr, Mr = T.T @ K @ T, T.T @ M @ T
    # static condensation of massless DOFs (exact; only with rigid="stiff")
    dm = np.abs(Mr).max(axis=1)
    massless = dm <= 1e-14 * dm.max()
    if massless.any():
        mm, ss = ~massless, massless
        Kms = Kr[np.ix_(mm, ss)]
        Kr = Kr[np.ix_(mm, mm)] - Kms @ np.linalg.solve(Kr[np.ix_(ss, ss)],
                                                         Kms.T)
        Mr = Mr[np.ix_(mm, mm)]
    lam = sla.eigh(0.5 * (Kr + Kr.T), 0.5 * (Mr + Mr.T), eigvals_only=True)
    return np.sort(lam), n


def _eig_opensees(ops):
    _set_analysis(ops)
    ops.eigen("-fullGenLapack", 1)  # to learn the number of equations
    n = int(ops.systemSize())
    _set_analysis(ops)
    lam = np.array(ops.eigen("-fullGenLapack", n), dtype=float)
    lam = np.sort(lam)
    return lam[np.abs(lam) < BIG_EIG], n


def dualemps_eigen(q11=0.0, q21=0.0, n_el=1, method="exact", rigid="link",
                   stiff_factor=1e6, pin_k=DEFAULT_PIN_K):
    """All finite eigenvalues omega^2 (rad^2/s^2, ascending) and an info dict
    (number of equations before the pin elimination, finite eigenvalues,
    elements, nodes, wall time)."""
    import openseespy.opensees as ops

    t0 = time.perf_counter()
    if method == "exact":
        geo, tags, n_ele = _build_model(ops, q11, q21, n_el, rigid,
                                        stiff_factor, pin="none")
        lam, neq = _eig_exact(ops, tags)
    elif method == "opensees":
        geo, tags, n_ele = _build_model(ops, q11, q21, n_el, rigid,
                                        stiff_factor, pin="spring",
                                        pin_k=pin_k)
        lam, neq = _eig_opensees(ops)
    else:
        raise ValueError(f"unknown method {method!r}")
    ops.wipe()
    info = {"method": method, "rigid": rigid, "n_el": n_el,
            "n_equations": neq, "n_finite": int(lam.size),
            "n_elements": n_ele, "n_nodes": len(tags),
            "time_s": time.perf_counter() - t0}
    return lam, info


def dualemps_frequencies(q11: float = 0.0, q21: float = 0.0, n_modes: int = 9,
                         n_el: int = 1, method: str = "exact",
                         rigid: str = "link", stiff_factor: float = 1e6,
                         pin_k: float = DEFAULT_PIN_K) -> np.ndarray:
    """First ``n_modes`` natural frequencies (Hz, ascending) of the DualEMPS
    robot with locked actuators at (q11, q21), ``n_el`` elements per flexible
    body.  See the module docstring for ``method`` / ``rigid``."""
    lam, info = dualemps_eigen(q11, q21, n_el, method, rigid, stiff_factor,
                               pin_k)
    if n_modes > lam.size:
        raise ValueError(f"only {lam.size} finite eigenvalues available")
    lam = lam[:n_modes]
    if lam[0] < -1e-8 * abs(lam[-1]) or lam[0] <= 0.0:
        raise RuntimeError(f"non-positive eigenvalue (mechanism?): {lam[:3]}")
    return np.sqrt(lam) / (2.0 * math.pi)


def pin_convergence(q11=0.0, q21=0.0, n_el=1,
                    pin_ks=(1e10, 1e11, 1e12, 1e13)):
    """Frequencies of the pure-OpenSees model for several pin stiffnesses,
    plus the exact reference: {k: f, 'exact': f}."""
    out = {k: dualemps_frequencies(q11, q21, 9, n_el, "opensees", pin_k=k)
           for k in pin_ks}
    out["exact"] = dualemps_frequencies(q11, q21, 9, n_el, "exact")
    return out


if __name__ == "__main__":
    np.set_printoptions(precision=6, suppress=True, linewidth=120)
    for q in [(0.0, 0.0), (0.1, 0.0), (0.05, 0.2)]:
        lam, info = dualemps_eigen(*q)
        f = np.sqrt(lam[:9]) / (2 * math.pi)
        g = dualemps_geometry(*q)
        print(f"q11 = {q[0]}, q21 = {q[1]}: O15 = {g['O15']}, P = {g['P']}")
        print("  " + "  ".join(f"{x:.6f}" for x in f))
        print(f"  {info}")
    f_os = dualemps_frequencies(method="opensees")
    f_ex = dualemps_frequencies()
    print("pure OpenSees eigen (fullGenLapack, pin spring 1e12 N/m):")
    print("  " + "  ".join(f"{x:.6f}" for x in f_os))
    print("  max rel. diff vs exact:", np.max(np.abs(f_os / f_ex - 1)))
    print("book Table 11.1:", BOOK_TABLE_11_1)
    print("rel. diff vs book:", f_ex[:6] / BOOK_TABLE_11_1 - 1)
