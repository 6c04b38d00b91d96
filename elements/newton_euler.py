"""Generalized Newton-Euler model of one flexible body (Briot & Khalil, 10.2).

Notation (all vectors and matrices projected in the body frame F_j, SI):

* ``t = [v; omega]``: absolute velocity of O_j and absolute angular velocity
  of F_j (m/s, rad/s);
* ``tdot = [a; alpha]``: absolute acceleration of O_j and absolute angular
  acceleration (m/s^2, rad/s^2), both *projected* in F_j. (They are not the
  time derivatives of the body-frame components of ``t``: for the linear part
  ``a = d(v_b)/dt + omega x v_b``; for the angular part the two coincide.)
* ``q_e, qd_e, qdd_e``: elastic coordinates and their derivatives, shape (N,).

A material point at reference position r0 is at ``r = r0 + Phi_d q_e`` (10.4)
and its absolute acceleration is (10.12)::

    a_M = a + alpha x r + omega x (omega x r) + 2 omega x Phi_d qd_e + Phi_d qdd_e

Projecting ``int (a_M - g) dm`` on the virtual velocities gives (10.68)::

    [Sf; Sm; Ss] = M_j(q_e) [a - g; alpha; qdd_e] + [f_in; c_in; s_in] + [0; 0; K_ee q_e]

All functions accept an optional leading batch shape ``...`` on every state
argument (the batch shapes broadcast against each other); invariants are
never batched. For a rigid body (N = 0) pass ``q_e = qd_e = qdd_e = None``.
"""
from __future__ import annotations

import numpy as np

from flexpkm.errors import InvalidArgumentError

from flexpkm.spatial import cross, skew

from .base import BodyInvariants, DerivedInvariants

__all__ = ["DerivedInvariants", "derived", "skew", "mass_matrix",
           "velocity_terms", "mass_and_velocity_terms", "ne_wrench", "kinetic_energy"]

def derived(inv: BodyInvariants) -> DerivedInvariants:
    """Derived invariants of ``inv``, computed once when it was made
    (:func:`flexpkm.elements.base.derive`; Eqs. (10.44)-(10.60)).
    Returns a :class:`DerivedInvariants` (shapes in its docstring)."""
    return inv.derived


def _flat(inv: BodyInvariants):
    """The derived invariants reshaped for matrix products (made with
    ``inv``): I_re (N, 9), I_re + I_re^T (N, 9), I_ee (N N, 9), lam (N, 3 N), beta^T."""
    return inv.flat


def _outer(a, b):
    """``a_i b_k`` flattened over (i, k): (..., n) x (..., m) -> (..., n m)."""
    return (a[..., :, None] * b[..., None, :]).reshape(np.broadcast_shapes(
        a.shape[:-1], b.shape[:-1]) + (a.shape[-1] * b.shape[-1],))


def _vec(x, n: int, name: str) -> np.ndarray:
    """``x`` as a float array of shape (..., n); None means zeros (n,)."""
    if x is None:
        return np.zeros(n)
    a = np.asarray(x, dtype=float)
    if a.ndim == 0 or a.shape[-1] != n:
        raise InvalidArgumentError(f"{name}: last axis must have length {n}, got shape {a.shape}")
    return a


def _state_terms(inv: BodyInvariants, q: np.ndarray):
    """ms(q) (10.40), I_O(q) (10.46), MS_re(q) (10.43) for q of shape (..., N).

    Returns ms (..., 3), I_O (..., 3, 3), MS_re (..., 3, N).
    """
    n = inv.n_e
    I_re, I_re_sym, I_ee, lam, beta_T = _flat(inv)
    ms = inv.ms_r + q @ inv.MS_de.T
    I_O = inv.I_rr + ((q @ I_re_sym) + (_outer(q, q) @ I_ee)).reshape(q.shape[:-1] + (3, 3))
    MS_re = beta_T + np.swapaxes((q @ lam).reshape(q.shape[:-1] + (n, 3)), -1, -2)
    return ms, I_O, MS_re


