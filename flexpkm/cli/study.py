"""``flexpkm study``: placeholder replaced below."""


def register(subparsers, files=()):
    return None
