"""flexpkm: natural frequencies, mode shapes and elastodynamic simulation of flexible parallel robots.

``flexpkm COMMAND CASE|FILE.toml [options]``: ``modal`` (:mod:`flexpkm.cli.modal`),
``modes`` (:mod:`flexpkm.cli.modes`), ``sweep`` (:mod:`flexpkm.cli.sweep`),
``simulate`` (:mod:`flexpkm.cli.simulate`), ``check`` (:mod:`flexpkm.cli.check`),
``idm`` (:mod:`flexpkm.cli.idm`); ``flexpkm cache info|clear``
(:mod:`flexpkm.cli.cache`); ``flexpkm examples DIR`` (:mod:`flexpkm.cli.examples`);
CASE is a shipped robot (read from its description file in the package),
FILE.toml a description file (:mod:`flexpkm.model.files`). Every error of the model
(:class:`flexpkm.errors.FlexPKMError`) and of the command line becomes one
line on stderr and an exit status (:data:`EXIT_STATUSES`).
"""
from __future__ import annotations

import contextlib
import io
import platform
import signal
import sys
import time
import warnings

#: the time the command line's module was imported (start-up of --verbose)
START = time.perf_counter()

from flexpkm.version import __version__
from flexpkm.cli import cache, check, examples, idm, modal, modes, plan, simulate, sweep
from flexpkm.cli import assemble, base_parameters, identify, singularity
from flexpkm.cli import map as map_command, study as study_command
from flexpkm.cli import optimise
from flexpkm.cli.common import Headlines, Parser, add_output_options
from flexpkm.cli.runs import exit_status, signal_of
from flexpkm.errors import FlexPKMError
from flexpkm.signals import stop_on_signals

#: the exit statuses of the command line (README, docs/robustness.md)
EXIT_STATUSES = ((0, "success"),
                 (2, "bad input: usage, description file, argument, output path, missing "
                     "optional dependency (the line names the extra to install)"),
                 (3, "numerical refusal: singular configuration, open loops, indefinite mass "
                     "matrix, a time step that does not converge, a sweep with no pose computed"),
                 (129, "hang-up (SIGHUP)"), (130, "interrupted (Ctrl-C, SIGINT)"),
                 (143, "terminated (SIGTERM)"))

#: the sub-command modules, each with ``register(subparsers)``
COMMANDS = (modal, modes, sweep, simulate, idm, check, examples, cache, singularity, map_command,
            study_command, base_parameters, identify, assemble, plan, optimise)


def build_parser(files=(), argv=None) -> Parser:
    """The parser; ``files``: ``(name, case)`` pairs (:func:`named_cases`).
    With ``argv``, only the command it runs gets its case parsers
    (:class:`flexpkm.cli.common.Headlines`); without, every command does."""
    p = Parser(prog="flexpkm", description=__doc__.splitlines()[0],
               epilog="exit status: " + "; ".join(f"{code} {text.split(':')[0]}"
                                                  for code, text in EXIT_STATUSES))
    p.add_argument("--version", action="version", version=f"flexpkm {__version__}")
    add_output_options(p, top=True)
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser)
    if argv is not None:
        sub = Headlines(sub, *(command_words(argv)[:2] + [None, None])[:2])
    for module in COMMANDS:
        module.register(sub, files)
    return p


def command_words(argv) -> list:
    """The words of ``argv`` that are not options: the command and the case
    first (the top parser's options, e.g. ``-q``, take no value)."""
    return [a for a in argv if not a.startswith("-")]


class NamedCases:
    """The ``(name, case)`` pairs of a command line (:func:`named_cases`),
    read on first iteration: the case parsers of the command being run
    iterate them, the other commands never do, so that ``flexpkm --help``
    or ``flexpkm cache info`` reads no case (start-up time). Iterated inside
    :func:`build_parser`: a bad file's error is raised there."""

    def __init__(self, argv):
        self.argv, self.pairs = list(argv), None

    def __iter__(self):
        if self.pairs is None:
            from flexpkm import cases
            words = command_words(self.argv)
            case = words[1] if len(words) > 1 else None
            if case is not None and case.endswith(".toml"):
                self.pairs = [(case, cases.get(case))]
            else:
                self.pairs = [(n, cases.get(n))
                              for n in ((case,) if case in cases.CASES else cases.CASES)]
        return iter(self.pairs)


