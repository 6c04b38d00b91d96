"""The fast schema check (flexpkm.model.schema_check) says yes exactly when
jsonschema (the independent validator it saves an import of) does."""
import copy
import math
import random
import subprocess
import sys

import jsonschema
import pytest

from flexpkm.cases.shipped import CASES, file_of
from flexpkm.model.files import tomllib
from flexpkm.model.schema import ROBOT
from flexpkm.model.schema_check import KEYWORDS, matches

VALIDATOR = jsonschema.Draft202012Validator(ROBOT)
#: values put in place of a key's value
VALUES = [True, False, 0, 1, -1, 1.0, 2.0, 1.5, math.nan, math.inf, "", "x", "rigid", "3 deg",
          [], [1.0, 2.0, 3.0], [True], [0, 0], {}, {"type": "beam"}, None]


def shipped(name):
    return tomllib.loads(file_of(name).read_text(encoding="utf-8"))


def places(node, found):
    """(container, key) of every value under ``node``."""
    items = node.items() if isinstance(node, dict) else enumerate(node)
    for key, value in items:
        found.append((node, key))
        if isinstance(value, (dict, list)):
            places(value, found)
    return found


def mutated(doc, rng):
    doc = copy.deepcopy(doc)
    container, key = rng.choice(places(doc, []))
    action = rng.randrange(4)
    if action == 0:
        del container[key]
    elif action == 1:
        container[key] = copy.deepcopy(rng.choice(VALUES))
    elif action == 2 and isinstance(container, dict):
        container[rng.choice(["zzz", "type", "name", "shape", "A", "platform", "other"])] = 1
    elif isinstance(container, list):
        container.append(copy.deepcopy(container[key]))      # a repeated item
    return doc


def schema_keywords(schema, found):
    """The keywords of ``schema`` and of every schema inside it."""
    if not isinstance(schema, dict):                # additionalProperties: false
        return found
    found.update(schema)
    for sub in schema.get("properties", {}).values():
        schema_keywords(sub, found)
    for key in ("additionalProperties", "items", "not", "if", "then"):
        schema_keywords(schema.get(key), found)
    for key in ("allOf", "anyOf", "oneOf"):
        for sub in schema.get(key, ()):
            schema_keywords(sub, found)
    return found


def test_the_schema_uses_only_known_keywords():
    assert schema_keywords(ROBOT, set()) == KEYWORDS


@pytest.mark.parametrize("name", CASES)
def test_shipped_files_and_their_mutations_agree_with_jsonschema(name):
    doc = shipped(name)
    assert matches(ROBOT, doc) and VALIDATOR.is_valid(doc)
    rng = random.Random(name)
    verdicts = set()
    for _ in range(20):
        bad = mutated(doc, rng)
        expected = VALIDATOR.is_valid(bad)
        assert matches(ROBOT, bad) == expected, bad
        verdicts.add(expected)
    assert verdicts == {True, False}                # both sides exercised


@pytest.mark.parametrize("path, value, valid", [
    (("legs", 0, "frames", 0, "sigma"), True, False),       # true is not 1
    (("legs", 0, "frames", 0, "sigma"), 1.0, True),         # 1.0 equals 1
    (("format",), True, False), (("format",), 1, True),
    (("elements",), 2.0, True), (("elements",), True, False), (("elements",), 0, False),
    (("elements",), math.nan, False), (("gravity",), [0, 0, True], False),
    (("legs", 0, "name"), 3, False), (("legs", 0, "frames", 0, "j"), "", False),
])
def test_json_semantics(path, value, valid):
    doc = shipped("five_bar")
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    assert VALIDATOR.is_valid(doc) is valid
    assert matches(ROBOT, doc) is valid


def test_an_unknown_keyword_leaves_the_decision_to_jsonschema():
    assert not matches({"type": "object", "patternProperties": {}}, {})
    assert not matches({"not": {"format": "date"}}, "x")
    assert matches({"not": {"type": "string"}}, 1)


def test_a_valid_file_does_not_import_jsonschema():
    code = ("import sys; from flexpkm.model.files import load; from flexpkm.cases.shipped "
            "import file_of; load(file_of('dualemps')); "
            "assert 'jsonschema' not in sys.modules, 'jsonschema imported'")
    subprocess.run([sys.executable, "-c", code], check=True)
