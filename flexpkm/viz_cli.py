"""Sub-commands ``modes`` and ``sweep`` (mode shapes, exports, frequency sweeps)."""


def register(subparsers):
    """Add the sub-commands of this module to the ``flexpkm`` parser."""
