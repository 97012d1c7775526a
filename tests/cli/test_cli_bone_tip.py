"""`bake --tolerance-tip DIST` and `batch bake ... --tolerance-tip DIST --keys bezier`
(issue 22) as a pipeline runs them: subprocesses on a saved .blend with a rig, the baked
file played by a fresh Blender process at every quarter frame (frame_set, each bone's
tail in world space) and compared with scipy's Slerp of the keys on the rest pose."""
import json
import math
import pathlib

import numpy as np
import pytest
from scipy.spatial.transform import Rotation, Slerp

from report_schema import load_batch

pytestmark = pytest.mark.bpy

from cli_processes import run_python, run_quatbake

ROOT = pathlib.Path(__file__).resolve().parents[2]
KEY_FRAMES = [1.0, 14.0, 29.0, 41.0]
TIMES = np.arange(1.0, 41.0 + 1e-9, 0.25)
LENGTH = 2.0
SCALE = (1.5, 0.5, 1.0)
# Key orientations (axis, degrees) of the bone "Arm", keyed as quaternions.
TURNS = [((0, 0, 1), 0.0), ((1, 0, 0), 80.0), ((0.3, 1.0, 0.2), 150.0),
         ((0.2, -0.4, 1.0), 95.0)]
# Blender's float32 matrices and tails of a few units: well under 1e-5 scene units.
FLOAT_TOL = 1e-5

_BUILD = """
import json, sys, bpy
bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
scene.frame_start, scene.frame_end = 1, 41
arm = bpy.data.armatures.new("Rig")
rig = bpy.data.objects.new("Rig", arm)
scene.collection.objects.link(rig)
bpy.context.view_layer.objects.active = rig
bpy.ops.object.mode_set(mode='EDIT')
eb = arm.edit_bones.new("Arm")
eb.head, eb.tail = (0, 0, 0), (0, float(sys.argv[2]), 0)
bpy.ops.object.mode_set(mode='OBJECT')
rig.scale = json.loads(sys.argv[3])
pb = rig.pose.bones["Arm"]
pb.rotation_mode = 'QUATERNION'
for f, q in zip(json.loads(sys.argv[4]), json.loads(sys.argv[5])):
    pb.rotation_quaternion = q
    pb.keyframe_insert("rotation_quaternion", frame=f)
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[1])
"""

# World tails of "Arm" at the given times, its rest matrix and the armature's world
# matrix, and its rotation channels' key frames and interpolations.
_READ = """
import json, math, sys, bpy
bpy.ops.wm.open_mainfile(filepath=sys.argv[1])
scene = bpy.context.scene
rig = bpy.data.objects["Rig"]
tails = []
for t in json.loads(sys.argv[2]):
    scene.frame_set(int(math.floor(t)), subframe=t - math.floor(t))
    tails.append(list(rig.matrix_world @ rig.pose.bones["Arm"].tail))
ad = rig.animation_data
action = ad.action
if hasattr(action, "layers"):
    curves = action.layers[0].strips[0].channelbag(ad.action_slot).fcurves
else:
    curves = action.fcurves
channels = [([kp.co[0] for kp in fc.keyframe_points],
             [kp.interpolation for kp in fc.keyframe_points])
            for fc in curves if ".rotation" in fc.data_path]
print("RESULT" + json.dumps({
    "tails": tails, "channels": channels,
    "rest": [list(r) for r in rig.data.bones["Arm"].matrix_local],
    "world": [list(r) for r in rig.matrix_world]}))
"""


def _key_quats():
    out = []
    for axis, deg in TURNS:
        axis = np.asarray(axis, float) / np.linalg.norm(axis)
        half = math.radians(deg) / 2.0
        out.append([math.cos(half), *(axis * math.sin(half))])
    return out


_python = run_python
_run = run_quatbake


def _read(path):
    out = _python(_READ, path, json.dumps(TIMES.tolist()))
    return json.loads(next(ln for ln in out.splitlines()
                           if ln.startswith("RESULT"))[len("RESULT"):])


