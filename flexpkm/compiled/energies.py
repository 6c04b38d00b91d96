"""The gravity energy (8.219)-(8.220) of a simulation's samples on generated
code (issue 18): the twin of :func:`flexpkm.algorithms.energy.gravity_energy`
on the frame poses of the unrolled graph (:class:`flexpkm.compiled.full.SymbolicDynamics`),
compiled once per robot and mapped over the samples (numpy's batched tree
recursion over the 12,001 samples of the DualEMPS ``square`` took 7-10 %
of its compiled simulation at one element per body).

>>> U = gravity_energies(cm, q, g)          # (K,) J of q (K, n_tot)
"""
from __future__ import annotations

import casadi as ca
import numpy as np

from flexpkm.compiled import symbolic as sym

#: states per call of the compiled gravity energy (:func:`gravity_energies`)
CHUNK = 500


def gravity_function(sm, model):
    """``(q (n_tot,), g (3,)) -> U`` (J): ``U = -sum_j (m_j O_j + R_j
    ms_j(q_e)) . g`` over the bodies of ``model`` (``ms_j = ms_r + MS_de
    q_e`` for a flexible one) and its platform's body, base frame; ``sm``
    the unrolled graph of ``model`` (its symbols ``q`` and poses ``R``,
    ``p``)."""
    g, U = ca.SX.sym("g", 3), ca.SX(0)
    for e in model.body_entries:
        inv = e.body.invariants
        ms = ca.SX(inv.ms_r)
        if e.elastic is not None:
            ms = ms + ca.SX(inv.MS_de) @ sm.q[e.elastic.start:e.elastic.stop]
        U -= ca.dot(inv.m * sm.p[e.frame] + sm.R[e.frame] @ ms, g)
    if model.platform is not None and model.platform.body is not None:
        inv, n_t = model.platform.body.invariants, model.layout.n_t
        x_p = sm.q[n_t:]
        _, _, R_p, P, _ = sym.platform_dynamics(model, x_p, ca.SX.zeros(x_p.shape[0]), g)
        U -= ca.dot(inv.m * P + R_p @ ca.SX(inv.ms_r), g)
    return ca.Function("gravity", [sm.q, g], [U], ["q", "g"], ["U"])


def gravity_energies(cm, q, g) -> np.ndarray:
    """``U`` (K,) J of the states ``q`` (K, n_tot) under the base-frame
    gravity ``g`` (3,), m/s^2: :func:`gravity_function` of the compiled
    robot ``cm`` (:class:`flexpkm.compiled.robot.CompiledRobot`; its
    unrolled graph) mapped over :data:`CHUNK` states in the generated C (a
    loop), compiled and cached as its other functions; the last chunk
    padded with zeros (12,001 DualEMPS states: 0.018 s CPU, numpy's
    :func:`flexpkm.algorithms.energy.gravity_energy` 0.10 s)."""
    fn = cm.function("flexpkm_gravity", lambda: gravity_function(cm.symbolic, cm.model).map(
        "gravity_map", "serial", CHUNK, [1], []))
    q = np.atleast_2d(np.asarray(q, float))
    K = q.shape[0]
    Q = np.zeros((q.shape[1], -(-K // CHUNK) * CHUNK))
    Q[:, :K] = q.T
    g = np.asarray(g, float)
    return np.concatenate([np.asarray(fn(Q[:, k:k + CHUNK], g)).reshape(-1)
                           for k in range(0, Q.shape[1], CHUNK)])[:K]
