"""Design parameters as inputs of the generated functions (issue 21 item 4;
the simulation's, issue 18 item 3, in ``par``: :mod:`flexpkm.compiled.step`):
the vector ``p`` of every number a built model gives the kernel graph
(:mod:`flexpkm.compiled.recursive`), and the robot's *topology*, the key of
its compiled library (:mod:`flexpkm.compiled.codegen`).

A change of a section, a material, a mass, a length or an MDH constant
changes ``p`` only: the library compiled for the topology is reused, and
``p`` is passed at each call. ``p`` is made of blocks, in this order
(:func:`design_layout` gives their slices, SI units):

* per frame F_j (frame order): :func:`flexpkm.compiled.kernels.frame_constants`,
  ``[R_fix (9, column-major); p_att (3); r; Phi_d (3 N); Phi_r (3 N)]``;
* per body (``model.body_entries`` order):
  :func:`flexpkm.compiled.kernels.invariant_vector`, ``[m; ms_r; I_rr;
  MS_de; beta; lam; I_re; I_ee; M_ee]`` (kg, kg m, kg m^2);
* the platform's inertia at P, platform frame: ``[m; ms_r (3); I_rr (9, C
  order)]`` (none for a massless platform);
* per closure with a platform side: the fixed frame on the platform as a
  frame kernel's constants ``[R (9, column-major); platform_point (3); 0]``;
* ``K_tot`` (11.18), (11.22) at its structural entries
  (:attr:`DesignLayout.stiffness`: the bodies' ``K_ee`` blocks, the joint
  springs' diagonal), N/m, N m/rad;
* the rotor inertia of the joints that have one, then the viscous, then the
  Coulomb friction coefficients (joints in the description's order).

The actuator stiffness of :func:`flexpkm.natural_frequencies` (11.38)-(11.42)
is applied to the reduced matrices after the generated function, and the
gravity is an input of the simulation's functions: neither is in ``p``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from flexpkm.compiled.kernels import frame_constants, invariant_vector
from flexpkm.model.build import build_structure
from flexpkm.spatial import rotation_matrix

#: entries of the platform's block (m, ms_r, I_rr)
PLATFORM = 13


@dataclass(frozen=True)
class DesignLayout:
    """Where each block is in ``p`` (a function of the topology only).

    frames, bodies, closures : per frame / body / closure, the slice of its
        block (closures without a platform side: None);
    platform : the platform's slice (None when it is massless or absent);
    stiffness : ``(rows, cols)`` the structural entries of ``K_tot``, and
        ``stiffness_slice`` their values' slice (same order);
    rotor, viscous, coulomb : ``(columns, slice)`` of those joint tables;
    size : the length of ``p``."""

    frames: tuple
    bodies: tuple
    platform: slice | None
    closures: tuple
    stiffness: tuple
    stiffness_slice: slice
    rotor: tuple
    viscous: tuple
    coulomb: tuple
    size: int


def _stiffness_pattern(model):
    """The structural entries of ``K_tot``: every body's full ``K_ee`` block,
    the diagonal of the joints with a spring (sorted, column-major)."""
    entries = set()
    for e in model.body_entries:
        if e.elastic is not None:
            cols = range(e.elastic.start, e.elastic.stop)
            entries.update((i, j) for i in cols for j in cols)
    for name in model.joint_stiffness:
        c = model.layout.joint_index[name]
        entries.add((c, c))
    ordered = sorted(entries, key=lambda ij: (ij[1], ij[0]))
    return tuple(i for i, _ in ordered), tuple(j for _, j in ordered)


def _joint_columns(model, table):
    return tuple(model.layout.joint_index[name] for name in table)


def design_layout(model) -> DesignLayout:
    """The :class:`DesignLayout` of a built model (or a Robot, built here)."""
    model = build_structure(model)
    k = 0

    def take(n):
        nonlocal k
        k += n
        return slice(k - n, k)
    frames = tuple(take(13 + (0 if fc.shapes is None else 6 * fc.shapes[1].shape[1]))
                   for fc in model.frame_constants)
    bodies = tuple(take(len(invariant_vector(e.body.invariants))) for e in model.body_entries)
    pl = model.platform
    platform = take(PLATFORM) if pl is not None and pl.body is not None else None
    closures = tuple(take(13) if c.other is None else None for c in model.closures)
    pattern = _stiffness_pattern(model)
    stiff = take(len(pattern[0]))
    tables = [(cols, take(len(cols))) for cols in
              (_joint_columns(model, t) for t in (model.rotor_inertia, model.viscous_friction,
                                                  model.coulomb_friction))]
    return DesignLayout(frames, bodies, platform, closures, pattern, stiff, *tables, size=k)


def platform_inertia(body) -> np.ndarray:
    """The platform's block ``[m; ms_r (3); I_rr (9, C order)]``."""
    inv = body.invariants
    return np.concatenate([[float(inv.m)], np.ravel(inv.ms_r), np.ravel(inv.I_rr)])


