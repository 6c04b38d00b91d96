"""Robots of the shipped description files with some values changed (the
tests' other readings of the data): the file's dict edited, then built."""
from dataclasses import replace

from flexpkm.cases import file_of
from flexpkm.model import files


def beams(data):
    """Every beam table of a file's dict (legs and limbs)."""
    rows = [fr for leg in data.get("legs", ()) for fr in leg["frames"]]
    rows += [fr for limb in data.get("limbs", {}).values() for fr in limb["frames"]]
    return [b for fr in rows for b in fr.get("bodies", ()) if b["type"] == "beam"]


def edited_robot(name, edit, variant=None, gravity=None):
    """The robot of the shipped case ``name`` whose file dict went through
    ``edit(data)`` (changed in place); ``gravity`` replaces the file's."""
    path = file_of(name)
    data = files.parse(path.read_text(encoding="utf-8"), files.Where(str(path)))
    edit(data)
    robot = files.from_dict(data, str(path), variant)
    return robot if gravity is None else replace(robot, gravity=tuple(gravity))
