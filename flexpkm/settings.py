"""Numbers read from environment variables (``FLEXPKM_CACHE_MAX_MB``,
``FLEXPKM_CC_TIMEOUT``, ``FLEXPKM_MAX_MEMORY_GB``): one parser, one message."""
from __future__ import annotations

import math
import os

from flexpkm.errors import InvalidArgumentError


def positive_setting(name: str, default: float, allow_zero: bool = False, unit: str = "",
                     error=InvalidArgumentError) -> float:
    """The finite positive number (or 0 with ``allow_zero``) of the
    environment variable ``name``, ``default`` when it is unset or blank.
    Raises ``error`` (a :class:`flexpkm.errors.FlexPKMError` subclass,
    :class:`InvalidArgumentError` by default) naming the variable and its
    text otherwise, e.g. ``FLEXPKM_CACHE_MAX_MB='-3': expected a positive
    number or 0``."""
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or not (value > 0 or (allow_zero and value == 0)):
        raise error(f"{name}={text!r}: expected a positive number{' or 0' if allow_zero else ''}"
                    f"{f' of {unit}' if unit else ''}")
    return value
