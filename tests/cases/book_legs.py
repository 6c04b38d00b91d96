"""The book's inverse dynamic model of a planar RR(R) leg with a massless
last body, (8.116)-(8.117) = (8.120)-(8.121) = (8.201), written once for
the five-bar and DualV tests (no friction; the sign of the my terms
corrected, docs/typos.md)."""
import numpy as np


def leg_idm(zz1R, zz2, mx2, my2, d2, q, qd, qdd):
    """(tau_t1, tau_t2) of the leg at joint positions q, rates qd, qdd (q_i1, q_i2 first)."""
    s2, c2 = np.sin(q[1]), np.cos(q[1])
    t1 = (zz1R * qdd[0] + zz2 * (qdd[0] + qdd[1])
          + d2 * mx2 * ((2 * qdd[0] + qdd[1]) * c2 - qd[1] * (2 * qd[0] + qd[1]) * s2)
          - d2 * my2 * ((2 * qdd[0] + qdd[1]) * s2 + qd[1] * (2 * qd[0] + qd[1]) * c2))
    t2 = (zz2 * (qdd[0] + qdd[1]) + d2 * mx2 * (qdd[0] * c2 + qd[0] ** 2 * s2)
          - d2 * my2 * (qdd[0] * s2 - qd[0] ** 2 * c2))
    return t1, t2


def leg_mass_matrix(zz1R, zz2, mx2, my2, d2, q2):
    """The leg's block of M_t (8.127)-(8.131) (my sign corrected), (2, 2)."""
    m12 = zz2 + d2 * (mx2 * np.cos(q2) - my2 * np.sin(q2))
    return np.array([[zz1R + zz2 + 2 * (m12 - zz2), m12], [m12, zz2]])
