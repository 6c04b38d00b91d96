"""Fuzz of malformed description files (hypothesis): missing keys, wrong
types, NaN/inf, negative sizes, unknown antecedents, cycles, cut joints to
missing frames. Every outcome is a Robot or an InvalidDescriptionError (never
another exception), and removing a required key always raises (no silent
default)."""
import math
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:            # Python 3.10
    import tomli as tomllib

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from flexpkm.cases import dualemps
from flexpkm.errors import InvalidDescriptionError
from flexpkm.model import files
from flexpkm.model.description import Robot
from flexpkm.model.toml_writer import to_toml

_DIR = Path(dualemps.__file__).parent
BASES = {name: tomllib.loads((_DIR / name).read_text())
         for name in ("dualemps.toml", "navaro.toml", "examples/five_bar.toml",
                      "examples/three_rrr.toml")}
BASE = BASES["dualemps.toml"]
#: keys that must be given, by the container they are in (last table name on the path)
REQUIRED = {"top": {"name", "legs", "placements"}, "legs": {"name", "frames"},
            "frames": {"j", "sigma"}, "placements": {"limb", "leg"}, "RL": {"frames"},
            "bodies": {"type", "length", "section", "material", "M"},
            "section": {"shape", "b_y", "h_z"}, "material": {"E", "rho"},
            "closures": {"frame", "joint", "platform", "other"}, "platform": {"dofs"}}


def _context(path):
    names = [k for k in path if isinstance(k, str)]
    return names[-1] if names else "top"
JUNK = st.one_of(st.just(math.nan), st.just(math.inf), st.just(-1.0), st.just(-0.4505),
                 st.just(0), st.just("ninety"), st.just("99"), st.just(""), st.just(True),
                 st.just([1, 2]), st.just({"x": 1}), st.text(max_size=5),
                 st.floats(allow_nan=True, allow_infinity=True), st.integers(-5, 5))


def _containers(node, path=()):
    """Every (path, container) of the nested data."""
    yield path, node
    items = node.items() if isinstance(node, dict) else enumerate(node)
    for k, v in items:
        if isinstance(v, (dict, list)):
            yield from _containers(v, path + (k,))


def _get(data, path):
    for k in path:
        data = data[k]
    return data


def _copy(base="dualemps.toml"):
    import copy
    return copy.deepcopy(BASES[base])


def _outcome(data):
    try:
        assert isinstance(files.from_dict(data, source="fuzz.toml"), Robot)
        return "ok"
    except InvalidDescriptionError as exc:
        assert str(exc).startswith("fuzz.toml")
        return "error"


CONTAINERS = [p for p, _ in _containers(BASE)]
#: (file, path) of every container of every shipped file
ALL = [(name, p) for name, data in BASES.items() for p, _ in _containers(data)]


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(ALL), st.data())
def test_replaced_value_never_crashes(where, data):
    d = _replaced(where, data.draw(JUNK), data)
    if d is not None:
        _outcome(d)


def _replaced(where, value, data):
    """A copy of the file ``where[0]`` with one entry (drawn) of the
    container at ``where[1]`` replaced by ``value``; None for an empty one."""
    base, path = where
    d = _copy(base)
    node = _get(d, path)
    keys = list(node) if isinstance(node, dict) else list(range(len(node)))
    if not keys:
        return None
    node[data.draw(st.sampled_from(keys))] = value
    return d


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.sampled_from(ALL), st.data())
def test_removed_key(where, data):
    base, path = where
    d = _copy(base)
    node = _get(d, path)
    if not isinstance(node, dict) or not node:
        return
    key = data.draw(st.sampled_from(sorted(node)))
    required = REQUIRED.get(_context(path), set())
    if _context(path) == "section" and "shape" not in node:
        required = {"A", "Iy", "Iz", "J"}
    del node[key]
    out = _outcome(d)
    if key in required:
        assert out == "error", f"removing {path + (key,)} was accepted"


@pytest.mark.parametrize("mutate,message", [
    (lambda d: d["legs"][0]["frames"][0].__setitem__("a", "18"), "not defined before"),  # cycle
    (lambda d: d["legs"][1]["frames"][0].__setitem__("a", "nowhere"), "not defined before"),
    (lambda d: d["closures"][1].__setitem__("other", "missing"), "unknown frame"),
    (lambda d: d["closures"][0].__setitem__("frame", "missing"), "unknown frame"),
    (lambda d: d["legs"][0]["frames"][2]["bodies"][0]["section"].__setitem__("b_y", -1e-3),
     "positive"),
    (lambda d: d["legs"][0]["frames"][1]["bodies"][0].__setitem__("M", -1.0), "mass >= 0"),
    (lambda d: d["legs"][0]["frames"][1].__setitem__("j", "11"), "defined twice"),
])
def test_structural_errors(mutate, message):
    d = _copy()
    mutate(d)
    with pytest.raises(InvalidDescriptionError, match=message):
        files.from_dict(d, source="fuzz.toml")


