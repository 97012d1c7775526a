"""Linear extrapolation of rotation channels: what plays beyond the keys.

A walk of time settings: a propeller keyed for one turn with Linear extrapolation, so
that it spins through the shot, stopped turning after its last key once re-baked (every
baked curve was written CONSTANT), 144 deg off at frame 15, and the bake said 0.00 deg.
The oracle is Blender's playback (frame_set + matrix_basis) before the bake."""
import numpy as np
import pytest

from quatbake.addon import animdata, bake
from quatbake.core import quat

from scenes import evaluated_quats, make_animated_object

pytestmark = pytest.mark.bpy

BEYOND = np.array([15.0, 50.0, 99.0])
# Extrapolated from float32 keys: the baked slope is the difference of two keys one frame
# apart, each rounded to a float32 step (4.8e-7 rad near 2 pi), so the pose drifts by up
# to that much per frame beyond the last key (11), on top of a float32 pose (~2e-6 rad).
SAME_RAD = 2e-6 + 4.8e-7 * (BEYOND - 11.0)


def _propeller():
    """One turn about Z over frames 1-11, Linear keys, Linear extrapolation."""
    obj = make_animated_object("Propeller", 'XYZ', [1, 11],
                               [[0.0, 0.0, 0.0], [0.0, 0.0, 2.0 * np.pi]], interpolation='LINEAR')
    for fc in animdata.rotation_fcurves(obj):
        fc.extrapolation = 'LINEAR'
    return obj


def test_a_bake_in_the_same_channels_keeps_the_motion_beyond_the_keys(clean_blender):
    obj = _propeller()
    before = evaluated_quats(obj, BEYOND)
    assert quat.angle_between(before[0], before[1]) > 0.5       # it does turn there
    result = bake.bake_objects([obj], bake.BakeSettings(method='SLERP'))
    assert not [w for w in result.warnings if "beyond its keys" in w.message]
    assert (quat.angle_between(evaluated_quats(obj, BEYOND), before) < SAME_RAD).all()


def test_a_conversion_says_the_motion_beyond_the_keys_is_not_kept(clean_blender):
    obj = _propeller()
    result = bake.convert_objects([obj], 'QUATERNION', 0.01)
    said = [w.message for w in result.warnings if "beyond its keys" in w.message]
    assert len(said) == 1 and "rotation_euler[2]" in said[0] and "hold their end poses" \
        in said[0], result.warnings


def test_a_last_key_held_constant_stays_held_after_the_bake(clean_blender):
    """A review: Blender extrapolates each end from its end key; a Constant last key holds
    whatever the curve's extrapolation. The bake wrote Linear ends and the held end turned
    on (150 deg at frame 25 where Blender held 120). It holds, and the end that did move
    (before the first key) is named as not kept."""
    obj = make_animated_object("Held", 'XYZ', [1, 10, 20],
                               np.radians([[0, 0, 0], [0, 0, 60], [0, 0, 120]]),
                               interpolation='LINEAR')
    for fc in animdata.rotation_fcurves(obj):
        fc.extrapolation = 'LINEAR'
        fc.keyframe_points[-1].interpolation = 'CONSTANT'
    after_end = np.array([25.0, 40.0])
    before = evaluated_quats(obj, after_end)
    result = bake.bake_objects([obj], bake.BakeSettings(method='SLERP'))
    assert quat.angle_between(evaluated_quats(obj, after_end), before).max() < 2e-6
    assert [w for w in result.warnings if "beyond its keys" in w.message], result.warnings


def test_quaternion_components_extrapolated_are_not_kept_but_named(clean_blender):
    """A review: Blender extrapolates a quaternion's raw components and normalises; baked
    unit samples extrapolate otherwise (12.7 deg off at frame 40 and growing, the bake
    saying 0.0 deg). The baked keys hold their end pose, and a warning says so."""
    q = [[1.0, 0.0, 0.0, 0.0], [np.cos(np.radians(30)), 0, 0, np.sin(np.radians(30))],
         [np.cos(np.radians(60)), 0, 0, np.sin(np.radians(60))]]
    obj = make_animated_object("Prop", 'QUATERNION', [1, 10, 20], q, interpolation='LINEAR')
    for fc in animdata.rotation_fcurves(obj):
        fc.extrapolation = 'LINEAR'
    last = evaluated_quats(obj, [20.0])
    result = bake.bake_objects([obj], bake.BakeSettings(method='SLERP'))
    said = [w.message for w in result.warnings if "beyond its keys" in w.message]
    assert len(said) == 1 and "rotation_quaternion[3]" in said[0], result.warnings
    held = evaluated_quats(obj, [25.0, 40.0])
    assert quat.angle_between(held, np.repeat(last, 2, axis=0)).max() < 2e-6