@pytest.fixture(scope="module")
def shot(tmp_path_factory):
    path = tmp_path_factory.mktemp("bone_tip") / "rig.blend"
    _python(_BUILD, path, LENGTH, json.dumps(SCALE), json.dumps(KEY_FRAMES),
            json.dumps(_key_quats()))
    return path


def _tip_errors(played):
    """Distance (len(TIMES),) of each played tail from scipy's Slerp of the keys."""
    rest, world = np.array(played["rest"]), np.array(played["world"])
    keys = Rotation.from_quat(np.array(_key_quats())[:, [1, 2, 3, 0]])
    local = Slerp(KEY_FRAMES, keys)(TIMES).as_matrix() @ np.array([0.0, LENGTH, 0.0])
    arm = local @ rest[:3, :3].T + rest[:3, 3]
    expected = arm @ world[:3, :3].T + world[:3, 3]
    return np.linalg.norm(np.array(played["tails"]) - expected, axis=1)


def _one_line(done):
    lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    return lines[0]


def test_bake_tolerance_tip_keeps_the_tip_within_the_distance(shot, tmp_path):
    out = tmp_path / "baked.blend"
    dist = 0.0002
    done = _run("bake", shot, "--output", out, "--tolerance-tip", dist, "--keys", "bezier")
    assert done.returncode == 0, done.stderr
    assert "within 0.0002 scene units at bone tips (BEZIER)" in done.stdout
    tip_deg = math.degrees(dist / (LENGTH * max(SCALE)))
    assert f"within {tip_deg:.3g} deg (0.0002 scene units at the bone's tip)" in done.stdout
    played = _read(out)
    assert _tip_errors(played).max() <= dist + FLOAT_TOL
    frames = {tuple(f) for f, _ipo in played["channels"]}
    assert len(frames) == 1 and len(frames.pop()) < 41
    assert all(set(ipo) == {"BEZIER"} for _f, ipo in played["channels"])


def test_a_negative_distance_is_one_sentence_and_writes_nothing(shot, tmp_path):
    out = tmp_path / "never.blend"
    done = _run("bake", shot, "--output", out, "--tolerance-tip", "-0.01")
    assert done.returncode == 2
    line = _one_line(done)
    assert "--tolerance-tip" in line and "finite distance >= 0 scene units" in line, line
    assert not out.exists()


def test_keys_bezier_with_only_a_tip_tolerance_is_a_tolerance_bake(shot, tmp_path):
    # --keys needs a tolerance; --tolerance-tip is one (no exit 2 for it).
    done = _run("bake", shot, "--output", tmp_path / "x.blend", "--tolerance-tip", "0.01",
                "--keys", "linear", "--quiet")
    assert done.returncode == 0, done.stderr
    played = _read(tmp_path / "x.blend")
    assert all(set(ipo) == {"LINEAR"} for _f, ipo in played["channels"])


def test_batch_bake_passes_keys_and_the_tip_tolerance_to_every_shot(shot, tmp_path):
    out = tmp_path / "out"
    dist = 0.0002
    done = _run("batch", "bake", shot, "--out", out, "--jobs", "0", "--quiet",
                "--tolerance-tip", dist, "--keys", "bezier")
    assert done.returncode == 0, done.stderr
    summary = load_batch(out / "summary.json")
    assert summary["options"]["keys"] == "bezier"
    assert summary["options"]["tolerance_tip"] == dist
    (record,) = summary["shots"]
    assert record["status"] == "ok", record
    played = _read(out / record["outputs"]["blend"])
    # Bezier keys, not the command line's default LINEAR: --keys reached the shot.
    assert all(set(ipo) == {"BEZIER"} for _f, ipo in played["channels"])
    assert _tip_errors(played).max() <= dist + FLOAT_TOL
    assert all(len(f) < 41 for f, _ipo in played["channels"])


def test_batch_refuses_keys_without_a_tolerance_in_one_sentence(shot, tmp_path):
    out = tmp_path / "none"
    done = _run("batch", "bake", shot, "--out", out, "--jobs", "0", "--keys", "bezier")
    assert done.returncode == 2
    assert "--keys bezier" in _one_line(done)
    assert not (out / "summary.json").exists()
