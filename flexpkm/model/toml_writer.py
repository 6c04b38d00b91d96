"""A minimal TOML writer for the description files (the standard library
reads TOML but does not write it): strings, booleans, integers, floats
(``repr``, exact round trip), arrays of scalars, inline tables, tables and
arrays of tables."""
from __future__ import annotations

import json
import math


def scalar(v) -> str:
    """One TOML value (scalar, array of scalars or inline table)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(float(v))
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(scalar(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_key(k)} = {scalar(x)}" for k, x in v.items()) + "}"
    return scalar(float(v))   # numpy scalars


def _key(k) -> str:
    k = str(k)
    return k if k.replace("_", "").replace("-", "").isalnum() and k.isascii() else json.dumps(k)


def _is_table_array(v) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)


def _holds_tables(v) -> bool:
    return isinstance(v, dict) and any(_is_table_array(x) or _holds_tables(x) for x in v.values())


def to_toml(data: dict, prefix: str = "") -> str:
    """TOML text of a dict; lists of dicts become arrays of tables, dicts at
    the top or holding arrays of tables become tables, other nested dicts
    inline tables."""
    lines, nested = [], []
    for k, v in data.items():
        if _is_table_array(v) or (isinstance(v, dict) and (not prefix or _holds_tables(v))):
            nested.append((k, v))
        elif isinstance(v, list) and not v and k in ("closures", "bodies", "legs", "frames"):
            continue
        else:
            lines.append(f"{_key(k)} = {scalar(v)}")
    for k, v in nested:
        name = f"{prefix}.{_key(k)}" if prefix else _key(k)
        if isinstance(v, dict):
            lines.append(f"\n[{name}]")
            lines.append(to_toml(v, name).strip("\n"))
            continue
        for item in v:
            lines.append(f"\n[[{name}]]")
            body = to_toml(item, name).strip("\n")
            if body:
                lines.append(body)
    return "\n".join(lines) + "\n"
