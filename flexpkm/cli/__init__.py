"""The ``flexpkm`` command line (see :mod:`flexpkm.cli.app.main`)."""
from .app import main

__all__ = ["main"]