def mass_matrix(inv: BodyInvariants, q_e=None) -> np.ndarray:
    """Generalized inertia matrix M_j(q_e) of (10.61).

    Parameters
    ----------
    inv : BodyInvariants (N elastic coordinates)
    q_e : (..., N) elastic coordinates, or None (zeros).

    Returns
    -------
    (..., 6+N, 6+N) symmetric matrix, rows/columns ordered
    [v (3), omega (3), qd_e (N)], projected in F_j, SI::

        [[m 1,      hat(ms)^T, MS_de],
         [hat(ms),  I_O,       MS_re],
         [MS_de^T,  MS_re^T,   M_ee ]]

    with ms (10.40), I_O (10.46), MS_re (10.43).

    Raises
    ------
    ValueError if q_e does not end with an axis of length N.
    """
    q = _vec(q_e, inv.n_e, "q_e")
    return _assemble_mass(inv, q, *_state_terms(inv, q))


def _assemble_mass(inv, q, ms, I_O, MS_re):
    """(10.61)'s M_j from the state terms of :func:`_state_terms`."""
    n = inv.n_e
    S = skew(ms)
    M = np.zeros(q.shape[:-1] + (6 + n, 6 + n))
    M[..., :3, :3] = inv.m * np.eye(3)
    M[..., :3, 3:6] = np.swapaxes(S, -1, -2)
    M[..., 3:6, :3] = S
    M[..., 3:6, 3:6] = I_O
    M[..., :3, 6:] = inv.MS_de
    M[..., 6:, :3] = inv.MS_de.T
    M[..., 3:6, 6:] = MS_re
    M[..., 6:, 3:6] = np.swapaxes(MS_re, -1, -2)
    M[..., 6:, 6:] = derived(inv).M_ee
    return M


def velocity_terms(inv: BodyInvariants, omega, q_e=None, qd_e=None) -> np.ndarray:
    """Centrifugal and Coriolis terms [f_in; c_in; s_in], (10.62)-(10.64).

    Parameters
    ----------
    inv   : BodyInvariants
    omega : (..., 3) absolute angular velocity of F_j, projected in F_j, rad/s
    q_e   : (..., N) elastic coordinates, or None (zeros)
    qd_e  : (..., N) elastic velocities, or None (zeros)

    Returns
    -------
    (..., 6+N) array, projected in F_j (N, N m, generalized forces)::

        f_in = omega x (omega x ms + 2 MS_de qd_e)                       (10.62)
        c_in = omega x (I_O omega) + 2 sum_k I_re[k] omega qd_k
               + 2 sum_ik I_ee[i, k] omega q_i qd_k                       (10.63)
        s_in_i = 2 sum_k lam[k, i]^T omega qd_k - omega^T I_re[i] omega
                 - sum_k omega^T I_ee[i, k] omega q_k                     (10.64)

    Raises
    ------
    ValueError on inconsistent trailing axis lengths.
    """
    n = inv.n_e
    w = _vec(omega, 3, "omega")
    if n == 0:                                          # rigid body: (6.35)
        return np.concatenate([cross(w, cross(w, inv.ms_r)),
                               cross(w, w @ inv.I_rr.T)], axis=-1)
    q = _vec(q_e, n, "q_e")
    qd = _vec(qd_e, n, "qd_e")
    ms, I_O, _ = _state_terms(inv, q)
    return _velocity_from_state(inv, w, q, qd, ms, I_O)


def mass_and_velocity_terms(inv: BodyInvariants, omega, q_e, qd_e):
    """``(mass_matrix(inv, q_e), velocity_terms(inv, omega, q_e, qd_e))``
    with the state-dependent invariants (10.40), (10.43), (10.46) computed
    once. Shapes as in the two functions."""
    n = inv.n_e
    w = _vec(omega, 3, "omega")
    q = _vec(q_e, n, "q_e")
    qd = _vec(qd_e, n, "qd_e")
    ms, I_O, MS_re = _state_terms(inv, q)
    return _assemble_mass(inv, q, ms, I_O, MS_re), _velocity_from_state(inv, w, q, qd, ms, I_O)


