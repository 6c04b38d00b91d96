"""Common interface of every body model (Briot & Khalil, Section 10.2).

A body B_j is described in its own frame F_j (origin O_j, the clamp).
Its material points M_0 (reference, undeformed) move by
``u_e(M_0) = Phi_d(M_0) q_e`` (10.3) and their triad rotates by the small
angles ``Phi_r(M_0) q_e`` about x, y, z (10.5).

Everything the generalized Newton-Euler model (10.61) needs is a handful of
constant *invariants*, all projected in F_j, SI units:

========  ===========  =====================================================
name      shape        definition
========  ===========  =====================================================
m         ()           mass, kg
ms_r      (3,)         int r dm, first moments at O_j (10.41), kg m
I_rr      (3, 3)       int hat(r)^T hat(r) dm, inertia at O_j (10.47), kg m^2
MS_de     (3, N)       int Phi_d dm (10.42)
J_re      (N, 3, 3)    J_re[k] = int r Phi_dk^T dm (10.58)
J_ee      (N, N, 3, 3) J_ee[i, k] = int Phi_di Phi_dk^T dm (10.54)
K_ee      (N, N)       stiffness matrix (10.35)
========  ===========  =====================================================

The other invariants (beta, lambda, I_re, I_ee, M_ee; Eqs. 10.44-10.60) are
derived from J_re and J_ee by :func:`derive` when the invariants are made.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from flexpkm.errors import InvalidDescriptionError
from flexpkm.spatial import EPS


def check_inertia(m, I_rr) -> None:
    """InvalidDescriptionError unless the mass ``m`` (kg) is finite and >= 0
    and the inertia matrix ``I_rr`` (3, 3) (kg m^2) is symmetric positive
    semi-definite (a negative principal moment is not a body)."""
    if not (isinstance(m, (int, float, np.number)) and 0 <= m < np.inf):
        raise InvalidDescriptionError(f"body mass must be finite and >= 0 kg, got {m!r}")
    scale = max(float(np.abs(I_rr).max()), 1e-300)
    if np.abs(I_rr - I_rr.T).max() > 1e-9 * scale:
        raise InvalidDescriptionError(f"body inertia matrix is not symmetric: {I_rr.tolist()}")
    low = float(np.linalg.eigvalsh(I_rr).min())
    if low < -1e-9 * scale:
        raise InvalidDescriptionError(f"body inertia matrix has a negative principal moment "
                                      f"({low:.3g} kg m^2): {I_rr.tolist()}")


@dataclass(frozen=True)
class DerivedInvariants:
    """Invariants derived from J_re and J_ee (10.44)-(10.60), frame F_j, SI.

    beta : (N, 3)        beta[k] = int r0 x Phi_dk dm (10.44), from (10.60)
    lam  : (N, N, 3)     lam[k, i] = int Phi_dk x Phi_di dm (10.45)
    I_re : (N, 3, 3)     I_re[k] = int hat(r0)^T hat(Phi_dk) dm (10.48)
    I_ee : (N, N, 3, 3)  I_ee[i, k] = int hat(Phi_di)^T hat(Phi_dk) dm (10.49)
    M_ee : (N, N)        M_ee[i, k] = int Phi_di . Phi_dk dm (10.50)
    """

    beta: np.ndarray
    lam: np.ndarray
    I_re: np.ndarray
    I_ee: np.ndarray
    M_ee: np.ndarray


def derive(J_re, J_ee) -> DerivedInvariants:
    """Derived invariants from ``J_re`` (N, 3, 3) and ``J_ee`` (N, N, 3, 3).

    With J_re[k] = int r0 Phi_dk^T dm and J_ee[i, k] = int Phi_di Phi_dk^T dm,
    and the identity hat(a)^T hat(b) = (a.b) 1 - b a^T:

    * beta[k]_p    = eps_pab J_re[k]_ab                      (10.60)
    * lam[k, i]_p  = eps_pab J_ee[k, i]_ab                   ((10.56) corrected)
    * I_re[k]      = tr(J_re[k]) 1 - J_re[k]^T               (10.59)
    * I_ee[i, k]   = tr(J_ee[i, k]) 1 - J_ee[i, k]^T         ((10.57) corrected)
    * M_ee[i, k]   = tr(J_ee[i, k])                          (10.55)
    """
    eye = np.eye(3)
    tr_re = np.einsum("kaa->k", J_re)
    tr_ee = np.einsum("ikaa->ik", J_ee)
    out = DerivedInvariants(
        beta=np.einsum("pab,kab->kp", EPS, J_re),
        lam=np.einsum("pab,kiab->kip", EPS, J_ee),
        I_re=tr_re[:, None, None] * eye - np.swapaxes(J_re, -1, -2),
        I_ee=tr_ee[:, :, None, None] * eye - np.swapaxes(J_ee, -1, -2),
        M_ee=tr_ee,
    )
    for a in vars(out).values():
        a.setflags(write=False)
    return out


def _flat(d: DerivedInvariants, n: int):
    """The derived invariants reshaped for matrix products: I_re (N, 9),
    I_re + I_re^T (N, 9), I_ee (N N, 9), lam (N, 3 N), beta^T."""
    return (d.I_re.reshape(n, 9), (d.I_re + np.swapaxes(d.I_re, -1, -2)).reshape(n, 9),
            d.I_ee.reshape(n * n, 9), d.lam.reshape(n, 3 * n), d.beta.T)


@dataclass(frozen=True, eq=False)
class BodyInvariants:
    """Constant inertial and elastic invariants of one body, in its frame F_j.

    See the module docstring for the shapes and equations. ``N`` (the number
    of elastic coordinates) may be 0 for a rigid body. Fields are converted
    to read-only float arrays; the derived invariants (:func:`derive`) are
    computed with them, once, and held as ``derived`` (and ``flat``, reshaped
    for the products of :mod:`flexpkm.elements.newton_euler`), attributes
    that are not fields. Equality and hashing are by identity.
    """

    m: float
    ms_r: np.ndarray
    I_rr: np.ndarray
    MS_de: np.ndarray
    J_re: np.ndarray
    J_ee: np.ndarray
    K_ee: np.ndarray

    def __post_init__(self):
        """Convert every field to a read-only float array and check shapes.

        Raises
        ------
        ValueError
            if a field does not have the shape of the module table (with a
            common N deduced from ``MS_de``).
        """
        arrays = {}
        for name in ("ms_r", "I_rr", "MS_de", "J_re", "J_ee", "K_ee"):
            a = np.array(getattr(self, name), dtype=float)
            a.setflags(write=False)
            arrays[name] = a
        n = arrays["MS_de"].shape[-1] if arrays["MS_de"].ndim == 2 else -1
        expected = {"ms_r": (3,), "I_rr": (3, 3), "MS_de": (3, n),
                    "J_re": (n, 3, 3), "J_ee": (n, n, 3, 3), "K_ee": (n, n)}
        for name, a in arrays.items():
            if a.shape != expected[name]:
                raise InvalidDescriptionError(f"BodyInvariants.{name}: shape {a.shape}, "
                                 f"expected {expected[name]}")
            if not np.isfinite(a).all():
                raise InvalidDescriptionError(f"BodyInvariants.{name}: non-finite values")
            object.__setattr__(self, name, a)
        check_inertia(self.m, arrays["I_rr"])
        object.__setattr__(self, "m", float(self.m))
        d = derive(arrays["J_re"], arrays["J_ee"])        # made with the instance, never after
        object.__setattr__(self, "derived", d)
        object.__setattr__(self, "flat", _flat(d, n))

    @property
    def n_e(self) -> int:
        """Number N of elastic coordinates."""
        return self.MS_de.shape[1]

    def select(self, idx) -> "BodyInvariants":
        """Invariants restricted to the elastic coordinates ``idx``.

        idx : sequence of int (or boolean mask) into range(N). The rigid
        invariants (m, ms_r, I_rr) are unchanged; MS_de, J_re, J_ee and K_ee
        keep the selected columns/rows. Used e.g. for planar beams.
        """
        idx = np.arange(self.n_e)[np.asarray(idx)]
        return BodyInvariants(
            m=self.m, ms_r=self.ms_r, I_rr=self.I_rr,
            MS_de=self.MS_de[:, idx], J_re=self.J_re[idx],
            J_ee=self.J_ee[np.ix_(idx, idx)], K_ee=self.K_ee[np.ix_(idx, idx)])


class Body:
    """Base class of the body models.

    Subclasses set ``self.invariants`` (a :class:`BodyInvariants`) and
    implement :meth:`phi_d` and :meth:`phi_r`.

    Attributes
    ----------
    name : str
    invariants : BodyInvariants
    coordinate_names : tuple of str, length N  (e.g. ``("u_x", "u_y", "theta_z")``)
    length : float   reference length along x_j (0 for a rigid body); used
                     by the visualisation to draw the centre line.
    """

    name: str = "body"
    invariants: BodyInvariants
    coordinate_names: tuple = ()
    length: float = 0.0

    @property
    def n_e(self) -> int:
        return self.invariants.n_e

    def phi_d(self, points) -> np.ndarray:
        """Displacement shape functions Phi_d at reference points (10.3).

        points : (..., 3) coordinates of M_0 in F_j, m.
        Returns (..., 3, N): u_e = Phi_d q_e, in F_j, m per unit q_e.
        """
        raise NotImplementedError

    def phi_r(self, points) -> np.ndarray:
        """Rotation shape functions Phi_r at reference points (10.5).

        points : (..., 3) in F_j, m. Returns (..., 3, N): small rotation
        angles about x_j, y_j, z_j per unit q_e, rad.
        """
        raise NotImplementedError

    def phi(self, points) -> np.ndarray:
        """Stacked ``[Phi_d; Phi_r]`` (10.8), shape (..., 6, N)."""
        return np.concatenate([self.phi_d(points), self.phi_r(points)], axis=-2)
