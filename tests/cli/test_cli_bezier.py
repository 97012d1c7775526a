"""`python -m quatbake bake --tolerance DEG --keys bezier` (issue 22) as a pipeline runs
it: a subprocess on a saved .blend holding the issue's three scenes, the baked file
played by a fresh Blender process at every quarter frame and compared with scipy's
Slerp of the key orientations."""
import json
import pathlib
import re

import numpy as np
import pytest
from scipy.spatial.transform import Rotation, Slerp

pytestmark = pytest.mark.bpy

from cli_processes import run_python, run_quatbake

ROOT = pathlib.Path(__file__).resolve().parents[2]
KEY_FRAMES = [1.0, 41.0, 81.0, 121.0]
NAMES = ("EulerCam", "QuatCam", "Swing")

# The scenes, keyed as an animator keys (keyframe_insert, Bezier keys).
_BUILD = """
import math, sys, bpy, mathutils
bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
scene.frame_start, scene.frame_end = 1, 121
frames = [1, 41, 81, 121]

def keyed(name, mode, values, camera=True):
    obj = bpy.data.objects.new(name, bpy.data.cameras.new(name) if camera else None)
    scene.collection.objects.link(obj)
    obj.rotation_mode = mode
    path = "rotation_quaternion" if mode == 'QUATERNION' else "rotation_euler"
    for f, v in zip(frames, values):
        setattr(obj, path, v)
        obj.keyframe_insert(path, frame=f)

rad = lambda rows: [[math.radians(a) for a in row] for row in rows]
keyed("EulerCam", 'XYZ', rad([[80, 0, 150], [85, 0, 170], [85, 0, -170], [80, 0, -150]]))
pans = [mathutils.Euler((math.radians(90), 0, math.radians(d)), 'XYZ').to_quaternion()
        for d in (0, 50, 100, 140)]
pans[2].negate()                       # the flipped key
keyed("QuatCam", 'QUATERNION', pans)
keyed("Swing", 'XYZ', rad([[0, 0, 0], [70, 40, 100], [-40, 75, 210], [30, -35, 320]]),
      camera=False)
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[1])
"""

# Per object: the world orientation at the given frames (frame_set with subframes),
# and each rotation channel's key frames and interpolations, from a fresh process.
_READ = """
import json, math, sys, bpy
bpy.ops.wm.open_mainfile(filepath=sys.argv[1])
scene = bpy.context.scene
out = {}
for name in json.loads(sys.argv[3]):
    obj = bpy.data.objects[name]
    quats = []
    for t in json.loads(sys.argv[2]):
        scene.frame_set(int(math.floor(t)), subframe=t - math.floor(t))
        q = obj.matrix_world.to_quaternion()
        quats.append([q.w, q.x, q.y, q.z])
    ad = obj.animation_data
    action = ad.action
    if hasattr(action, "layers"):
        bag = action.layers[0].strips[0].channelbag(ad.action_slot)
        curves = bag.fcurves
    else:
        curves = action.fcurves
    channels = [([kp.co[0] for kp in fc.keyframe_points],
                 [kp.interpolation for kp in fc.keyframe_points])
                for fc in curves if fc.data_path.startswith("rotation")]
    out[name] = {"quats": quats, "channels": channels, "mode": obj.rotation_mode}
print("RESULT" + json.dumps(out))
"""


_python = run_python
_run = run_quatbake


def _read(path, times):
    line = next(ln for ln in _python(_READ, path, json.dumps(list(times)),
                                     json.dumps(NAMES)).splitlines() if ln.startswith("RESULT"))
    return json.loads(line[len("RESULT"):])


@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    path = tmp_path_factory.mktemp("bezier") / "issue22.blend"
    _python(_BUILD, path)
    return path


@pytest.fixture(scope="module")
def key_orientations(scene):
    return {name: np.array(v["quats"]) for name, v in _read(scene, KEY_FRAMES).items()}


def _angle_deg(a, b):
    ra = Rotation.from_quat(np.asarray(a)[:, [1, 2, 3, 0]])
    rb = Rotation.from_quat(np.asarray(b)[:, [1, 2, 3, 0]])
    return np.degrees((ra.inv() * rb).magnitude())


