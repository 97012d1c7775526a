"""Bake with a tolerance (issue 15): few keys that Blender and a glTF player both play right.

Checked with Blender itself (``frame_set`` + ``matrix_world`` of the dense and
the sparse bake) and with Blender's own glTF exporter, its file evaluated by
tests/blender/gltf_spec_eval.py (independent of quatbake.core).
"""

import math

import bpy
import numpy as np
import pytest

from quatbake.addon import animdata, bake, export_check

from gltf_spec_eval import angle_deg, export_for_reference, reference_deviation
from scenes import make_animated_object, select_only

TOL = 0.01
FRAMES = np.arange(1, 62)


def _swing(name):
    """A pendulum about Z keyed every 5 frames (Bezier): 0 -> 140 -> 0 -> 140 deg, 420 deg
    of turning in 60 frames."""
    kf = np.arange(1.0, 62.0, 5)
    z = np.radians(70.0 - 70.0 * np.cos(np.pi * (kf - 1) / 20))
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 61
    return make_animated_object(name, 'XYZ', kf, np.column_stack([0 * z, 0 * z, z]))


def _keys(obj):
    counts = {len(fc.keyframe_points) for fc in animdata.object_fcurves(obj)}
    assert len(counts) == 1  # every channel keyed on the same frames
    return counts.pop()


def _world_quats(obj):
    scene = bpy.context.scene
    out = []
    for f in FRAMES:
        scene.frame_set(int(f))
        q = obj.matrix_world.to_quaternion()
        out.append([q.w, q.x, q.y, q.z])
    return np.array(out)


@pytest.fixture
def dense_and_sparse(clean_blender):
    dense, sparse = _swing("Dense"), _swing("Sparse")
    first = bake.bake_objects([dense], bake.BakeSettings(method='SLERP'))
    second = bake.bake_objects([sparse], bake.BakeSettings(method='SLERP', tolerance_deg=TOL))
    return dense, sparse, first, second


def test_tolerance_bake_writes_few_keys_that_play_like_the_dense_bake(dense_and_sparse):
    dense, sparse, first, second = dense_and_sparse
    assert first.keys_dense == first.keys_written == 61
    assert second.keys_dense == 61 and second.keys_written == _keys(sparse)
    assert _keys(dense) == 61
    assert _keys(sparse) <= 0.4 * _keys(dense)  # the bar
    # Blender's own playback of both actions: float32 keys add ~1e-5 deg.
    assert angle_deg(_world_quats(dense), _world_quats(sparse)).max() <= TOL


def test_tolerance_bake_exported_without_sampling_plays_like_blender(dense_and_sparse, tmp_path):
    _dense, sparse, _, _ = dense_and_sparse
    path = export_for_reference(tmp_path, [sparse], export_force_sampling=False)
    ref = reference_deviation(path, [sparse], FRAMES)["Sparse"]
    assert ref.max() <= 2 * TOL  # the bar: 0.02 deg
    report = export_check.check_objects(bpy.context, [sparse], {"export_force_sampling": False})
    (entry,) = report["objects"]
    assert entry["key_count"] == _keys(sparse)  # the keys as written
    assert entry["max_deviation_deg"] <= 2 * TOL and entry["intervals"] == []


def test_no_written_interval_turns_180_degrees(clean_blender):
    # Keys 0 -> 340 deg about Z in one LINEAR interval, baked with slerp through a
    # middle key: Blender's Euler channels could play 0 -> 340 with two keys,
    # a glTF player could not.
    obj = make_animated_object(
        "Spin", 'XYZ', [1, 11, 21], np.radians([[0, 0, 0], [0, 0, 170], [0, 0, 340]]), 'LINEAR'
    )
    bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, 21
    bake.bake_objects([obj], bake.BakeSettings(method='SLERP', tolerance_deg=TOL))
    fc = animdata.find_fcurves(obj, "rotation_euler", 3)[2]
    z = np.degrees([kp.co[1] for kp in fc.keyframe_points])
    assert len(z) >= 3 and np.abs(np.diff(z)).max() < 180.0
    report = export_check.check_objects(bpy.context, [obj], {"export_force_sampling": False})
    assert report["objects"][0]["max_deviation_deg"] <= 2 * TOL


def test_operator_takes_the_tolerance_from_the_scene_and_reports_counts(clean_blender):
    obj = _swing("Op")
    select_only(obj)
    bpy.context.scene.quatbake.tolerance = TOL
    assert bpy.ops.quatbake.bake() == {'FINISHED'}
    assert _keys(obj) <= 0.4 * 61
    assert bpy.context.scene.quatbake.last_frames_written == _keys(obj)


