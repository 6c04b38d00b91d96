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
derived from J_re and J_ee by :func:`flexpkm.elements.newton_euler.derived`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from flexpkm.errors import InvalidDescriptionError


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


@dataclass(frozen=True, eq=False)
class BodyInvariants:
    """Constant inertial and elastic invariants of one body, in its frame F_j.

    See the module docstring for the shapes and equations. ``N`` (the number
    of elastic coordinates) may be 0 for a rigid body. Fields are converted
    to read-only float arrays (the derived invariants of
    :func:`flexpkm.elements.newton_euler.derived` are cached on the instance, so the
    arrays must not change). Equality and hashing are by identity.
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
