"""Step 0 completed: the model with its reference state (Pinocchio's Model /
Data split: what depends on the robot only is computed once and held by the
immutable :class:`flexpkm.model.build.Model`; what depends on a pose is
returned by each analysis, never kept).

:func:`build_model` (``flexpkm.build_model``, the front door) builds the
structure (:func:`flexpkm.model.build.build_structure`, the model layer, which
cannot assemble) then assembles the robot's reference configuration once
and fills :attr:`Model.reference_state`
(:class:`flexpkm.model.build.ReferenceState`): the configuration, its
``J_tot`` (10.107), the q_dep choice made there (hence the order of the
reduced coordinates), the kept constraint rows, the limb blocks and the
working / assembly modes. The analyses read them from the model.
"""
from __future__ import annotations

from dataclasses import replace

from flexpkm.algorithms.assembly import assemble_reference
from flexpkm.algorithms.closure import constraint_jacobian, row_labels, solve_closure
from flexpkm.algorithms.dependent import limb_blocks
from flexpkm.algorithms.modes import mode_signature
from flexpkm.algorithms.platform import platform_pose
from flexpkm.algorithms.tree import tree_kinematics
from flexpkm.errors import FlexPKMError
from flexpkm.model.build import CompiledFunctions, ReferenceState
from flexpkm.model.build import build_structure


def build_model(robot):
    """Step 0 of Section 10.6: the :class:`flexpkm.model.build.Model` of
    ``robot`` (a :class:`flexpkm.Robot`, or a Model) with its reference state
    (:func:`reference_state`; a Model that has it is returned as is; one
    built by the model layer alone gets it, and a fresh
    :class:`CompiledFunctions` slot). Raises what
    :func:`flexpkm.model.build.build_structure` raises; a reference that does not
    assemble is not an error (the state's fields are then None and the
    analyses choose q_dep at their first pose)."""
    model = build_structure(robot)
    if model.reference_state is not None:
        return model
    return replace(model, reference_state=reference_state(model),
                   compiled=CompiledFunctions())


def reference_state(model) -> ReferenceState:
    """The :class:`ReferenceState` of ``model`` (computed, not kept: see
    :func:`build_model`): its ``reference`` assembled
    (:func:`flexpkm.algorithms.assembly.assemble_reference`), ``J_tot`` there,
    the closure solved there (:func:`flexpkm.algorithms.closure.solve_closure`:
    the q_dep choice and the kept rows, kept only when made at the reference
    configuration) and its limb blocks, its modes. Empty (all None) without
    a reference or closures, or when it does not assemble."""
    model = build_structure(model)
    if not (model.reference and model.closures):
        return ReferenceState()
    try:
        q = assemble_reference(model)
        kin = tree_kinematics(model, q[None, :model.layout.n_t])
        J = constraint_jacobian(model, kin, platform_pose(model, q[None]))[0][0]
    except FlexPKMError:
        return ReferenceState()
    try:
        modes = mode_signature(model, q).at(0)
    except FlexPKMError:
        modes = None
    state = ReferenceState(q, J, modes=modes)
    labels = row_labels(model)
    try:
        sol = solve_closure(replace(model, reference_state=state), J[None], labels)
    except FlexPKMError:
        return state
    if "reference" not in sol.choice:
        return state
    kept = [labels[i] for i in sol.rows.kept] if sol.rows is not None else labels
    return replace(state, solution=sol, blocks=limb_blocks(model, kept, sol.dep))
