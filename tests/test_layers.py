"""Data flows one way (docs/design.md): a module may import only from its own
layer or from the layers below it. Every import statement of the package,
including those inside functions, is parsed; an upward import fails."""
import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]
#: package sub-folder (as installed) -> rank; lower ranks never import higher
LAYERS = {"errors": 0, "spatial": 0, "threads": 0, "elements": 1, "model": 2,
          "algorithms": 3, "compiled": 3.5, "analysis": 4, "io": 5, "cases": 6, "cli": 7}
SOURCES = {"flexpkm": ROOT / "flexpkm", "elements": ROOT / "elements", "cases": ROOT / "cases"}


def _layer_of_module(name: str):
    parts = name.split(".")
    if parts[0] != "flexpkm" or len(parts) < 2:
        return None
    return LAYERS.get(parts[1])


def _layer_of_file(top: str, path: pathlib.Path):
    if top != "flexpkm":
        return LAYERS[top]
    rel = path.relative_to(SOURCES["flexpkm"]).parts
    return LAYERS.get(rel[0].removesuffix(".py"))


def _imports(path: pathlib.Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
            yield from (f"{node.module}.{a.name}" for a in node.names)


def test_no_upward_import():
    bad = []
    for top, folder in SOURCES.items():
        for path in folder.rglob("*.py"):
            own = _layer_of_file(top, path)
            if own is None:                 # flexpkm/__init__.py, __main__.py: the front door
                continue
            for name in _imports(path):
                other = _layer_of_module(name)
                if other is not None and other > own:
                    bad.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not bad, "upward imports:\n" + "\n".join(sorted(set(bad)))


def test_every_module_has_a_layer():
    for path in SOURCES["flexpkm"].iterdir():
        if path.name.startswith("__") or path.name.endswith((".pyc",)) or path.name == "__pycache__":
            continue
        assert path.name.removesuffix(".py") in LAYERS, f"{path.name} has no layer in tests/test_layers.py"


def test_layer_rule_can_fail(tmp_path):
    """The checker itself: an upward import in a model module is seen."""
    f = tmp_path / "bad.py"
    f.write_text("def g():\n    from flexpkm.cli import main\n")
    assert any(_layer_of_module(n) == LAYERS["cli"] for n in _imports(f))
