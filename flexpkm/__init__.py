"""flexpkm: natural frequencies, mode shapes and elastodynamics of flexible
parallel robots, after Briot & Khalil, *Dynamics of Parallel Robots*
(Springer 2015), Part III, and Müller's complex-limb method.

One namespace::

    import flexpkm as fp
    from flexpkm.cases import dualemps
    robot = dualemps.robot()                         # a Robot description
    model = fp.build_model(robot)                    # Step 0 of Section 10.6, once
    q_tot = dualemps.configuration(model, 0.0, 0.0)  # an assembled configuration (n_tot,)
    modes = fp.natural_frequencies(model, q_tot)     # Ch. 11: (9,) Hz

One pose in gives one pose out, a batch (B, ...) gives a batch.

The names are imported on first use (PEP 562): ``import flexpkm`` and the
command line's start-up load neither scipy nor the analyses until they are
needed (docs/design.md, "Start-up"). The imports below are the one list of
where each name lives; they run only for type checkers.
"""
from __future__ import annotations

import ast
import importlib
import types
from pathlib import Path
from typing import TYPE_CHECKING

from flexpkm.version import __version__

if TYPE_CHECKING:
    from flexpkm.errors import (BackendUnavailableError, FlexPKMError, IndefiniteMassMatrixError,
                                Interrupted, MissingDependencyError,
                                InvalidArgumentError, InvalidDescriptionError, OpenLoopError,
                                OutputError, SingularConfigurationError, UnreachablePoseError,
                                WorkingModeError, FlexPKMWarning, NearSingularWarning)
    from flexpkm.elements import (Beam3D, Body, BodyInvariants, Material, PlanarBeam, RigidBody,
                                  Section, ShapeFunctionBody)
    from flexpkm.model import (FIXED, PRISMATIC, REVOLUTE, Closure, CoordinateLayout, Frame, Limb,
                               MDHParameters, Model, Mount, Platform, Robot, combine_limbs,
                               refine, load_robot, loads_robot, dump_robot, dumps_robot)
    from flexpkm.algorithms.reference import build_model
    from flexpkm.algorithms.tree import TreeKinematics, tree_kinematics
    from flexpkm.algorithms.platform import PlatformPose, platform_pose
    from flexpkm.algorithms.assembly import assemble, reference_configuration
    from flexpkm.algorithms.all_modes import ModeSolutions, assembly_modes, working_modes
    from flexpkm.algorithms.constraint_rows import RowSelection, select_rows
    from flexpkm.algorithms.mobility import Mobility, mobility
    from flexpkm.algorithms.closure import (LOOP_TOL, check_loops, closure_residual,
                                            constraint_jacobian, project_on_loops, with_platform)
    from flexpkm.algorithms.modal import Modes, ReducedMatrices, reduced_matrices, solve_modes
    from flexpkm.algorithms.dynamics import (FullDynamics, direct_dynamics, full_dynamics,
                                             inverse_dynamics, point_acceleration)
    from flexpkm.algorithms.reactions import JointReactions, joint_reactions
    from flexpkm.algorithms.redundancy import actuation_matrix, is_redundant
    from flexpkm.algorithms.energy import Energy, energy
    from flexpkm.algorithms.ground import GroundReactions, ground_reactions
    from flexpkm.algorithms.statics import StaticDeflection, static_deflection, static_efforts
    from flexpkm.analysis.backend import BACKENDS, choose_backend
    from flexpkm.analysis.modal import natural_frequencies
    from flexpkm.analysis.idm import IdmResult, path_inverse_dynamics
    from flexpkm.algorithms.singularity import Singularity, singularity, uncontrollable_twist
    from flexpkm.analysis.singular_loci import SingularLoci, singular_loci
    from flexpkm.analysis.crossing import law_inverse_dynamics
    from flexpkm.analysis.crossing_plan import CrossingPlan, plan_crossing
    from flexpkm.analysis.polynomial_laws import PolynomialLaw, polynomial_law
    from flexpkm.analysis.ground_history import simulation_ground_reactions
    from flexpkm.analysis.trajectories import Trajectory, quintic
    from flexpkm.analysis.drives import EffortHistory, Free, PDControl, PrescribedMotion
    from flexpkm.analysis.simulate import SimulationResult, simulate
    from flexpkm.analysis.simulation_options import SimulationOptions
    from flexpkm.analysis.sweep import SweepResult, frequency_sweep
    from flexpkm.analysis.workspace_map import WorkspaceMap, workspace_map      # issue 21
    from flexpkm.analysis.study import design_study
    from flexpkm.analysis.optimisation import OptimisationResult, optimise_design
    from flexpkm.analysis.pareto import Front, pareto_front
    from flexpkm.algorithms.compliance import platform_compliance
    from flexpkm.io.pictures import plot_mode, plot_sweep
    from flexpkm.identification.regressor import regressor
    from flexpkm.identification.standard import StandardParameters, standard_parameters
    from flexpkm.identification.base import BaseParameters, base_parameters
    from flexpkm.identification.data import Measurement
    from flexpkm.identification.identify import Identification, identify
    from flexpkm.identification.exciting import (ExcitingTrajectory, exciting_trajectory,
                                                 simulate_measurement)
    from flexpkm import cases


