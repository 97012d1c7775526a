"""Linear extrapolation of rotation channels: what plays beyond the keys.

A walk of time settings: a propeller keyed for one turn with Linear extrapolation, so
that it spins through the shot, stopped turning after its last key once re-baked (every
baked curve was written CONSTANT), 144 deg off at frame 15, and the bake said 0.00 deg.
The oracle is Blender's playback (frame_set + matrix_basis) before the bake."""
import bpy
import numpy as np
import pytest

from quatbake.addon import animdata, bake
from quatbake.core import quat

from scenes import evaluated_quats, key_channels, make_animated_object, new_object

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
    said = [w for w in result.warnings if "beyond its keys" in w.message]
    assert len(said) == 1 and said[0].frame == 1.0, result.warnings   # where it went on


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


def _locations(obj, frames) -> np.ndarray:
    """(n, 3): ``frame_set`` each frame, then the translation of ``matrix_basis``."""
    scene = bpy.context.scene
    out = np.empty((len(frames), 3))
    for i, f in enumerate(frames):
        scene.frame_set(int(f))
        out[i] = obj.matrix_basis.translation
    return out


def _car(location, interpolation):
    """A quarter turn about Z and ``location`` (n, 3) keyed at frames 1, 6, 11 (n = 3) or
    1, 11 (n = 2), the location channels extrapolated Linear: it drives on."""
    frames = [1, 6, 11] if len(location) == 3 else [1, 11]
    turn = np.radians(np.linspace(0.0, 90.0, len(frames)))
    obj = make_animated_object("Car", 'XYZ', frames, [[0.0, 0.0, z] for z in turn],
                               interpolation=interpolation, location=location)
    for fc in animdata.location_fcurves(obj):
        fc.extrapolation = 'LINEAR'
    return obj


def test_a_linear_location_bake_keeps_the_drive_beyond_the_keys(clean_blender):
    """A walk: a car keyed at two places with Linear extrapolation drives on through the
    shot; a location bake wrote its channels Constant and it stopped at its last key (10
    units short at frame 21, 88 at frame 99), with no word."""
    obj = _car([[0.0, 0.0, 0.0], [10.0, 5.0, 0.0]], 'LINEAR')
    before = _locations(obj, BEYOND)
    assert np.abs(before[1] - before[0]).max() > 10.0          # it does drive on
    result = bake.bake_objects([obj], bake.BakeSettings(method='SLERP', location_method='LINEAR'))
    assert not [w for w in result.warnings if "beyond its keys" in w.message], result.warnings
    # Float32 keys one frame apart give the slope to ~1e-6 units per frame (values up to
    # 10), so the position drifts by that much per frame beyond the last key (11).
    off = np.abs(_locations(obj, BEYOND) - before).max(axis=1)
    assert (off <= 2e-6 * (BEYOND - 10.0)).all(), off
    # A Re-bake reads the animator's keys from the action kept before the first bake.
    result = bake.bake_objects([obj], bake.BakeSettings(method='SLERP', location_method='LINEAR'))
    assert not [w for w in result.warnings if "beyond its keys" in w.message], result.warnings
    off = np.abs(_locations(obj, BEYOND) - before).max(axis=1)
    assert (off <= 2e-6 * (BEYOND - 10.0)).all(), off


def test_a_location_bake_that_cannot_keep_it_holds_and_names_the_channels(clean_blender):
    """Bezier keys extrapolate along their end handles; a Catmull-Rom path leaves its end
    keys at another slope. The baked keys hold their end positions, and the warning names
    the location channels that went on (not the rotation's, which hold)."""
    obj = _car([[0.0, 0.0, 0.0], [4.0, 0.0, 0.0], [10.0, 0.0, 0.0]], 'BEZIER')
    before = _locations(obj, [11.0, 30.0])
    assert before[1, 0] - before[0, 0] > 1.0
    result = bake.bake_objects([obj], bake.BakeSettings(method='SLERP',
                                                        location_method='CATMULL_ROM'))
    said = [w.message for w in result.warnings if "beyond its keys" in w.message]
    assert len(said) == 1 and "location[0]" in said[0] and "rotation" not in said[0], said
    assert "hold their end positions" in said[0]
    held = _locations(obj, [11.0, 30.0, 99.0])
    np.testing.assert_allclose(held, np.repeat(before[:1], 3, axis=0), rtol=0, atol=1e-6)


