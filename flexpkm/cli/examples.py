"""``flexpkm examples DIR [--force]``: copies the description file of every
shipped robot (:data:`flexpkm.cases.FILES`, read from the installed package
with :mod:`importlib.resources`) into DIR as ``DIR/<case>.toml``, to read,
edit and run (``flexpkm modal DIR/five_bar.toml``). DIR is created if its
parent exists; an existing file is not overwritten unless ``--force`` (then
nothing is written at all); nothing outside DIR is touched."""
from __future__ import annotations

from pathlib import Path

from flexpkm.cli.common import add_output_options, emit
from flexpkm.errors import InvalidArgumentError


def register(subparsers, files=()):
    p = subparsers.add_parser("examples", help="copy the shipped robots' description files "
                                               "into a folder", description=__doc__.splitlines()[0])
    p.add_argument("folder", metavar="DIR", help="where to copy them (created if absent)")
    p.add_argument("--force", action="store_true", help="overwrite files that exist in DIR")
    add_output_options(p)
    p.set_defaults(func=run)


def copy_examples(folder, force=False) -> list:
    """Copy every shipped description file into ``folder`` (created when its
    parent exists); returns the paths written. Raises
    :class:`InvalidArgumentError` when ``folder`` is a file or its parent
    does not exist, or (without ``force``) naming the files that exist,
    before writing anything."""
    from flexpkm import cases
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise InvalidArgumentError(f"examples: {folder} exists and is not a folder")
    if not folder.exists() and not folder.absolute().parent.is_dir():
        raise InvalidArgumentError(f"examples: the parent folder of {folder} does not exist")
    targets = {name: folder / f"{name}.toml" for name in cases.CASES}
    existing = [str(t) for t in targets.values() if t.exists()]
    if existing and not force:
        raise InvalidArgumentError(f"examples: {', '.join(existing)} exist(s); use --force to "
                                   "overwrite")
    folder.mkdir(exist_ok=True)
    for name, target in targets.items():
        target.write_bytes(cases.file_of(name).read_bytes())
    return list(targets.values())


def run(args) -> int:
    written = copy_examples(args.folder, args.force)
    emit(args, {"folder": str(args.folder), "written": written},
         [f"wrote {path}" for path in written])
    return 0
