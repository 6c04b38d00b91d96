"""Joint reactions: the Lagrange multipliers of the closures, i.e. the
wrenches transmitted by the cut joints (Briot & Khalil Sections 8.4.1 and
8.5.1, (8.82)-(8.84) and (8.149)-(8.151), written for the virtual system
of Section 10.4).

Sign convention. With the rows of ``J_tot`` (10.107) being the twist of the
cut frame k relative to the other body g (another tree frame or the
platform), at O_k and in F_k, the equations of the virtual system with its
closures are

``M_tot qdd_tot + c_tot = E_A tau + J_tot^T lambda``

where ``lambda`` (c,) is the wrench **exerted by g on the body of frame k**,
at O_k, in F_k components, one component per constraint row: a row
``v_x`` of the labels gives the force f_x (N), ``w_z`` the moment m_z (N m).
Body g receives ``-lambda``. The c dependent rows give
``(J_t^f)^T lambda = (M_tot qdd_tot + c_tot - E_A tau)[dep]``; the
independent rows then hold by the equations of motion (10.123) and are
returned as a residual.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from flexpkm.errors import InvalidArgumentError


@dataclass(kw_only=True)
class JointReactions:
    """Cut-joint wrenches of a full model state.

    lam : (c,) or (B, c) components (N or N m), rows of ``labels``
    labels : ``(closure label, leg, row name)`` per component
    residual : (n_r,) or (B, n_r) ``(M_tot qdd_tot + c_tot - E_A tau -
        J_tot^T lambda)`` on the independent coordinates (zero when ``tau``
        and ``qdd_r`` satisfy the equations of motion)
    """

    lam: np.ndarray
    labels: tuple
    residual: np.ndarray

    def of(self, closure: str) -> np.ndarray:
        """The components of one closure (by label), (k,) or (B, k)."""
        rows = [i for i, (lab, _, _) in enumerate(self.labels) if lab == closure]
        if not rows:
            raise InvalidArgumentError(f"no closure {closure!r}; known: "
                                       f"{', '.join(dict.fromkeys(l for l, _, _ in self.labels))}")
        return self.lam[..., rows]


def joint_reactions(full, qdd_r, tau) -> JointReactions:
    """Cut-joint wrenches ``lambda`` at a state (see the module for the sign).

    full : :class:`flexpkm.algorithms.dynamics.FullDynamics` (one state or B).
    qdd_r : (n_r,) or (B, n_r) independent accelerations (order ``full.names``).
    tau : (n_A,) or (B, n_A) efforts of all actuators (order ``full.actuated``),
        N or N m, e.g. from :func:`flexpkm.algorithms.dynamics.inverse_dynamics`.
    Returns :class:`JointReactions`. Raises :class:`InvalidArgumentError` on
    shapes; ``J_t^f`` is invertible wherever ``full`` could be built.
    """
    single = full.c.ndim == 1
    batch = lambda x: np.asarray(x, float)[None] if single else np.asarray(x, float)
    M_tot, c_tot, J_tot, J, b = (batch(x) for x in (full.M_tot, full.c_tot, full.J_tot,
                                                    full.J, full.b))
    B, n_r = J.shape[0], J.shape[2]
    qdd = np.asarray(qdd_r, float).reshape(B, n_r)
    t = np.asarray(tau, float)
    if t.shape[-1] != len(full.actuated):
        raise InvalidArgumentError(f"tau: {len(full.actuated)} actuator efforts expected, "
                                   f"got {t.shape[-1]}")
    qdd_tot = (J @ qdd[..., None])[..., 0] + b
    Q = (M_tot @ qdd_tot[..., None])[..., 0] + c_tot
    Q[:, full.actuated] -= t.reshape(B, -1)
    dep = np.asarray(full.dep, dtype=int)
    lam = np.linalg.solve(np.swapaxes(J_tot[:, :, dep], -1, -2), Q[:, dep, None])[..., 0]
    res = (Q - (np.swapaxes(J_tot, -1, -2) @ lam[..., None])[..., 0])[:, full.indep]
    if single:
        lam, res = lam[0], res[0]
    return JointReactions(lam=lam, labels=full.labels, residual=res)
