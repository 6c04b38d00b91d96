"""The numbers and types of a robot description, checked once when the
:class:`flexpkm.model.description.Robot` is made (called by
:func:`flexpkm.model.description.validate`): every error is an
:class:`flexpkm.errors.InvalidDescriptionError` naming the field."""
from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from flexpkm.errors import InvalidDescriptionError, ModelTooLargeError
from flexpkm.settings import positive_setting

MDH = ("gamma", "b", "alpha", "d", "theta", "r")
#: joint tables of a Robot: name -> (unit, may be negative)
JOINT_TABLES = {"rotor_inertia": "kg m^2 or kg", "viscous_friction": "N s/m or N m s/rad",
                "coulomb_friction": "N or N m", "joint_stiffness": "N/m or N m/rad"}


#: default memory limit of a model's dense matrices (bytes); the environment
#: variable FLEXPKM_MAX_MEMORY_GB changes it
MAX_MEMORY = 4e9
#: dense n_tot x n_tot float64 matrices alive at once in a one-pose analysis
#: (M_tot, K_tot, J, M_r, K_r, their products and LAPACK's copies)
DENSE_COPIES = 12


def memory_limit() -> float:
    """Bytes: ``FLEXPKM_MAX_MEMORY_GB`` (a positive number) x 1e9, else
    :data:`MAX_MEMORY`; raises :class:`ModelTooLargeError` for another value."""
    return positive_setting("FLEXPKM_MAX_MEMORY_GB", MAX_MEMORY / 1e9, unit="GB",
                            error=ModelTooLargeError) * 1e9


def body_rows(robot) -> int:
    """Rows of the stacked bodies' twists and elastic velocities
    (:class:`flexpkm.model.build.StackedBodies`): 6 + n_e per flexible body,
    6 per frame carrying rigid bodies."""
    rows = 0
    for items in robot.bodies.values():
        rows += sum(6 + b.n_e for b in items if b.n_e) + (6 if any(not b.n_e for b in items) else 0)
    return rows


def check_model_size(n_tot: int, n_rows: int = 0, what: str = "the model") -> None:
    """Refuse, before any allocation, a model whose dense matrices would
    exceed :func:`memory_limit`: :data:`DENSE_COPIES` matrices n_tot x n_tot
    and 4 of the stacked bodies' n_rows x n_tot Jacobians (float64, one
    pose). Raises :class:`ModelTooLargeError` with the estimate."""
    need = 8.0 * (DENSE_COPIES * float(n_tot) ** 2 + 4.0 * float(n_rows) * n_tot)
    limit = memory_limit()
    if need > limit:
        raise ModelTooLargeError(
            f"{what} would have {n_tot:,} coordinates"
            + (f" and {n_rows:,} stacked body rows" if n_rows else "")
            + f": its dense matrices need about {_size(need)}, above the limit of "
            f"{_size(limit)} (fewer elements or bodies, or set FLEXPKM_MAX_MEMORY_GB)")


def _size(n_bytes: float) -> str:
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:.3g} {unit}"
    return f"{n_bytes / 1e3:.3g} kB"


def finite_number(value, what: str) -> float:
    """``value`` as a finite float (not a bool); InvalidDescriptionError otherwise."""
    if isinstance(value, bool):
        raise InvalidDescriptionError(f"{what} must be a number, got {value!r}")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise InvalidDescriptionError(f"{what} must be a number, got {value!r}") from None
    if not math.isfinite(x):
        raise InvalidDescriptionError(f"{what} must be finite, got {value!r}")
    return x


def finite_vector(value, n: int, what: str) -> np.ndarray:
    try:
        v = np.asarray(value, float)
    except (TypeError, ValueError):
        raise InvalidDescriptionError(f"{what} must be a {n}-vector, got {value!r}") from None
    if v.shape != (n,) or not np.isfinite(v).all():
        raise InvalidDescriptionError(f"{what} must be a finite {n}-vector, got {value!r}")
    return v


