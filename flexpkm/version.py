"""The version of flexpkm, in the lowest layer so that any module may read it
(the run manifests, the compiled code's cache key, ``flexpkm --version``);
``flexpkm.__version__`` re-exports it and pyproject.toml reads it here."""
__version__ = "0.2.0"
