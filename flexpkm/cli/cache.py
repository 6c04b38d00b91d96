"""``flexpkm cache info|clear``: the cache of compiled models
(:mod:`flexpkm.compiled.cache`): ``info`` prints its folder (and whether it
is trusted), its entries, their size and the bound; ``clear`` removes
flexpkm's own files from it (libraries, their records, build folders left
by a killed run), nothing else."""
from __future__ import annotations

from flexpkm.cli.common import add_output_options, emit



def register(subparsers, files=()):
    p = subparsers.add_parser("cache", help="show or empty the cache of compiled models",
                              description=__doc__.splitlines()[0].replace("``", ""))
    p.add_argument("action", choices=("info", "clear"),
                   help="info: folder, entries, size, limit; clear: remove flexpkm's files")
    add_output_options(p)
    p.set_defaults(func=run)


def _mb(n: int) -> str:
    return f"{n / 1e6:.1f} MB"


def _trust(folder) -> str:
    from flexpkm.compiled import cache
    if not folder.exists():
        return "not created yet"
    try:
        problem = cache.folder_problem(folder)
    except OSError as err:
        return f"unreadable: {err.strerror or err}"
    return f"NOT USED: {problem}" if problem else "private"


def info_data() -> dict:
    """What ``flexpkm cache info`` says (its ``--json`` object)."""
    from flexpkm.compiled import cache
    from flexpkm.compiled.codegen import find_compiler
    folder = cache.cache_dir()
    found = cache.entries(folder)
    cc = find_compiler()
    return {"folder": str(folder), "state": _trust(folder), "libraries": len(found.libraries),
            "size_bytes": found.size, "limit_bytes": cache.max_bytes(),
            "compiler": cache.compiler_identity(cc) if cc else None,
            "compile_timeout_s": cache.compile_timeout()}


def info() -> list:
    """The lines of ``flexpkm cache info``."""
    d = info_data()
    compiler = d["compiler"] or "none (CasADi's virtual machine)"
    return [f"folder: {d['folder']} ({d['state']})",
            f"entries: {d['libraries']} libraries, {_mb(d['size_bytes'])} "
            f"(limit {_mb(d['limit_bytes'])}, FLEXPKM_CACHE_MAX_MB)",
            f"compiler: {compiler} (time limit {d['compile_timeout_s']:g} s, FLEXPKM_CC_TIMEOUT)"]


def run(args) -> int:
    from flexpkm.compiled import cache
    if args.action == "info":
        lines = info()
        emit(args, info_data(), lines)
        return 0
    folder = cache.cache_dir()
    n, size = cache.clear(folder)
    emit(args, {"folder": str(folder), "removed_libraries": n, "removed_bytes": size},
         [f"removed {n} libraries ({_mb(size)}) from {folder}"])
    return 0
