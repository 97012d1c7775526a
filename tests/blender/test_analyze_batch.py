"""The batched analysis (analyze.engine.analyze_many, core.analysis.analyze_group): a
rig's bones keyed on the same frames are compared in one pass, and each bone's result
is what Blender plays against a slerp computed here with mathutils, whatever bones
are analysed beside it."""
import bpy
import numpy as np
import pytest
from mathutils import Quaternion

from quatbake.addon import animdata
from quatbake.addon.analyze import engine, entries
from quatbake.addon.transform import AnimatedTransform, keyed_bone_names
from quatbake.core import analysis as core_analysis
from quatbake.core import quat

import scenes

KEYS = [1, 21, 41, 61]


def _quat(axis, deg):
    return list(Quaternion(axis, np.radians(deg)))


def _rig():
    """Five bones keyed on the same frames: plain turns, a flipped quaternion sign
    (Blender goes the long way), an Euler wrap 170 -> -170, a still bone, and one
    with BEZIER easing on an axis of its own."""
    rig = scenes.make_rig("Rig", [(f"b{i}", None, (i, 0, 0), (i, 0, 1)) for i in range(5)])
    plain = [_quat((0, 0, 1), d) for d in (0, 40, 80, 120)]
    flipped = [_quat((1, 0, 0), d) for d in (0, 50, 100, 150)]
    flipped[2] = [-c for c in flipped[2]]
    scenes.key_bone(rig, "b0", "rotation_quaternion", KEYS, plain, mode='QUATERNION',
                    interpolation='LINEAR')
    scenes.key_bone(rig, "b1", "rotation_quaternion", KEYS, flipped, mode='QUATERNION',
                    interpolation='LINEAR')
    scenes.key_bone(rig, "b2", "rotation_euler", KEYS,
                    np.radians([[0, 0, 150], [0, 10, 170], [0, 20, -170], [0, 30, -150]]),
                    mode='XYZ')
    scenes.key_bone(rig, "b3", "rotation_quaternion", KEYS, [[1, 0, 0, 0]] * 4,
                    mode='QUATERNION')
    scenes.key_bone(rig, "b4", "rotation_quaternion", KEYS,
                    [_quat((0.3, 1, 0.2), d) for d in (0, 30, 90, 100)], mode='QUATERNION')
    return rig


def _slerp_deviation(rig, bone):
    """Largest angle (deg) between what Blender plays (frame_set, matrix_basis) and the
    short-arc slerp of its key orientations, over the whole frames."""
    frames = np.arange(KEYS[0], KEYS[-1] + 1)
    played = scenes.bone_world_quats(rig, bone, frames)
    keyed = [Quaternion(played[f - KEYS[0]]) for f in KEYS]
    worst = 0.0
    for f, q in zip(frames, played):
        i = min(np.searchsorted(KEYS, f, side="right") - 1, len(KEYS) - 2)
        u = (f - KEYS[i]) / (KEYS[i + 1] - KEYS[i])
        a, b = keyed[i], keyed[i + 1]
        if a.dot(b) < 0.0:
            b = -b                                 # the short arc
        expected = a.slerp(b, u)
        angle = np.degrees(Quaternion(q).rotation_difference(expected).angle)
        worst = max(worst, min(angle, 360.0 - angle))     # either sign: one orientation
    return worst


def test_a_rigs_bones_are_compared_in_one_pass_each_as_blender_plays(clean_blender,
                                                                    monkeypatch):
    rig = _rig()
    calls = []
    real = core_analysis.analyze_group

    def counted(frames, keys, items, *args, **kwargs):
        calls.append(len(items))
        return real(frames, keys, items, *args, **kwargs)

    monkeypatch.setattr(core_analysis, "analyze_group", counted)
    scenes.select_only(rig)
    bpy.context.scene.quatbake.method = 'SLERP'
    assert bpy.ops.quatbake.analyze() == {'FINISHED'}
    assert calls == [5], "the five bones keyed on the same frames: one group"
    found = entries.results(bpy.context.scene)
    for i in range(5):
        entry = found[f"Rig: b{i}"]
        # matrix_basis and mathutils are float32: ~1e-5 deg on these turns.
        assert entry["max_deviation_deg"] == pytest.approx(_slerp_deviation(rig, f"b{i}"),
                                                           abs=1e-3), f"b{i}"
    # The flipped key is the third: both of its intervals go the long way.
    assert found["Rig: b1"]["long_arc_segments"] == [[21.0, 41.0], [41.0, 61.0]]
    assert found["Rig: b2"]["long_arc_segments"] == [[21.0, 41.0]]
    # A still bone: nothing to differ but float rounding, on any CPU.
    assert found["Rig: b3"]["max_deviation_deg"] == pytest.approx(0.0, abs=1e-9)


def test_a_bone_analysed_beside_others_gives_what_it_gives_alone(clean_blender):
    rig = _rig()
    bones = [AnimatedTransform(rig, f"b{i}") for i in range(5)]
    together = engine.analyze_many([(b, None, False) for b in bones])
    for bone, grouped in zip(bones, together):
        alone = engine.analyze_object(bone)
        # Only the float sums of the tracking's steps may differ (more samples
        # shared with the neighbours): far below what the report prints.
        assert grouped.max_deviation_deg == pytest.approx(alone.max_deviation_deg, abs=1e-9)
        assert grouped.long_arc_segments == alone.long_arc_segments
        assert grouped.kinds == alone.kinds
        assert grouped.findings == alone.findings
        np.testing.assert_allclose(grouped.deviation_deg, alone.deviation_deg, atol=1e-9)


