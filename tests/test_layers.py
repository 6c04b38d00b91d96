"""Data flows one way (docs/design.md): a module may import only from its own
layer or from the layers below it, and the import graph of the package's
modules has no circle. Every import statement of the package, including those
inside functions, ``from flexpkm import X`` and relative imports, is parsed;
an upward import or a circle fails."""
import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]
#: package sub-folder (as installed) -> rank; lower ranks never import higher.
#: The package root ``flexpkm`` (``flexpkm/__init__.py``, the front door) is the top.
LAYERS = {"errors": 0, "spatial": 0, "threads": 0, "version": 0, "checksums": 0, "signals": 0, "settings": 0, "datasets": 0, "optional": 0, "stopwatch": 0, "elements": 1, "model": 2,
          "algorithms": 3, "compiled": 3.5, "analysis": 4, "identification": 4, "io": 5, "cases": 6, "cli": 7,
          "__main__": 8}
TOP = 8
#: installed package name -> source folder (pyproject's package-dir)
SOURCES = {"flexpkm": ROOT / "flexpkm", "flexpkm.elements": ROOT / "elements",
           "flexpkm.cases": ROOT / "cases"}


def module_files(sources=None) -> dict:
    """Dotted module name -> its file, for every module of the package."""
    sources = SOURCES if sources is None else sources
    out = {}
    for prefix, folder in sources.items():
        for path in folder.rglob("*.py"):
            rel = path.relative_to(folder).with_suffix("").parts
            if prefix == "flexpkm" and rel[0] in ("elements", "cases"):
                continue                            # installed from their own folders
            out[".".join((prefix,) + (rel[:-1] if rel[-1] == "__init__" else rel))] = path
    return out


def imported_modules(name: str, path: pathlib.Path, modules) -> set:
    """The package's modules that module ``name`` (file ``path``) imports,
    anywhere in its body: ``from a.b import c`` names ``a.b.c`` when that is
    a module, else ``a.b``; relative imports are resolved."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                head = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{head}.{base}" if base else head
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                       for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:   # import a.b.c of a module a.b
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def import_graph(sources=None) -> dict:
    """Module name -> the set of the package's modules it imports."""
    modules = module_files(sources)
    return {name: imported_modules(name, path, modules) for name, path in modules.items()}


def layer_of(name: str):
    parts = name.split(".")
    if parts[0] != "flexpkm":
        return None
    return TOP if len(parts) == 1 else LAYERS.get(parts[1])


def find_cycle(graph):
    """One circle of ``graph`` (a list of names, first == last), or None."""
    state, stack = {}, []

    def visit(v):
        state[v] = "open"
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if state.get(w) == "open":
                return stack[stack.index(w):] + [w]
            if w not in state:
                found = visit(w)
                if found:
                    return found
        state[v] = "done"
        stack.pop()
        return None

    for v in sorted(graph):
        if v not in state:
            found = visit(v)
            if found:
                return found
    return None


def upward_imports(graph) -> list:
    return sorted(f"{a} imports {b}" for a, targets in graph.items() for b in targets
                  if layer_of(b) is not None and layer_of(a) is not None
                  and layer_of(b) > layer_of(a))


def test_no_upward_import():
    bad = upward_imports(import_graph())
    assert not bad, "upward imports:\n" + "\n".join(bad)


def test_no_import_circle():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import circle: " + " -> ".join(cycle)


def test_every_module_has_a_layer():
    for name in module_files():
        assert layer_of(name) is not None, f"{name} has no layer in tests/test_layers.py"


def _planted(tmp_path, files: dict) -> dict:
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return import_graph({"flexpkm": tmp_path})


def test_layer_rule_can_fail(tmp_path):
    """The checker itself: upward imports in a model module are seen, inside a
    function and from the package root (``from flexpkm import __version__``)."""
    graph = _planted(tmp_path, {
        "__init__.py": "__version__ = '0'\n", "cli/__init__.py": "",
        "model/__init__.py": "", "cli/main.py": "def main(): pass\n",
        "model/a.py": "def g():\n    from flexpkm.cli.main import main\n",
        "model/b.py": "from flexpkm import __version__\n",
        "model/c.py": "import flexpkm.model.a\nfrom flexpkm.model import b\nfrom . import a\n"})
    assert upward_imports(graph) == ["flexpkm.model.a imports flexpkm.cli.main",
                                     "flexpkm.model.b imports flexpkm"]
    assert graph["flexpkm.model.c"] == {"flexpkm.model.a", "flexpkm.model.b"}


def test_circle_rule_can_fail(tmp_path):
    """The checker itself: a circle closed by an import inside a function is seen."""
    graph = _planted(tmp_path, {
        "__init__.py": "", "algorithms/__init__.py": "",
        "algorithms/a.py": "from flexpkm.algorithms.b import f\n",
        "algorithms/b.py": "def f():\n    from flexpkm.algorithms import a\n"})
    assert find_cycle(graph) == ["flexpkm.algorithms.a", "flexpkm.algorithms.b",
                                 "flexpkm.algorithms.a"]
