"""Independent RIGID inverse dynamic model of the planar DualEMPS robot.

This module deliberately does NOT import ``flexpkm`` (nor ``elements`` or
``cases``).  It is a reference for the rigid dynamics of the DualEMPS
(Briot & Khalil, *Dynamics of Parallel Robots*, Ch. 8 and Sect. 10.7) derived
here by Lagrange's equations with sympy:

* the closed chain has 2 DOF, the active coordinates q_a = (q11, q21); the
  geometric model gives the apex O15 = O25 of the isosceles triangle
  O12 O22 O15 (sides 0.6 m, the solution with the larger Z), hence the leg
  directions e_i = (cos a_i, sin a_i) in the plane (X, Z);
* every leg is one rigid body rotating about its base revolute O12 (O22),
  which translates along Z with its slider.  With M, MS, ZZ the leg's mass,
  first moment along the leg and inertia about the base revolute (normal to
  the plane), the kinetic energy of leg i is
  T_i = 1/2 M qd_i^2 + MS qd_i w_i cos(a_i) + 1/2 ZZ w_i^2, w_i = da_i/dt,
  and the sliders add 1/2 m_s (qd11^2 + qd21^2);
* the actuator forces are tau = d/dt(dT/dqd) - dT/dq (no gravity in the
  plane, no friction): tau = M(q) qdd + c(q, qd).

Link data (Table 10.2 / the brief): rigid links 12, 14, 17, 22, 24 from
:mod:`.opensees_dualemps`; the flexible links 13, 16, 23 are uniform slender
bars (m = rho A L, mx = m L / 2, zz = m L^2 / 3 about their start, plus
optionally the rotary inertia rho I L of the section, off by default since the
Euler-Bernoulli beam models (ANCF cable, OpenSees) neglect it); the sliders
weigh 95.196 kg each.
"""

from __future__ import annotations

import functools

import numpy as np

from .opensees_dualemps import (A_SEC, BASE_DISTANCE, I_SEC, L_LEG_TO_PIN,
                                RHO_DURAL, RIGID, S1, S2)

SLIDER_MASS = 95.196  # kg (Table 10.2: m11 = m21, motor inertia included)

FLEX_LINKS = {"13": (S1["O13"], S1["O14"]), "16": (S1["O16"], S1["O17"]),
              "23": (S2["O23"], S2["O24"])}


def body_parameters(rotary_inertia: bool = False) -> dict:
    """Khalil parameters (m, mx, zz about the body frame origin, origin
    abscissa s0 along the leg) of all moving links except the sliders."""
    par = {b: tuple(v) for b, v in RIGID.items()}
    for b, (s0, s1) in FLEX_LINKS.items():
        length = s1 - s0
        m = RHO_DURAL * A_SEC * length
        zz = m * length**2 / 3.0
        if rotary_inertia:
            zz += RHO_DURAL * I_SEC * length
        par[b] = (m, m * length / 2.0, zz, s0)
    return par


def leg_parameters(rotary_inertia: bool = False) -> dict:
    """{leg: (M, MS, ZZ)} about the leg's base revolute (O12 / O22)."""
    out = {"1": [0.0, 0.0, 0.0], "2": [0.0, 0.0, 0.0]}
    for b, (m, mx, zz, s0) in body_parameters(rotary_inertia).items():
        acc = out[b[0]]
        acc[0] += m
        acc[1] += mx + m * s0
        acc[2] += zz + 2.0 * s0 * mx + m * s0 * s0
    return {k: tuple(v) for k, v in out.items()}


