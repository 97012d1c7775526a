"""quatbake.core is pure numpy: usable in any pipeline without Blender."""
import subprocess
import sys


def test_importing_core_leaves_bpy_and_mathutils_out():
    code = (
        "import sys, importlib, pkgutil, quatbake.core as c\n"
        "for m in pkgutil.iter_modules(c.__path__):\n"
        "    importlib.import_module('quatbake.core.' + m.name)\n"
        "bad = [n for n in ('bpy', 'mathutils', 'gpu') if n in sys.modules]\n"
        "print(bad)\n"
        "sys.exit(1 if bad else 0)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
