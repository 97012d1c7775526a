"""The refresh analyses nothing twice (issue 23): after Analyze, the Re-bake's refresh takes
the analysis of the keys before the bake from that click, and a Revert's refresh the
analysis of the keys it puts back; a key changed since is analysed again.

Runs with the bpy module and inside Blender 3.4.1 (pytest-blender). What was analysed is
counted at ``core.analysis.analyze_group``, the one place every analysis is made; the
figures are checked against frame_set + matrix_basis and core's slerp of the orientations
Blender shows at the keys.
"""
import bpy
import numpy as np
import pytest

from quatbake.addon import animdata
from quatbake.addon.analyze import entries
from quatbake.core import analysis as core_analysis

import scenes
from test_realdata_import import import_bvh

pytestmark = pytest.mark.bpy

FRAMES = np.array([1.0, 41.0, 81.0])


def _scene():
    """Flip: a quaternion key's sign flipped (Bezier); Wrap: an Euler wrap (Linear);
    Arm: a rig's bone with a flipped key. All selected, compared with slerp."""
    keys = scenes.quats_about_z([0, 40, 80])
    keys[1] *= -1.0
    flip = scenes.make_animated_object("Flip", 'QUATERNION', FRAMES, keys, 'BEZIER')
    wrap = scenes.make_animated_object("Wrap", 'XYZ', [1.0, 25.0],
                                       np.radians([[0, 0, 170], [0, 0, -170]]), 'LINEAR')
    rig = scenes.make_rig("Arm", [("upper", None, (0, 0, 0), (0, 0, 1))])
    scenes.key_bone(rig, "upper", "rotation_quaternion", FRAMES, keys, 'QUATERNION')
    scenes.select_only(flip, wrap, rig)
    bpy.context.scene.quatbake.method = 'SLERP'
    return flip, wrap, rig


@pytest.fixture
def analysed(monkeypatch):
    """The names of the transforms each analyze_group call compared, call by call."""
    calls = []
    made = core_analysis.analyze_group

    def counting(frames, keys, items, *args, **kwargs):
        calls.append(sorted(it.name for it in items))
        return made(frames, keys, items, *args, **kwargs)

    monkeypatch.setattr(core_analysis, "analyze_group", counting)
    return calls


def _count(calls) -> int:
    return sum(len(names) for names in calls)


def _without_figures(summary: dict) -> dict:
    return {k: v for k, v in summary.items()
            if k not in ("max_deviation_deg", "max_path_deviation_deg")}


def test_re_bake_after_analyze_analyses_only_the_keys_it_wrote(clean_blender, analysed):
    flip, wrap, _rig = _scene()
    want = {o.name: scenes.max_deviation_from_keys(o) for o in (flip, wrap)}
    scene = bpy.context.scene
    assert bpy.ops.quatbake.analyze() == {'FINISHED'}
    analysed_then = {name: dict(e) for name, e in entries.results(scene).items()}
    assert _count(analysed) == 3
    analysed.clear()

    assert bpy.ops.quatbake.bake() == {'FINISHED'}
    # The three baked transforms, once each: the keys the bake wrote.
    assert _count(analysed) == 3, analysed
    found = entries.results(scene)
    for name, entry in found.items():
        before, then = entry["before"], analysed_then[name]
        assert before is not None, name
        # The same analysis as the click's, worded for the bake it replaced.
        assert before["max_deviation_deg"] == then["max_deviation_deg"], name
        assert before["long_arc_segments"] == then["long_arc_segments"] != [], name
        assert "re-bake with slerp" not in before["advice"].lower(), before["advice"]
    for obj in (flip, wrap):
        # Checked against Blender itself (float32 keys and matrices: ~1e-4 deg).
        assert found[obj.name]["before"]["max_deviation_deg"] == pytest.approx(
            want[obj.name], abs=0.01)

    # What a refresh with nothing kept says: the same entries.
    kept = {name: dict(e) for name, e in found.items()}
    entries._ANALYSED.clear()
    analysed.clear()
    entries.refresh(scene, [entries.named_transform(scene, name) for name in kept], "slerp")
    assert _count(analysed) == 6      # now the keys before the bake too
    for name, entry in entries.results(scene).items():
        assert _without_figures(entry["before"]) == _without_figures(kept[name]["before"])
        # Analysed again in another group (Flip alone, or beside its neighbours): the
        # turn is tracked through other samples, which moves the float sum by ~1e-12.
        assert entry["before"]["max_deviation_deg"] == pytest.approx(
            kept[name]["before"]["max_deviation_deg"], abs=1e-9)


