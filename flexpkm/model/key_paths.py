"""Key paths into a parsed description file: ``legs[0].frames[2].bodies[0].
section.b_y`` addresses one number of the user's file, as the modal
sensitivities (``--sensitivities``), the design studies and the design
optimisation name their parameters. One reader of the path for all three."""
from __future__ import annotations

from flexpkm.errors import InvalidArgumentError


def locate(data, path: str):
    """``(container, key, value)`` of the number at the key path ``path``
    (``a.b[2].c``) of ``data`` (nested dicts and lists, as parsed from TOML).
    Raises :class:`InvalidArgumentError` for a path that leads nowhere or to
    something that is not a number (a boolean, a table, a string)."""
    keys = [k for part in path.replace("]", "").split(".") for k in part.split("[")]
    node = data
    try:
        for k in keys[:-1]:
            node = node[int(k)] if isinstance(node, list) else node[k]
        key = int(keys[-1]) if isinstance(node, list) else keys[-1]
        value = node[key]
    except (KeyError, IndexError, ValueError, TypeError):
        raise InvalidArgumentError(f"{path!r}: no such key path in the description (paths "
                                   "read like legs[0].frames[0].bodies[0].section.b_y)") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidArgumentError(f"{path}: not a number ({type(value).__name__})")
    return node, key, value


def get_number(data, path: str) -> float:
    """The number at the key path ``path`` of ``data`` (:func:`locate`)."""
    return float(locate(data, path)[2])


def set_number(data, path: str, value: float) -> float:
    """Set the number at the key path ``path`` of ``data`` to ``value`` (in
    place); returns the old one. Raises as :func:`locate`."""
    node, key, old = locate(data, path)
    node[key] = float(value)
    return float(old)
