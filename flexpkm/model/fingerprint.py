"""A hash of a robot description's numbers (``run.json``'s
``description_sha256``, docs/robustness.md).

:func:`description_digest` feeds a canonical serialisation of the built
description to sha256: the :class:`flexpkm.model.description.Robot` (or a
built ``Model``'s ``robot``) walked field by field in declaration order
(frames with their MDH parameters, bodies, platform, closures, joint
tables, reference...), mappings in the order of their sorted keys, each
body by its class and its public attributes (length, section, material,
invariants ``m``, ``ms_r``, ``I_rr``, ``MS_de``, ``J_re``, ``J_ee``,
``K_ee``...), floats by their exact bytes (IEEE 754 binary64), arrays by
dtype, shape and bytes, functions by their qualified name. Each token is
tagged with its type and length, so two different descriptions cannot
serialise to the same byte string. No ``repr`` (memory addresses) and no
cache (private attributes): equal in separate processes for the same
description, different when one number changes.
"""
from __future__ import annotations

import dataclasses
import hashlib
import inspect
import struct
from collections.abc import Mapping

import numpy as np

#: the walk's depth limit (a description is a shallow tree; a cycle is a bug)
MAX_DEPTH = 64


def description_digest(robot, digits: int = 16) -> str:
    """The first ``digits`` hex digits of the sha256 of ``robot``'s canonical
    serialisation (a Robot, a built Model, or any tree of dataclasses,
    mappings, sequences, arrays, numbers, strings and bodies).

    Raises RecursionError when the object graph is deeper than
    ``MAX_DEPTH`` (a cycle)."""
    h = hashlib.sha256()
    _feed(h, getattr(robot, "robot", robot), 0)
    return h.hexdigest()[:digits]


def _token(h, tag: bytes, payload: bytes = b""):
    h.update(tag + struct.pack("<Q", len(payload)) + payload)


def _feed(h, obj, depth):
    if depth > MAX_DEPTH:
        raise RecursionError("description_digest: the description is nested too deeply (a cycle?)")
    depth += 1
    if obj is None or isinstance(obj, (bool, np.bool_)):
        _token(h, b"B", repr(None if obj is None else bool(obj)).encode())
    elif isinstance(obj, (int, np.integer)):
        _token(h, b"I", str(int(obj)).encode())
    elif isinstance(obj, (float, np.floating)):
        _token(h, b"F", struct.pack("<d", float(obj)))
    elif isinstance(obj, str):
        _token(h, b"S", obj.encode("utf-8", "surrogatepass"))
    elif isinstance(obj, (bytes, bytearray)):
        _token(h, b"Y", bytes(obj))
    elif isinstance(obj, np.ndarray):
        a = np.ascontiguousarray(obj)
        if a.dtype == object:
            _sequence(h, b"O", a.ravel().tolist(), depth)
        else:
            _token(h, b"A", f"{a.dtype.str}{a.shape}".encode())
            _token(h, b"D", a.tobytes())
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        _token(h, b"C", _qualname(type(obj)).encode())
        _sequence(h, b"N", [(f.name, getattr(obj, f.name)) for f in dataclasses.fields(obj)], depth)
    elif isinstance(obj, Mapping):
        items = sorted(obj.items(), key=lambda kv: (type(kv[0]).__name__, str(kv[0])))
        _sequence(h, b"M", items, depth)
    elif isinstance(obj, (tuple, list, set, frozenset)):
        _sequence(h, b"L", sorted(obj, key=repr) if isinstance(obj, (set, frozenset)) else obj,
                  depth)
    elif inspect.isroutine(obj) or isinstance(obj, type):     # a shape function...
        _token(h, b"f", _qualname(obj).encode())
    elif hasattr(obj, "__dict__"):                 # a body model: its class and public state
        _token(h, b"C", _qualname(type(obj)).encode())
        _sequence(h, b"N", sorted(((k, v) for k, v in vars(obj).items() if not k.startswith("_")),
                         key=lambda kv: kv[0]), depth)
    else:
        _token(h, b"R", f"{_qualname(type(obj))}:{obj!s}".encode())


def _sequence(h, tag, items, depth):
    _token(h, tag, str(len(items)).encode())
    for item in items:
        _feed(h, item, depth)


def _qualname(obj) -> str:
    return f"{getattr(obj, '__module__', '')}.{getattr(obj, '__qualname__', type(obj).__name__)}"
