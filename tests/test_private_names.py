"""No private name crosses a module boundary: a module of the package never
imports a name with a leading underscore from another module of the package,
nor reads one as an attribute of another module (``module._name``). What a
module shares is public and documented there; tests may use private names."""
import ast

from tests.test_layers import module_files


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _module_aliases(tree, modules) -> dict:
    """Local name -> module, for every name bound to one of the package's
    modules (``import a.b as m``, ``from a import b``)."""
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname and a.name in modules:
                    aliases[a.asname] = a.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for a in node.names:
                if f"{node.module}.{a.name}" in modules:
                    aliases[a.asname or a.name] = f"{node.module}.{a.name}"
    return aliases


def _dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id] + parts[::-1]) if isinstance(node, ast.Name) else None


def _own_names(tree) -> set:
    """The names a module defines: functions, classes, assigned names and
    attributes (``self._x = ...``)."""
    own = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            own.add(node.name)
        elif isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Store):
            own.add(node.id if isinstance(node, ast.Name) else node.attr)
    return own


def private_uses(name, path, modules) -> list:
    """``"module uses other._x"`` for each private name of another module
    that module ``name`` (file ``path``) imports or reads, and ``"module uses
    obj._x"`` for a private attribute of an object (not ``self``/``cls``)
    that the module does not define itself (another module's class's)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    aliases, own = _module_aliases(tree, modules), _own_names(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module in modules and node.module != name:
                found += [f"{name} imports {node.module}.{a.name}" for a in node.names
                          if _private(a.name) and f"{node.module}.{a.name}" not in modules]
        elif isinstance(node, ast.Attribute) and _private(node.attr):
            owner = _dotted(node.value)
            if owner is None:
                continue
            head, _, rest = owner.partition(".")
            target = aliases.get(head, head) + (f".{rest}" if rest else "")
            if target in modules and target != name:
                found.append(f"{name} uses {target}.{node.attr}")
            elif target not in modules and head not in ("self", "cls") and node.attr not in own:
                found.append(f"{name} uses {owner}.{node.attr}")
    return found


def test_no_private_name_crosses_modules():
    modules = module_files()
    bad = sorted(set(u for name, path in modules.items() for u in private_uses(name, path, modules)))
    assert not bad, "private names used outside their module:\n" + "\n".join(bad)


def test_private_rule_can_fail(tmp_path):
    """The checker itself: a private import, an alias's private attribute and
    a dotted one are seen; a module's own private names and dunders are not."""
    (tmp_path / "a.py").write_text("_x = 1\n__version__ = '0'\ny = _x\n"
                                   "class A:\n    def f(self, other):\n        self._y = other._y\n")
    (tmp_path / "b.py").write_text(
        "import flexpkm.a\nimport flexpkm.a as m\nfrom flexpkm import a\n"
        "from flexpkm.a import _x, __version__\n"
        "def f(obj):\n    return m._x + a._x + flexpkm.a._x + a.__doc__ + obj._y\n")
    (tmp_path / "__init__.py").write_text("")
    modules = module_files({"flexpkm": tmp_path})
    assert private_uses("flexpkm.a", modules["flexpkm.a"], modules) == []
    assert sorted(private_uses("flexpkm.b", modules["flexpkm.b"], modules)) == [
        "flexpkm.b imports flexpkm.a._x", "flexpkm.b uses flexpkm.a._x",
        "flexpkm.b uses flexpkm.a._x", "flexpkm.b uses flexpkm.a._x", "flexpkm.b uses obj._y"]
