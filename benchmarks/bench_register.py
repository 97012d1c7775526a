"""Add-on enable cost: quatbake.register() / unregister() vs a one-operator add-on.

    python -m benchmarks.bench_register [--smoke]

What a user pays when ticking the add-on on is ``import quatbake`` plus the
first ``register()`` (which imports ``quatbake.addon`` and its modules lazily),
so every run happens in a fresh Python process with the ``bpy`` module already
imported (Blender has it loaded before any add-on), once with a bytecode cache
(every start after the first) and once compiling the sources (the very first
enable). Best of N runs is reported, for QuatBake and for the peer: a trivial
add-on registering one operator with ``register_classes_factory``, the floor
any add-on pays.

Target: register() under 50 ms. Registering must not import test-only or
heavy libraries (scipy, numpy-quaternion, mpmath, hypothesis ...): the
extension ships with numpy alone. Exits 1 if it does.
"""
import json
import os
import subprocess
import sys
import tempfile

TARGET_REGISTER_MS = 50.0
HEAVY = ("scipy", "quaternion", "mpmath", "hypothesis", "pytest", "matplotlib", "pandas", "PIL")

# Runs in a fresh interpreter; prints one JSON line.
CHILD = r'''
import json, sys, time
import bpy  # loaded before any add-on, as in Blender; not part of the timing

which = sys.argv[1]
before = set(sys.modules)
t0 = time.perf_counter()
if which == "quatbake":
    import quatbake as addon
else:
    class PEER_OT_hello(bpy.types.Operator):
        """Say hello"""
        bl_idname = "peer.hello"
        bl_label = "Hello"

        def execute(self, context):
            return {'FINISHED'}

    class addon:  # a module-like namespace, as a one-file add-on would have
        register, unregister = bpy.utils.register_classes_factory((PEER_OT_hello,))
t1 = time.perf_counter()
after_import = set(sys.modules)
addon.register()
t2 = time.perf_counter()
after_register = set(sys.modules)
addon.unregister()
t3 = time.perf_counter()
addon.register()  # again, modules already imported: the pure registration cost
t4 = time.perf_counter()
addon.unregister()
print(json.dumps({
    "import_ms": (t1 - t0) * 1e3,
    "register_ms": (t2 - t1) * 1e3,
    "unregister_ms": (t3 - t2) * 1e3,
    "register_warm_ms": (t4 - t3) * 1e3,
    "imported_by_import": sorted(after_import - before),
    "imported_by_register": sorted(after_register - after_import),
}))
'''


# Where the first register() goes: each add-on submodule imported in registration
# order (what it pulls in first is charged to it), then the registration itself.
BREAKDOWN_CHILD = r'''
import importlib, json, time
import bpy
import quatbake
from quatbake import addon
out = {}
for name in addon._MODULE_NAMES:
    t0 = time.perf_counter()
    importlib.import_module("quatbake.addon." + name)
    out[name] = (time.perf_counter() - t0) * 1e3
t0 = time.perf_counter()
quatbake.register()
out["(register calls)"] = (time.perf_counter() - t0) * 1e3
quatbake.unregister()
print(json.dumps(out))
'''


def child_env(bytecode_cache: str | None) -> dict:
    """Environment for a child: compile every time (None) or use a bytecode cache dir.

    Blender writes ``__pycache__`` for add-ons, so after the first start a user
    loads bytecode; the very first enable compiles the sources. This machine sets
    PYTHONDONTWRITEBYTECODE=1, which would make every run the compiling kind, so
    both cases are set explicitly (the cache lives in a temp dir, not the repo).
    """
    env = dict(os.environ)
    if bytecode_cache is None:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPYCACHEPREFIX", None)
    else:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = bytecode_cache
    return env


def run_child(code: str, args: list, env: dict) -> dict:
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"benchmark child failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def best(runs: list, key: str) -> float:
    return min(r[key] for r in runs)


def report(title: str, repeats: int, env: dict) -> tuple:
    """Time QuatBake and the peer; returns (best first register() ms, one QuatBake run)."""
    q = [run_child(CHILD, ["quatbake"], env) for _ in range(repeats)]
    p = [run_child(CHILD, ["peer"], env) for _ in range(repeats)]
    parts = [run_child(BREAKDOWN_CHILD, [], env) for _ in range(repeats)]
    print(f"\n{title} (fresh process each, best of {repeats}; bpy already imported)")
    print(f"{'':24} {'quatbake ms':>12} {'peer ms':>9} {'ratio':>7}")
    for key, label in (("import_ms", "import"), ("register_ms", "register() first"),
                       ("unregister_ms", "unregister()"), ("register_warm_ms", "register() again")):
        qb, pb = best(q, key), best(p, key)
        print(f"{label:24} {qb:12.2f} {pb:9.3f} {qb / pb if pb > 0 else float('inf'):7.0f}x")
    print("first register() by add-on submodule import: "
          + ", ".join(f"{k} {best(parts, k):.1f}" for k in parts[0]) + " ms")
    return best(q, "register_ms"), q[0]


def main(argv: list) -> int:
    smoke = "--smoke" in argv
    repeats = 2 if smoke else 7
    with tempfile.TemporaryDirectory(prefix="quatbake-pycache-") as cache:
        cached_env = child_env(cache)
        run_child(CHILD, ["quatbake"], cached_env)  # fills the bytecode cache
        warm_ms, sample = report("Bytecode cached (every Blender start after the first)",
                                 repeats, cached_env)
    cold_ms, _ = report("Compiling the sources (the very first enable after install)",
                        repeats, child_env(None))
    verdict = "meets" if warm_ms < TARGET_REGISTER_MS else "MISSES"
    print(f"\nregister() {warm_ms:.1f} ms with bytecode, {cold_ms:.1f} ms compiling: {verdict} "
          f"the {TARGET_REGISTER_MS:.0f} ms target (judged with bytecode, the usual case)")
    imported = sorted(set(sample["imported_by_import"]) | set(sample["imported_by_register"]))
    top = sorted({m.split(".")[0] for m in imported})
    print(f"modules imported by import + register(): {len(imported)} (top-level: {', '.join(top)})")
    heavy = [m for m in imported if m.split(".")[0] in HEAVY]
    if heavy:
        print(f"heavy or test-only modules imported at enable time: {heavy}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
