"""What plays between the frames of a bake: Blender interpolates every channel on its own
and composes them, so keys exact on every frame can still play off between them, where
motion blur samples. The report measures it there and says what holds it."""
import bpy
import mathutils
import numpy as np
import pytest

from quatbake.addon import bake

import scenes

pytestmark = pytest.mark.bpy


def test_a_delta_rotation_turning_far_between_baked_frames_is_measured_and_worded(
        clean_blender):
    """A walk: rotation_quaternion and delta_rotation_quaternion both keyed, a delta key
    stored with its sign flipped. A dense bake is exact on the frames, but Blender
    composes the two channels' own interpolations between them: 5.7 deg off at frame
    31.5, where Analyze said "fine ... nothing to do". The reference: frame_set at every
    quarter frame against mathutils' slerp of the orientations Blender plays at the keys."""
    from quatbake.addon import analyze
    from quatbake.core import findings

    obj = scenes.new_object("DeltaQ", 'QUATERNION')
    turned = mathutils.Quaternion((0.9, 0.3, 0.3, 0.1)).normalized()
    keys = [(1, mathutils.Quaternion(), mathutils.Quaternion()),
            (21, turned, mathutils.Quaternion((0.9239, 0.0, 0.3827, 0.0))),
            (41, turned, mathutils.Quaternion((-0.7071, 0.0, -0.7071, 0.0)))]   # flipped sign
    for frame, rotation, delta in keys:
        obj.rotation_quaternion, obj.delta_rotation_quaternion = rotation, delta
        obj.keyframe_insert("rotation_quaternion", frame=frame)
        obj.keyframe_insert("delta_rotation_quaternion", frame=frame)
    scene = bpy.context.scene

    def played(frame):
        scene.frame_set(int(np.floor(frame)), subframe=float(frame - np.floor(frame)))
        return obj.matrix_basis.to_quaternion()

    at_keys = [played(frame) for frame, _r, _d in keys]

    def off_the_slerp():
        out = []
        for frame in np.arange(1.0, 41.0 + 1e-9, 0.25):
            i = 0 if frame <= 21 else 1
            u = (frame - keys[i][0]) / 20.0
            out.append(np.degrees(played(frame).rotation_difference(
                at_keys[i].slerp(at_keys[i + 1], u)).angle))
        return np.array(out)

    bake.bake_objects([obj], bake.BakeSettings())
    off = off_the_slerp()
    assert off.max() > 1.0                    # the composition between the frames
    result = analyze.analyze_object(obj)
    # The analysis samples each flagged interval 16 times a frame, the reference 4: 0.1 deg
    assert result.max_between_deviation_deg >= off.max() - 0.1
    assert findings.verdict(result) == findings.VERDICT_VISIBLE
    assert result.advice.startswith("between frames Blender plays up to") and \
        "Keys: Bezier" in result.advice
    # The advice holds: a Bezier tolerance bake is within it at every quarter frame.
    bake.bake_objects([obj], bake.BakeSettings(tolerance_deg=0.01, key_interpolation='BEZIER'))
    assert off_the_slerp().max() <= 0.01 + 1e-4    # float32 keys composed by Blender
