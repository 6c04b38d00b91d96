"""An independent rigid inverse dynamic model of the Delta of
cases/delta.py, written without flexpkm: Lagrange's equations in the platform
coordinates x = P (3,), with the kinetic and potential energies of the 16
bodies (3 x (upper arm, link 2, two rods, link 4) + platform) from the
closed-form inverse geometry written again here, and the actuator torques
from the virtual work ``tau_x = J_a^T tau`` (``qd_a = J_a xd``).

Body velocities are exact derivatives of the closed-form positions and axes
by the complex step (``f'(x) = Im f(x + i h) / h``, h = 1e-30, no
cancellation), so the mass matrix ``M(x) = sum m Jc^T Jc + Om^T I Om`` is
exact to rounding; only ``dM/dx`` is a central difference (step 1e-6 m,
relative error ~1e-10). Angular velocities: upper arm ``a x a'`` (a the arm's
unit vector, turning about u_i); links 2 and 4 ``psi' u_i`` with ``psi' =
u . (n x n')``, ``n = u x w / |u x w|`` the axis of the rod joints (normal to
the parallelogram, fixed in link 2; link 4 stays parallel to link 2); rods
``w x w' + psi' (u . w) w`` (w the rods' unit vector; the spin about w is
link 2's).
"""
import numpy as np

L1, L2, R_A, R_P, H = 0.35, 0.80, 0.20, 0.05, 0.05
RHO, G = 2700.0, 9.81
PHI = (0.0, 2 * np.pi / 3, 4 * np.pi / 3)
EZ = np.array([0.0, 0.0, 1.0])


def cylinder(length, diameter):
    """(mass, I_transverse, I_axial) about the centre, kg, kg m^2."""
    r = diameter / 2
    m = RHO * np.pi * r * r * length
    return m, m * (3 * r * r + length ** 2) / 12, m * r * r / 2


ARM, LINK, ROD, PLATFORM = cylinder(L1, 0.03), cylinder(0.1, 0.02), cylinder(L2, 0.01), cylinder(0.1, 0.09)


def cross(a, b):
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def leg_geometry(P, i):
    """Points and unit vectors of leg i at P (complex-safe): dict."""
    e = np.array([np.cos(PHI[i]), np.sin(PHI[i]), 0.0])
    u = np.array([-np.sin(PHI[i]), np.cos(PHI[i]), 0.0])
    C = P + R_P * e
    D = C - R_A * e
    x, y, z = D @ e, D @ u, D @ EZ
    K = (x * x + y * y + z * z + L1 * L1 - L2 * L2) / (2 * L1)
    R = np.sqrt(x * x + z * z)
    ck = K / R
    sk = -np.sqrt(1 - ck * ck)                         # knee outward
    cq, sq = ck * x / R + sk * z / R, sk * x / R - ck * z / R
    a = cq * e - sq * EZ
    B = R_A * e + L1 * a
    w = (C - B) / L2
    n = cross(u, w)
    n = n / np.sqrt(n @ n)
    return dict(e=e, u=u, a=a, B=B, C=C, w=w, n=n, cq=cq, sq=sq)


def features(P):
    """All quantities whose x-derivatives are needed, stacked in one vector
    per leg: arm centre, a, B, C, w, n, rod centres (3 each)."""
    out = []
    for i in range(3):
        g = leg_geometry(P, i)
        out.append(np.concatenate([R_A * g["e"] + 0.5 * L1 * g["a"], g["a"], g["B"], g["C"],
                                   g["w"], g["n"], 0.5 * (g["B"] + g["C"]) + H * g["u"],
                                   0.5 * (g["B"] + g["C"]) - H * g["u"]]))
    return np.array(out)                               # (3, 24)


def complex_step(f, x, h=1e-30):
    """(f(x) real, df/dx (..., 3)) by the complex step."""
    f0 = f(np.asarray(x, float) + 0j).real
    d = np.stack([f(x + 1j * h * np.eye(3)[k]).imag / h for k in range(3)], -1)
    return f0, d


def inertia(m_it_ia, axis):
    _, it, ia = m_it_ia
    return it * (np.eye(3) - np.outer(axis, axis)) + ia * np.outer(axis, axis)


def skew(v):
    return np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])


def mass_matrix(P):
    """(M (3, 3) kg, dV/dx (3,) N, J_a (3, 3) rad/m) at the platform position P."""
    F, dF = complex_step(features, P)
    M = PLATFORM[0] * np.eye(3)
    dV = PLATFORM[0] * G * EZ.copy()
    J_a = np.zeros((3, 3))
    for i in range(3):
        f, df = F[i], dF[i]
        blk = lambda k: (f[3 * k:3 * k + 3], df[3 * k:3 * k + 3])
        (c1, J1), (a, Ja), (_, JB), (_, JC), (w, Jw), (n, Jn), (_, Jr1), (_, Jr2) = map(blk, range(8))
        u = leg_geometry(np.asarray(P, float), i)["u"]
        Om_arm = skew(a) @ Ja                          # omega = a x a'
        J_a[i] = u @ Om_arm                            # q_i' = u . omega
        psi = u @ skew(n) @ Jn                         # psi' = u . (n x n')
        Om_link = np.outer(u, psi)
        Om_rod = skew(w) @ Jw + (u @ w) * np.outer(w, psi)
        for (m, _, _), Jc, Om, body, axis in (
                (ARM, J1, Om_arm, ARM, a), (LINK, JB, Om_link, LINK, u), (LINK, JC, Om_link, LINK, u),
                (ROD, Jr1, Om_rod, ROD, w), (ROD, Jr2, Om_rod, ROD, w)):
            M = M + m * Jc.T @ Jc + Om.T @ inertia(body, axis) @ Om
            dV = dV + m * G * Jc[2]
    return M, dV, J_a


def inverse_dynamics(P, Pd, Pdd, h=1e-6):
    """Actuator torques (3,) N m and (T, V, dE/dt) for one state."""
    P = np.asarray(P, float)
    M, dV, J_a = mass_matrix(P)
    dM = [(mass_matrix(P + h * e)[0] - mass_matrix(P - h * e)[0]) / (2 * h) for e in np.eye(3)]
    Mdot = sum(dM[k] * Pd[k] for k in range(3))
    quad = np.array([Pd @ dM[k] @ Pd for k in range(3)])
    tau_x = M @ Pdd + Mdot @ Pd - 0.5 * quad + dV
    dEdt = Pd @ M @ Pdd + 0.5 * Pd @ Mdot @ Pd + dV @ Pd
    return np.linalg.solve(J_a.T, tau_x), dEdt, J_a