def named_cases(argv) -> NamedCases:
    """``(name, case)`` of the shipped cases a command line may run (the one
    it names as the command's CASE, else every one, :data:`flexpkm.cases.CASES`,
    each read once from its file) or of the description file named as the
    command's CASE (the argument after the command, ending in ``.toml``,
    named by its path), read lazily (:class:`NamedCases`). Iterating raises
    the file's :class:`flexpkm.errors.InvalidDescriptionError`."""
    return NamedCases(argv)


def one_line_warning(message, category, filename, lineno, file=None, line=None):
    """A warning as one line on stderr, ``flexpkm: warning: ...``."""
    print(f"flexpkm: warning: {message}", file=sys.stderr if file is None else file)


class ErrorsOnly(io.TextIOBase):
    """stderr under ``--quiet``: only the lines starting ``flexpkm: error``
    reach ``stream`` (notes, warnings and progress are dropped)."""

    def __init__(self, stream):
        self.stream, self.line = stream, ""

    def writable(self):
        return True

    def write(self, text):
        *done, self.line = (self.line + text).split("\n")
        for line in done:
            if line.startswith("flexpkm: error"):
                self.stream.write(line + "\n")
        return len(text)


@contextlib.contextmanager
def verbosity(args):
    """``--quiet``: stdout dropped (unless ``--json``), stderr errors only,
    warnings ignored. ``--verbose``: every warning each time, and a last
    line on stderr with the command's time since start-up and the versions."""
    if args.quiet:
        warnings.simplefilter("ignore")
        with contextlib.ExitStack() as stack:
            if not args.json:
                stack.enter_context(contextlib.redirect_stdout(io.StringIO()))
            stack.enter_context(contextlib.redirect_stderr(ErrorsOnly(sys.stderr)))
            yield
        return
    if not args.verbose:
        yield
        return
    warnings.simplefilter("always")
    t0 = time.perf_counter()
    try:
        yield
    finally:
        import numpy
        import scipy
        print(f"flexpkm: {args.command} ran in {time.perf_counter() - t0:.3f} s after a "
              f"start-up of {t0 - START:.3f} s; flexpkm {__version__}, python "
              f"{platform.python_version()}, numpy {numpy.__version__}, scipy "
              f"{scipy.__version__}", file=sys.stderr)


def main(argv=None) -> int:
    """Run the command line; returns the exit status (:data:`EXIT_STATUSES`:
    0, 2 bad input, 3 numerical refusal, 130 on an interrupt, 143 on
    SIGTERM, 129 on SIGHUP)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        try:
            parser = build_parser(named_cases(argv), argv)
        except FlexPKMError as e:
            print(f"flexpkm: error: {e}", file=sys.stderr)
            return 2
        args = parser.parse_args(argv)
    except SystemExit as e:             # --help, --version, a usage error (one line printed)
        return int(e.code or 0)
    args.argv = list(sys.argv[1:] if argv is None else argv)     # for the run manifest
    try:
        with stop_on_signals(), warnings.catch_warnings(), verbosity(args):   # SIGTERM, SIGHUP: as Ctrl-C (docs/robustness.md)
            warnings.showwarning = one_line_warning
            return args.func(args)
    except FlexPKMError as e:
        print(f"flexpkm: error: {e}", file=sys.stderr)
        return e.exit_status
    except KeyboardInterrupt as e:
        name = signal.Signals(signal_of(e)).name
        print("flexpkm: interrupted" + ("" if name == "SIGINT" else f" ({name})"), file=sys.stderr)
        return exit_status(e)
    except BrokenPipeError:             # e.g. `flexpkm modal navaro | head`
        sys.stderr.close()
        return 0
    except (OSError, MemoryError) as e:     # a disk full, a file vanished... one line too
        print(f"flexpkm: error: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
