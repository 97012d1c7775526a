"""Add-on enable cost: quatbake.register() / unregister() vs a one-operator add-on.

    python -m benchmarks.bench_register [--smoke]

What a user pays when ticking the add-on on is ``import quatbake`` plus the
first ``register()`` (which imports ``quatbake.addon`` and its modules lazily),
so every run happens in a fresh Python process with the ``bpy`` module already
imported (Blender has it loaded before any add-on). Best of N runs is reported,
for QuatBake and for the peer: a trivial add-on registering one operator with
``register_classes_factory``, the floor any add-on pays.

Target: register() under 50 ms. Registering must not import test-only or
heavy libraries (scipy, numpy-quaternion, mpmath, hypothesis ...): the
extension ships with numpy alone. Exits 1 if it does.
"""
import json
import subprocess
import sys

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


def breakdown(repeats: int) -> dict:
    """Best-of-N milliseconds per add-on submodule import, in registration order."""
    runs = []
    for _ in range(repeats):
        proc = subprocess.run([sys.executable, "-c", BREAKDOWN_CHILD], capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"breakdown child failed:\n{proc.stderr}")
        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    return {key: min(r[key] for r in runs) for key in runs[0]}


def run_once(which: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", CHILD, which], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{which} child failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def best(runs: list, key: str) -> float:
    return min(r[key] for r in runs)


def main(argv: list) -> int:
    smoke = "--smoke" in argv
    repeats = 2 if smoke else 7
    runs = {which: [run_once(which) for _ in range(repeats)] for which in ("quatbake", "peer")}
    q, p = runs["quatbake"], runs["peer"]
    print(f"fresh process each, best of {repeats}; bpy already imported")
    print(f"{'':24} {'quatbake ms':>12} {'peer ms':>9} {'ratio':>7}")
    for key, label in (("import_ms", "import"), ("register_ms", "register() first"),
                       ("unregister_ms", "unregister()"), ("register_warm_ms", "register() again")):
        qb, pb = best(q, key), best(p, key)
        print(f"{label:24} {qb:12.2f} {pb:9.3f} {qb / pb if pb > 0 else float('inf'):7.0f}x")
    enable_ms = min(r["import_ms"] + r["register_ms"] for r in q)
    verdict = "meets" if best(q, "register_ms") < TARGET_REGISTER_MS else "MISSES"
    print(f"import + first register(): {enable_ms:.1f} ms; register() {verdict} the "
          f"{TARGET_REGISTER_MS:.0f} ms target")
    imported = sorted(set(q[0]["imported_by_import"]) | set(q[0]["imported_by_register"]))
    top = sorted({m.split(".")[0] for m in imported})
    print(f"modules imported by import + register(): {len(imported)} (top-level: {', '.join(top)})")
    print("first register(), by add-on submodule (import, best of "
          f"{repeats}): " + ", ".join(f"{k} {v:.1f}" for k, v in breakdown(repeats).items()) + " ms")
    heavy = [m for m in imported if m.split(".")[0] in HEAVY]
    if heavy:
        print(f"heavy or test-only modules imported at enable time: {heavy}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