def test_one_bones_broken_key_leaves_the_others_analysed(clean_blender):
    rig = _rig()
    path = scenes.bone_path("b4", "rotation_quaternion")
    for f in animdata.object_fcurves(rig):   # every channel of one key zero: no rotation
        if f.data_path != path:
            continue
        f.keyframe_points[1].co[1] = 0.0
        f.keyframe_points[1].handle_left[1] = f.keyframe_points[1].handle_right[1] = 0.0
    bones = [AnimatedTransform(rig, f"b{i}") for i in range(5)]
    found = engine.analyze_many([(b, None, False) for b in bones])
    assert isinstance(found[4], ValueError), found[4]
    assert str(found[4]).startswith('Armature "Rig", bone "b4": the quaternion'), found[4]
    for i in range(4):
        assert found[i].max_deviation_deg == pytest.approx(_slerp_deviation(rig, f"b{i}"),
                                                           abs=1e-3)


def test_between_frames_each_transform_is_measured_at_its_own_jumps_in_a_group(
        clean_blender):
    """Two objects keyed on the same frames are sampled between frames at the union of
    their jumps (one evaluation). "Wrap" turns 190 deg about X in one frame, LINEAR, which
    Turns: Keyed follows exactly, then eases 90 deg about Z over 2-11 (Bezier); "Other"
    jumps 200 deg about Z over 2-11. At Other's subframes Wrap's ease is degrees off an
    even slerp: measured there, Wrap's figure would depend on its neighbour."""
    wrap = scenes.new_object("Wrap", 'XYZ')
    fcs = scenes.key_channels(wrap, "rotation_euler", [1, 2, 11],
                              np.radians([[0, 0, 0], [190, 0, 0], [190, 0, 90]]))
    for fc in fcs:
        fc.keyframe_points[0].interpolation = 'LINEAR'
    other = scenes.new_object("Other", 'XYZ')
    scenes.key_channels(other, "rotation_euler", [1, 2, 11],
                        np.radians([[0, 0, 0], [0, 0, 0], [0, 0, 200]]))
    alone = engine.analyze_many([(wrap, None, False)], "slerp", "KEYED")[0]
    together = engine.analyze_many([(wrap, None, False), (other, None, False)], "slerp",
                                   "KEYED")
    assert alone.worst_between_frame is not None and 1.0 < alone.worst_between_frame < 2.0
    assert alone.max_between_deviation_deg < 0.01          # the keyed turn, followed
    # The same in the group: measured at Wrap's own subframes (1-2) only. Its deviation
    # there is float noise, so where its largest lies is not compared, only that it is
    # inside its own jump and as small.
    assert 1.0 < together[0].worst_between_frame < 2.0
    assert abs(together[0].max_between_deviation_deg - alone.max_between_deviation_deg) < 1e-6
    assert 2.0 < together[1].worst_between_frame < 11.0    # Other's own jump
    # The neighbour's subframes are where the ease shows: Blender's playback there
    # (frame_set + matrix_basis) against mathutils' even slerp of its keys (scipy is not
    # in Blender 3.4.1's Python), far above 0.01.
    from mathutils import Euler

    times = np.array([4.25, 6.5, 8.75])
    played = []
    for t in times:
        bpy.context.scene.frame_set(int(t), subframe=float(t % 1.0))
        played.append(scenes.matrix_quat(wrap))
    bpy.context.scene.frame_set(1)
    a, b = (Euler(np.radians(e).tolist(), 'XYZ').to_quaternion()
            for e in ([190, 0, 0], [190, 0, 90]))
    even = np.array([tuple(a.slerp(b, (t - 2.0) / 9.0)) for t in times])
    off = np.degrees(quat.angle_between(np.array(played), even))
    assert off.max() > 1.0, off


def _playback_inputs(transforms):
    """(obj, mode, fcurves, key_raw, keys) of each transform, as analyze.engine reads them."""
    from quatbake.addon.analyze.engine import _locate, _read

    out = []
    for t in transforms:
        located = _locate(t, "slerp", None, "AUTO", "EVEN", False)
        found = _read(located)
        out.append((t, found.sampled.rotation_mode, located.fcurves, found.sampled.key_raw,
                    found.keys))
    return out


@pytest.mark.parametrize("scene", ["rig", "mocap", "baked"])
def test_playback_counts_of_a_group_are_each_ones_own(clean_blender, scene):
    """turn_inputs.playback_counts_many counts, per transform, the samples between its keys
    that playback_counts counts for it alone: a rig of mixed modes and turns, a real BVH
    rig (Euler bones, delta-free, a key on every frame) and the rig after a dense bake."""
    from quatbake.addon.animdata import turn_inputs

    if scene == "mocap":
        from test_realdata_import import import_bvh

        _clip, rig, _scene = import_bvh("pybvh_test1.bvh")
    else:
        rig = _rig()
    if scene == "baked":
        from quatbake.addon import bake

        bake.bake_objects([rig], bake.BakeSettings(method='SLERP', location_method='KEEP'))
    bones = [AnimatedTransform(rig, name) for name in keyed_bone_names(rig)]
    inputs = _playback_inputs(bones)
    by_keys: dict = {}
    for item in inputs:
        by_keys.setdefault(item[4].tobytes(), []).append(item)
    compared, sampled = 0, 0
    for group in by_keys.values():
        keys = group[0][4]
        together = turn_inputs.playback_counts_many([g[:4] for g in group], keys)
        for (obj, mode, fcurves, key_raw, _k), counts in zip(group, together):
            alone = turn_inputs.playback_counts(obj, mode, fcurves, keys, key_raw)
            assert (alone is None) == (counts is None), obj
            if alone is not None:
                np.testing.assert_array_equal(counts, alone)
                sampled += 1
            compared += 1
    assert compared == len(bones) >= 5
    # The mocap's fast one-frame turns need samples between frames: counts, not None.
    assert sampled > 0 or scene != "mocap"