def test_bezier_bake_plays_within_the_tolerance_at_quarter_frames(scene, key_orientations,
                                                                  tmp_path):
    out = tmp_path / "baked.blend"
    done = _run("bake", scene, "--output", out, "--method", "slerp", "--tolerance", "0.01",
                "--keys", "bezier")
    assert done.returncode == 0, done.stderr
    assert "(BEZIER)" in done.stdout
    stats = [ln for ln in done.stdout.splitlines() if "Bezier keys per channel" in ln]
    assert len(stats) == 3 and all("99th percentile" in ln and "100.0% within 0.01 deg" in ln
                                   for ln in stats), done.stdout
    times = np.arange(1.0, 121.125, 0.25)
    played = _read(out, times)
    for name in NAMES:
        keys = Rotation.from_quat(key_orientations[name][:, [1, 2, 3, 0]])
        path = Slerp(KEY_FRAMES, keys)(times).as_quat()[:, [3, 0, 1, 2]]
        # The keys were fitted 1e-4 deg under the tolerance; float32 matrices add ~1e-5.
        err = _angle_deg(played[name]["quats"], path)
        assert err.max() <= 0.01, (name, err.max())
        frames = {tuple(f) for f, _ipo in played[name]["channels"]}
        assert len(frames) == 1, (name, frames)        # every channel on the same frames
        assert set(KEY_FRAMES) <= set(frames.pop())     # the animator's keys kept
        assert all(set(ipo) == {"BEZIER"} for _f, ipo in played[name]["channels"])
    # The headline counts keys, read back from the file (a walk: "29 frames written" for
    # 29 Bezier keys per channel).
    written = sum(len(played[name]["channels"][0][0]) for name in NAMES)
    headline = next(ln for ln in done.stdout.splitlines() if ln.startswith("Baked"))
    assert f": {written} keys per channel written, largest change" in headline, headline


def test_tolerance_alone_still_writes_linear_keys(scene, tmp_path):
    out = tmp_path / "linear.blend"
    done = _run("bake", scene, "--output", out, "--tolerance", "0.1", "--quiet")
    assert done.returncode == 0, done.stderr
    played = _read(out, [1.0])
    for name in NAMES:
        assert all(set(ipo) == {"LINEAR"} for _f, ipo in played[name]["channels"]), name


def test_keys_without_a_tolerance_is_one_sentence_and_writes_nothing(scene, tmp_path):
    out = tmp_path / "never.blend"
    done = _run("bake", scene, "--output", out, "--keys", "bezier")
    assert done.returncode == 2
    lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "--tolerance" in lines[0] and "Traceback" not in done.stderr
    assert not out.exists()


def test_a_pixel_tolerance_thins_the_cameras_only(scene, tmp_path):
    out = tmp_path / "px.blend"
    done = _run("bake", scene, "--output", out, "--tolerance-px", "1", "--keys", "bezier")
    assert done.returncode == 0, done.stderr
    assert "within 1 px on cameras (BEZIER)" in done.stdout
    cams = [ln for ln in done.stdout.splitlines() if "Bezier keys per channel" in ln]
    assert len(cams) == 2 and all("(1 px)" in ln for ln in cams), done.stdout
    played = _read(out, [1.0])
    for name in ("EulerCam", "QuatCam"):
        assert all(len(f) < 121 for f, _ipo in played[name]["channels"]), name
    # Not a camera, and no --tolerance: a key on every frame, as without either option.
    assert all(len(f) == 121 for f, _ipo in played["Swing"]["channels"])


def test_a_pixel_tolerance_no_transform_takes_is_not_claimed(scene, tmp_path):
    """A layout walk: --tolerance-px on an object that is not a camera wrote a key on every
    frame and said "within 1 px on cameras", with no word of why."""
    out = tmp_path / "swing.blend"
    done = _run("bake", scene, "--output", out, "--objects", "Swing", "--tolerance-px", "1")
    assert done.returncode == 0, done.stderr
    headline = next(ln for ln in done.stdout.splitlines() if ln.startswith("Keys per channel"))
    assert "within" not in headline and "applied to none" in headline, headline
    assert 'Camera Tolerance (px) applies to perspective cameras only' in done.stdout
    assert 'Object "Swing" (not a perspective camera)' in done.stdout
    assert all(len(f) == 121 for f, _ipo in _read(out, [1.0])["Swing"]["channels"])