@settings(max_examples=50, deadline=None, derandomize=True)
@given(st.sampled_from(CONTAINERS), st.data())
def test_text_round_trip_of_mutated_files(path, data):
    """The same through the TOML text (writer + tomllib + loads)."""
    d = _copy()
    node = _get(d, path)
    if isinstance(node, dict) and node:
        key = data.draw(st.sampled_from(sorted(node)))
        node[key] = data.draw(st.one_of(st.just("x"), st.just(-2.0), st.integers(-3, 3)))
    try:
        text = to_toml(d)
    except ValueError:
        return
    try:
        files.loads(text, source="fuzz.toml")
    except InvalidDescriptionError:
        pass


def _name_sites(data):
    """Key paths of every name a file gives: frames' ``j``, legs' ``name``,
    closures' ``name``, the platform's ``dof_names``."""
    sites = [("legs", i, "frames", k, "j") for i, leg in enumerate(data.get("legs", ()))
             for k in range(len(leg["frames"]))]
    sites += [("legs", i, "name") for i in range(len(data.get("legs", ())))]
    sites += [("closures", i, "name") for i, c in enumerate(data.get("closures", ())) if "name" in c]
    sites += [("platform", "dof_names", i)
              for i in range(len(data.get("platform", {}).get("dof_names", ())))]
    return sites


def _names_in_use(data):
    frames = [fr["j"] for leg in data.get("legs", ()) for fr in leg["frames"]]
    return sorted({*frames, *(f"q{j}" for j in frames), *(f"qe{j}_1" for j in frames),
                   *(f"e{j}_1" for j in frames),
                   *data.get("platform", {}).get("dof_names", ()),
                   *(leg["name"] for leg in data.get("legs", ()))})


SITES = [(name, site) for name, data in BASES.items() for site in _name_sites(data)]


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SITES), st.data())
def test_name_collisions_never_crash(where, data):
    """Issue 16 item 6: any name of a file set to another name in use (or to
    the coordinate name of another frame): a Robot or an error, never a
    traceback; a platform coordinate named like another coordinate is
    always refused (NameCollisionError naming both)."""
    from flexpkm.errors import NameCollisionError
    base, path = where
    d = _copy(base)
    value = data.draw(st.sampled_from(_names_in_use(d)))
    _get(d, path[:-1])[path[-1]] = value
    if path[0] == "platform":
        robot_names = files.from_dict(_copy(base)).layout.names
        others = [n for i, n in enumerate(robot_names)
                  if i != len(robot_names) - len(d["platform"]["dof_names"]) + path[-1]]
        if value in others:
            with pytest.raises(NameCollisionError, match=f"'{value}' is given twice"):
                files.from_dict(d, source="fuzz.toml")
            return
    _outcome(d)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.sampled_from(sorted(BASES)), st.integers(10**4, 10**15), st.booleans())
def test_huge_element_counts_are_refused_at_once(base, count, global_key):
    """Issue 16 item 8: a huge ``elements`` (global, or of every beam) is a
    ModelTooLargeError before any frame is made (each example is quick)."""
    from flexpkm.errors import ModelTooLargeError
    d = _copy(base)
    beams = [b for path, node in _containers(d) if isinstance(node, dict)
             and node.get("type") == "beam" for b in [node]]
    if not beams:
        return
    if global_key:
        d["elements"] = count
    else:
        for b in beams:
            b["elements"] = count
    with pytest.raises(ModelTooLargeError, match="dense matrices need about"):
        files.from_dict(d, source="fuzz.toml")


@settings(max_examples=30, deadline=None, derandomize=True)
@given(st.sampled_from(ALL), st.integers(100, 20000), st.sampled_from(["list", "table"]),
       st.data())
def test_deeply_nested_values_never_crash(where, depth, kind, data):
    """A value replaced by ``depth`` nested arrays or tables (from the parsed
    dict and through the TOML text): an error, never a RecursionError."""
    value = 1.0
    for _ in range(depth):
        value = [value] if kind == "list" else {"a": value}
    d = _replaced(where, value, data)
    if d is None:
        return
    out = _outcome(d)
    assert out == "error" or where[1][:1] == ("variants",)   # a variant not applied is unread
    text = 'name = "x"\nlegs = [{name = "1", frames = [{j = "1", sigma = 0}]}]\nq = ' + (
        "[" * depth + "1" + "]" * depth if kind == "list" else "{a = " * depth + "1" + "}" * depth)
    with pytest.raises(InvalidDescriptionError, match="fuzz.toml: "):
        files.loads(text, source="fuzz.toml")
