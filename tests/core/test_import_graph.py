"""Imports flow one way.

1. No module of the package imports, directly or through others, a module that
   imports it back (function-level imports included). A cycle is how two jobs end
   up tangled in two modules: the shared piece belongs one floor down.
2. The layers of CONTRIBUTING.md "Layout": core, then report, then the add-on's
   storage layer, then ui, then the features, then the command line. A module
   imports only from its own layer or the ones below (function-level imports
   included), and inside the features, analyze sits below bake (the bake's
   operator refreshes the analysis) and nothing else imports another feature.
"""
import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGES = ("core", "addon", "report")

# Layer of each top-level part (longest prefix wins); higher may import lower.
LAYERS = {
    "quatbake.core": 0,
    "quatbake.report": 1,
    "quatbake.addon.animdata": 2,
    "quatbake.addon.transform": 2,
    "quatbake.addon.record": 2,
    "quatbake.addon.keyed": 2,
    "quatbake.addon.lazy": 2,
    "quatbake.addon.versions": 2,
    "quatbake.addon.overrides": 2,  # the bake record of a library override, kept  # the releases' differences: imports bpy only
    "quatbake.addon.ui": 3,
    "quatbake.addon.analyze": 4,
    "quatbake.addon.overlay": 4,
    "quatbake.addon.export_check": 4,
    "quatbake.addon.demo": 4,
    "quatbake.addon.bake": 5,
    "quatbake.addon.cli": 6,
    "quatbake.addon": 7,       # addon/__init__: the registration list
    "quatbake": 8,             # the package's own __init__ (register, bl_info)
}
# Features of one layer are independent rooms: none imports another.
FEATURES = ("quatbake.addon.analyze", "quatbake.addon.overlay", "quatbake.addon.export_check",
            "quatbake.addon.demo")


def _module_name(path: pathlib.Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(["quatbake", *parts])


def _imports(path: pathlib.Path, name: str, known: set) -> set:
    is_pkg = path.name == "__init__.py"
    package = name if is_pkg else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            # ``from PKG import mod`` depends on PKG.mod; ``from PKG import name`` on PKG.
            candidates = [f"{target}.{a.name}" if f"{target}.{a.name}" in known else target
                          for a in node.names]
        elif isinstance(node, ast.Import):
            candidates = [a.name for a in node.names]
        else:
            continue
        found.update(c for c in candidates if c in known and c != name)
    return found


def _graph() -> dict:
    files = [ROOT / "__init__.py"] + [p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")]
    names = {_module_name(p): p for p in files}
    return {n: _imports(p, n, set(names)) for n, p in names.items()}


def _part(module: str) -> str:
    return max((p for p in LAYERS if module == p or module.startswith(p + ".")), key=len)


def _cycles(graph: dict) -> list:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def _without_own_package_inits(graph: dict) -> dict:
    # For the layers only: package __init__ files import their submodules (names
    # forwarded), so edges into a module's own package (its direct parent) are left out.
    # Not an ancestor's: a review found that hid the command line importing the package
    # root. Not for the cycles either: it hid animdata.read and animdata.turn_inputs
    # importing each other, one of them through the package.
    return {mod: {t for t in targets if t != mod.rsplit(".", 1)[0]}
            for mod, targets in graph.items()}


# Upward on purpose: the command line registers the add-on (operators and properties)
# in a Blender that has not, as enabling it in the interface would.
_REGISTRATION = {("quatbake.addon.cli.scenes", "quatbake")}


def test_no_import_cycles_in_the_package():
    assert _cycles(_graph()) == []


def test_the_checker_sees_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def _layer_breaks(graph: dict) -> list:
    breaks = []
    for mod, targets in graph.items():
        mine = _part(mod)
        for target in targets:
            theirs = _part(target)
            if theirs == mine:
                continue
            upward = LAYERS[theirs] > LAYERS[mine]
            sideways = mine in FEATURES and theirs in FEATURES
            if (upward or sideways) and (mod, target) not in _REGISTRATION:
                breaks.append(f"{mod} imports {target}")
    return sorted(breaks)


def test_every_import_goes_down_the_layers():
    assert _layer_breaks(_without_own_package_inits(_graph())) == []


def test_every_module_has_a_layer():
    graph = _graph()
    assert all(_part(m) for m in graph)
    assert {_part(m) for m in graph} == set(LAYERS)


def test_the_layer_check_sees_an_upward_and_a_sideways_import():
    graph = {"quatbake.addon.ui.props": {"quatbake.addon.overlay.draw"},
             "quatbake.addon.overlay.geometry": {"quatbake.addon.analyze.entries"},
             "quatbake.addon.bake.ops": {"quatbake.addon.analyze.entries"}}
    assert _layer_breaks(graph) == [
        "quatbake.addon.overlay.geometry imports quatbake.addon.analyze.entries",
        "quatbake.addon.ui.props imports quatbake.addon.overlay.draw",
    ]


# The one comparison of bpy.app.version outside addon/versions.py that is no difference
# between releases: a file saved by a newer Blender than the one reading it.
_NOT_A_RELEASE_DIFFERENCE = {"addon/cli/scenes.py"}


def test_release_differences_live_in_addon_versions():
    """CONTRIBUTING.md: the add-on owns every version difference in one place. A review
    found ten checks of bpy.app.version spread over the overlay, the fonts, the writer,
    the presets and the command line."""
    found = []
    for path in (ROOT / "addon").rglob("*.py"):
        rel = path.relative_to(ROOT).as_posix()
        if rel in ("addon/versions.py", *_NOT_A_RELEASE_DIFFERENCE):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and ast.unparse(node) == "bpy.app.version":
                found.append(f"{rel}:{node.lineno}")
    assert found == [], found