@functools.lru_cache(maxsize=4)
def _compiled(rotary_inertia: bool = False, slider_mass: float = SLIDER_MASS):
    """Compiled (M, c, T, geo) of the rigid model: M(q1, q2, qd1, qd2)
    (2 x 2), c(...) (2 x 1), T(...) (scalar), geo(q1, q2) -> (a1, a2, a1',
    a2', a1'', a2'') with ' = d/d(q21 - q11).

    The leg angles depend on delta = q21 - q11 only: the Lagrange equations
    are derived symbolically with generic functions a_i(delta) (chain rule by
    hand), whose value and first two derivatives (explicit expressions of the
    geometric model, differentiated by sympy) are substituted numerically;
    this keeps the expressions small.
    """
    import sympy as sp

    q1, q2, qd1, qd2 = sp.symbols("q1 q2 qd1 qd2", real=True)
    qd = sp.Matrix([qd1, qd2])
    delta = sp.Symbol("delta", real=True)

    # geometric model as a function of delta (O12 at the origin)
    d0 = sp.Rational(str(BASE_DISTANCE))
    L = sp.Rational(str(L_LEG_TO_PIN))
    dist = sp.sqrt(d0**2 + delta**2)
    h = sp.sqrt(L**2 - dist**2 / 4)
    # apex with the larger Z: mid + h n, n = (-delta, d0) / dist
    o15x = d0 / 2 - h * delta / dist
    o15z = delta / 2 + h * d0 / dist
    ang_expr = [sp.atan2(o15z, o15x), sp.atan2(o15z - delta, o15x - d0)]

    # Lagrange with generic functions a_i(delta): symbols A_i = a_i,
    # DA_i = a_i', DDA_i = a_i''; d/dq11 = -d/ddelta, d/dq21 = +d/ddelta
    A = sp.symbols("A1 A2 DA1 DA2 DDA1 DDA2", real=True)

    def d_delta(e):
        return sum(sp.diff(e, A[k]) * A[k + 2]
                   + sp.diff(e, A[k + 2]) * A[k + 4] for k in range(2))

    legs = leg_parameters(rotary_inertia)
    ddot = qd2 - qd1
    T = sp.Rational(1, 2) * slider_mass * (qd1**2 + qd2**2)
    for k, (qdi, leg) in enumerate(((qd1, "1"), (qd2, "2"))):
        M, MS, ZZ = (sp.Float(x, 17) for x in legs[leg])
        a, w = A[k], A[k + 2] * ddot
        T += (sp.Rational(1, 2) * M * qdi**2 + MS * qdi * w * sp.cos(a)
              + sp.Rational(1, 2) * ZZ * w**2)
    T = sp.expand(T)

    def grad_q(e):  # dT/dq (q enters only through delta)
        g = d_delta(e)
        return sp.Matrix([-g, g])

    Mq = sp.hessian(T, qd)                     # T is quadratic in qd
    p = sp.Matrix([T]).jacobian(qd).T          # dT/dqd
    # c = (d/dt dT/dqd)|_{qdd=0} - dT/dq, d/dt = ddelta/dt * d/ddelta
    c = p.applyfunc(d_delta) * ddot - grad_q(T)

    vals = []
    for e in ang_expr:
        vals += [e, sp.diff(e, delta), sp.diff(e, delta, 2)]
    ang_fun = sp.lambdify(delta, vals, "numpy")

    args = (q1, q2, qd1, qd2) + A
    fM, fc, fT = (sp.lambdify(args, e, "numpy") for e in (Mq, c, T))

    def geo(q1v, q2v):
        v = ang_fun(np.asarray(q2v, dtype=float)
                    - np.asarray(q1v, dtype=float))
        a1, da1, dda1, a2, da2, dda2 = v
        return (a1, a2, da1, da2, dda1, dda2)

    def wrap(f):
        return lambda q1v, q2v, v1, v2: f(q1v, q2v, v1, v2, *geo(q1v, q2v))

    return wrap(fM), wrap(fc), wrap(fT), geo


def _cols(x):
    x = np.atleast_2d(np.asarray(x, dtype=float))
    if x.shape[-1] != 2:
        raise ValueError("expected samples of shape (n, 2)")
    return x[:, 0], x[:, 1]


