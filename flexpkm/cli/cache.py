"""``flexpkm cache info|clear``: the cache of compiled models
(:mod:`flexpkm.compiled.cache`): ``info`` prints its folder (and whether it
is trusted), its entries, their size and the bound; ``clear`` removes
flexpkm's own files from it (libraries, their records, build folders left
by a killed run), nothing else."""
from __future__ import annotations



def register(subparsers, files=()):
    p = subparsers.add_parser("cache", help="show or empty the cache of compiled models",
                              description=__doc__.splitlines()[0].replace("``", ""))
    p.add_argument("action", choices=("info", "clear"),
                   help="info: folder, entries, size, limit; clear: remove flexpkm's files")
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


def info() -> list:
    """The lines of ``flexpkm cache info``."""
    from flexpkm.compiled import cache
    from flexpkm.compiled.codegen import find_compiler
    folder = cache.cache_dir()
    found = cache.entries(folder)
    cc = find_compiler()
    compiler = cache.compiler_identity(cc) if cc else "none (CasADi's virtual machine)"
    return [f"folder: {folder} ({_trust(folder)})",
            f"entries: {len(found.libraries)} libraries, {_mb(found.size)} "
            f"(limit {_mb(cache.max_bytes())}, FLEXPKM_CACHE_MAX_MB)",
            f"compiler: {compiler} (time limit {cache.compile_timeout():g} s, FLEXPKM_CC_TIMEOUT)"]


def run(args) -> int:
    from flexpkm.compiled import cache
    folder = cache.cache_dir()
    if args.action == "info":
        print("\n".join(info()))
        return 0
    n, size = cache.clear(folder)
    print(f"removed {n} libraries ({_mb(size)}) from {folder}")
    return 0
