"""C code generation, compilation and the on-disk cache of compiled models.

A CasADi ``Function`` is emitted as C by ``casadi.CodeGenerator``, compiled
once by the system C compiler into a shared library and loaded with
``casadi.external``. The library is cached in ``$FLEXPKM_CACHE`` (default
``~/.cache/flexpkm``) under a key that hashes the numbers of the built
model (frame constants, body invariants, stiffness, closures...), the
options of the function, the versions of flexpkm and CasADi, the source of
the whole package, the compiler and its flags (a change of any of them
compiles anew); :mod:`flexpkm.compiled.cache` checks the folder and the
library's recorded hash before loading it, and bounds the cache.

The compiler is ``$FLEXPKM_CC``, else ``$CC``, else ``cc``, run under a time
limit (``$FLEXPKM_CC_TIMEOUT``); an empty ``FLEXPKM_CC`` (or one that is
not found), a compiler failure or a full disk leave the function on
CasADi's own virtual machine (the ``Function`` itself, slower), with a
one-line warning.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import casadi as ca
import numpy as np

from flexpkm.compiled import cache, runtime_c
from flexpkm.compiled.cache import cache_dir  # noqa: F401  (the cache folder, re-exported)
from flexpkm.errors import FlexPKMError
from flexpkm.signals import stop_on_signals
from flexpkm.stopwatch import timed
from flexpkm.version import __version__

#: seconds spent compiling in this process (C generation + compiler), for the benchmarks
COMPILE_SECONDS = {"last": 0.0, "total": 0.0}


class CompilationError(FlexPKMError):
    """The C compiler failed on a generated model (its message is attached)."""


def find_compiler():
    """Path of the C compiler (``$FLEXPKM_CC``, ``$CC`` or ``cc``), or None."""
    name = os.environ.get("FLEXPKM_CC", os.environ.get("CC", "cc"))
    return shutil.which(name) if name else None


def _update(h, *items):
    """Feed numbers, arrays, strings and nested tuples/lists/dicts to the hash."""
    for x in items:
        if isinstance(x, np.ndarray) or isinstance(x, float):
            h.update(np.ascontiguousarray(x, dtype=float).tobytes())
        elif isinstance(x, (tuple, list)):
            h.update(b"(")
            _update(h, *x)
            h.update(b")")
        elif isinstance(x, dict):
            _update(h, *sorted(x.items()))
        elif isinstance(x, slice):
            _update(h, x.start, x.stop)
        else:
            h.update(repr(x).encode())


def _invariants(body):
    if body is None:
        return None
    inv = body.invariants
    return (inv.m, inv.ms_r, inv.I_rr, inv.MS_de, inv.J_re, inv.J_ee, inv.K_ee)


def description_key(model, *options, sources=None) -> str:
    """Hex digest identifying a generated function: the numbers the symbolic
    model is built from (frame constants, body invariants, stiffness,
    platform, closures and their rows, friction, rotor inertia, gravity,
    coordinate layout: a change in the element models shows here, not only
    a change of the description), ``options`` (repr), the flexpkm and CasADi
    versions and the source of the whole package (every ``.py`` the
    generated code may depend on: :func:`flexpkm.compiled.cache.source_digest`;
    ``sources``: other source folders ``{package: folder}`` instead, e.g. a
    modified copy). The compiler and its flags are added by :func:`compiled`."""
    h = hashlib.sha256()
    for fc in model.frame_constants:
        _update(h, fc.antecedent, fc.sigma, fc.R_fix, fc.p_att, float(fc.r), fc.col, fc.shapes)
    for e in model.body_entries:
        _update(h, e.frame, e.elastic, _invariants(e.body))
    pl = model.platform
    _update(h, model.K_tot, None if pl is None else (pl.dofs, _invariants(pl.body)),
            [(c.frame, c.other, c.joint, c.leg, c.platform_point, c.platform_rotation)
             for c in model.closures], model.closure_rows, model.closure_columns,
            model.column_legs, dict(model.rotor_inertia), dict(model.viscous_friction),
            dict(model.coulomb_friction), tuple(model.gravity), model.layout.names,
            tuple(model.layout.actuated), options)
    h.update(f"{__version__} {ca.__version__}".encode())
    h.update((cache.source_digest() if sources is None else cache.tree_digest(sources)).encode())
    return h.hexdigest()[:24]


def topology_key(model, *options, sources=None) -> str:
    """Hex digest identifying a generated function that takes the design
    parameters as an input (:mod:`flexpkm.compiled.design`): the robot's
    topology only (:func:`flexpkm.compiled.design.topology`: joint types,
    tree, bodies' numbers of shape functions, closures and their rows,
    structural entries of the stiffness...), ``options``, the versions and
    the source (as :func:`description_key`). Two designs of one topology
    (another section, material, mass or length) share the key, so the
    library compiled for one is reused by the other."""
    from flexpkm.compiled.design import topology
    h = hashlib.sha256(b"topology\0")
    _update(h, topology(model), options)
    h.update(f"{__version__} {ca.__version__}".encode())
    h.update((cache.source_digest() if sources is None else cache.tree_digest(sources)).encode())
    return h.hexdigest()[:24]


def _merged(fn, name):
    """``fn`` with its common subexpressions merged (``casadi.cse``, SX), named
    ``name`` (the library's symbols carry the name)."""
    if not fn.is_a("SXFunction"):
        if fn.name() == name:
            return fn
        args = fn.mx_in()                  # a call of fn, under the library's name
        return ca.Function(name, args, fn.call(args), fn.name_in(), fn.name_out())
    args = fn.sx_in()
    return ca.Function(name, args, [ca.cse(e) for e in fn.call(args)], fn.name_in(),
                       fn.name_out())


#: SX functions with more instructions are compiled with -O0 (gcc's time
#: grows faster than linearly on one unrolled graph: the NaVARo's SX full
#: model, 7e5 instructions, takes 3 min at -O1), others at -O1 (-O2
#: doubles gcc's time on the DualEMPS's unrolled step, 9.1 -> 16.2 s CPU,
#: for no faster code: 0.18-0.20 s CPU per simulated second both); the
#: kernel graphs of :mod:`flexpkm.compiled.recursive` (MX calling small
#: kernels) are compiled at -O2 (:meth:`flexpkm.compiled.robot.CompiledRobot.function`)
LARGE = 300_000


@timed                                  # its time is kept out of the CLI's speed figures
def compiled(build, name, key, opt=None, merge=True, names=None):
    """The function ``build()`` returns (a ``casadi.Function``), compiled:
    loaded from the cache (:mod:`flexpkm.compiled.cache`) when a library of
    ``key``, this compiler and these flags is there and matches its recorded
    hash, else generated (with its common subexpressions merged when
    ``merge``: it pays on the AD-made model, not on the sparse products of
    :mod:`flexpkm.compiled.modal`, whose code it slows by 40 %), compiled
    with ``opt`` and cached as ``name``. ``opt`` default: ``-O1``, ``-O0``
    for an unrolled SX function above :data:`LARGE` instructions (the
    kernel graphs ask for ``-O2``). A build is announced on stderr when it
    is a terminal, with its size and time (``compiling <name> (<lines> C
    lines, -O2) ... done in 3.2 s``). ``names``: ``build()`` returns a tuple
    of Functions of these names, compiled into ONE library (the kernels they
    share once, one compiler run: the simulation's step, loop projection and
    recorder, 6.4 s of gcc instead of 9.6 s on the Delta) and returned as a
    tuple.

    Never raises for the cache or the compiler: without a C compiler, when
    the compiler fails or exceeds ``$FLEXPKM_CC_TIMEOUT``, or when the disk is
    full, the ``Function`` itself (CasADi's virtual machine) with one warning
    saying why. A corrupt or foreign cached library is rebuilt (one warning);
    a cache folder that others can write is not used (one warning; the
    library is built in a private temporary folder and removed once loaded).
    Raises :class:`flexpkm.errors.InvalidArgumentError` for a bad
    ``FLEXPKM_CC_TIMEOUT`` or ``FLEXPKM_CACHE_MAX_MB``."""
    timeout, _ = cache.compile_timeout(), cache.max_bytes()     # bad settings: refused first
    cc = find_compiler()
    group = names is not None
    names = tuple(names) if group else (name,)

    def made():
        fns = build() if group else (build(),)
        return tuple(_merged(f, n) if merge else f for f, n in zip(fns, names))

    def result(fns):
        return tuple(fns) if group else fns[0]
    if cc is None:
        warnings.warn("no C compiler found; the models run on CasADi's virtual machine "
                      "(slower; install gcc, or set FLEXPKM_CC)", stacklevel=3)
        return result(made())
    folder, problem = cache.private_folder()
    lib = None
    if folder is not None:
        lib = cache.library_path(folder, name, key, cc, (opt,) + FLAGS)
        why = cache.verify(lib)
        if why is None:
            cache.touch(lib)
            try:
                return result([_external(n, lib) for n in names])
            except CompilationError:             # e.g. evicted meanwhile by another process
                why = "could not be loaded"
        if why != "missing":
            warnings.warn(f"the cached library {lib} {why}: rebuilt", stacklevel=3)
            with contextlib.suppress(OSError):   # then replaced by the build
                cache.remove(lib)
    else:
        warnings.warn(f"{problem}: not used; the models are compiled in a private "
                      "temporary folder (set FLEXPKM_CACHE to a folder of yours)", stacklevel=3)
    fns = made()
    if opt is None:
        large = any(f.is_a("SXFunction") and f.n_instructions() > LARGE for f in fns)
        opt = "-O0" if large else "-O1"
    try:
        return result(_build(fns, name, cc, [opt, *FLAGS], lib, timeout))
    except (CompilationError, OSError) as err:
        warnings.warn(f"{err}; {name} runs on CasADi's virtual machine (slower)", stacklevel=3)
        return result(fns)


#: compiler flags besides the optimisation level (part of the library key)
FLAGS = ("-fPIC", "-shared")
#: C files of more lines are compiled by GCC's link-time optimisation on
#: the process's cores (:func:`parallel_flags`)
PARALLEL_LINES = 5_000


@functools.lru_cache(maxsize=None)
def is_gcc(cc) -> bool:
    """Whether the compiler ``cc`` is GCC (its ``--version`` names the Free
    Software Foundation; clang's does not)."""
    try:
        out = subprocess.run([cc, "--version"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return "Free Software Foundation" in out


def parallel_flags(cc, lines) -> list:
    """Flags that spread one large library's compilation over the cores:
    GCC's ``-flto=<cores> -flto-partition=balanced`` (the optimisation and
    code generation, 90 % of gcc's time on the generated C, run on
    partitions of the functions in parallel). For a file of more than
    :data:`PARALLEL_LINES` lines, GCC and more than one core; else none.
    Measured (DualEMPS, 8 elements per link, 41,708 lines at -O2, 2 cores):
    10.1 -> 4.6 s of wall time, 9.7 -> 7.2 s of CPU."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if lines <= PARALLEL_LINES or (cores or 1) < 2 or not is_gcc(cc):
        return []
    return [f"-flto={min(cores, 8)}", "-flto-partition=balanced"]


def _build(fns, name, cc, flags, lib, timeout):
    """Generate C for the Functions ``fns`` (one file), compile it in a build
    folder (beside ``lib``, or a private temporary one when ``lib`` is
    None), move it to ``lib`` with its record, and load them (a list). The
    build folder is removed in every case (interrupt and SIGTERM included).
    Raises :class:`CompilationError` (the compiler failed or timed out) or
    :class:`OSError` (a full disk...)."""
    t0 = time.perf_counter()
    tmp = Path(tempfile.mkdtemp(prefix=cache.BUILD_PREFIX, dir=None if lib is None else lib.parent))
    try:
        with stop_on_signals():        # SIGTERM, SIGHUP: the build folder removed
            gen = ca.CodeGenerator(f"{name}.c", {"with_header": False})
            for fn in fns:
                gen.add(fn)
            code = runtime_c.faster(gen.dump())
            write_source(tmp / f"{name}.c", code)
            out = tmp / f"{name}.so"
            lines = code.count("\n")
            _announce(f"compiling {name} ({lines} C lines, {flags[0]}) ...")
            argv = [cc, *flags, f"{name}.c", "-o", out.name, "-lm"]
            fast = parallel_flags(cc, lines)
            try:
                run_compiler(argv[:1] + fast + argv[1:], tmp, name, timeout)
            except CompilationError:
                if not fast:
                    raise
                run_compiler(argv, tmp, name, timeout)      # e.g. GCC without its LTO plugin
            COMPILE_SECONDS["last"] = dt = time.perf_counter() - t0
            COMPILE_SECONDS["total"] += dt
            _announce(f" done in {dt:.1f} s\n")
            digest = cache.file_sha256(out)
            if lib is None:                      # untrusted cache: load from the private folder
                return [_external(fn.name(), out) for fn in fns]
            os.replace(out, lib)                 # atomic: concurrent runs agree
            try:
                cache.write_record(lib, digest)
            except OSError:
                lib.unlink(missing_ok=True)
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    why = cache.verify(lib)                      # another process may have replaced it
    if why is not None:
        raise CompilationError(f"the library {lib} just built {why}")
    cache.evict(lib.parent, keep=lib)
    return [_external(fn.name(), lib) for fn in fns]


def _announce(text):
    """A build's announcement on stderr when it is a terminal (as the
    command line's progress bars: a captured or piped stderr keeps its one
    line per error)."""
    if sys.stderr.isatty():
        sys.stderr.write(text)
        sys.stderr.flush()


def _external(name, lib):
    """``casadi.external`` of a checked library. Raises
    :class:`CompilationError` when it cannot be loaded."""
    try:
        return ca.external(name, str(lib))
    except RuntimeError as err:
        first = (str(err).strip().splitlines() or ["?"])[0]
        raise CompilationError(f"{lib} could not be loaded ({first[:300]})") from None


def write_source(path: Path, code: str) -> None:
    """Write the generated C (a full disk raises :class:`OSError` here,
    instead of leaving truncated C for the compiler)."""
    with open(path, "w") as f:
        f.write(code)
        f.flush()
        os.fsync(f.fileno())


def run_compiler(argv, cwd, name, timeout):
    """Run the compiler in ``cwd`` (relative file names: the library's bytes
    do not depend on the folder). Raises :class:`CompilationError`."""
    try:
        run = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise CompilationError(f"{argv[0]} exceeded {timeout:g} s on {name} "
                               "(FLEXPKM_CC_TIMEOUT)") from None
    if run.returncode:
        lines = run.stderr.strip().splitlines() or ["no message"]
        first = next((line for line in lines if re.search(r"error|failed|no space", line, re.I)),
                     lines[-1])
        raise CompilationError(f"{argv[0]} failed on {name} (status {run.returncode}: "
                               f"{first.strip()[:300]})")
