"""The one backend switch of the analyses (issue 17 item 3).

Every public analysis (:func:`flexpkm.natural_frequencies`,
:func:`flexpkm.frequency_sweep`, :func:`flexpkm.simulate`,
:func:`flexpkm.path_inverse_dynamics`) and the command line (``--backend``
of ``modal``, ``modes``, ``sweep``, ``simulate``, ``idm``) take
``backend="numpy" | "compiled" | "auto"``, default ``"auto"``, decided here
and only here (:func:`choose_backend`):

* ``"numpy"``: the reference implementation (:mod:`flexpkm.algorithms`).
* ``"compiled"``: the CasADi twin (:mod:`flexpkm.compiled`), generated C
  code compiled once per model and cached on disk. When it cannot run
  (:func:`compiled_problem`: CasADi not installed, no C compiler, an
  analysis without a compiled path such as the IDM, a drive or a model the
  compiled path does not support, or at run time a pose where its fixed
  q_dep choice is ill-conditioned), :class:`BackendUnavailableError` says
  why. Nothing falls back silently.
* ``"auto"``: compiled when it can run, at any size: every generated
  function is the kernel graph of :mod:`flexpkm.compiled.recursive`, whose
  code grows linearly with the bodies (issue 18, measured one BLAS thread,
  CPU, benchmarks/bench_scaling.py, docs/modal_scaling.md): the NaVARo's
  modal function compiles in 5.5 s (129 coordinates), 7.9 s (237, two
  elements per beam) and 17.5 s (453, four) at a load of 10, and a pose of
  ``natural_frequencies`` costs less than numpy's at every size (1.47 /
  2.16 ms, 6.3 / 11.8 ms, 33 / 51 ms); the simulation as well (DualEMPS at
  8 elements per link,
  79 coordinates, 15 s of gcc, 15x faster than numpy). The bound of 64
  coordinates it replaces dated from the unrolled modal graph (over a minute
  of gcc at 129 coordinates).

The result says what ran: ``result.backend`` (``"numpy"`` or
``"compiled"``) and ``result.backend_reason`` (``"asked"``, or ``"auto:
..."`` with the reason of the choice).
"""
from __future__ import annotations

from dataclasses import dataclass

from flexpkm.errors import BackendUnavailableError, InvalidArgumentError

#: the values of every ``backend`` argument and ``--backend`` option
BACKENDS = ("auto", "numpy", "compiled")
#: the default of every analysis and command
DEFAULT_BACKEND = "auto"
#: the analyses on the reduced matrices (Ch. 11), compiled by :mod:`flexpkm.compiled.modal`
MODAL = ("natural_frequencies", "frequency_sweep")
#: the analyses without a compiled path
NUMPY_ONLY = {"path_inverse_dynamics": "the IDM along a path has no compiled path"}


@dataclass(frozen=True, kw_only=True)
class BackendChoice:
    """What :func:`choose_backend` decided.

    name : ``"numpy"`` or ``"compiled"``
    asked : the ``backend`` argument (``"numpy"``, ``"compiled"``, ``"auto"``)
    reason : ``"asked"`` or ``"auto: <why>"``
    """

    name: str
    asked: str
    reason: str


#: the reason of :func:`compiled_problem` without CasADi
NO_CASADI = "CasADi is not installed"


def check_backend(backend, where: str) -> str:
    """``backend`` if it is one of :data:`BACKENDS`, else
    :class:`InvalidArgumentError` naming ``where``."""
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise InvalidArgumentError(f"{where}: backend must be one of "
                                   f"{', '.join(repr(b) for b in BACKENDS)}, got {backend!r}")
    return backend


def compiled_problem(analysis: str, model, drive=None, q_dep=None, wrench=None,
                     motors=False, sensors=None) -> str | None:
    """Why ``analysis`` cannot run compiled for ``model`` (a Model with its
    reference state) and ``drive``, ``wrench`` (``simulate``) or ``q_dep``
    (the modal analyses), ``motors`` (elastic transmissions, Section 10.5)
    and ``sensors`` (name -> function), or None when it can."""
    if analysis in NUMPY_ONLY:
        return NUMPY_ONLY[analysis]
    try:
        import casadi  # noqa: F401
    except ImportError:
        return NO_CASADI
    from flexpkm.compiled.codegen import find_compiler
    if find_compiler() is None:
        return "no C compiler found ($FLEXPKM_CC, $CC or cc)"
    if analysis in MODAL:
        from flexpkm.compiled.modal import modal_problem
        return modal_problem(model, q_dep)
    if analysis == "simulate":
        if wrench is not None:
            return "the generated step does not take an external wrench yet"
        numpy_only = [name for name, fn in (sensors or {}).items()
                      if getattr(fn, "point", None) is None]
        if motors and numpy_only:
            return ("the generated step with motor coordinates (actuator_stiffness) records "
                    f"point-acceleration sensors only (not: {', '.join(numpy_only)})")
        from flexpkm.analysis.compiled_simulate import drive_problem
        return drive_problem(drive)
    raise InvalidArgumentError(f"no backend rule for the analysis {analysis!r}")


def choose_backend(backend, analysis: str, model, drive=None, q_dep=None,
                   wrench=None, motors=False, sensors=None) -> BackendChoice:
    """The backend that runs ``analysis`` (see the module's rule).

    backend : ``"numpy"``, ``"compiled"`` or ``"auto"``; analysis : the
    public function's name; model : a Model with its reference state
    (:func:`flexpkm.build_model`); drive, q_dep, wrench : as given to the
    analysis.
    Raises :class:`InvalidArgumentError` for another ``backend``,
    :class:`BackendUnavailableError` (with the reason) when ``"compiled"``
    is asked and cannot run; :class:`flexpkm.errors.MissingDependencyError`
    (naming the ``compiled`` extra) when that is because CasADi is not
    installed."""
    backend = check_backend(backend, analysis)
    if backend == "numpy":
        return BackendChoice(name="numpy", asked=backend, reason="asked")
    problem = compiled_problem(analysis, model, drive, q_dep, wrench, motors, sensors)
    if backend == "compiled":
        if problem == NO_CASADI:            # the extra to install, in one line (flexpkm.optional)
            from flexpkm.optional import require
            require("casadi", f"backend='compiled' ({analysis})")
        if problem is not None:
            raise BackendUnavailableError(analysis, problem)
        return BackendChoice(name="compiled", asked=backend, reason="asked")
    if problem is not None:
        return BackendChoice(name="numpy", asked=backend, reason=f"auto: {problem}")
    return BackendChoice(name="compiled", asked=backend,
                         reason="auto: CasADi, a C compiler and the kernel graph (any size)")