def _sources() -> types.MappingProxyType:
    """{public name: (module, attribute)}, read from the ``TYPE_CHECKING``
    imports of this file (one list, no copy); the attribute is None for a
    sub-package (``from flexpkm import cases``)."""
    tree = ast.parse(Path(__file__).read_text(encoding="utf-8"))
    block = next(n for n in tree.body if isinstance(n, ast.If)
                 and getattr(n.test, "id", "") == "TYPE_CHECKING")
    out = {}
    for node in block.body:
        for alias in node.names:
            out[alias.asname or alias.name] = ((f"flexpkm.{alias.name}", None)
                                               if node.module == "flexpkm"
                                               else (node.module, alias.name))
    return types.MappingProxyType(out)


#: public name -> (module, attribute) (read-only)
SOURCES = _sources()


def __getattr__(name: str):
    """A public name on first use: its module is imported then."""
    if name not in SOURCES:
        raise AttributeError(f"module 'flexpkm' has no attribute {name!r}")
    module, attribute = SOURCES[name]
    value = importlib.import_module(module)
    if attribute is not None:
        value = getattr(value, attribute)
    globals()[name] = value                 # later uses skip __getattr__
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))


__all__ = [
    # errors
    "FlexPKMError", "InvalidDescriptionError", "UnreachablePoseError",
    "SingularConfigurationError", "IndefiniteMassMatrixError", "InvalidArgumentError",
    "OpenLoopError", "OutputError", "Interrupted", "WorkingModeError", "MissingDependencyError",
    "BackendUnavailableError",
    # bodies (Section 10.2, Appendix F)
    "Body", "BodyInvariants", "RigidBody", "Beam3D", "PlanarBeam", "Section", "Material",
    "ShapeFunctionBody",
    # description and model (Ch. 4, Müller Sec. 7, Step 0 of Section 10.6)
    "Robot", "Frame", "MDHParameters", "Platform", "Closure", "Limb", "Mount", "combine_limbs",
    "CoordinateLayout", "Model", "build_model", "REVOLUTE", "PRISMATIC", "FIXED", "refine",
    "load_robot", "loads_robot", "dump_robot", "dumps_robot",
    # algorithms (10.3, 10.4, 10.123, Ch. 11)
    "TreeKinematics", "tree_kinematics", "platform_pose", "PlatformPose", "constraint_jacobian", "closure_residual",
    "project_on_loops", "select_rows", "RowSelection", "assemble", "reference_configuration",
    "assembly_modes", "working_modes", "ModeSolutions",
    "mobility", "Mobility",
    "check_loops", "with_platform",
    "LOOP_TOL", "reduced_matrices", "ReducedMatrices", "natural_frequencies", "solve_modes",
    "Modes", "full_dynamics", "FullDynamics", "inverse_dynamics", "direct_dynamics",
    "point_acceleration",
    # rigid models (Ch. 8): joint reactions, actuation redundancy, IDM along a path
    "joint_reactions", "JointReactions", "actuation_matrix", "is_redundant",
    "path_inverse_dynamics", "IdmResult",
    # singularities (7.5, 9.2): classification, t_s, loci over the workspace
    "singularity", "Singularity", "uncontrollable_twist", "singular_loci", "SingularLoci",
    "FlexPKMWarning", "NearSingularWarning",
    # crossing Type 2 and LPJTS singularities (Ch. 9, Appendix D)
    "plan_crossing", "CrossingPlan", "law_inverse_dynamics", "polynomial_law", "PolynomialLaw",
    # other models (8.6, 6.4): energy, ground reactions, statics under a wrench
    "energy", "Energy", "ground_reactions", "GroundReactions", "static_efforts",
    "static_deflection", "StaticDeflection", "simulation_ground_reactions",
    # analyses (10.7) and their one backend switch
    "BACKENDS", "choose_backend",
    "Trajectory", "quintic", "PrescribedMotion", "PDControl", "Free", "EffortHistory", "simulate", "SimulationResult",
    "SimulationOptions",
    "frequency_sweep", "SweepResult",
    "workspace_map", "WorkspaceMap", "design_study", "platform_compliance",   # issue 21
    "optimise_design", "OptimisationResult", "pareto_front", "Front",         # issue 21 item 3
    # pictures (the viz extra)
    "plot_mode", "plot_sweep",
    # base dynamic parameters and identification (8.7)
    "regressor", "standard_parameters", "StandardParameters", "base_parameters",
    "BaseParameters", "Measurement", "identify", "Identification", "exciting_trajectory",
    "ExcitingTrajectory", "simulate_measurement",
    # shipped robots (10.7, 11.6)
    "cases",
    "__version__",
]
