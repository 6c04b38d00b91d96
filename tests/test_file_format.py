"""docs/file-format.md, the reference of the description file, against the
schema it is generated from (flexpkm/model/schema.py, issue 22 item 6): the
page is up to date, every table of the schema is one section of the page
with exactly its keys, every key's required mark is the schema's, and every
example on the page is valid TOML that the schema accepts for that key."""
import importlib.util
import re
from pathlib import Path

import jsonschema
import pytest

from flexpkm.model import schema

try:
    import tomllib
except ModuleNotFoundError:        # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "file-format.md"


def generator():
    spec = importlib.util.spec_from_file_location("file_format",
                                                  ROOT / "docs" / "scripts" / "file_format.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def schema_tables(node, out):
    """Every object of the schema with keys (found by a plain recursion, not
    the generator's walk): id -> the object. The ``if`` clauses of the
    body types are conditions, not tables."""
    if isinstance(node, dict):
        if "properties" in node:
            out[id(node)] = node
        for key, value in node.items():
            if key != "if":
                schema_tables(value, out)
    elif isinstance(node, list):
        for value in node:
            schema_tables(value, out)
    return out


def page_sections() -> dict:
    """Section title -> {key: (required, example)} of the page's tables."""
    out, title = {}, None
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            title = line[3:]
        row = re.match(r"^\| `(\w+)` \|(.*)\|$", line)
        if row and title is not None:
            cells = [c.strip() for c in row.group(2).split(" | ")]
            out.setdefault(title, {})[row.group(1)] = (cells[1] == "yes", cells[-1])
    return out


def test_the_page_is_generated_from_the_current_schema():
    assert PAGE.read_text(encoding="utf-8") == generator().render(), \
        "run: python docs/scripts/file_format.py"


def test_every_schema_table_is_a_section_with_exactly_its_keys():
    sections = page_sections()
    tables = schema_tables(schema.ROBOT, {})
    key_sets = {title: set(rows) for title, rows in sections.items()}
    assert len(tables) == len(sections), (len(tables), sorted(sections))
    for table in tables.values():
        matches = [t for t, keys in key_sets.items() if keys == set(table["properties"])]
        assert matches, f"no section lists the keys {sorted(table['properties'])}"
        required = {k for k, (req, _) in sections[matches[0]].items() if req}
        assert required == set(table.get("required", ())), matches[0]


def test_every_key_of_the_schema_is_on_the_page():
    text = PAGE.read_text(encoding="utf-8")
    for table in schema_tables(schema.ROBOT, {}).values():
        for key in table["properties"]:
            assert f"| `{key}` |" in text, key


@pytest.mark.parametrize("title", sorted(page_sections()))
def test_the_examples_are_toml_the_schema_accepts(title):
    """Each example ``key = value`` parses and validates against that key's
    sub-schema (the table found by its keys)."""
    rows = page_sections()[title]
    table = next(t for t in schema_tables(schema.ROBOT, {}).values()
                 if set(t["properties"]) == set(rows))
    for key, (_, example) in rows.items():
        if not example.startswith("`"):
            continue                  # "(array of tables)": shown in the tutorial's file
        value = tomllib.loads(example.strip("`"))[key]
        jsonschema.validate(value, table["properties"][key])
