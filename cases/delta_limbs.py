"""Müller's per-limb evaluation of the Delta's inverse dynamics (Section 8.2,
Fig. 13, Eq. 144): each limb's contribution is computed on its own and the
contributions are summed.

Limb i alone (its frames, its parallelogram and wrist closures, a massless
translating platform) is a mechanism whose three independent coordinates
can be the platform's ``x = P``: all its joints, the actuated one included,
are dependent (``q_dep``). Its full model (10.123) in these coordinates is
the limb's dynamics mapped to task space, ``F_i = M_i xdd + c_i = J_i^T
(M_t,i J_i xdd + ...)`` (Müller's Eq. 144, the term of limb i in the sum
(8.2)), and ``qd_ai = (J_d)_ai xd`` is the limb's row of the inverse
kinematics Jacobian ``J_IK``. The platform adds ``m_p (xdd - g)``, then
``tau = J_IK^-T (sum_i F_i + F_p)`` (the final node of Fig. 13).
"""
from __future__ import annotations

import numpy as np

from flexpkm.algorithms.dynamics import full_dynamics
from flexpkm.cases import delta as D
from flexpkm.model import files
from flexpkm.model.build import build_structure


def limb_models(flexible=False):
    """One model per limb: ``[(model, dependent columns, actuated column,
    leg index)]``, each read from the Delta's description file
    (cases/delta.toml, its variant ``rigid`` unless ``flexible``) keeping
    that limb's placement only, a massless platform translating along x, y,
    z (independent coordinates) and no reference (``flexible``: the limb's
    model also gets the platform rotations its wrist constrains,
    docs/design.md; the per-limb inverse dynamics is the rigid one)."""
    from flexpkm.cases.shipped import file_of
    path = file_of("delta")
    data = files.parse(path.read_text(encoding="utf-8"), files.Where(str(path)))
    for key in ("reference", "reference_fixed"):
        data.pop(key, None)
    data["platform"] = {"dofs": [0, 1, 2], "dof_names": ["x", "y", "z"]}
    out = []
    for placement in data["placements"]:
        one = {**data, "name": f"Delta limb {placement['leg']}", "placements": [placement]}
        model = build_structure(files.from_dict(one, str(path), None if flexible else "rigid"))
        layout = model.layout
        out.append((model, np.array(sorted(layout.joint_index.values())), layout.actuated[0],
                    D.LEGS.index(placement["leg"])))
    return out


def limb_configuration(model, P, leg):
    """``q_tot`` (B, n_tot) of the model of limb ``leg`` (index) at P (B, 3)
    (closed form, that limb's inverse geometry only)."""
    q = np.zeros(P.shape[:-1] + (model.layout.n_tot,))
    for name, value in D.joint_angles(P, (leg,)).items():
        q[..., model.layout.index(name)] = value
    q[..., list(model.layout.commanded)] = P          # a flexible limb's rotations: 0
    return q


def limb_contribution(limb, P, Pd, Pdd):
    """Müller's Eq. (144) for one limb, vectorised over B samples: (F_i (B, 3)
    N, task-space force of the limb's dynamics; J_IK row (B, 3) rad/m)."""
    model, dep, act, leg = limb
    fm = full_dynamics(model, limb_configuration(model, P, leg), Pd, dep=dep)
    F = np.einsum("bij,bj->bi", fm.M, Pdd) + fm.c
    return F, fm.J[:, act, :]


def idm_per_limb(limbs, P, Pd, Pdd, platform_mass):
    """Actuator torques (B, 3) N m from the limbs' contributions summed (Fig.
    13): ``tau = J_IK^-T (sum_i F_i + m_p (xdd - g))``."""
    F = platform_mass * (Pdd - np.asarray(D.GRAVITY))
    rows = []
    for limb in limbs:
        F_i, row = limb_contribution(limb, P, Pd, Pdd)
        F = F + F_i
        rows.append(row)
    J_ik = np.stack(rows, 1)
    return np.linalg.solve(np.swapaxes(J_ik, -1, -2), F[..., None])[..., 0]
