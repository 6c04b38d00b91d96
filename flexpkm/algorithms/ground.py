"""Ground reactions of a rigid or flexible parallel robot (Briot & Khalil
Section 8.6.1, (8.206)).

Every body of the virtual tree and the platform needs the wrench
``w_j = M_j(q_e) [tdot_j - [g; 0]; qdd_e] + velocity terms`` (its first six
rows of the generalized Newton-Euler model (10.68); ``[Sigma f; Sigma m]``
at O_j) to move as it does. Moved to the base origin O in base-frame
components (``[f; m + r_O x f]``, (3.13)):

* ``tree_legs[i]``: the sum over the bodies of leg i of the virtual tree,
  the platform removed: the book's ``^{i1}T_0^T [^{i1}f_{i1}; ^{i1}m_{i1}]``
  (8.207)-(8.209), the wrench of the base on the first link of the leg in
  the tree's Newton-Euler recursion;
* ``platform``: ``[^0f_p; ^0m_p + ^0r_OP x ^0f_p]`` (8.210)-(8.211) of the
  platform's wrench (8.57);
* ``total = platform + sum_i tree_legs[i] - w_ext`` (8.206), ``w_ext`` the
  external wrench on the platform moved to O;
* ``legs[i]``: the wrench the base exerts on leg i of the actual robot:
  ``tree_legs[i]`` minus the cut-joint wrenches the leg receives (the
  closures' Lagrange multipliers, :mod:`flexpkm.algorithms.reactions`).
  Their sum is ``total`` again (Newton's third law on the cut joints;
  tests/algorithms/test_ground.py checks it) along the platform's
  coordinates, where the platform's balance is written. Along its other
  directions the legs are incomplete and ``total`` alone is right: a planar
  model's out-of-plane components (its cut joints have in-plane rows only:
  the weight normal to the plane is not distributed among the legs), the
  moments on the translating platform of Müller's rigid Delta (carried by
  the dropped redundant rows, which the model does not solve: an
  overconstrained robot's reactions are not unique).

Sign: all these are wrenches **exerted by the base on the robot** (the
bodies' ``m a - m g``, as in (8.209)-(8.210)); the robot exerts the opposite
on the ground (docs/typos.md: the text of 8.6.1.1 names the wrench by the
robot on the ground but its terms are the base's on the robot). The
actuators' rotors count with the base (their stators are on it): their
inertia ``Ia`` is not in these wrenches, as in (8.208). Friction, joint
springs and the actuator efforts act between the base and the legs or
inside a leg: they are in ``legs`` through the motion they produce.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from flexpkm.algorithms.platform import platform_pose, platform_wrench, selection
from flexpkm.algorithms.reactions import joint_reactions
from flexpkm.algorithms.tree import as_batch
from flexpkm.elements import newton_euler as ne
from flexpkm.errors import InvalidArgumentError


@dataclass(kw_only=True)
class GroundReactions:
    """Wrenches ``[f; m]`` (N, N m) exerted by the base on the robot, at the
    base origin O, base-frame components: (6,) for one state, (B, 6) for a
    batch (see the module for each term).

    total : (8.206);  platform : the platform's inertial wrench at O;
    tree_legs : leg name -> the virtual tree's leg alone (8.207)-(8.209);
    legs : leg name -> the base's wrench on that leg of the actual robot
    """

    total: np.ndarray
    platform: np.ndarray
    tree_legs: dict
    legs: dict


def at_origin(R, p, w):
    """A wrench ``w`` (B, 6) at O_j in F_j (``R = R_0j`` (B, 3, 3), ``p = O_j``
    (B, 3)) as ``[f; m]`` at the base origin in base components, (B, 6)."""
    f = (R @ w[:, :3, None])[..., 0]
    return np.concatenate([f, (R @ w[:, 3:, None])[..., 0] + np.cross(p, f)], axis=-1)


def _closure_wrenches(model, full, lam):
    """``(receiver leg, wrench at O)`` pairs: frame k of each closure gets
    ``lambda``, its other side (a frame or the platform, leg None) ``-lambda``."""
    kin, B = full.kin, full.kin.R.shape[0]
    lam = lam.reshape(B, -1)
    by_label = {c.label: c for c in model.closures}
    legs = {f.name: f.leg for f in model.frames}
    out = []
    for row, (label, _, comp) in enumerate(full.labels):
        c = by_label[label]
        k = model.frame_index[c.frame]
        w = np.zeros((B, 6))
        w[:, "xyz".index(comp[2]) + (3 if comp[0] == "w" else 0)] = lam[:, row]
        w0 = at_origin(kin.R[:, k], kin.p[:, k], w)
        out += [(legs[c.frame], w0), (None if c.other is None else legs[c.other], -w0)]
    return out


def ground_reactions(model, full, q_tot, qd_r, qdd_r, tau) -> GroundReactions:
    """The ground reaction model (8.206) at a state of the full model.

    model : the Model ``full`` was built from; full : :class:`FullDynamics` of
    one state or B (:func:`flexpkm.algorithms.dynamics.full_dynamics`, with its
    gravity and external wrench); q_tot : (n_tot,)/(B, n_tot) its
    coordinates; qd_r, qdd_r : (n_r,)/(B, n_r) its independent velocities and
    accelerations; tau : (n_A,)/(B, n_A) all actuator efforts (N or N m)
    with which ``qdd_r`` satisfies (10.123), e.g. from
    :func:`flexpkm.algorithms.dynamics.inverse_dynamics`.
    Returns :class:`GroundReactions`. Raises :class:`InvalidArgumentError`
    on shapes.
    """
    (_, _, J, b), single = full.batched()
    B, n_r = J.shape[0], J.shape[2]
    q = as_batch(q_tot, model.layout.n_tot, "ground_reactions: q_tot")
    qd, qdd = (as_batch(x, n_r, f"ground_reactions: {n}") * np.ones((B, 1))
               for x, n in ((qd_r, "qd_r"), (qdd_r, "qdd_r")))
    if q.shape[0] != B:
        raise InvalidArgumentError(f"ground_reactions: {q.shape[0]} states for a model of {B}")
    qd_tot = (J @ qd[..., None])[..., 0]
    qdd_tot = (J @ qdd[..., None])[..., 0] + b
    kin, n_t = full.kin, model.layout.n_t
    legs = {f.name: f.leg for f in model.frames}
    tree = {}
    for e in model.body_entries:
        j, sl = e.frame, e.elastic
        Rt = np.swapaxes(kin.R[:, j], -1, -2)
        acc = np.concatenate([Rt @ ((kin.Jv[:, j] @ qdd_tot[:, :n_t, None])[..., 0]
                                    + kin.a_bias[:, j])[..., None],
                              Rt @ ((kin.Jw[:, j] @ qdd_tot[:, :n_t, None])[..., 0]
                                    + kin.alpha_bias[:, j])[..., None]], axis=1)[..., 0]
        omega = (Rt @ (kin.Jw[:, j] @ qd_tot[:, :n_t, None]))[..., 0]
        pick = (lambda x: None) if sl is None else (lambda x: x[:, sl])
        w = ne.ne_wrench(e.body.invariants, acc, pick(qdd_tot), omega, pick(q), pick(qd_tot))
        leg = legs[e.frame_name]
        tree[leg] = tree.get(leg, 0.0) + at_origin(kin.R[:, j], kin.p[:, j], w[:, :6])
    platform = np.zeros((B, 6))
    if model.platform is not None:
        R_0p, P = platform_pose(model, q)
        S = selection(model.platform)
        w_p = platform_wrench(model.platform, R_0p, qd_tot[:, n_t:] @ S.T,
                              qdd_tot[:, n_t:] @ S.T, kin.gravity)
        platform = np.concatenate([w_p[:, :3], w_p[:, 3:] + np.cross(P, w_p[:, :3])], -1)
    external = np.zeros((B, 6))
    if full.wrench is not None:
        w = np.broadcast_to(full.wrench, (B, 6))
        external = np.concatenate([w[:, :3], w[:, 3:] + np.cross(platform_pose(model, q)[1],
                                                                   w[:, :3])], -1)
    total = platform + sum(tree.values(), np.zeros((B, 6))) - external
    physical = dict(tree)
    for leg, w in _closure_wrenches(model, full, joint_reactions(full, qdd_r, tau).lam):
        if leg is not None:
            physical[leg] = physical.get(leg, 0.0) - w
    one = (lambda x: x[0]) if single else (lambda x: x)
    return GroundReactions(total=one(total), platform=one(platform),
                           tree_legs={k: one(v) for k, v in tree.items()},
                           legs={k: one(v) for k, v in physical.items()})