def test_a_tolerance_below_float32_is_not_claimed_and_a_refusal_names_the_option(scene,
                                                                                tmp_path):
    """A layout walk: LINEAR keys at --tolerance 1e-9 read "within 1e-09 deg" beside their
    own note, 12% within; the Bezier refusal of --tolerance-px 1e-9 said "Raise Key
    Tolerance" and printed 1.8354521272550757e-11."""
    done = _run("bake", scene, "--output", tmp_path / "fine.blend", "--objects", "EulerCam",
                "--tolerance", "1e-9")
    assert done.returncode == 0, done.stderr
    headline = next(ln for ln in done.stdout.splitlines() if ln.startswith("Keys per channel"))
    assert "not all within 1e-09 deg" in headline, headline
    assert "its LINEAR keys play up to" in done.stderr and "float32" in done.stderr
    refused = _run("bake", scene, "--output", tmp_path / "px.blend", "--objects", "EulerCam",
                   "--tolerance-px", "1e-9", "--keys", "bezier")
    assert refused.returncode == 2
    assert "--tolerance-px" in refused.stderr and "Raise Key Tolerance" not in refused.stderr
    assert ".)." not in refused.stderr, refused.stderr       # a walk: "...values.). Raise"
    assert not re.search(r"\d\.\d{6,}e", refused.stderr), refused.stderr


def test_a_negative_pixel_tolerance_is_one_sentence(scene, tmp_path):
    done = _run("bake", scene, "--output", tmp_path / "x.blend", "--tolerance-px", "-1")
    assert done.returncode == 2
    lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "--tolerance-px" in lines[0] and "Traceback" not in done.stderr


# ---------------------------------------------------------------- convert

def test_convert_keeps_what_blender_plays_in_a_new_mode(scene, tmp_path):
    times = np.arange(1.0, 121.125, 0.25)
    before = _read(scene, times)
    out = tmp_path / "converted.blend"
    done = _run("convert", scene, "--to", "auto", "--output", out, "--objects", "Swing,QuatCam")
    assert done.returncode == 0, done.stderr
    assert "farthest from gimbal lock" in done.stdout
    after = _read(out, times)
    # The summary names the orders it picked, as the file holds them, not "AUTO".
    summary = next(ln for ln in done.stdout.splitlines() if ln.startswith("Converted"))
    assert "AUTO" not in summary, summary
    for mode in {after[name]["mode"] for name in ("Swing", "QuatCam")}:
        assert mode in summary, (mode, summary)
    for name in ("Swing", "QuatCam"):
        err = _angle_deg(before[name]["quats"], after[name]["quats"])
        assert err.max() <= 0.01, (name, err.max())      # the default tolerance
        frames = {tuple(f) for f, _ipo in after[name]["channels"]}
        assert len(frames) == 1 and len(frames.pop()) <= 121 // 4
    # Not named: left as it was.
    assert before["EulerCam"]["channels"] == after["EulerCam"]["channels"]


def test_convert_with_everything_already_in_the_mode_succeeds_unchanged(scene, tmp_path):
    """A review: a conversion run again on a shot whose transforms were all converted
    already exited 2 ("there is nothing to convert") and wrote no file, so a pipeline that
    converts every shot stopped there. Nothing to do is no failure: exit 0, the copy
    written, its keys those of the file read independently before."""
    times = np.arange(1.0, 121.125, 0.25)
    before = _read(scene, times)
    out = tmp_path / "same.blend"
    done = _run("convert", scene, "--to", "quaternion", "--output", out, "--objects", "QuatCam")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Nothing to convert: each transform is already in "
                                  "QUATERNION"), done.stdout
    assert '"QuatCam" is already in QUATERNION' in done.stderr, done.stderr
    after = _read(out, times)
    assert after["QuatCam"]["channels"] == before["QuatCam"]["channels"]


def test_convert_refuses_an_unknown_mode_in_one_sentence(scene, tmp_path):
    done = _run("convert", scene, "--to", "sideways", "--output", tmp_path / "x.blend")
    assert done.returncode == 2
    lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "--to" in lines[0] and "Traceback" not in done.stderr
    assert not (tmp_path / "x.blend").exists()