def check_values(robot) -> None:
    """Types and values of ``robot`` (frames, bodies, platform, closures,
    gravity, plane normal, joint tables); raises InvalidDescriptionError."""
    if not isinstance(robot.frames, (tuple, list)) or not robot.frames:
        raise InvalidDescriptionError(f"robot {robot.name!r}: frames must be a non-empty tuple "
                                      f"of Frame, got {robot.frames!r:.80}")
    for f in robot.frames:
        if not all(hasattr(f, a) for a in ("name", "sigma", "antecedent") + MDH):
            raise InvalidDescriptionError(f"frames must hold Frame objects, got {f!r:.80}")
        for a in MDH:
            finite_number(getattr(f, a), f"frame {f.name!r}: {a}")
        if f.mu not in (0, 1) or isinstance(f.mu, float) and not f.mu.is_integer():
            raise InvalidDescriptionError(f"frame {f.name!r}: mu must be 0 (passive) or 1 "
                                          f"(actuated), got {f.mu!r}")
    _check_bodies(robot.bodies)
    finite_vector(robot.gravity, 3, "gravity (m/s^2)")
    if robot.plane_normal is not None:
        n = finite_vector(robot.plane_normal, 3, "plane_normal")
        if abs(np.linalg.norm(n) - 1) > 1e-9:
            raise InvalidDescriptionError("plane_normal must be a unit 3-vector")
    _check_tables(robot)
    _check_platform(robot.platform)
    for c in robot.closures:
        finite_vector(c.platform_point, 3, f"closure {c.label}: platform_point (m)")


def _check_bodies(bodies) -> None:
    if not isinstance(bodies, Mapping):
        raise InvalidDescriptionError(f"bodies must map frame names to tuples of bodies, "
                                      f"got {bodies!r:.80}")
    for name, items in bodies.items():
        if not isinstance(items, (tuple, list)):
            raise InvalidDescriptionError(f"bodies[{name!r}] must be a tuple of bodies, got "
                                          f"{type(items).__name__} (write ({items!r:.40},))")
        for body in items:
            if not (hasattr(body, "invariants") and hasattr(body, "n_e")):
                raise InvalidDescriptionError(f"bodies[{name!r}]: {body!r:.60} is not a body "
                                              "(RigidBody, Beam3D, PlanarBeam, ShapeFunctionBody)")


def _check_tables(robot) -> None:
    """Joint tables: known joints with a coordinate, finite non-negative values."""
    movable = {f.name for f in robot.frames if f.sigma in (0, 1)}
    for table in JOINT_TABLES:
        values = getattr(robot, table)
        if not isinstance(values, Mapping):
            raise InvalidDescriptionError(f"{table} must map joint names to numbers")
        for joint, v in values.items():
            if joint not in movable:
                raise InvalidDescriptionError(f"{table}: {joint!r} is not a joint with a "
                                              f"coordinate (known: {', '.join(sorted(movable))})")
            if finite_number(v, f"{table}[{joint!r}]") < 0:
                raise InvalidDescriptionError(f"{table}[{joint!r}] must be >= 0 "
                                              f"({JOINT_TABLES[table]}), got {v!r}")


def _check_platform(platform) -> None:
    if platform is None:
        return
    dofs = tuple(platform.dofs)
    if (not dofs or any(isinstance(d, bool) or not isinstance(d, (int, np.integer))
                        or not 0 <= d <= 5 for d in dofs) or len(set(dofs)) != len(dofs)):
        raise InvalidDescriptionError(f"platform dofs must be distinct indices in 0..5 of "
                                      f"[v_x, v_y, v_z, w_x, w_y, w_z], got {platform.dofs!r}")
    if len(platform.dof_names) != len(dofs):
        raise InvalidDescriptionError(f"platform: {len(dofs)} dofs but {len(platform.dof_names)} "
                                      "dof_names")
    commanded = platform.commanded
    if commanded is not None and (not commanded or len(set(commanded)) != len(commanded)
                                  or any(d not in dofs for d in commanded)):
        raise InvalidDescriptionError(f"platform commanded must be distinct dofs among "
                                      f"{list(dofs)}, got {commanded!r}")
    if platform.body is not None and not hasattr(platform.body, "invariants"):
        raise InvalidDescriptionError(f"platform body {platform.body!r:.60} is not a body")
