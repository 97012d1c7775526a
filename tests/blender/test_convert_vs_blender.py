"""QuatBake's conversion beside Blender 5.3's own Convert Rotation Mode (issue 22).

``bpy.ops.anim.rotation_mode_convert(mode, bake)`` is new in Blender 5.3: it acts on the
selected objects (on the selected pose bones in Pose Mode) with no editor context, and
with ``bake=True`` keys every frame of the keyed range before converting. The issue's
goal: QuatBake's conversion at most 25% of those keys, at 0.01 deg or better. Both
results are played by Blender (``frame_set`` with subframes + ``matrix_world``) at every
quarter frame and compared with Blender's playback before the conversion, on the issue's
Euler swing from XYZ to ZXY, rebuilt for each. Skipped where the running Blender has no
such operator (before 5.3): it runs in the bpy 5.3 matrix (``make test-matrix-bpy53``).
"""

import bpy
import numpy as np
import pytest

from quatbake.addon import animdata, bake

from test_bezier_bake import KEY_FRAMES, QUARTERS, SWING, _angle_deg, _keyed_object, _played

pytestmark = pytest.mark.skipif(
    "rotation_mode_convert" not in dir(bpy.ops.anim),
    reason=f"Blender {bpy.app.version_string} has no anim.rotation_mode_convert (new in 5.3)")

TOL = 0.01          # QuatBake's default conversion tolerance, deg, and the bar
GOAL_SHARE = 0.25   # the goal: at most a quarter of the per-frame conversion's keys
WHOLE = np.arange(1.0, 122.0)


def _swing():
    bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, 121
    return _keyed_object("Swing", 'XYZ', np.radians(SWING), camera=False)


def _rotation_key_frames(obj):
    """The key frames of every rotation channel together (one pose in the Dope Sheet)."""
    fcs = [fc for fc in animdata.object_fcurves(obj) if fc.data_path.startswith("rotation")]
    return np.unique(np.concatenate(
        [animdata.read_keyframe_arrays(fc, ("co",))["co"][:, 0] for fc in fcs]))


def _blender_convert(obj, mode, bake_keys):
    for other in bpy.context.scene.objects:
        other.select_set(other == obj)
    bpy.context.view_layer.objects.active = obj
    assert bpy.ops.anim.rotation_mode_convert(mode=mode, bake=bake_keys) == {'FINISHED'}
    assert obj.rotation_mode == mode


def test_quatbake_keeps_the_motion_in_a_quarter_of_blenders_baked_keys(clean_blender):
    mode = 'ZXY'
    obj = _swing()
    before_quarters, before_whole = _played(obj, QUARTERS), _played(obj, WHOLE)
    _blender_convert(obj, mode, bake_keys=True)
    blender_frames = _rotation_key_frames(obj)
    blender_err = _angle_deg(before_quarters, _played(obj, QUARTERS))
    # Blender's bake is a key on every frame of the keyed range, each the pose it played
    # there: at whole frames only float32 storage of the angles (about 6e-8 relative of
    # up to 6 rad, 2e-5 deg) and mathutils' float32 conversion are left; 1e-3 deg allows
    # both with room, while a key on the wrong frame or in the wrong order is degrees off.
    assert np.array_equal(blender_frames, WHOLE)
    assert _angle_deg(before_whole, _played(obj, WHOLE)).max() <= 1e-3

    bpy.data.objects.remove(obj)
    obj = _swing()
    result = bake.convert_objects([obj], mode, TOL)
    assert obj.rotation_mode == mode
    ours_frames = _rotation_key_frames(obj)
    ours_err = _angle_deg(before_quarters, _played(obj, QUARTERS))
    assert ours_err.max() <= TOL, ours_err.max()
    # Blender's per-frame keys are Bezier between frames: their in-betweens are off by
    # 0.04 deg here (bpy 5.3.0), so QuatBake's are at least as close to the playback.
    assert ours_err.max() <= blender_err.max(), (ours_err.max(), blender_err.max())
    assert ours_frames.size == result.keys_per_object["Swing"]
    assert ours_frames.size <= GOAL_SHARE * blender_frames.size, (ours_frames.size,
                                                                  blender_frames.size)
    assert set(KEY_FRAMES) <= set(ours_frames)       # the animator's keys stay keys


def test_blenders_conversion_without_bake_keeps_only_the_keys(clean_blender):
    """Characterisation: with bake=False Blender converts each key and nothing between,
    so the keys keep their poses and the in-betweens drift (what the issue measured):
    if a later Blender keeps the in-betweens, this fails and the comparison above needs
    a second look."""
    obj = _swing()
    before_keys, before_quarters = _played(obj, KEY_FRAMES), _played(obj, QUARTERS)
    _blender_convert(obj, 'ZXY', bake_keys=False)
    assert np.array_equal(_rotation_key_frames(obj), KEY_FRAMES)
    # At the keys: float32 storage and conversion only (as above).
    assert _angle_deg(before_keys, _played(obj, KEY_FRAMES)).max() <= 1e-3
    # Between them: degrees off (179.6 deg at worst with bpy 5.3.0); 1 deg is a hundred
    # times QuatBake's tolerance.
    assert _angle_deg(before_quarters, _played(obj, QUARTERS)).max() > 1.0
