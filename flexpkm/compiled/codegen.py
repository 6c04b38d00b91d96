"""C code generation, compilation and the on-disk cache of compiled models.

A CasADi ``Function`` is emitted as C by ``casadi.CodeGenerator``, compiled
once by the system C compiler into a shared library and loaded with
``casadi.external``. The library is cached in ``$FLEXPKM_CACHE`` (default
``~/.cache/flexpkm``) under a key that hashes the numbers of the built
model (frame constants, body invariants, stiffness, closures...), the
options of the function, the versions of flexpkm and CasADi and the source
of :mod:`flexpkm.compiled` (a change of any of them compiles anew).

The compiler is ``$FLEXPKM_CC``, else ``$CC``, else ``cc``; an empty
``FLEXPKM_CC`` (or one that is not found) hides it: the function then runs
on CasADi's own virtual machine (the ``Function`` itself, slower), with a
one-line warning.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import time
import warnings
from pathlib import Path

import casadi as ca
import numpy as np

from flexpkm.errors import FlexPKMError

#: seconds spent compiling in this process (C generation + compiler), for the benchmarks
COMPILE_SECONDS = {"last": 0.0, "total": 0.0}


class CompilationError(FlexPKMError):
    """The C compiler failed on a generated model (its message is attached)."""


def cache_dir() -> Path:
    """The cache folder: ``$FLEXPKM_CACHE`` or ``~/.cache/flexpkm``."""
    return Path(os.environ.get("FLEXPKM_CACHE") or Path.home() / ".cache" / "flexpkm")


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


def description_key(model, *options) -> str:
    """Hex digest identifying a generated function: the numbers the symbolic
    model is built from (frame constants, body invariants, stiffness,
    platform, closures and their rows, friction, rotor inertia, gravity,
    coordinate layout: a change in the element models shows here, not only
    a change of the description), ``options`` (repr), the flexpkm and CasADi
    versions and the source of this package."""
    from flexpkm import __version__
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
    for src in sorted(Path(__file__).parent.glob("*.py")):
        h.update(src.read_bytes())
    return h.hexdigest()[:24]


def _merged(fn, name):
    """``fn`` with its common subexpressions merged (``casadi.cse``), named
    ``name`` (the library's symbols carry the name)."""
    if not fn.is_a("SXFunction"):
        return fn
    args = fn.sx_in()
    return ca.Function(name, args, [ca.cse(e) for e in fn.call(args)], fn.name_in(),
                       fn.name_out())


#: functions with more instructions are compiled with -O0 (gcc's -O1 time
#: grows faster than linearly: the NaVARo's full model, 7e5 instructions,
#: takes 3 min at -O1); below, -O1 (twice as fast code as -O0)
LARGE = 300_000


def compiled(build, name, key, opt=None, merge=True):
    """The function ``build()`` returns (a ``casadi.Function``), compiled:
    loaded from the cache when ``key`` is there, else generated (with its
    common subexpressions merged when ``merge``: it pays on the AD-made
    model, not on the sparse products of :mod:`flexpkm.compiled.modal`,
    whose code it slows by 40 %), compiled with ``opt`` and cached as ``name``. Without a C compiler, or when the
    cache folder cannot be written, the ``Function`` itself (CasADi's
    virtual machine), with a warning. ``opt`` default: ``-O1``, ``-O0``
    above :data:`LARGE` instructions.
    Raises :class:`CompilationError` when the compiler fails."""
    lib = cache_dir() / f"{name}_{key}.so"
    if lib.exists():
        return ca.external(name, str(lib))
    cc = find_compiler()
    if cc is None:
        warnings.warn(f"flexpkm: no C compiler found; {name} runs on CasADi's virtual "
                      "machine (slower; install gcc, or set FLEXPKM_CC)", stacklevel=3)
        return _merged(build(), name) if merge else build()
    t0 = time.perf_counter()
    fn = _merged(build(), name) if merge else build()
    if opt is None:
        opt = "-O0" if fn.is_a("SXFunction") and fn.n_instructions() > LARGE else "-O1"
    try:
        lib.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=lib.parent) as tmp:
            gen = ca.CodeGenerator(f"{name}.c", {"with_header": False})
            gen.add(fn)
            src = Path(gen.generate(tmp + os.sep))
            out = Path(tmp) / f"{name}.so"
            run = subprocess.run([cc, opt, "-fPIC", "-shared", str(src), "-o", str(out), "-lm"],
                                 capture_output=True, text=True)
            if run.returncode:
                raise CompilationError(f"{cc} failed on {name}: {run.stderr[-2000:]}")
            os.replace(out, lib)                 # atomic: concurrent runs agree
    except OSError as err:
        warnings.warn(f"flexpkm: cannot write the cache {lib.parent} ({err}); {name} runs on "
                      "CasADi's virtual machine (set FLEXPKM_CACHE)", stacklevel=3)
        return fn
    dt = time.perf_counter() - t0
    COMPILE_SECONDS["last"] = dt
    COMPILE_SECONDS["total"] += dt
    return ca.external(name, str(lib))