def platform_frame(closure) -> np.ndarray:
    """The constants of a closure's fixed frame on the platform (frame
    kernel order, :func:`flexpkm.compiled.kernels.frame_constants`)."""
    R = rotation_matrix(np.asarray(closure.platform_rotation, float))
    return np.concatenate([np.ravel(R, "F"), np.asarray(closure.platform_point, float), [0.0]])


def design_vector(model) -> np.ndarray:
    """``p`` (n_p,) of a built model (or a Robot, built here): the numbers
    the generated functions take as inputs, in the order of
    :func:`design_layout` (module docstring); SI units. The entries of the
    frames' ``R_fix`` within 1e-15 of 0 are 0 (the cosine of an MDH angle
    of +-pi/2 is 6.1e-17): :func:`fixed_entries` then folds them, and the
    planar robots' structural zeros reach the kernels
    (:mod:`flexpkm.compiled.loops`)."""
    model = build_structure(model)
    lay = design_layout(model)
    parts = [frame_constants(fc) for fc in model.frame_constants]
    parts += [invariant_vector(e.body.invariants) for e in model.body_entries]
    if lay.platform is not None:
        parts.append(platform_inertia(model.platform.body))
    parts += [platform_frame(c) for c in model.closures if c.other is None]
    rows, cols = lay.stiffness
    parts.append(model.K_tot[list(rows), list(cols)] if rows else np.zeros(0))
    parts += [np.array(list(t.values()), float) for t in
              (model.rotor_inertia, model.viscous_friction, model.coulomb_friction)]
    p = np.concatenate([np.ravel(np.asarray(x, float)) for x in parts])
    assert p.size == lay.size
    p[_rotation_entries(lay) & (np.abs(p) < 1e-15)] = 0.0
    return p


def _rotation_entries(lay):
    """Mask of ``p``: the entries of the frames' ``R_fix``."""
    rotation = np.zeros(lay.size, bool)
    for block in lay.frames:
        rotation[block.start:block.start + 9] = True
    return rotation


def fixed_entries(model) -> tuple:
    """``(indices, values)``: the entries of ``p`` that the simulation's
    generated code takes as constants (:meth:`flexpkm.compiled.robot.CompiledRobot.simulation`):
    the exact zeros (74 % of ``p`` on the two-element DualEMPS: structural
    zeros of the invariants, shape functions and frame constants) and the
    entries +-1 of the frames' ``R_fix`` (axes along the MDH axes). Folded
    in, they shrink the flat Newton function from 2.3x to 1.03x the
    instructions of the numbers-folded one (35,190 -> 15,962; 15,579
    folded); part of the library's key with :func:`topology`, so that a
    design that moves one of them away from its value is compiled anew,
    and the others (sections, materials, masses, lengths) reuse it."""
    model = build_structure(model)
    p, lay = design_vector(model), design_layout(model)
    rotation = _rotation_entries(lay)
    idx = np.flatnonzero((p == 0) | (rotation & (np.abs(p) == 1)))
    return tuple(int(i) for i in idx), tuple(float(p[i]) for i in idx)


def topology(model) -> tuple:
    """What the kernel graph's structure depends on, and nothing else:
    per frame its antecedent, joint type, column and number of shape
    functions at its attachment; per body its frame and elastic columns; the
    coordinate layout's sizes and actuated columns; the platform's dofs and
    whether it has a body; the closures (sides, joint, leg, label), their
    rows and reachable columns, the columns' legs; the structural entries
    of ``K_tot``, the joints with rotor inertia and friction. Two designs of
    one topology (another section, material, mass, length, MDH constant,
    spring or friction value) give the same tuple."""
    model = build_structure(model)
    lay = design_layout(model)
    frames = tuple((fc.antecedent, fc.sigma, fc.col,
                    None if fc.shapes is None else (fc.shapes[0].start, fc.shapes[0].stop))
                   for fc in model.frame_constants)
    bodies = tuple((e.frame, None if e.elastic is None else (e.elastic.start, e.elastic.stop))
                   for e in model.body_entries)
    pl = model.platform
    layout = model.layout
    return (frames, bodies, layout.n_t, layout.n_tot, tuple(layout.actuated),
            None if pl is None else (tuple(pl.dofs), pl.body is not None),
            tuple((c.frame, c.other, c.joint, c.leg, c.label) for c in model.closures),
            tuple(tuple(r) for r in model.closure_rows),
            tuple(tuple(int(i) for i in c) for c in model.closure_columns),
            tuple(model.column_legs), lay.stiffness, lay.rotor[0], lay.viscous[0],
            lay.coulomb[0])
