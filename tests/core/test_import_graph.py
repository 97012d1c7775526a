"""Imports flow one way: no module of the package imports, directly or through
others, a module that imports it back (function-level imports included).

A cycle is how two jobs end up tangled in two modules: the shared piece
belongs one floor down (as addon/headless.py is for cli and demo).
"""
import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGES = ("core", "addon", "report")


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
            candidates = [target] + [f"{target}.{a.name}" for a in node.names]
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


def test_no_import_cycles_in_the_package():
    graph = _graph()
    # Package __init__ files import their submodules (register()); a submodule
    # importing its own package's __init__ for a name is fine, so edges into a
    # package's own __init__ from inside it are left out.
    for mod, targets in graph.items():
        graph[mod] = {t for t in targets if not mod.startswith(t + ".")}
    assert _cycles(graph) == []


def test_the_checker_sees_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []
