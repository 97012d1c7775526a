"""`python -m quatbake report` and `bake` on a file whose camera is a Transform Cache (USD
and Alembic imports), as a pipeline runs them: subprocesses, exit codes, the JSON, the
saved file. Before issue 21 both said "has no object with rotation keys: nothing to do"
and exited 2."""
import pathlib
import subprocess
import sys

import pytest

from report_schema import load_report

pytestmark = pytest.mark.bpy

ROOT = pathlib.Path(__file__).resolve().parents[2]
TEAPOT = ROOT / "tests" / "data" / "realdata" / "usd" / "teapotScene_camera.usd"

# A camera keyed with an Euler wrap (170 -> -170 deg), exported with Blender's Alembic
# exporter, imported into an emptied scene, beside a plain empty; saved to argv[1].
_BUILD = """
import math, sys, bpy
kind, out, folder = sys.argv[1], sys.argv[2], sys.argv[3]
bpy.ops.wm.read_factory_settings(use_empty=True)
if kind == "abc":
    cam = bpy.data.objects.new("Cam", bpy.data.cameras.new("Cam"))
    bpy.context.scene.collection.objects.link(cam)
    for frame, yaw in ((1, 170), (5, -170), (9, -100)):
        cam.rotation_euler = (math.radians(80), 0, math.radians(yaw))
        cam.keyframe_insert("rotation_euler", frame=frame)
    path = folder + "/cam.abc"
    bpy.ops.wm.alembic_export(filepath=path, start=1, end=9)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.wm.alembic_import(filepath=path)
else:
    bpy.ops.wm.usd_import(filepath=kind)
plain = bpy.data.objects.new("Plain", None)
bpy.context.scene.collection.objects.link(plain)
bpy.ops.wm.save_as_mainfile(filepath=out)
"""

# Prints the baked file's camera: constraint muted, its rotation keys' frames.
_READ = """
import sys, bpy
bpy.ops.wm.open_mainfile(filepath=sys.argv[1])
cam = bpy.data.objects[sys.argv[2]]
from quatbake.addon import animdata
keys = animdata.key_frames(animdata.rotation_fcurves(cam))
print(cam.constraints[0].mute, int(keys[0]), int(keys[-1]), keys.size)
"""

_MUTED = """
import sys, bpy
bpy.ops.wm.open_mainfile(filepath=sys.argv[1])
print(bpy.data.objects[sys.argv[2]].constraints[0].mute)
"""


def run(*args):
    return subprocess.run([sys.executable, "-m", "quatbake", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)


def _python(script: str, *args) -> str:
    done = subprocess.run([sys.executable, "-c", script, *map(str, args)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]   # Blender prints "Read blend: ..." first


def _has(option: str) -> bool:
    import bpy

    return bool(getattr(bpy.app.build_options, option, False))


@pytest.mark.parametrize("kind, camera, samples", [("abc", "Cam", 9), ("usd", "mono", 480)])
def test_report_and_bake_a_cached_camera(tmp_path, kind, camera, samples):
    if not _has("alembic" if kind == "abc" else "usd"):
        pytest.skip(f"this bpy is built without {kind} (bpy.app.build_options)")
    blend = tmp_path / "shot.blend"
    _python(_BUILD, "abc" if kind == "abc" else str(TEAPOT), blend, tmp_path)

    out = tmp_path / "r.json"
    done = run("report", blend, "--json", out)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "nothing to do" not in done.stderr
    assert camera in done.stdout.split()
    report = load_report(out)
    [entry] = report["objects"]
    assert entry["name"] == camera and len(entry["keys"]) == samples
    assert entry["transform_cache"]["sample_times"] == "file"

    baked = tmp_path / "baked.blend"
    done = run("bake", blend, "--objects", camera, "--output", baked)
    assert done.returncode == 0, done.stderr
    assert "Baked 1 object" in done.stdout
    muted, first, last, count = _python(_READ, baked, camera).split()
    assert muted == "True" and count == str(samples)
    assert (int(first), int(last)) == ((1, 9) if kind == "abc" else (0, 479))
    # The input file is untouched: its camera still plays the cache.
    assert _python(_MUTED, blend, camera).strip() == "False"


# Prints the baked camera's rotation and location keys per channel.
_COUNTS = """
import sys, bpy
bpy.ops.wm.open_mainfile(filepath=sys.argv[1])
cam = bpy.data.objects[sys.argv[2]]
from quatbake.addon import animdata
print(len(animdata.rotation_fcurves(cam)[0].keyframe_points),
      len(animdata.location_fcurves(cam)[0].keyframe_points))
"""


def test_a_tolerance_bake_of_the_usd_camera_says_whose_keys_it_counts(tmp_path):
    """A triage: the teapot camera's tolerance bake said "2 keys per channel written"
    beside 480 location keys. The headline calls them the rotation's, and the next line
    gives the location's, each as the saved file holds them."""
    if not _has("usd"):
        pytest.skip("this bpy is built without usd (bpy.app.build_options)")
    blend, baked = tmp_path / "shot.blend", tmp_path / "baked.blend"
    _python(_BUILD, str(TEAPOT), blend, tmp_path)
    done = run("bake", blend, "--objects", "mono", "--output", baked, "--tolerance", "0.5",
               "--keys", "bezier")
    assert done.returncode == 0, done.stderr
    rotation, location = map(int, _python(_COUNTS, baked, "mono").split())
    assert rotation != location
    headline = next(ln for ln in done.stdout.splitlines() if ln.startswith("Baked"))
    assert f": {rotation} rotation keys per channel written," in headline, headline
    assert f"location {location} LINEAR keys per channel" in done.stdout, done.stdout