def test_each_location_channel_keeps_its_own_extrapolation(clean_blender):
    """A walk: only Y extrapolated Linear (X moving, Constant extrapolation); Y's kept slope
    was lost because X's ends, which hold, were held to Y's rule, and all three channels
    came out Constant (Y -1 and 2 at frames 0 and 40 became 0 and 1.5)."""
    obj = _car([[0.0, 0.0, 0.0], [2.0, 1.0, 0.0], [4.0, 1.5, 0.0]], 'LINEAR')
    x, y, _z = animdata.location_fcurves(obj)
    x.extrapolation = 'CONSTANT'
    outside = np.array([-10.0, 0.0, 20.0, 40.0])
    before = _locations(obj, outside)
    assert np.ptp(before[:2, 1]) > 1.0 and np.ptp(before[2:, 1]) > 1.0   # Y goes on
    assert before[0, 0] == before[1, 0] and before[2, 0] == before[3, 0]  # X holds
    result = bake.bake_objects([obj], bake.BakeSettings(method='SLERP', location_method='LINEAR'))
    assert not [w for w in result.warnings if "beyond its keys" in w.message], result.warnings
    # float32 keys one frame apart: ~2e-7 units per frame of slope (values up to 4).
    off = np.abs(_locations(obj, outside) - before).max(axis=1)
    assert (off <= 1e-6 + 2e-7 * np.abs(outside - 6.0)).all(), off


def test_a_bake_longer_than_the_location_keys_follows_the_drive_there(clean_blender):
    """A walk: location keyed at 1-11 with Linear extrapolation, the rotation at 1-41. The
    bake covers 1-41, and its location path held after frame 11 where Blender drove on
    (the car 30 units short at frame 41)."""
    obj = _car([[0.0, 0.0, 0.0], [10.0, 5.0, 0.0]], 'LINEAR')
    obj.rotation_euler = (0.0, 0.0, 2.0)
    obj.keyframe_insert("rotation_euler", frame=41)
    inside_and_beyond = np.array([11.0, 20.0, 41.0, 60.0])
    before = _locations(obj, inside_and_beyond)
    result = bake.bake_objects([obj], bake.BakeSettings(method='SLERP', location_method='LINEAR'))
    assert not [w for w in result.warnings if "beyond its keys" in w.message], result.warnings
    off = np.abs(_locations(obj, inside_and_beyond) - before).max(axis=1)
    assert (off <= 2e-6 * (inside_and_beyond - 10.0)).all(), off


def test_constant_speed_says_why_the_drive_beyond_the_keys_stops(clean_blender):
    obj = _car([[0.0, 0.0, 0.0], [4.0, 0.0, 0.0], [10.0, 0.0, 0.0]], 'LINEAR')
    result = bake.bake_objects([obj], bake.BakeSettings(method='SLERP', location_method='LINEAR',
                                                        constant_speed=True))
    said = [w.message for w in result.warnings if "beyond its keys" in w.message]
    assert len(said) == 1 and "no Constant Speed" in said[0], said


def test_a_location_only_bake_over_a_wider_range_follows_the_drive(clean_blender):
    """A review: location keyed alone at 10-30 with Linear extrapolation, baked over a
    Custom Range 1-40: the path held before 10 and after 30 inside the range, where
    Blender drove on (6 units off at frame 40)."""
    obj = new_object("Dolly", 'XYZ')
    key_channels(obj, "location", [10, 20, 30], [[0.0, 0.0, 0.0], [2.0, 1.0, 0.0],
                                                 [4.0, 1.5, 0.0]], 'LINEAR')
    for fc in animdata.location_fcurves(obj):
        fc.extrapolation = 'LINEAR'
    inside = np.array([1.0, 5.0, 35.0, 40.0])
    before = _locations(obj, inside)
    result = bake.bake_objects([obj], bake.BakeSettings(location_method='LINEAR',
                                                        frame_range=(1, 40)))
    off = np.abs(_locations(obj, inside) - before).max(axis=1)
    assert (off <= 1e-6).all(), off
    assert not [w for w in result.warnings if "beyond its keys" in w.message], result.warnings
