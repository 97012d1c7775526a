"""`python -m quatbake` as a pipeline runs it: a subprocess with the venv's python
(bpy module), real .blend files, exit codes 0 / 1 / 2 and what gets written."""
import ast
import hashlib
import os
import pathlib
import re
import subprocess
import sys

import pytest
from cli_processes import import_bvh_as_objects

from programs import require_program
from report_schema import load_report

pytestmark = pytest.mark.bpy

ROOT = pathlib.Path(__file__).resolve().parents[2]

# Builds the demo objects as keyed (not re-baked) plus "Prop", which has only
# location keys, and saves them to the path in argv[1].
_BUILD = """
import sys, bpy, numpy as np
from quatbake.addon import demo
demo.build_scene()
prop = bpy.data.objects.new("Prop", None)
bpy.context.scene.collection.objects.link(prop)
demo.key(prop, "location", [1, 20], [[0, 0, 0], [1, 0, 0]])
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[1], compress=bool(int(sys.argv[2])))
"""


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "quatbake", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd or ROOT, timeout=300)


@pytest.fixture(scope="module")
def scenes(tmp_path_factory):
    folder = tmp_path_factory.mktemp("scenes")
    out = {}
    for name, compress in (("scene.blend", 1), ("plain.blend", 0)):
        path = folder / name
        done = subprocess.run([sys.executable, "-c", _BUILD, str(path), str(compress)],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        out[name] = path
    return out


def _sha(path):
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()


def _one_sentence(stderr: str) -> str:
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr and "Error:" not in stderr
    return lines[0]


def test_report_writes_json_and_html_and_exits_0(scenes, tmp_path):
    js, page = tmp_path / "r.json", tmp_path / "r.html"
    before = _sha(scenes["scene.blend"])
    res = run("report", scenes["scene.blend"], "--objects", "FlipCam,EulerCam,Turn170",
              "--json", js, "--html", page)
    assert res.returncode == 0, res.stderr
    report = load_report(js)
    assert report["schema"] == "quatbake.report/1" and report["method"] == "slerp"
    assert report["file"] == "scene.blend"
    arcs = {o["name"]: o["long_arc_segments"] for o in report["objects"]}
    assert arcs == {"FlipCam": [[40, 80], [80, 120]], "EulerCam": [[60, 100]], "Turn170": []}
    ids = re.findall(r'<svg class="chart" id="([a-z]+)-\d"', page.read_text())
    # Deviation and speed for each object; quaternion length for the two with
    # quaternion channels; speed along the path for the two with location keys.
    assert sorted(ids) == sorted(["deviation", "speed"] * 3 + ["norm"] * 2 + ["location"] * 2)
    # Progress: one percentage line per object on stderr; the table on stdout.
    assert [ln.split()[-1] for ln in res.stderr.splitlines()] == ["33%", "67%", "100%"]
    assert "FlipCam: keys 40-80 take the long way: re-bake with SLERP" in res.stdout
    assert _sha(scenes["scene.blend"]) == before


def test_report_defaults_to_every_rotation_keyed_object_and_quiet_is_silent(scenes, tmp_path):
    js = tmp_path / "r.json"
    res = run("report", scenes["plain.blend"], "--json", js, "--method", "squad", "--quiet")
    assert res.returncode == 0
    assert res.stdout == "" and res.stderr == ""
    report = load_report(js)
    assert [o["name"] for o in report["objects"]] == ["Dolly", "EulerCam", "FlipCam", "FollowCam", "Turn170"]
    assert report["method"] == "squad"


def test_the_worst_is_told_from_the_limit_it_is_above():
    """A pipeline walk: "Largest deviation 6.59 deg is above --fail-above 6.59 deg" (the
    worst was 6.594): as many decimals, two at least, as tell them apart."""
    from quatbake.addon.cli.tables import past

    assert past(6.594, 6.59) == "6.594"
    assert past(6.5901, 6.59) == "6.5901"
    assert past(6.757092, 5.0) == "6.76"
    assert past(0.1234567, 0.123456) == "0.1235"
    assert past(1.0000001, 1.0) == "1.000000"          # six at most


def test_fail_above_exits_1_and_still_writes_the_report(scenes, tmp_path):
    js = tmp_path / "r.json"
    res = run("report", scenes["scene.blend"], "--objects", "Turn170", "--json", js, "--fail-above", "5")
    assert res.returncode == 1
    assert "6.76 deg is above --fail-above 5 deg" in res.stderr
    assert load_report(js)["objects"][0]["max_deviation_deg"] > 5
    ok = run("report", scenes["scene.blend"], "--objects", "Turn170", "--fail-above", "7", "--quiet")
    assert ok.returncode == 0


def _with_stdout_closed(*args, stderr_too=False):
    """The CLI with its stdout (and with ``stderr_too`` its stderr: ``2>&1 | head -1``) a
    pipe nobody reads any more, once head has its line: every write to it fails with
    EPIPE."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run([sys.executable, "-m", "quatbake", *map(str, args)], stdout=write,
                              stderr=write if stderr_too else subprocess.PIPE, text=True,
                              cwd=ROOT, timeout=300)
    finally:
        os.close(write)


def test_a_reader_gone_from_stdout_leaves_the_exit_code_and_the_files(scenes, tmp_path):
    """A docs walk: ``report ... | head -1`` was a BrokenPipeError traceback and exit 4
    ("a bug"), failing a CI gate; the gate's own code and files stay."""
    js = tmp_path / "r.json"
    res = _with_stdout_closed("report", scenes["scene.blend"], "--objects", "Turn170",
                              "--json", js, "--fail-above", "5")
    assert res.returncode == 1 and "Traceback" not in res.stderr, res.stderr
    assert "6.76 deg is above --fail-above 5 deg" in res.stderr
    assert load_report(js)["objects"][0]["max_deviation_deg"] > 5
    out = tmp_path / "baked.blend"
    res = _with_stdout_closed("bake", scenes["scene.blend"], "--output", out)
    assert res.returncode == 0 and "Traceback" not in res.stderr, res.stderr
    assert out.exists()
    # Both gone (2>&1 | head): exit 1 was the uncaught error's, and no report was written.
    js.unlink()
    res = _with_stdout_closed("report", scenes["scene.blend"], "--objects", "Turn170",
                              "--json", js, "--fail-above", "7", stderr_too=True)
    assert res.returncode == 0 and js.exists()


MOCAPBANK = ROOT / "tests" / "data" / "realdata" / "bvh" / "test_mocapbank.bvh"


def test_fail_above_sees_a_mocap_wrap_between_two_frames(tmp_path):
    """A real BVH imported as objects by Blender's importer: its wraps (179 -> -179 deg
    from one frame to the next) are 0 deg off at every whole frame and 180 deg off
    half-way; the gate fails on them and says where (tests/blender/test_imports checks
    the figure against frame_set and mathutils' slerp)."""
    blend = tmp_path / "mocap.blend"
    import_bvh_as_objects(MOCAPBANK, blend)
    js, page = tmp_path / "r.json", tmp_path / "r.html"
    res = run("report", blend, "--json", js, "--html", page, "--fail-above", "1")
    assert res.returncode == 1, res.stderr
    assert re.search(r"Largest deviation 1[789]\d\.\d\d deg \(\w+, between frames, at "
                     r"\d+\.\d+\) is above --fail-above 1 deg", res.stderr), res.stderr
    objects = load_report(js)["objects"]
    assert max(o["max_deviation_deg"] for o in objects) < 1.0     # nothing at whole frames
    # The table's "between" column and the page's row name the figure and its subframe.
    worst = max(objects, key=lambda o: o["max_between_deviation_deg"])
    figure = f"{worst['max_between_deviation_deg']:.2f} at {worst['worst_between_frame']:g}"
    row = next(ln for ln in res.stdout.splitlines() if ln.startswith(worst["name"] + " "))
    assert figure in row, (figure, row)
    html = page.read_text()
    assert "Largest difference between frames" in html
    assert f"{worst['max_between_deviation_deg']:.2f} deg at frame" in html
    assert run("report", blend, "--fail-above", "181", "--quiet").returncode == 0


def test_object_without_rotation_keys_is_skipped_and_the_others_carry_on(scenes, tmp_path):
    """Issue 21: no rotation keys is not an error: skipped with its reason, exit 0."""
    js = tmp_path / "r.json"
    res = run("report", scenes["scene.blend"], "--objects", "Prop,Turn170", "--json", js)
    assert res.returncode == 0, res.stderr
    said = [ln for ln in res.stderr.splitlines() if not ln.startswith("report: ")]
    assert _one_sentence("\n".join(said)).startswith('skipped: Object "Prop" has no keys on '
                                                      'rotation_euler')
    report = load_report(js)
    assert [o["name"] for o in report["objects"]] == ["Turn170"]
    assert report["errors"] == []
    (skipped,) = report["skipped"]
    assert skipped["object"] == "Prop"
    assert skipped["message"].startswith('Object "Prop" has no keys on rotation_euler')


_DOLLY = """
import sys, bpy
bpy.ops.wm.read_factory_settings(use_empty=True)
cam = bpy.data.objects.new("Dolly", bpy.data.cameras.new("Dolly"))
bpy.context.scene.collection.objects.link(cam)
for frame, x in ((1, 0.0), (11, 2.0), (21, 10.0)):
    cam.location.x = x
    cam.keyframe_insert("location", index=0, frame=frame)
if sys.argv[2] == "still":
    cam.animation_data_clear()
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[1])
"""


def test_a_shot_with_only_a_dolly_is_reported_skipped_and_its_location_baked(tmp_path):
    """A pipeline walk: a shot whose only animation is a location-keyed camera made
    `report` exit 2 ("nothing to do"), so batch and the farm counted a valid shot as
    failed; docs/cli.md: an object without rotation keys is skipped, exit 0, and with
    --location a location-only object is baked. A file with no animation at all stays
    "nothing to do" (exit 2)."""
    dolly, still = tmp_path / "dolly.blend", tmp_path / "still.blend"
    for path, kind in ((dolly, "dolly"), (still, "still")):
        done = subprocess.run([sys.executable, "-c", _DOLLY, str(path), kind],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    js = tmp_path / "r.json"
    res = run("report", dolly, "--json", js, "--quiet")
    assert res.returncode == 0, res.stderr
    report = load_report(js)
    assert report["objects"] == [] and [s["object"] for s in report["skipped"]] == ["Dolly"]
    assert report["skipped"][0]["location_keys"] == [1, 11, 21]
    baked = tmp_path / "baked.blend"
    res = run("bake", dolly, "--output", baked, "--location", "linear", "--quiet")
    assert res.returncode == 0, res.stderr
    # Linear location: frame 6 halfway between 0 and 2, frame 16 between 2 and 10.
    played = subprocess.run([sys.executable, "-c", (
        "import sys, bpy; bpy.ops.wm.open_mainfile(filepath=sys.argv[1]); s = bpy.context.scene;"
        "o = bpy.data.objects['Dolly'];"
        "print([(s.frame_set(f), round(o.location.x, 5))[1] for f in (6, 16)])"), str(baked)],
        capture_output=True, text=True, timeout=300)
    assert played.stdout.strip().splitlines()[-1] == "[1.0, 6.0]", played.stdout
    res = run("bake", dolly, "--output", tmp_path / "none.blend")
    assert res.returncode == 2 and "nothing to do" in _one_sentence(res.stderr)
    res = run("report", still, "--json", tmp_path / "still.json")
    assert res.returncode == 2 and "has no object with rotation keys: nothing to do" in \
        _one_sentence(res.stderr)
    assert not (tmp_path / "still.json").exists()


_UNPLAYED = """
import sys, bpy
bpy.ops.wm.read_factory_settings(use_empty=True)
cube = bpy.data.objects.new("Cube", None)
bpy.context.scene.collection.objects.link(cube)
for frame, z in ((1, 0.0), (11, 1.5)):
    cube.rotation_euler.z = z
    cube.keyframe_insert("rotation_euler", frame=frame)
layer = cube.animation_data.action
layer.name = "Cube|Take 001|Layer1"
layer.use_fake_user = True
cube.animation_data.action = None
if sys.argv[2] == "constraint":
    # Played all the same, through an Action constraint on another object.
    door = bpy.data.objects.new("Door", None)
    bpy.context.scene.collection.objects.link(door)
    con = door.constraints.new('ACTION')
    con.action = layer
    con.frame_start, con.frame_end = 1, 11
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[1])
"""


def test_rotation_keys_that_no_object_plays_are_named(tmp_path):
    """A walk of FBX imports: Blender's importer puts a Maya animation layer's keys in an
    action nothing plays, and `report` said only "nothing to do". It still is (exit 2),
    and the sentence names the action that holds the keys."""
    said = {}
    for kind in ("layers", "constraint"):
        shot = tmp_path / f"{kind}.blend"
        done = subprocess.run([sys.executable, "-c", _UNPLAYED, str(shot), kind],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        res = run("report", shot)
        assert res.returncode == 2
        said[kind] = _one_sentence(res.stderr)
    assert "nothing to do" in said["layers"] and 'The rotation keys of "Cube|Take 001|Layer1" ' \
        "play on no object" in said["layers"], said
    # A review: an action an Action constraint plays was named as playing on no object.
    assert "nothing to do" in said["constraint"] and "Layer1" not in said["constraint"], said


_CUTS = """
import sys, math, bpy
bpy.ops.wm.read_factory_settings(use_empty=True)
for name in ("CutA", "CutB"):
    obj = bpy.data.objects.new(name, None)
    bpy.context.scene.collection.objects.link(obj)
    obj.keyframe_insert("rotation_euler", frame=1)
    fc = obj.animation_data.action.fcurves.find("rotation_euler", index=2) if hasattr(
        obj.animation_data.action, "fcurves") and not hasattr(obj.animation_data.action, "layers") \
        else [f for f in obj.animation_data.action.layers[0].strips[0].channelbags[0].fcurves
              if f.data_path == "rotation_euler" and f.array_index == 2][0]
    fc.keyframe_points.add(2)
    fc.keyframe_points.foreach_set("co", [1, 0.0, 10, 0.5, 10, 2.0])
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[1])
"""


def test_a_report_of_objects_that_all_fail_names_why(tmp_path):
    """A walk: two objects each with a cut (two keys of different values on one frame)
    read "None of the objects has rotation keys", which they have; the command now says
    none could be analysed, and why the first could not."""
    shot = tmp_path / "cuts.blend"
    done = subprocess.run([sys.executable, "-c", _CUTS, str(shot)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    res = run("report", shot, "--quiet")
    assert res.returncode == 2
    said = _one_sentence(res.stderr)
    assert "None of the 2 objects could be analysed (CutA, CutB); the first: " in said, said
    assert "rotation_euler[2] has two keys on frame 10" in said, said


_DEMO_AND_CUT = """
import sys, bpy
from quatbake.addon import demo
demo.build_scene()
obj = bpy.data.objects.new("CutA", None)
bpy.context.scene.collection.objects.link(obj)
obj.keyframe_insert("rotation_euler", frame=1)
from quatbake.addon import animdata
fc = [f for f in animdata.object_fcurves(obj) if f.data_path == "rotation_euler"
      and f.array_index == 2][0]
fc.keyframe_points.add(2)
fc.keyframe_points.foreach_set("co", [1, 0.0, 10, 0.5, 10, 2.0])
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[1])
"""


def test_fail_above_is_said_beside_an_object_that_cannot_be_analysed(tmp_path):
    """A report walk: an object under errors (exit 2) silenced the --fail-above sentence
    about another one, which is 6.76 deg off (the gate's test above)."""
    shot = tmp_path / "mixed.blend"
    done = subprocess.run([sys.executable, "-c", _DEMO_AND_CUT, str(shot)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    res = run("report", shot, "--objects", "Turn170,CutA", "--fail-above", "5", "--quiet")
    assert res.returncode == 2
    assert "rotation_euler[2] has two keys on frame 10" in res.stderr, res.stderr
    assert "6.76 deg is above --fail-above 5 deg" in res.stderr, res.stderr


def test_an_object_that_cannot_be_analysed_is_said_on_each_stream_alone(tmp_path):
    """docs/cli.md, "Output streams": each stream is complete on its own. The table on
    stdout (a file, in a pipeline) names the object that cannot be analysed with its
    sentence, beside the others' rows; stderr (a log) says it too, and with --quiet,
    which drops the table, stderr alone still says it."""
    shot = tmp_path / "mixed.blend"
    done = subprocess.run([sys.executable, "-c", _DEMO_AND_CUT, str(shot)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    cut = "rotation_euler[2] has two keys on frame 10"
    res = run("report", shot, "--objects", "Turn170,CutA")
    assert res.returncode == 2
    table = res.stdout.splitlines()
    assert table[1].startswith("Turn170 "), res.stdout
    assert [ln for ln in table if cut in ln][0].startswith('Object "CutA"'), res.stdout
    assert [ln for ln in res.stderr.splitlines() if cut in ln], res.stderr
    quiet = run("report", shot, "--objects", "Turn170,CutA", "--quiet")
    assert quiet.returncode == 2 and quiet.stdout == "" and cut in quiet.stderr


# Prints, as JSON, per object of argv[2]: the keys of its rotation channels and what it
# plays at every frame from its first key to its last (w, x, y, z); and mathutils' slerp
# of what the object of argv[1] played at its keys, on the same frames.
_PLAYED = """
import json, sys, bpy

def channels(obj):
    action = obj.animation_data.action
    curves = getattr(action, "fcurves", None)
    if curves is None:                 # Blender 5: the slot's channelbag
        curves = action.layers[0].strips[0].channelbag(obj.animation_data.action_slot).fcurves
    return {f"{fc.data_path}[{fc.array_index}]": [tuple(k.co) for k in fc.keyframe_points]
            for fc in curves if fc.data_path.startswith("rotation")}

def played(obj, frames):
    out = []
    for f in frames:
        bpy.context.scene.frame_set(int(f), subframe=f - int(f))
        out.append(obj.matrix_basis.to_quaternion())
    return out

out = {}
bpy.ops.wm.open_mainfile(filepath=sys.argv[1])
for name in sys.argv[3:]:
    obj = bpy.data.objects[name]
    keys = sorted({k[0] for ks in channels(obj).values() for k in ks})
    frames = list(range(int(keys[0]), int(keys[-1]) + 1))
    at = played(obj, keys)
    slerp = []
    for f in frames:
        i = max(j for j in range(len(keys) - 1) if keys[j] <= f) if f < keys[-1] else len(keys) - 2
        slerp.append(tuple(at[i].slerp(at[i + 1], (f - keys[i]) / (keys[i + 1] - keys[i]))))
    out[name] = {"before": channels(obj), "slerp": slerp, "frames": frames}
bpy.ops.wm.open_mainfile(filepath=sys.argv[2])
for name in sys.argv[3:]:
    obj = bpy.data.objects[name]
    out[name].update(after=channels(obj),
                     played=[tuple(q) for q in played(obj, out[name]["frames"])])
print("PLAYED " + json.dumps(out))
"""


def test_a_bake_leaves_a_broken_object_as_it_was_and_bakes_the_others(tmp_path):
    """One transform's problem never stops the others: CutA (two keys on one frame) is
    left exactly as it was and named on stderr, Turn170 is baked (it plays mathutils'
    slerp of its keys), the output is written, and the exit code is 2 (as `report` for
    an object it cannot analyse). Alone, CutA refuses the bake, nothing written."""
    import json

    import numpy as np

    shot, out = tmp_path / "mixed.blend", tmp_path / "baked.blend"
    done = subprocess.run([sys.executable, "-c", _DEMO_AND_CUT, str(shot)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    res = run("bake", shot, "--objects", "Turn170,CutA", "--output", out, "--quiet")
    assert res.returncode == 2, res.stderr
    lead, said = res.stderr.splitlines()
    assert lead == ("Not baked, left exactly as they were: 1 object (broken input, each said "
                    "below; the others were baked and the output written).")
    assert said.startswith('Object "CutA": channel rotation_euler[2] has two keys on frame 10')
    assert "Traceback" not in res.stderr and res.stdout == ""
    checked = subprocess.run([sys.executable, "-c", _PLAYED, str(shot), str(out), "Turn170",
                              "CutA"], capture_output=True, text=True, timeout=300)
    assert checked.returncode == 0, checked.stderr
    found = json.loads(checked.stdout.split("PLAYED ", 1)[1])
    assert found["CutA"]["after"] == found["CutA"]["before"]
    turn = found["Turn170"]
    assert turn["after"] != turn["before"]
    played, slerp = (np.array(turn[k]) / np.linalg.norm(turn[k], axis=1, keepdims=True)
                     for k in ("played", "slerp"))
    slerp *= np.sign((played * slerp).sum(axis=1))[:, None]
    off = 4 * np.degrees(np.arcsin(np.linalg.norm(played - slerp, axis=1) / 2))
    # mathutils' slerp is float32 (4e-4 deg off float64's at this 170 deg turn), and so
    # are the channels: 1e-3 deg.
    assert off.max() < 1e-3, off.max()
    alone = tmp_path / "alone.blend"
    res = run("bake", shot, "--objects", "CutA", "--output", alone)
    assert res.returncode == 2 and "two keys on frame 10" in _one_sentence(res.stderr)
    assert not alone.exists()
    res = run("convert", shot, "--objects", "Turn170,CutA", "--to", "zxy",
              "--output", tmp_path / "converted.blend", "--quiet")
    assert res.returncode == 2 and "two keys on frame 10" in res.stderr, res.stderr
    assert (tmp_path / "converted.blend").exists()


def _corrupt(tmp_path, scenes, kind):
    target = tmp_path / f"{kind}.blend"
    if kind == "random":
        target.write_bytes(os.urandom(20000))
    elif kind == "truncated_zstd":
        data = scenes["scene.blend"].read_bytes()
        target.write_bytes(data[: len(data) // 2])
    elif kind == "truncated_plain":
        data = scenes["plain.blend"].read_bytes()
        target.write_bytes(data[: len(data) - 100])
    elif kind == "empty":
        target.write_bytes(b"")
    return target


@pytest.mark.parametrize("kind", ["random", "truncated_zstd", "truncated_plain", "empty"])
def test_corrupt_blend_exits_2_with_one_sentence_and_writes_nothing(scenes, tmp_path, kind):
    bad = _corrupt(tmp_path, scenes, kind)
    js = tmp_path / "r.json"
    res = run("report", bad, "--json", js, "--html", tmp_path / "r.html")
    assert res.returncode == 2
    sentence = _one_sentence(res.stderr)
    assert str(bad) in sentence and ("corrupt" in sentence or "not a .blend" in sentence
                                     or "truncated" in sentence)
    assert sorted(p.name for p in tmp_path.iterdir()) == [bad.name]


@pytest.mark.parametrize("args, words", [
    (["report", "{missing}"], "does not exist"),
    (["report", "{scene}", "--objects", "Ghost"], 'Object "Ghost" is not in'),
    (["report", "{scene}", "--json", "{tmp}/no/such/dir/r.json"], "folder"),
    (["report", "{scene}", "--method", "cubic"], "invalid choice"),
    (["report", "{scene}", "--json", "{scene}"], "is the input file"),
    (["report", "{scene}", "--fail-above", "lots"], "not a number"),
    (["report"], "required"),
    (["bake", "{scene}"], "--output"),
    (["bake", "{scene}", "--output", "{scene}"], "--overwrite"),
    (["bake", "{scene}", "--output", "{tmp}/o.blend", "--step", "0"], "1 or more"),
    (["bake", "{scene}", "--output", "{tmp}/o.blend", "--constant-speed"], "--location"),
    (["bake", "{scene}", "--output", "{tmp}/o.blend", "--objects", "Prop"], "Prop"),
    (["demo", "--out", "{scene}"], "not a folder"),
])
def test_bad_usage_and_input_exit_2_with_one_sentence(scenes, tmp_path, args, words):
    work = tmp_path / "work"
    work.mkdir()
    before = _sha(scenes["scene.blend"])
    fill = {"scene": scenes["scene.blend"], "missing": tmp_path / "missing.blend", "tmp": work}
    res = run(*[a.format(**fill) for a in args])
    assert res.returncode == 2, res.stdout + res.stderr
    assert words in _one_sentence(res.stderr)
    assert list(work.iterdir()) == []
    assert _sha(scenes["scene.blend"]) == before


def test_bake_writes_a_new_file_and_never_touches_its_input(scenes, tmp_path):
    src = scenes["scene.blend"]
    before = _sha(src)
    out = tmp_path / "baked.blend"
    res = run("bake", src, "--output", out, "--objects", "FlipCam,EulerCam", "--method", "squad")
    assert res.returncode == 0, res.stderr
    assert "Baked 2 objects with squad" in res.stdout
    assert "bake: 2 objects ... 100%" in res.stderr
    assert _sha(src) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["baked.blend"]   # no .blend1, no temp
    js = tmp_path / "after.json"
    assert run("report", out, "--objects", "FlipCam,EulerCam", "--json", js, "--quiet").returncode == 0
    after = load_report(js)
    assert all(o["long_arc_segments"] == [] for o in after["objects"])


_SMALL = """
import sys, bpy
bpy.ops.wm.read_factory_settings(use_empty=True)
cam = bpy.data.objects.new("Cam", None)
bpy.context.scene.collection.objects.link(cam)
cam.rotation_mode = 'QUATERNION'
for frame, q in ((1, (1, 0, 0, 0)), (21, (-0.3, 0, 0, -0.954))):   # a flipped sign
    cam.rotation_quaternion = q
    cam.keyframe_insert("rotation_quaternion", frame=frame)
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[1])
"""


def test_a_bake_whose_file_is_cut_short_says_so_and_leaves_nothing(tmp_path):
    """A farm walk: on a full disk Blender 5.0.1's save said FINISHED after a short write,
    and the bake exited 0 over a file no Blender opens ("Missing DNA block"). Here the
    process may write no file past 60% of the input's size (RLIMIT_FSIZE; Python ignores
    SIGXFSZ, so the write fails as on a full disk; no bytecode written, which the limit
    would cut too): exit 2, one sentence, no file, the input untouched."""
    import resource

    src = tmp_path / "shot.blend"
    made = subprocess.run([sys.executable, "-c", _SMALL, str(src)], capture_output=True,
                          text=True, timeout=300)
    assert made.returncode == 0, made.stderr
    before = _sha(src)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    limit = int(src.stat().st_size * 0.6)

    def limited():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    res = subprocess.run([sys.executable, "-m", "quatbake", "bake", str(src), "--output",
                          str(out_dir / "baked.blend"), "--quiet"], capture_output=True,
                         text=True, cwd=ROOT, timeout=300, preexec_fn=limited,
                         env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    assert res.returncode == 2, (res.returncode, res.stderr)
    said = _one_sentence(res.stderr)
    assert "cannot be written" in said and "nothing was written" in said, said
    assert list(out_dir.iterdir()) == [] and _sha(src) == before


def test_bake_over_its_input_only_with_overwrite(scenes, tmp_path):
    copy = tmp_path / "copy.blend"
    copy.write_bytes(scenes["plain.blend"].read_bytes())
    res = run("bake", copy, "--output", copy, "--overwrite", "--objects", "Turn170", "--quiet")
    assert res.returncode == 0, res.stderr
    assert res.stdout == "" and res.stderr == ""
    js = tmp_path / "r.json"
    run("report", copy, "--objects", "Turn170", "--json", js, "--quiet")
    assert load_report(js)["objects"][0]["max_deviation_deg"] < 0.01


def test_demo_writes_its_three_files(tmp_path):
    out = tmp_path / "demo"
    res = run("demo", "--out", out)
    assert res.returncode == 0, res.stderr
    assert sorted(p.name for p in out.iterdir()) == ["demo.blend", "report.html", "report.json"]
    report = load_report((out / "report.json"))
    names = {o["name"]: o for o in report["objects"]}
    assert names["FlipCam"]["long_arc_segments"] and names["EulerCam"]["long_arc_segments"]
    assert names["Turn170"]["long_arc_segments"] == []
    assert names["FollowCam"]["exponential_approach"]
    assert names["Dolly"]["location_speed_ratio"] > 5
    assert "long arcs none" in res.stdout


def test_runs_inside_the_blender_program(tmp_path):
    blender = require_program("/usr/bin/blender", "to run the CLI inside Debian's Blender program")
    res = subprocess.run([blender, "-b", "--factory-startup", "--python", str(ROOT / "__main__.py"),
                          "--", "demo", "--out", str(tmp_path), "--quiet"],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    report = load_report((tmp_path / "report.json"))
    assert report["blender_version"].startswith("3.4")
    # Blender 3.4 reads back the file it baked: no long arcs are left.
    again = subprocess.run([blender, "-b", "--factory-startup", "--python", str(ROOT / "__main__.py"),
                            "--", "report", str(tmp_path / "demo.blend"), "--json",
                            str(tmp_path / "after.json"), "--fail-above", "0.01", "--quiet"],
                           capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    after = load_report((tmp_path / "after.json"))
    assert len(after["objects"]) == 5
    assert all(o["long_arc_segments"] == [] for o in after["objects"])
    bad = subprocess.run([blender, "-b", "--factory-startup", "--python", str(ROOT / "__main__.py"),
                          "--", "report", str(tmp_path / "nope.blend")],
                         capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2
    assert _one_sentence(bad.stderr).endswith("nope.blend does not exist.")


def test_arguments_parse_without_loading_blender():
    from quatbake.addon import cli

    args = cli.build_parser().parse_args(
        ["report", "x.blend", "--objects", "B, A,B", "--fail-above", "2.5", "--method", "squad"])
    assert args.objects == ["B", "A"] and args.fail_above == 2.5 and args.method == "squad"
    args = cli.build_parser().parse_args(["bake", "x.blend", "--output", "y.blend", "--step", "3",
                                          "--location", "catmull_rom", "--constant-speed"])
    assert (args.step, args.location, args.constant_speed, args.overwrite) == (3, "catmull_rom", True, False)
    with pytest.raises(cli.BadInput, match="empty name"):
        cli.build_parser().parse_args(["report", "x.blend", "--objects", "A,,B"])
    with pytest.raises(cli.BadInput, match=">= 0"):
        cli.build_parser().parse_args(["report", "x.blend", "--fail-above", "-1"])
    # convert's tolerance is above 0, and says so for -1 as for 0 (a walk read ">= 0" for
    # -1, then "must be above 0" for 0).
    for value in ("-1", "0"):
        with pytest.raises(cli.BadInput, match="above 0 degrees"):
            cli.build_parser().parse_args(["convert", "x.blend", "--to", "xyz", "--output",
                                           "y.blend", "--tolerance", value])


def test_an_unexpected_error_is_exit_4_with_its_traceback(monkeypatch, capsys):
    """A bug in a command (here: one raising as a bug would) is not bad input (2), not over
    --fail-above (1) and never 0: exit 4, the traceback and one sentence on stderr."""
    from quatbake.addon import cli

    def broken(args):
        raise RuntimeError("a bug in the command")

    monkeypatch.setitem(cli.COMMANDS, "report", broken)
    assert cli.main(["report", "x.blend", "--fail-above", "1"]) == 4
    said = capsys.readouterr().err
    assert "Traceback" in said and "RuntimeError: a bug in the command" in said
    assert said.rstrip().splitlines()[-1].startswith("QuatBake stopped on an unexpected error")


# An object whose rotation channels are keyed on different frames (Z also at frame 11).
_RAGGED = """
import sys, bpy
obj = bpy.data.objects.new("Ragged", None)
bpy.context.scene.collection.objects.link(obj)
for frame, z in ((1, 0.0), (21, 1.5)):
    obj.rotation_euler = (0.2, 0.0, z)
    obj.keyframe_insert("rotation_euler", frame=frame)
obj.rotation_euler = (0.2, 0.0, 3.0)
obj.keyframe_insert("rotation_euler", index=2, frame=11)
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[1])
"""


def test_channels_keyed_on_different_frames_bake_with_merge_keys(tmp_path):
    """The refusal names the option the command line has (a workflow walk read "turn on
    Merge Key Frames", a panel setting the CLI did not offer); with it the bake takes the
    union of the keys: every rotation channel keyed on frames 1, 11 and 21."""
    scene, out = tmp_path / "ragged.blend", tmp_path / "baked.blend"
    done = subprocess.run([sys.executable, "-c", _RAGGED, str(scene)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    refused = run("bake", scene, "--output", out, "--tolerance", 1, "--keys", "linear")
    assert refused.returncode == 2 and "--merge-keys" in refused.stderr, refused.stderr
    baked = run("bake", scene, "--output", out, "--tolerance", 1, "--keys", "linear",
                "--merge-keys")
    assert baked.returncode == 0, baked.stderr
    check = subprocess.run([sys.executable, "-c", (
        "import sys, bpy; bpy.ops.wm.open_mainfile(filepath=sys.argv[1]); "
        "o = bpy.data.objects['Ragged']; a = o.animation_data.action; "
        "fcs = a.fcurves if hasattr(a, 'fcurves') and len(a.fcurves) else "
        "a.layers[0].strips[0].channelbags[0].fcurves; "
        "print(sorted({tuple(k.co[0] for k in fc.keyframe_points) for fc in fcs "
        "if fc.data_path == 'rotation_euler'}))"), str(out)],
        capture_output=True, text=True, timeout=300)
    assert check.returncode == 0, check.stderr
    frames = ast.literal_eval(check.stdout.strip().splitlines()[-1])
    assert len(frames) == 1 and {1.0, 11.0, 21.0} <= set(frames[0]), frames


# "Prop" plays its rotation only from an NLA clip "Run"; "Plain" keys its own action.
_CLIPS = """
import sys, bpy
for name in ("Plain", "Prop"):
    obj = bpy.data.objects.new(name, None)
    bpy.context.scene.collection.objects.link(obj)
    for frame, z in ((1, 0.0), (21, 3.0)):
        obj.rotation_euler = (0.0, 0.0, z)
        obj.keyframe_insert("rotation_euler", frame=frame)
prop = bpy.data.objects["Prop"]
run = prop.animation_data.action
run.name = "Run"
prop.animation_data.nla_tracks.new().strips.new("Run", 1, run)
prop.animation_data.action = None
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[1])
"""


def test_a_clip_named_with_objects_that_lack_it_names_them(tmp_path):
    """bake --clips NAME --objects ...: an object named without that clip is named, not
    lost: alone, the refusal names it (a workflow walk read "No object has a clip named
    Run" while another object had it); beside one that has it, it is left as it is with
    a skipped: line, and the other is baked."""
    scene, out = tmp_path / "clips.blend", tmp_path / "baked.blend"
    done = subprocess.run([sys.executable, "-c", _CLIPS, str(scene)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    alone = run("bake", scene, "--output", out, "--clips", "Run", "--objects", "Plain")
    assert alone.returncode == 2, alone.stderr
    assert _one_sentence(alone.stderr).startswith('"Plain" has no clip named Run'), alone.stderr
    both = run("bake", scene, "--output", out, "--clips", "Run", "--objects", "Plain,Prop")
    assert both.returncode == 0, both.stderr
    skipped = [ln for ln in both.stderr.splitlines() if ln.startswith("skipped:")]
    assert skipped == ['skipped: Object "Plain" has no clip named "Run", so it is left as '
                       'it is.'], both.stderr
    assert "Baked 1 object" in both.stdout, both.stdout


def test_a_report_that_fills_the_disk_names_its_file(tmp_path):
    """A pipeline walk on a full disk: "The report could not be written (No space left on
    device: None)" (a failed write() names no file); and the page written first is gone."""
    import errno

    from quatbake.addon.cli import headless

    def fill(_report, _path):       # as write() fails on a full disk: no file named
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    page, data = tmp_path / "r.html", tmp_path / "r.json"
    with pytest.raises(headless.BadInput) as caught:
        headless.write_all_or_none([(lambda _r, p: pathlib.Path(p).write_text("<p>"), {}, page),
                                    (fill, {}, data)])
    assert str(caught.value) == ("The report could not be written (No space left on device: "
                                 f"{data}).")
    assert not page.exists()


_ODD_NAMES = """
import sys, bpy, math
bpy.ops.wm.read_factory_settings(use_empty=True)
for name in ("Cam,A", " lead", "plain"):
    obj = bpy.data.objects.new(name, None)
    bpy.context.scene.collection.objects.link(obj)
    for frame, z in ((1, 0.0), (11, 90.0)):
        obj.rotation_euler.z = math.radians(z)
        obj.keyframe_insert("rotation_euler", index=2, frame=frame)
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[1])
"""


def test_objects_named_with_a_comma_or_a_leading_space_can_be_named(tmp_path):
    """A pipeline walk: --objects split every comma and stripped every space, so "Cam,A"
    and " lead" could not be picked; a backslash escapes, as in --bones."""
    blend = tmp_path / "names.blend"
    done = subprocess.run([sys.executable, "-c", _ODD_NAMES, str(blend)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    js = tmp_path / "r.json"
    res = run("report", blend, "--objects", "Cam\\,A, \\ lead", "--json", js, "--quiet")
    assert res.returncode == 0, res.stderr
    assert sorted(o["name"] for o in load_report(js)["objects"]) == [" lead", "Cam,A"]
    res = run("report", blend, "--objects", "Cam,A", "--quiet")
    assert res.returncode == 2 and 'Object "Cam" is not in' in _one_sentence(res.stderr)


def test_help_names_every_exit_code_of_the_docs():
    """`python -m quatbake --help` ends with the exit codes: every code of docs/cli.md's
    table is there (143, a batch stopped by SIGTERM, was missing)."""
    table = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8").split("## Exit codes")[1]
    documented = re.findall(r"^\| (\d+) \|", table, flags=re.M)
    assert "143" in documented
    done = run("--help")
    assert done.returncode == 0
    helptext = " ".join(done.stdout.split())
    missing = [code for code in documented if not re.search(rf"\b{code}\b", helptext)]
    assert not missing, (missing, helptext)
