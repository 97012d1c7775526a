"""The command line and bpy scripts run as processes, as a user or a farm runs them
(tests/cli): from the repository's folder, with the interpreter running the tests."""
from __future__ import annotations

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def run_quatbake(*args) -> subprocess.CompletedProcess:
    """``python -m quatbake ARGS``; the caller checks its exit code."""
    return subprocess.run([sys.executable, "-m", "quatbake", *map(str, args)],
                          check=False, capture_output=True, text=True, cwd=ROOT, timeout=300)


def run_python(code: str, *args) -> str:
    """The standard output of ``python -c CODE ARGS``, which must succeed."""
    done = subprocess.run([sys.executable, "-c", code, *map(str, args)], check=False,
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return done.stdout


_IMPORT_BVH_AS_OBJECTS = """
import sys, bpy
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_anim.bvh(filepath=sys.argv[1], target='OBJECT')
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[2])
"""


def import_bvh_as_objects(bvh, blend) -> None:
    """Save ``blend``: a new scene with ``bvh`` imported by Blender's own importer as
    objects (one empty per joint), in a process as a user's Blender would."""
    run_python(_IMPORT_BVH_AS_OBJECTS, bvh, blend)
