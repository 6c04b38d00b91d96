"""A fast yes/no check of a parsed description file against
:data:`flexpkm.model.schema.ROBOT`, before :mod:`jsonschema`.

jsonschema stays the authority: it runs only when this check does not say
yes, and its best-matching error is the message (:func:`flexpkm.model.files.check_schema`).
Importing jsonschema (attrs, referencing, its format checkers) cost
``flexpkm modal`` 0.06-0.09 s of CPU at start-up; fastjsonschema was slower
still (0.14 s to compile the schema at run time, 0.14 s to import its
570 kB of generated code); docs/design.md. A valid file (every shipped one,
every run of a good file) is now checked without it.

The keywords are those of the schema, with JSON Schema 2020-12's meaning as
jsonschema implements it: ``true`` is not a number nor equal to 1, ``1.0``
is an integer, a keyword applies only to its instance type. A keyword not in
:data:`KEYWORDS` makes the check say no (jsonschema decides).
tests/model/test_schema_check.py compares the two on mutated shipped files.
"""
from __future__ import annotations

import math

#: the keywords this check knows (``$schema`` is an annotation)
KEYWORDS = frozenset({
    "$schema", "type", "enum", "const", "required", "properties", "additionalProperties",
    "items", "minItems", "maxItems", "uniqueItems", "minLength", "minimum",
    "allOf", "anyOf", "oneOf", "not", "if", "then"})


class _Unknown(Exception):
    """A keyword outside :data:`KEYWORDS`: only jsonschema can tell."""


def matches(schema: dict, data) -> bool:
    """True when ``data`` (what ``tomllib`` returns) is valid against
    ``schema``; False when it is not, or when the schema has a keyword this
    check does not know."""
    try:
        return _valid(schema, data)
    except _Unknown:
        return False


def _is(kind: str, x) -> bool:
    if kind == "number":
        return isinstance(x, (int, float)) and not isinstance(x, bool)
    if kind == "integer":
        return _is("number", x) and (isinstance(x, int) or x.is_integer())
    return isinstance(x, {"object": dict, "array": list, "string": str, "boolean": bool,
                          "null": type(None)}[kind])


def _equal(a, b) -> bool:
    """JSON equality (jsonschema's): booleans equal booleans only."""
    if a is b:
        return True
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    return a == b


def _valid(schema: dict, x) -> bool:
    unknown = schema.keys() - KEYWORDS
    if unknown:
        raise _Unknown(sorted(unknown))
    kinds = schema.get("type")
    if kinds is not None and not any(_is(k, x) for k in
                                     ([kinds] if isinstance(kinds, str) else kinds)):
        return False
    if "enum" in schema and not any(_equal(x, v) for v in schema["enum"]):
        return False
    if "const" in schema and not _equal(x, schema["const"]):
        return False
    if isinstance(x, dict) and not _valid_object(schema, x):
        return False
    if isinstance(x, list) and not _valid_array(schema, x):
        return False
    if isinstance(x, str) and len(x) < schema.get("minLength", 0):
        return False
    if "minimum" in schema and _is("number", x) and x < schema["minimum"]:
        return False
    return _valid_combined(schema, x)


def _valid_object(schema: dict, x: dict) -> bool:
    if any(k not in x for k in schema.get("required", ())):
        return False
    props = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    for key, value in x.items():
        sub = props.get(key, extra)
        if sub is False or (sub is not True and not _valid(sub, value)):
            return False
    return True


def _valid_array(schema: dict, x: list) -> bool:
    if not schema.get("minItems", 0) <= len(x) <= schema.get("maxItems", math.inf):
        return False
    if schema.get("uniqueItems") and any(_equal(a, b) for i, a in enumerate(x)
                                         for b in x[i + 1:]):
        return False
    return "items" not in schema or all(_valid(schema["items"], v) for v in x)


def _valid_combined(schema: dict, x) -> bool:
    if not all(_valid(s, x) for s in schema.get("allOf", ())):
        return False
    if "anyOf" in schema and not any(_valid(s, x) for s in schema["anyOf"]):
        return False
    if "oneOf" in schema and sum(_valid(s, x) for s in schema["oneOf"]) != 1:
        return False
    if "not" in schema and _valid(schema["not"], x):
        return False
    return "if" not in schema or not _valid(schema["if"], x) or _valid(schema.get("then", {}), x)
