"""An independent rigid inverse dynamic model of the Orthoglide of
cases/orthoglide.toml, written without flexpkm's dynamics: Kane's equations
(virtual power) in the platform coordinates x = P (3,), with the bodies'
poses from the book's closed-form IGM (7.28)-(7.35) differentiated
symbolically (sympy), and the actuator forces from the virtual work
``tau = J_a^-T Q_x`` (``qd_a = J_a xd``, ``J_a = dq_a/dx``).

Bodies (Table 8.1): slider i (mass m_i1, rotor inertia Ia_i1 on q_i1),
link i3 (standard parameters xx, yy, zz, mx, m about the origin of frame i3,
which is the slider's point A_i2, in frame i3's axes), the platform m_6;
friction fv q_d + fs sign(q_d) on the joints of Table 8.1, through
``dq_j/dx``. Gravity ``(0, 0, -9.81)``. Frame i3's axes:
``R_0,i1 Rot(x, -pi/2) Rot(z, q_i2) Rot(x, -pi/2) Rot(z, q_i3)`` (Tables
7.3-7.4), with R_0,i1 = I, Rot(z, pi/2) Rot(x, pi/2), Rot(x, -pi/2) for
legs 1, 2, 3; slider points ``(0, 0, q_11)``, ``(q_21 - a, 0, a)``,
``(0, q_31 - a, a)``.
"""
from functools import lru_cache

import numpy as np
import sympy as sp

A, D4, D6 = 0.34, 0.31, 0.03
G = np.array([0.0, 0.0, -9.81])
M1, IA = (1.32, 1.25, 0.626), (7.13, 7.13, 7.82)
FV1, FS1 = (79.70, 100.00, 79.40), (3.21, 3.23, 2.21)
FS2, FS4 = (0.0, 0.0, 1.28), (1.22e-3, 0.0, 0.0)
XX, YY, ZZ, MX, M3 = 8.69e-6, 7.91e-3, 7.91e-3, 3.81e-2, 0.246
M6 = 0.513


def _rx(a):
    return sp.Matrix([[1, 0, 0], [0, sp.cos(a), -sp.sin(a)], [0, sp.sin(a), sp.cos(a)]])


def _rz(a):
    return sp.Matrix([[sp.cos(a), -sp.sin(a), 0], [sp.sin(a), sp.cos(a), 0], [0, 0, 1]])


@lru_cache(maxsize=1)
def _functions():
    """Numerical functions of x (3,): per leg the joint coordinates q (5,),
    dq/dx (5, 3), d2q/dx2 (5, 3, 3), the slider point and frame i3's axes
    R (3, 3) with dR/dx (3, 3, 3) and d2R/dx2 (3, 3, 3, 3)."""
    X = sp.symbols("x y z", real=True)
    x, y, z = X
    pi = sp.pi
    legs = []
    for i in range(3):
        if i == 0:
            q1 = z + sp.sqrt(D4 ** 2 - (x - D6) ** 2 - y ** 2)
            q2 = sp.atan2(q1 - z, x - D6)
            q3 = sp.atan2(-y, (x - D6) / sp.cos(q2))
            R0, O = sp.eye(3), sp.Matrix([0, 0, q1])
        elif i == 1:
            q1 = x + A + sp.sqrt(D4 ** 2 - (y - D6) ** 2 - (z - A) ** 2)
            q2 = sp.atan2(q1 - x - A, y - D6)
            q3 = sp.atan2(A - z, (y - D6) / sp.cos(q2))
            R0, O = _rz(pi / 2) * _rx(pi / 2), sp.Matrix([q1 - A, 0, A])
        else:
            q1 = y + A + sp.sqrt(D4 ** 2 - (x - D6) ** 2 - (z - A) ** 2)
            q2 = sp.atan2(q1 - y - A, x - D6)
            q3 = sp.atan2(z - A, (x - D6) / sp.cos(q2))
            R0, O = _rx(-pi / 2), sp.Matrix([0, q1 - A, A])
        q = sp.Matrix([q1, q2, q3, -q3, -q2])
        R = R0 * _rx(-pi / 2) * _rz(q2) * _rx(-pi / 2) * _rz(q3)
        dq = q.jacobian(X)
        d2q = [dq.diff(v) for v in X]
        dR = [R.diff(v) for v in X]
        d2R = [[r.diff(v) for v in X] for r in dR]
        legs.append(sp.lambdify([X], [q, dq, d2q, O, R, dR, d2R], "numpy"))
    return legs


def _vee(S):
    return np.array([S[2, 1], S[0, 2], S[1, 0]])


def tau(x, xd, xdd, friction=True) -> np.ndarray:
    """Actuator forces (3,), N, at the platform position x, velocity xd and
    acceleration xdd (m, m/s, m/s^2)."""
    x, xd, xdd = (np.asarray(v, float) for v in (x, xd, xdd))
    Q = M6 * (xdd - G)
    J_a = np.zeros((3, 3))
    for i, f in enumerate(_functions()):
        q, dq, d2q, O, R, dR, d2R = (np.array(v, float) for v in f(x))
        dq = dq.astype(float)
        J_a[i] = dq[0]
        qd = dq @ xd
        qdd = dq @ xdd + sum(d2q[k] @ xd * xd[k] for k in range(3))
        axis = np.eye(3)[[2, 0, 1][i]]                 # slider axis: z_0, x_0, y_0
        Q += (M1[i] * (qdd[0] * axis - G) @ axis + IA[i] * qdd[0]) * dq[0]
        # link i3: Newton-Euler about its origin O = the slider point (moves along axis)
        a_O = qdd[0] * axis - G
        Jw = np.column_stack([_vee(dR[k] @ R.T) for k in range(3)])
        w = Jw @ xd
        Jw_dot = np.column_stack([_vee(sum(d2R[k][m] * xd[m] for m in range(3)) @ R.T
                                       + dR[k] @ sum(dR[m] * xd[m] for m in range(3)).T)
                                  for k in range(3)])
        alpha = Jw @ xdd + Jw_dot @ xd
        MS = R @ np.array([MX, 0.0, 0.0])
        I_O = R @ np.diag([XX, YY, ZZ]) @ R.T
        F = M3 * a_O + np.cross(alpha, MS) + np.cross(w, np.cross(w, MS))
        N = I_O @ alpha + np.cross(w, I_O @ w) + np.cross(MS, a_O)
        Q += (np.outer(axis, dq[0])).T @ F + Jw.T @ N
        if friction:
            for j, fv, fs in ((0, FV1[i], FS1[i]), (1, 0.0, FS2[i]), (3, 0.0, FS4[i])):
                Q += (fv * qd[j] + fs * np.sign(qd[j])) * dq[j]
    return np.linalg.solve(J_a.T, Q)