def _move_linear_value(flip, wrap):
    """Wrap's last key (Linear: no handles) from -170 to 100 deg: no wrap left."""
    fc = animdata.rotation_fcurves(wrap)[2]
    fc.keyframe_points[1].co[1] = np.radians(100.0)
    fc.update()
    return wrap


def _move_bezier_handle(flip, wrap):
    """Flip's middle key's W handles (Free, the key where it was), pulled down."""
    fc = animdata.rotation_fcurves(flip)[0]
    key = fc.keyframe_points[1]
    key.handle_left_type = key.handle_right_type = 'FREE'
    key.handle_left[1] -= 0.8
    key.handle_right[1] -= 0.8
    fc.update()
    return flip


@pytest.mark.parametrize("edit", [_move_linear_value, _move_bezier_handle])
def test_a_key_moved_after_analyze_is_analysed_again_at_the_bake(clean_blender, analysed,
                                                                 edit):
    flip, wrap, _rig = _scene()
    scene = bpy.context.scene
    assert bpy.ops.quatbake.analyze() == {'FINISHED'}
    assert not entries.is_stale(scene, flip.name) and not entries.is_stale(scene, wrap.name)
    # The same number of keys, but what Blender plays differs: the panel says Out of
    # date (it used to count the keys only), and the bake analyses the keys again.
    obj = edit(flip, wrap)
    then = entries.results(scene)[obj.name]["max_deviation_deg"]
    want = scenes.max_deviation_from_keys(obj)
    assert abs(want - then) > 1.0, (want, then)       # the edit shows
    assert entries.is_stale(scene, obj.name)
    assert not entries.is_stale(scene, (wrap if obj is flip else flip).name)
    analysed.clear()

    assert bpy.ops.quatbake.bake() == {'FINISHED'}
    # The edited keys analysed again, then the three baked transforms.
    assert _count(analysed) == 4, analysed
    before = entries.results(scene)[obj.name]["before"]
    assert before["max_deviation_deg"] == pytest.approx(want, abs=0.01)


def test_a_setting_changed_after_analyze_is_analysed_again_at_the_bake(clean_blender,
                                                                       analysed):
    _scene()
    scene = bpy.context.scene
    assert bpy.ops.quatbake.analyze() == {'FINISHED'}
    scene.quatbake.timing = 'KEYED'
    analysed.clear()
    assert bpy.ops.quatbake.bake() == {'FINISHED'}
    assert _count(analysed) == 6, analysed


def test_revert_takes_the_analysis_of_the_keys_it_puts_back(clean_blender, analysed):
    _scene()
    scene = bpy.context.scene
    assert bpy.ops.quatbake.analyze() == {'FINISHED'}
    clicked = {name: dict(e) for name, e in entries.results(scene).items()}
    assert bpy.ops.quatbake.bake() == {'FINISHED'}
    analysed.clear()

    assert bpy.ops.quatbake.revert() == {'FINISHED'}
    assert analysed == []
    found = entries.results(scene)
    for name, entry in found.items():
        assert not entries.is_stale(scene, name), name
        assert entry["before"] is None
        # The click's own analysis: every figure the same, to the bit.
        assert entry == clicked[name], name


def test_a_bake_past_the_refresh_limit_keeps_no_analyses(clean_blender, monkeypatch):
    _scene()
    scene = bpy.context.scene
    monkeypatch.setattr(entries, "REFRESH_FRAME_LIMIT", 10)
    assert bpy.ops.quatbake.analyze() == {'FINISHED'}
    assert scene.name not in entries._ANALYSED