def _matrix(fun, q_a, qd_a, shape):
    """Evaluate a lambdified sympy matrix on n samples -> (n, *shape)."""
    q1, q2 = _cols(q_a)
    v1, v2 = _cols(qd_a)
    n = q1.size
    raw = fun(q1, q2, v1, v2)
    out = np.empty((n,) + shape)
    for idx in np.ndindex(*shape):
        out[(slice(None),) + idx] = np.broadcast_to(
            np.asarray(raw[idx], dtype=float), (n,))
    return out


def mass_matrix(q_a, rotary_inertia=False):
    """Inertia matrices M(q) (n, 2, 2) of the rigid robot in the actuated
    coordinates, slider inertia included."""
    q_a = np.atleast_2d(np.asarray(q_a, dtype=float))
    return _matrix(_compiled(rotary_inertia)[0], q_a, np.zeros_like(q_a),
                   (2, 2))


def kinetic_energy(q_a, qd_a, rotary_inertia=False):
    """Kinetic energy (n,) of the rigid robot (sliders included)."""
    fT = _compiled(rotary_inertia)[2]
    q1, q2 = _cols(q_a)
    v1, v2 = _cols(qd_a)
    return np.broadcast_to(np.asarray(fT(q1, q2, v1, v2), dtype=float),
                           q1.shape).copy()


def leg_angles(q_a):
    """Leg angles a1, a2 (n, 2) in the plane (X, Z) (e_i = (cos, sin))."""
    geo = _compiled(False)[3]
    q1, q2 = _cols(q_a)
    a = geo(q1, q2)
    return np.column_stack([np.broadcast_to(a[0], q1.shape),
                            np.broadcast_to(a[1], q1.shape)])


def leg_angle_rates(q_a, qd_a, qdd_a):
    """Angles a (n, 2), angular velocities w (n, 2) and accelerations
    wd (n, 2) of the two legs."""
    geo = _compiled(False)[3]
    q1, q2 = _cols(q_a)
    v1, v2 = _cols(qd_a)
    acc = np.atleast_2d(np.asarray(qdd_a, dtype=float))
    a1, a2, da1, da2, dda1, dda2 = (np.broadcast_to(x, q1.shape)
                                    for x in geo(q1, q2))
    dd, ddd = v2 - v1, acc[:, 1] - acc[:, 0]
    a = np.column_stack([a1, a2])
    w = np.column_stack([da1 * dd, da2 * dd])
    wd = np.column_stack([da1 * ddd + dda1 * dd**2, da2 * ddd + dda2 * dd**2])
    return a, w, wd


def rigid_acc_P_y17(q_a, qd_a, qdd_a):
    """Acceleration (n,) of P = O18 (0.84 m from O12 along leg 1) projected on
    y17 = (-sin a1, cos a1) for the rigid robot:
    a_P = (0, qdd11) + |O12 P| (wd1 e1_perp - w1^2 e1)."""
    a, w, wd = leg_angle_rates(q_a, qd_a, qdd_a)
    acc = np.atleast_2d(np.asarray(qdd_a, dtype=float))
    return acc[:, 0] * np.cos(a[:, 0]) + S1["O18"] * wd[:, 0]


def rigid_idm(q_a, qd_a, qdd_a, rotary_inertia=False):
    """Rigid inverse dynamic model: actuator forces tau (n, 2) along Z (N),
    slider inertia included, no gravity, no friction, for samples of
    q_a, qd_a, qdd_a of shape (n, 2)."""
    fM, fc = _compiled(rotary_inertia)[:2]
    M = _matrix(fM, q_a, qd_a, (2, 2))
    c = _matrix(fc, q_a, qd_a, (2, 1))[:, :, 0]
    acc = np.atleast_2d(np.asarray(qdd_a, dtype=float))
    return np.einsum("nij,nj->ni", M, acc) + c


if __name__ == "__main__":
    np.set_printoptions(precision=6, suppress=True)
    print(leg_parameters())
    print(mass_matrix([[0.0, 0.0], [0.1, 0.0]]))