def _velocity_from_state(inv, w, q, qd, ms, I_O):
    """(10.62)-(10.64) from the state terms."""
    n = inv.n_e
    I_re, _, I_ee, lam, _ = _flat(inv)
    shaped = lambda x, *tail: x.reshape(x.shape[:-1] + tail)     # noqa: E731
    f_in = cross(w, cross(w, ms) + 2.0 * qd @ inv.MS_de.T)
    A = 2.0 * ((qd @ I_re) + (_outer(q, qd) @ I_ee))            # 2 sum_k (I_re[k] + ...) qd_k
    c_in = cross(w, (I_O @ w[..., None])[..., 0]) + (shaped(A, 3, 3) @ w[..., None])[..., 0]
    ww = _outer(w, w)
    s_in = (2.0 * (shaped(qd @ lam, n, 3) @ w[..., None])[..., 0]
            - ww @ I_re.T
            - (shaped(ww @ I_ee.T, n, n) @ q[..., None])[..., 0])
    batch = np.broadcast_shapes(w.shape[:-1], q.shape[:-1], qd.shape[:-1])
    return np.concatenate([np.broadcast_to(f_in, batch + (3,)),
                           np.broadcast_to(c_in, batch + (3,)),
                           np.broadcast_to(s_in, batch + (n,))], axis=-1)


def ne_wrench(inv: BodyInvariants, tdot, qdd_e, omega, q_e=None, qd_e=None,
              g=None) -> np.ndarray:
    """Generalized Newton-Euler model of the body, Eq. (10.68).

    Parameters
    ----------
    inv   : BodyInvariants
    tdot  : (..., 6) [a; alpha]: absolute acceleration of O_j (m/s^2) and
            absolute angular acceleration (rad/s^2), projected in F_j
    qdd_e : (..., N) elastic accelerations, or None (zeros)
    omega : (..., 3) absolute angular velocity, projected in F_j, rad/s
    q_e, qd_e : (..., N) elastic coordinates / velocities, or None (zeros)
    g     : (..., 3) gravity acceleration projected in F_j (m/s^2), or None

    Returns
    -------
    (..., 6+N) ``[Sigma f; Sigma m; Sigma s]``: total external force (N) and
    moment about O_j (N m), projected in F_j, and generalized elastic
    forces (10.51)-(10.53)::

        M_j(q_e) [tdot - [g; 0]; qdd_e] + velocity_terms + [0; 0; K_ee q_e]

    Raises
    ------
    ValueError on inconsistent trailing axis lengths.
    """
    n = inv.n_e
    td = _vec(tdot, 6, "tdot")
    qdd = _vec(qdd_e, n, "qdd_e")
    q = _vec(q_e, n, "q_e")
    if g is not None:
        gg = _vec(g, 3, "g")
        td = td - np.concatenate([gg, np.zeros(gg.shape)], axis=-1)
    batch = np.broadcast_shapes(td.shape[:-1], qdd.shape[:-1])
    acc = np.concatenate([np.broadcast_to(td, batch + (6,)),
                          np.broadcast_to(qdd, batch + (n,))], axis=-1)
    out = np.einsum("...ij,...j->...i", mass_matrix(inv, q), acc)
    out = out + velocity_terms(inv, omega, q, qd_e)
    elastic = np.concatenate([np.zeros(q.shape[:-1] + (6,)), q @ inv.K_ee.T], axis=-1)
    return out + elastic


def kinetic_energy(inv: BodyInvariants, t, q_e=None, qd_e=None) -> np.ndarray:
    """Kinetic energy ``1/2 [t; qd_e]^T M_j(q_e) [t; qd_e]`` (J).

    t : (..., 6) twist [v; omega] of F_j at O_j, absolute, projected in F_j;
    q_e, qd_e : (..., N) or None (zeros). Returns an array of shape (...).

    Raises ValueError on inconsistent trailing axis lengths.
    """
    n = inv.n_e
    tt = _vec(t, 6, "t")
    qd = _vec(qd_e, n, "qd_e")
    batch = np.broadcast_shapes(tt.shape[:-1], qd.shape[:-1])
    x = np.concatenate([np.broadcast_to(tt, batch + (6,)),
                        np.broadcast_to(qd, batch + (n,))], axis=-1)
    return 0.5 * np.einsum("...i,...ij,...j->...", x, mass_matrix(inv, q_e), x)
