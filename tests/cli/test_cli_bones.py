"""`python -m quatbake` on an armature, as a pipeline runs it: a subprocess with the
venv's python (bpy module) on a .blend saved by plain bpy calls, exit codes, rows per
bone, and the baked file played back by a second plain-bpy process."""
import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest
from scipy.spatial.transform import Rotation, Slerp

from report_schema import load_report

pytestmark = pytest.mark.bpy

ROOT = pathlib.Path(__file__).resolve().parents[2]
NAMED = 'arm["L"].001 Hüfte'
H = float(np.sqrt(0.5))
# spine: the second interval's key is stored with its sign flipped (dot < 0): Blender's
# per-channel playback turns the long way between frames 11 and 21.
SPINE_KEYS = ([1, 11, 21], [[1, 0, 0, 0], [H, H, 0, 0], [-0.0, -1, 0, 0]])

# Plain bpy, no QuatBake: an armature with three bones, keyed by keyframe_insert.
_BUILD = f"""
import sys, math, bpy
bpy.ops.wm.read_factory_settings(use_empty=True)
arm = bpy.data.armatures.new("Rig")
rig = bpy.data.objects.new("Rig", arm)
bpy.context.scene.collection.objects.link(rig)
bpy.context.view_layer.objects.active = rig
bpy.ops.object.mode_set(mode='EDIT')
for name, parent, head, tail in (("spine", None, (0, 0, 0), (0, 0, 1)),
                                 ({NAMED!r}, "spine", (0, 0, 1), (1, 0, 1)),
                                 ("neck", "spine", (0, 0, 1), (0, 0, 2))):
    eb = arm.edit_bones.new(name)
    eb.head, eb.tail = head, tail
    if parent:
        eb.parent = arm.edit_bones[parent]
bpy.ops.object.mode_set(mode='OBJECT')
frames, values = {SPINE_KEYS!r}
spine = rig.pose.bones["spine"]
for f, q in zip(frames, values):
    spine.rotation_quaternion = q
    spine.keyframe_insert("rotation_quaternion", frame=f)
hip = rig.pose.bones[{NAMED!r}]
hip.rotation_mode = 'XYZ'
for f, z in ((1, 170.0), (11, -170.0)):
    hip.rotation_euler = (0.0, 0.0, math.radians(z))
    hip.keyframe_insert("rotation_euler", frame=f)
bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, 21
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[1])
"""

# Plain bpy again: what the baked file plays, bone by bone, frame by frame.
_PLAY = """
import sys, json, bpy
bpy.ops.wm.open_mainfile(filepath=sys.argv[1])
rig = bpy.data.objects["Rig"]
out = {}
for name in sys.argv[2:]:
    rows = []
    for f in range(1, 22):
        bpy.context.scene.frame_set(f)
        rows.append(list(rig.pose.bones[name].matrix_basis.to_quaternion()))
    out[name] = rows
print("PLAYED" + json.dumps(out))
"""


