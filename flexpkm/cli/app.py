"""flexpkm: natural frequencies, mode shapes and elastodynamic simulation of flexible parallel robots.

``flexpkm COMMAND CASE [options]``: ``modal`` (:mod:`flexpkm.cli.modal`),
``modes`` (:mod:`flexpkm.cli.modes`), ``sweep`` (:mod:`flexpkm.cli.sweep`),
``simulate`` (:mod:`flexpkm.cli.simulate`). Every error of the model
(:class:`flexpkm.errors.FlexPKMError`) and of the command line becomes one
line on stderr and exit status 2; an interrupt (Ctrl-C) one line and 130.
"""
from __future__ import annotations

import sys

from flexpkm import __version__
from flexpkm.cli import modal, modes, simulate, sweep
from flexpkm.cli.common import Parser
from flexpkm.errors import FlexPKMError

#: the sub-command modules, each with ``register(subparsers)``
COMMANDS = (modal, modes, sweep, simulate)


def build_parser() -> Parser:
    p = Parser(prog="flexpkm", description=__doc__.splitlines()[0])
    p.add_argument("--version", action="version", version=f"flexpkm {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser)
    for module in COMMANDS:
        module.register(sub)
    return p


def main(argv=None) -> int:
    """Run the command line; returns the exit status (0, 2 on an error, 130
    on an interrupt)."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as e:             # --help, --version, a usage error (one line printed)
        return int(e.code or 0)
    args.argv = list(sys.argv[1:] if argv is None else argv)     # for the run manifest
    try:
        return args.func(args)
    except FlexPKMError as e:
        print(f"flexpkm: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("flexpkm: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:             # e.g. `flexpkm modal navaro | head`
        sys.stderr.close()
        return 0
    except (OSError, MemoryError) as e:     # a disk full, a file vanished... one line too
        print(f"flexpkm: error: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