def test_bad_tolerance_is_refused_with_a_sentence(clean_blender):
    obj = _swing("Bad")
    for value in (-1.0, math.inf):
        with pytest.raises(bake.BakeError, match="Key tolerance must be a finite number"):
            bake.bake_objects([obj], bake.BakeSettings(tolerance_deg=value))


def test_dense_slerp_bake_exported_without_sampling_plays_like_blender(clean_blender, tmp_path):
    # Checked by (issue 15): a slerp bake, keys as they are, plays what Blender plays.
    from export_scenes import build_three_empties

    objects = build_three_empties()
    bake.bake_objects(objects, bake.BakeSettings(method='SLERP'))
    report = export_check.check_objects(bpy.context, objects, {"export_force_sampling": False})
    ref = reference_deviation(export_for_reference(tmp_path, objects, export_force_sampling=False),
                              objects, np.arange(1, 26))
    for entry in report["objects"]:
        assert entry["max_deviation_deg"] <= TOL, entry["name"]
        assert ref[entry["name"]].max() <= TOL, entry["name"]


def test_revert_after_a_tolerance_bake_restores_the_keys(clean_blender):
    from scenes import assert_same_snapshot, scene_snapshot

    obj = _swing("Back")
    bpy.context.scene.frame_set(1)
    before = scene_snapshot()
    result = bake.bake_objects([obj], bake.BakeSettings(method='SQUAD', frame_step=2,
                                                        tolerance_deg=0.5))
    # Frames 1, 3, .. 61, and the animator's keys every 5 frames (6, 16, .. 56 are off
    # that grid): 31 + 6.
    dense = np.union1d(np.arange(1.0, 62.0, 2), np.arange(1.0, 62.0, 5)).size
    assert result.keys_written < result.keys_dense == dense == 37
    assert bake.revert_objects([obj]) == ["Back"]
    bpy.context.scene.frame_set(1)
    assert_same_snapshot(before, scene_snapshot())


@pytest.mark.parametrize("keyed", ["delta_rotation_euler", "rotation_euler"])
def test_tolerance_bake_with_delta_channels_plays_like_the_dense_bake(clean_blender, keyed):
    # BVH object imports key only delta_rotation_euler (the bake writes there); a
    # static delta under regular keys composes too. Blender plays delta @ rotation.
    from scenes import key_channels, new_object

    kf = np.arange(1.0, 62.0, 5)
    z = np.radians(70.0 - 70.0 * np.cos(np.pi * (kf - 1) / 20))
    made = []
    for name in ("DeltaDense", "DeltaSparse"):
        obj = new_object(name, 'XYZ')
        key_channels(obj, keyed, kf, np.column_stack([0 * z, 0 * z, z]))
        if keyed == "rotation_euler":
            obj.delta_rotation_euler = (0.4, -0.2, 0.0)
        made.append(obj)
    bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, 61
    dense, sparse = made
    bake.bake_objects([dense], bake.BakeSettings(method='SLERP'))
    result = bake.bake_objects([sparse], bake.BakeSettings(method='SLERP', tolerance_deg=TOL))
    assert result.keys_written <= 0.4 * result.keys_dense
    assert angle_deg(_world_quats(dense), _world_quats(sparse)).max() <= TOL


def test_a_keyed_spin_is_split_below_180_degrees_and_exports_right(clean_blender):
    # Issue 15 with the turns of issue 11: a LINEAR Euler 0 -> 360 windmill baked with
    # Turns: Auto keeps the spin; the tolerance bake splits it so no written interval
    # turns 180 degrees or more, and the unsampled export then plays it.
    obj = make_animated_object("Spin360", 'XYZ', [1, 25], [[0, 0, 0], [0, 0, 2 * math.pi]],
                               'LINEAR')
    bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, 25
    bake.bake_objects([obj], bake.BakeSettings(method='SLERP', turns='AUTO', tolerance_deg=TOL))
    fc = animdata.find_fcurves(obj, "rotation_euler", 3)[2]
    z = np.degrees([kp.co[1] for kp in fc.keyframe_points])
    assert abs(z[-1] - z[0] - 360.0) < 1e-3                     # the spin is kept
    assert len(z) >= 3 and np.abs(np.diff(z)).max() < 180.0
    report = export_check.check_objects(bpy.context, [obj], {"export_force_sampling": False})
    assert report["objects"][0]["max_deviation_deg"] <= 2 * TOL