def run(*args):
    return subprocess.run([sys.executable, "-m", "quatbake", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)


def played(path, *bones):
    done = subprocess.run([sys.executable, "-c", _PLAY, str(path), *bones],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("PLAYED"))
    return {k: np.array(v) for k, v in json.loads(line[len("PLAYED"):]).items()}


def angle_rad(a, b):
    dot = np.abs(np.einsum("ij,ij->i", a, b)) / (np.linalg.norm(a, axis=1)
                                                 * np.linalg.norm(b, axis=1))
    return 2.0 * np.arccos(np.clip(dot, 0.0, 1.0))


@pytest.fixture(scope="module")
def rig_blend(tmp_path_factory):
    path = tmp_path_factory.mktemp("rig") / "rig.blend"
    done = subprocess.run([sys.executable, "-c", _BUILD, str(path)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return path


def test_report_has_a_row_per_bone_with_the_flipped_key_as_a_long_arc(rig_blend, tmp_path):
    js = tmp_path / "r.json"
    res = run("report", rig_blend, "--bones", f"Rig:spine,{NAMED}", "--json", js)
    assert res.returncode == 0, res.stderr
    rows = {(o["name"], o["bone"]): o for o in load_report(js)["objects"]}
    assert sorted(rows) == [("Rig", NAMED), ("Rig", "spine")]
    assert rows[("Rig", "spine")]["long_arc_segments"] == [[11, 21]]
    assert rows[("Rig", NAMED)]["long_arc_segments"] == [[1, 11]]     # 170 -> -170 deg


def test_bake_of_one_bone_plays_slerp_and_leaves_the_others_as_they_were(rig_blend, tmp_path):
    out = tmp_path / "baked.blend"
    res = run("bake", rig_blend, "--output", out, "--bones", "Rig:spine")
    assert res.returncode == 0, res.stderr
    assert 'Baked 1 bone of "Rig"' in res.stdout, res.stdout
    before, after = played(rig_blend, "spine", NAMED, "neck"), played(out, "spine", NAMED,
                                                                        "neck")
    # The oracle: scipy's slerp of the keyed orientations (the short arc each interval).
    frames, values = SPINE_KEYS
    keys = Rotation.from_quat(np.roll(np.array(values, dtype=float), -1, axis=1))
    expected = np.roll(Slerp(frames, keys)(np.arange(1, 22)).as_quat(), 1, axis=1)
    # Float32 keys and a float32 bone matrix: the 2e-6 rad.
    assert angle_rad(after["spine"], expected).max() < 2e-6
    assert angle_rad(before["spine"], expected).max() > 0.5     # it did take the long way
    for bone in (NAMED, "neck"):                                 # not named: untouched
        np.testing.assert_array_equal(after[bone], before[bone])


def test_unknown_bone_exits_2_with_one_sentence_naming_the_keyed_bones(rig_blend, tmp_path):
    res = run("report", rig_blend, "--bones", "Rig:nope", "--json", tmp_path / "r.json")
    assert res.returncode == 2
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in res.stderr, res.stderr
    assert 'armature "Rig" has no bone "nope"' in lines[0]
    assert "spine" in lines[0] and NAMED in lines[0], lines[0]
    assert not (tmp_path / "r.json").exists()


# Plain bpy: an IK control keyed on location only beside the spine (a Rigify-like rig),
# then what a file plays: the control's location per frame.
_IK = _BUILD.replace("bpy.ops.wm.save_as_mainfile", """ik = rig.pose.bones["neck"]
for f, x in ((1, 0.0), (11, 1.0), (21, 3.0)):
    ik.location = (x, 0.0, 0.0)
    ik.keyframe_insert("location", frame=f)
bpy.ops.wm.save_as_mainfile""")
_PLACES = """
import sys, json, bpy
bpy.ops.wm.open_mainfile(filepath=sys.argv[1])
rig = bpy.data.objects["Rig"]
rows = []
for f in range(1, 22):
    bpy.context.scene.frame_set(f)
    rows.append(list(rig.pose.bones["neck"].location))
print("PLACES" + json.dumps(rows))
"""


def test_a_location_only_bone_named_is_baked_or_named_never_called_a_clip(tmp_path):
    """A docs walk: ``--bones Rig:neck`` (keyed on location only, an IK control) was refused
    as "every rotation key is in NLA clips" (the file has none), even with --location
    linear, and beside another bone it was dropped unnamed. As docs/cli.md says: with
    --location linear it gets a location bake (a straight line between its keys, by
    np.interp); without, it is left as it is and named on a ``skipped:`` line."""
    rig = tmp_path / "ik.blend"
    done = subprocess.run([sys.executable, "-c", _IK, str(rig)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr

    def places(path):
        ran = subprocess.run([sys.executable, "-c", _PLACES, str(path)], capture_output=True,
                             text=True, timeout=300)
        line = next(ln for ln in ran.stdout.splitlines() if ln.startswith("PLACES"))
        return np.array(json.loads(line[len("PLACES"):]))

    before = places(rig)
    alone = run("bake", rig, "--bones", "Rig:neck", "--location", "linear",
                "--output", tmp_path / "alone.blend")
    assert alone.returncode == 0, alone.stderr
    # A location-only bake says so (no rotation method, no rotation figure).
    assert "NLA" not in alone.stderr, alone
    assert 'Baked the location of 1 bone of "Rig" (--location linear)' in alone.stdout, alone
    line = np.interp(np.arange(1, 22), [1, 11, 21], [0.0, 1.0, 3.0])
    assert np.abs(places(tmp_path / "alone.blend")[:, 0] - line).max() < 1e-6
    assert np.abs(before[:, 0] - line).max() > 0.05            # Bezier: it eased before

    beside = run("bake", rig, "--bones", "Rig:neck,spine", "--output", tmp_path / "b.blend")
    assert beside.returncode == 0, beside.stderr
    skipped = [ln for ln in beside.stderr.splitlines() if ln.startswith("skipped:")]
    assert len(skipped) == 1 and 'bone "neck"' in skipped[0] and "location only" in skipped[0]
    np.testing.assert_array_equal(places(tmp_path / "b.blend"), before)    # left as it was
