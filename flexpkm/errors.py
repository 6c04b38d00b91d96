"""Exceptions of flexpkm: one base class, one subclass per kind of bad input.

Every exception says *what* is wrong and *where* (which frame, leg, closure,
matrix) so that a command-line user reads one meaningful line. Its class
attribute ``exit_status`` is the command line's exit status for it: 2 for
bad input (a description, an argument, an output path, a missing optional
dependency), 3 for a numerical refusal (a singular configuration, open
loops, an indefinite mass matrix, a step that does not converge).
"""


class FlexPKMError(Exception):
    """Base class of every error raised on purpose by flexpkm."""

    #: the command line's exit status (2: bad input; 3: numerical refusal)
    exit_status = 2


class MissingDependencyError(FlexPKMError, ImportError):
    """An optional dependency is not installed (:func:`flexpkm.optional.require`);
    the message names the extra that brings it, e.g. ``pip install
    'flexpkm[viz]'``. An ImportError too: code that falls back on one keeps
    doing so.

    Attributes
    ----------
    module : str    the missing module (``"pyvista"``)
    extra : str     the extra of flexpkm that installs it (``"viz"``)
    """

    def __init__(self, message, module="", extra=""):
        super().__init__(message, name=module)
        self.module, self.extra = module, extra


class InvalidDescriptionError(FlexPKMError, ValueError):
    """The robot description is inconsistent (unknown antecedent, bad sigma,
    a cut joint that does not match the model's plane, wrong array shapes...)."""


class NameCollisionError(InvalidDescriptionError):
    """Two things of a description have one name: two frames, legs or
    closures, or two coordinates of ``q_tot`` (a joint coordinate ``q<frame>``,
    an elastic one ``qe<frame>_<k>``, a platform coordinate of
    ``dof_names``). The message names both.

    Attributes
    ----------
    name : str      the shared name
    things : tuple  the two owners, each ``(kind, key)``: ``("frame", name)``,
                    ``("elastic", frame name)``, ``("platform", dof index)``,
                    ``("closure", index)``, ``("leg", name)``
    """

    def __init__(self, message, name="", things=()):
        super().__init__(message)
        self.name = name
        self.things = tuple(things)


class ModelTooLargeError(InvalidDescriptionError):
    """A model whose dense matrices would not fit the memory limit (too many
    beam elements or bodies); raised before anything is allocated, with the
    estimated memory (:func:`flexpkm.model.checks.check_model_size`)."""


class UnreachablePoseError(FlexPKMError, ValueError):
    """A geometric model has no real solution (pose outside the workspace,
    actuator coordinate outside its stroke)."""


class WorkingModeError(UnreachablePoseError):
    """A pose is reached only in other working modes of a leg (or another
    assembly mode) than those asked for (Briot & Khalil Section 7.5,
    :mod:`flexpkm.algorithms.modes`).

    Attributes
    ----------
    leg : str       the leg (``"assembly"`` for the assembly mode)
    wanted, found : int   the signs (+1/-1) wanted and found
    """

    def __init__(self, message, leg="", wanted=0, found=0):
        super().__init__(message)
        self.leg, self.wanted, self.found = leg, wanted, found


class SingularConfigurationError(FlexPKMError, ArithmeticError):
    """A matrix that must be inverted is singular at this configuration.

    Attributes
    ----------
    matrix : str    name of the matrix (e.g. ``"J_t^f"``, ``"J_tot"``)
    where : str     the leg / closure / body concerned
    cond : float    its condition number (``inf`` when rank deficient)
    """

    exit_status = 3

    def __init__(self, message, matrix="", where="", cond=float("inf")):
        super().__init__(message)
        self.matrix = matrix
        self.where = where
        self.cond = cond


class OpenLoopError(FlexPKMError, ValueError):
    """A configuration does not close its loops: the gap of a closure (m or
    rad) is above the tolerance of the analysis.

    Attributes
    ----------
    closure : str   label of the worst closure
    gap : float     its largest residual component (m or rad)
    """

    exit_status = 3

    def __init__(self, message, closure="", gap=float("nan")):
        super().__init__(message)
        self.closure = closure
        self.gap = gap


class IndefiniteMassMatrixError(FlexPKMError, ArithmeticError):
    """A mass matrix that must be symmetric positive definite is not."""

    exit_status = 3


class InvalidArgumentError(FlexPKMError, ValueError):
    """An argument of an analysis is out of its range (a non-positive time
    step or duration, an unknown maneuver...)."""


class BackendUnavailableError(FlexPKMError, RuntimeError):
    """``backend="compiled"`` was asked for an analysis that cannot run on
    generated code here: no CasADi, no C compiler, an analysis without a
    compiled path (the IDM), a drive or a model the compiled path does not
    support, a pose where its fixed choice of q_dep is ill-conditioned
    (:mod:`flexpkm.analysis.backend`). ``backend="auto"`` then runs numpy and
    records why.

    Attributes
    ----------
    analysis : str  the analysis (``"natural_frequencies"``, ``"simulate"``...)
    reason : str    why the compiled path cannot run
    """

    def __init__(self, analysis, reason):
        super().__init__(f"{analysis}: backend='compiled' cannot run: {reason} "
                         "(use backend='numpy' or 'auto')")
        self.analysis = analysis
        self.reason = reason


class StepConvergenceError(FlexPKMError, ArithmeticError):
    """A time step whose Newton iterations do not converge, even with the
    step halved the largest number of times
    (:mod:`flexpkm.analysis.step_control`).

    Attributes
    ----------
    t : float         time of the failed sample, s
    residual : float  relative residual reached (inf for a diverged step)
    tol : float       the tolerance it had to meet
    partial           the samples computed before it (a
                      :class:`flexpkm.analysis.simulate.SimulationResult`), or None
    """

    exit_status = 3

    def __init__(self, message, t=float("nan"), residual=float("nan"), tol=float("nan"),
                 partial=None):
        super().__init__(message)
        self.t = t
        self.residual = residual
        self.tol = tol
        self.partial = partial


def with_context(error: FlexPKMError, where: str) -> FlexPKMError:
    """A copy of ``error`` (same class, same attributes) whose message starts
    with ``where`` (e.g. ``"pose 280 of the path"``)."""
    import copy
    new = copy.copy(error)
    new.args = (f"{where}: {error}",) + tuple(error.args[1:])
    return new


class OutputError(FlexPKMError, OSError):
    """An output path cannot be written (a missing or read-only folder, a
    folder where a file is expected, a folder holding another run's
    outputs); checked before any computation."""


class Interrupted(KeyboardInterrupt):
    """An interrupt (Ctrl-C, SIGINT) during a long analysis; ``partial`` holds
    what was computed up to the last complete sample or pose (a
    :class:`flexpkm.analysis.simulate.SimulationResult` or
    :class:`flexpkm.analysis.sweep.SweepResult`). A KeyboardInterrupt: code
    that does not look for it stops as on any Ctrl-C."""

    def __init__(self, message="interrupted", partial=None):
        super().__init__(message)
        self.partial = partial


class FlexPKMWarning(UserWarning):
    """Base class of the warnings of flexpkm (the command line prints each as
    one line ``flexpkm: warning: ...``)."""


class NearSingularWarning(FlexPKMWarning):
    """A configuration or a sampled motion comes near a singularity (its
    distance below the warning threshold of
    :mod:`flexpkm.algorithms.singularity`); the results there are still
    computed but lose accuracy as the distance goes to 0."""