def test_an_unkeyed_channels_value_changed_after_analyze_is_analysed_again(clean_blender,
                                                                          analysed):
    """Swing turns X and Z; its Y channel has a curve without keys, so Blender plays the
    property's value, and setting it changes what plays (Y sits between X and Z in the
    XYZ order) although no key moved. Also pins that the analysis reads that value, as
    Blender plays it (it read the empty curve as 0: 19.47 deg where Blender's is 6.14)."""
    swing = scenes.make_animated_object("Swing", 'XYZ', [1.0, 25.0],
                                        np.radians([[0, 0, 0], [90, 0, 90]]), 'LINEAR')
    fc = animdata.rotation_fcurves(swing)[1]
    while len(fc.keyframe_points):
        fc.keyframe_points.remove(fc.keyframe_points[0])
    scenes.select_only(swing)
    scene = bpy.context.scene
    scene.quatbake.method = 'SLERP'
    assert bpy.ops.quatbake.analyze() == {'FINISHED'}
    then = entries.results(scene)["Swing"]["max_deviation_deg"]
    swing.rotation_euler[1] = 1.2
    want = scenes.max_deviation_from_keys(swing)
    assert abs(want - then) > 1.0, (want, then)
    analysed.clear()

    assert bpy.ops.quatbake.bake() == {'FINISHED'}
    assert _count(analysed) == 2, analysed      # the keys before the bake, and after
    before = entries.results(scene)["Swing"]["before"]
    assert before["max_deviation_deg"] == pytest.approx(want, abs=0.01)


def _keys(fc) -> bytes:
    """A curve's keys as Blender stores them, bit for bit: frames and values (float32),
    interpolation. Bits, not values: the BVH importer keys -0.0 where the bake writes
    0.0, a key the refresh analyses again (it compares what it read, not what that means)."""
    n = len(fc.keyframe_points)
    co, ipo = np.empty(2 * n, dtype=np.float32), np.empty(n, dtype=np.int32)
    fc.keyframe_points.foreach_get("co", co)
    fc.keyframe_points.foreach_get("interpolation", ipo)
    return co.tobytes() + ipo.tobytes()


@pytest.mark.parametrize("name", ["pybvh_test1.bvh", "test_freebvh.bvh"])
def test_a_real_bvh_rig_is_analysed_once_through_analyze_re_bake_and_revert(
        clean_blender, analysed, name):
    """A real mocap file as Blender's BVH importer makes it (a key on every frame, each
    bone in its file's Euler order, the root's location keyed). Analyze analyses each
    keyed bone once. The slerp bake of keys on every frame writes most bones' keys back
    as they were (the path passes through every key), so its refresh analyses only the
    bones whose stored keys it changed: their content is the digest, whoever wrote them. What
    it shows is what a refresh with nothing kept shows. The Revert analyses nothing,
    and its entries are Analyze's, to the bit."""
    _clip, arm, scene = import_bvh(name)
    scenes.select_only(arm)
    scene.quatbake.method = 'SLERP'
    assert bpy.ops.quatbake.analyze() == {'FINISHED'}
    clicked = {n: dict(e) for n, e in entries.results(scene).items()}
    bones = len(clicked)
    assert bones >= 18 and _count(analysed) == bones, (bones, analysed)
    original = {(fc.data_path, fc.array_index): _keys(fc) for fc in animdata.object_fcurves(arm)}
    analysed.clear()

    assert bpy.ops.quatbake.bake() == {'FINISHED'}
    changed = {fc.data_path.split('"')[1] for fc in animdata.object_fcurves(arm)
               if _keys(fc) != original.get((fc.data_path, fc.array_index))}
    assert _count(analysed) == len(changed) < bones, (changed, analysed)
    found = {n: dict(e) for n, e in entries.results(scene).items()}
    for n, entry in found.items():
        assert entry["before"]["max_deviation_deg"] == clicked[n]["max_deviation_deg"], n
    entries._ANALYSED.clear()
    entries.refresh(scene, [entries.named_transform(scene, n) for n in found], "slerp")
    for n, entry in entries.results(scene).items():
        assert _without_figures(entry) == _without_figures(found[n]), n
        assert entry["max_deviation_deg"] == pytest.approx(found[n]["max_deviation_deg"],
                                                           abs=1e-9), n
    analysed.clear()

    assert bpy.ops.quatbake.revert() == {'FINISHED'}
    assert analysed == []


# --- The keys a bake wrote, taken as written (issue 23) -------------------------------------
# The Re-bake's refresh takes the keys the bake just wrote from the bake
# (animdata.recording_writes) instead of reading 1,000-key curves back from Blender.


def _stored(fc) -> dict:
    """What Blender holds of ``fc``'s keys, read here with foreach_get (the oracle)."""
    kps = fc.keyframe_points
    n = len(kps)
    out = {}
    for name in ("co", "handle_left", "handle_right"):
        buf = np.empty(2 * n, dtype=np.float32)
        kps.foreach_get(name, buf)
        out[name] = buf.reshape(n, 2)
    ipo = np.empty(n, dtype=np.int32)
    kps.foreach_get("interpolation", ipo)
    out["interpolation"] = ipo
    return out


def _stepped_scene():
    """_scene's three, and Steps: quaternion keys held (Constant), which the bake writes as
    Constant keys."""
    flip, wrap, rig = _scene()
    steps = scenes.make_animated_object("Steps", 'QUATERNION', FRAMES,
                                        scenes.quats_about_z([0, 30, 90]), 'CONSTANT')
    scenes.select_only(flip, wrap, rig, steps)
    return flip, wrap, rig, steps


# Dense Linear keys, Constant ones for the held keys, and a Key Tolerance bake's Linear
# and Bezier keys (the Bezier ones written with their handles, no fc.update()).
BAKES = [dict(), dict(tolerance=0.1, key_interpolation='LINEAR'),
         dict(tolerance=0.1, key_interpolation='BEZIER')]


@pytest.mark.parametrize("bake", BAKES, ids=["dense", "tolerance-linear", "tolerance-bezier"])
def test_the_keys_a_bake_wrote_are_kept_as_blender_stores_them(clean_blender, bake):
    owners = _stepped_scene()
    with animdata.recording_writes(10**6) as written:
        assert bpy.ops.quatbake.bake(**bake) == {'FINISHED'}
    curves = {fc.as_pointer(): fc for o in owners for fc in animdata.object_fcurves(o)}
    rotation = [fc for o in owners[:2] + owners[3:] for fc in animdata.rotation_fcurves(o)]
    rig = owners[2]
    rotation += animdata.rotation_fcurves(entries.named_transform(bpy.context.scene,
                                                                  f"{rig.name}: upper"))
    # Every baked rotation channel is kept, and only curves that exist now.
    kept_arrays = written.arrays()
    assert {fc.as_pointer() for fc in rotation} <= {pointer for pointer, _f in kept_arrays}
    assert {pointer for pointer, _f in kept_arrays} <= set(curves)
    constant = False
    for (pointer, fields), kept in kept_arrays.items():
        assert fields == animdata.KEY_FIELDS
        stored = _stored(curves[pointer])
        for name, array in stored.items():
            # Exactly: float32 widened to float64 is exact, enum values are integers.
            np.testing.assert_array_equal(kept[name], array, err_msg=name)
        constant |= bool((stored["interpolation"] == 0).any())
    assert constant, "the held keys were written Constant"


def test_the_refresh_reads_none_of_the_keys_the_bake_wrote(clean_blender, monkeypatch):
    from quatbake.addon.animdata import read

    _stepped_scene()
    scene = bpy.context.scene
    read_back = []
    reading = read._read_keyframe_arrays

    def counting(fc, fields):
        read_back.append(fc.as_pointer())
        return reading(fc, fields)

    monkeypatch.setattr(read, "_read_keyframe_arrays", counting)
    with animdata.recording_writes(10**6) as written:
        assert bpy.ops.quatbake.bake() == {'FINISHED'}
    wrote = {pointer for pointer, _fields in written.arrays()}
    # The click (the bake, then the report's refresh of the four) read the keys before the
    # bake, and not one of those it wrote.
    assert wrote and read_back
    assert not wrote & set(read_back)
    refreshed = {name: dict(e) for name, e in entries.results(scene).items()}
    assert len(refreshed) == 4 and all(e["before"] for e in refreshed.values())
    read_back.clear()
    # The refresh with nothing kept reads them back, and finds the same entries.
    entries.refresh(scene, [entries.named_transform(scene, name) for name in refreshed],
                    "slerp")
    assert wrote <= set(read_back)
    for name, entry in entries.results(scene).items():
        assert _without_figures(entry) == _without_figures(refreshed[name]), name
        assert entry["max_deviation_deg"] == pytest.approx(refreshed[name]["max_deviation_deg"],
                                                           abs=1e-9)


def test_a_bake_past_the_limit_keeps_no_keys(clean_blender):
    _stepped_scene()
    with animdata.recording_writes(10) as written:
        assert bpy.ops.quatbake.bake() == {'FINISHED'}
    assert written.overflowed and not written.arrays()
