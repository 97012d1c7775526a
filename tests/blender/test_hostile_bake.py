"""Hostile scenes for the re-bake (issue 7), through the operators a user presses.

Runs with the bpy module (5.0, slotted actions) and inside Blender 3.4.1
(action.fcurves) through pytest-blender. Every refusal is checked for a clear
message (object, channel and frame where they apply) and for "nothing
changed": ``scenes.scene_snapshot`` compares every keyframe of every action
value by value (co, both handles, interpolation, easing, handle types,
extrapolation, modifiers) plus each object's action, slot, rotation mode and
rotation/location values, and which actions exist with which fake user.

The engine-level twins of the bad-input cases live in test_bake_engine.py
(they call bake.bake_objects directly); these go through ``bpy.ops`` so the
operator's own validation and reporting are covered too. Cases that are
legitimately bakeable (parented camera, negative scale, huge frame gaps,
100,000 keys, 1e6 rad Euler, 1e7 unit locations) assert that the bake is
correct, or that the warning is clear, as each docstring says.
"""
import os
import tempfile

import bpy
import numpy as np
import pytest

import quatbake
from quatbake.addon import animdata, bake
from quatbake.core import interp, quat

import scenes

pytestmark = pytest.mark.bpy

# float32 F-curve storage (~6e-8 relative) and Blender's float32 matrices give a
# few 1e-7 rad per evaluated rotation: the acceptance tolerance.
TOL_RAD = 2e-6
FRAMES = np.array([1.0, 11.0, 21.0])
EULERS = np.radians([[0.0, 0.0, 170.0], [80.0, 30.0, -170.0], [10.0, -60.0, 60.0]])


def _refresh() -> None:
    bpy.context.scene.frame_set(1)


def _euler_object(name="Obj", mode='XYZ', frames=FRAMES, values=EULERS, **kwargs):
    return scenes.make_animated_object(name, mode, frames, values, **kwargs)


def _op_refused(objects, contains, **op_args) -> str:
    """Select ``objects``, press Re-bake: it must fail with every text of
    ``contains`` in its report and leave the scene exactly as it was."""
    scenes.select_only(*objects)
    _refresh()
    before = scenes.scene_snapshot()
    with pytest.raises(RuntimeError) as info:
        bpy.ops.quatbake.bake(**op_args)
    message = str(info.value)
    assert message.startswith("Error:"), message
    for text in contains:
        assert text in message, f"{text!r} not in {message!r}"
    _refresh()
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())
    assert not any(bake.can_revert(o) for o in objects)
    return message


def _op_bakes_the_others(capfd, objects, bad, contains, **op_args) -> str:
    """Select ``objects``, press Re-bake: ``bad`` is left exactly as it was, the others
    baked (each replays mathutils' slerp of its keys), the report a warning with every
    text of ``contains``; one undo puts every object back. Returns the reports."""
    import mathutils

    scenes.select_only(*objects)
    _refresh()
    frames = np.arange(FRAMES[0], FRAMES[-1] + 1.0)
    want = {}
    for obj in objects:
        if obj is not bad:
            at = [mathutils.Quaternion(q) for q in scenes.evaluated_quats(obj, FRAMES)]
            want[obj.name] = np.array([
                tuple(at[i].slerp(at[i + 1], (f - FRAMES[i]) / (FRAMES[i + 1] - FRAMES[i])))
                for f in frames
                for i in [min(int(np.searchsorted(FRAMES, f, side="right")) - 1,
                              len(FRAMES) - 2)]])
    _refresh()
    bpy.ops.ed.undo_push(message="before bake")
    before = scenes.scene_snapshot()
    capfd.readouterr()
    assert bpy.ops.quatbake.bake('EXEC_DEFAULT', True, **op_args) == {'FINISHED'}
    # Blender prints an operator's reports without a window: "Warning: ...".
    printed = capfd.readouterr().out.splitlines()
    message = " ".join(ln[len("Warning: "):] for ln in printed if ln.startswith("Warning: "))
    assert message.startswith("Not baked, left exactly as they were: 1 object"), printed
    for text in contains:
        assert text in message, f"{text!r} not in {message!r}"
    assert not any(ln.startswith("Error: ") for ln in printed), printed
    _refresh()
    after = scenes.scene_snapshot()
    scenes.assert_same_snapshot(scenes.part_of(before, [bad.name]),
                                scenes.part_of(after, [bad.name]))
    assert not bake.can_revert(bad)
    for name, path in want.items():
        obj = bpy.data.objects[name]
        assert bake.can_revert(obj), name
        # Float32 channels: 1e-4 deg.
        off = quat.angle_between(scenes.evaluated_quats(obj, frames), path)
        assert np.degrees(off).max() < 1e-4, name
    assert bpy.ops.ed.undo() == {'FINISHED'}
    _refresh()
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())
    return message


def test_one_bad_object_among_good_is_left_as_it_was_and_the_others_baked(clean_blender, capfd):
    """A broken key leaves that object as it was, named in a warning; the others are
    baked (one transform's problem never stops the others). Alone it is refused
    (BAD_INPUT's nan_value)."""
    good = [_euler_object(f"Good{i}", seed_mode) for i, seed_mode in enumerate(('XYZ', 'ZYX'))]
    values = EULERS.copy()
    values[1, 1] = np.nan
    bad = _euler_object("BadOne", values=values, interpolation='LINEAR')
    _op_bakes_the_others(capfd, good + [bad], bad, ['"BadOne"', "rotation_euler[1]"])


def _replay_error(obj, key_frames, key_quats, method="slerp", frames=None) -> float:
    """Largest angle (rad) between what Blender evaluates for ``obj`` now and
    core's interpolation of ``key_quats`` (taken BEFORE the bake)."""
    if frames is None:
        frames = np.arange(key_frames[0], key_frames[-1] + 1.0)
    expected = interp.interpolate(key_frames, key_quats, frames, method)
    return float(quat.angle_between(scenes.evaluated_quats(obj, frames), expected).max())


# --------------------------------------------------------------------------
# Issue 3's bad-input list, through the operator
# --------------------------------------------------------------------------

def _case_no_animation():
    return [scenes.new_object("Still")], ('"Still"', "no animation")


def _case_animation_data_without_action():
    obj = scenes.new_object("Husk")
    obj.animation_data_create()
    return [obj], ('"Husk"', "no animation")


def _case_empty_action():
    obj = scenes.new_object("Empty")
    scenes.ensure_action(obj)
    return [obj], ('"Empty"', "rotation_euler")


def _case_fcurves_without_keys():
    """F-curves exist (e.g. all keys deleted in the Graph Editor) but hold no key."""
    obj = scenes.new_object("Bare")
    action = scenes.ensure_action(obj)
    slot = animdata.get_slot_identifier(obj)
    for i in range(3):
        animdata.new_fcurve(action, slot, "rotation_euler", i)
    return [obj], ('"Bare"', "no keys", "rotation_euler")


def _case_location_keys_only():
    obj = scenes.new_object("OnlyLoc")
    scenes.key_channels(obj, "location", [1, 10], [[0, 0, 0], [1, 2, 3]])
    return [obj], ('"OnlyLoc"', "rotation_euler")


def _case_keys_in_other_mode():
    obj = _euler_object("Switched")
    obj.rotation_mode = 'QUATERNION'
    return [obj], ('"Switched"', "rotation_quaternion", "QUATERNION")


def _case_single_key():
    obj = _euler_object("Lonely", frames=[12.0], values=EULERS[:1])
    return [obj], ('"Lonely"', "single", "frame 12")


def _case_channels_on_different_frames():
    obj = scenes.new_object("Ragged", 'QUATERNION')
    scenes.key_channels(obj, "rotation_quaternion", [1, 10], [[1, 0, 0], [0, 1, 0]],
                        indices=[0, 1, 3])
    scenes.key_channels(obj, "rotation_quaternion", [1, 7, 10], [[0.0], [0.5], [0.0]],
                        indices=[2])
    return [obj], ('"Ragged"', "frame 7", "rotation_quaternion[", "Merge Key Frames")


def _case_nan_value():
    values = EULERS.copy()
    values[1, 2] = np.nan
    obj = _euler_object("NaNKey", values=values, interpolation='LINEAR')
    return [obj], ('"NaNKey"', "rotation_euler[2]", "frame 11", "not a number")


def _case_infinite_value():
    values = EULERS.copy()
    values[2, 0] = np.inf
    obj = _euler_object("InfKey", values=values, interpolation='LINEAR')
    return [obj], ('"InfKey"', "rotation_euler[0]", "frame 21")


def _case_nan_handle():
    """A finite key whose Bezier handle is NaN: Blender's curve is NaN between keys."""
    obj = _euler_object("NaNHandle")
    fc = animdata.rotation_fcurves(obj)[1]
    kp = fc.keyframe_points[1]
    kp.handle_left_type = kp.handle_right_type = 'FREE'
    kp.handle_right = (kp.co[0] + 3.0, float("nan"))
    return [obj], ('"NaNHandle"', "rotation_euler[1]", "frame 11", "handle")


def _case_zero_quaternion():
    obj = _euler_object("Zero", 'QUATERNION',
                        values=[[1, 0, 0, 0], [0, 0, 0, 0], [0, 1, 0, 0]])
    return [obj], ('"Zero"', "rotation_quaternion", "frame 11", "zero")


def _case_tiny_quaternion():
    """Norm 1e-20: Blender normalises it in float32 to garbage; refused as zero."""
    obj = _euler_object("Tiny", 'QUATERNION',
                        values=[[1, 0, 0, 0], [1e-20, 1e-20, 0, 0], [0, 1, 0, 0]])
    return [obj], ('"Tiny"', "rotation_quaternion", "frame 11", "zero")


def _case_huge_quaternion():
    """Norm 1e20: Blender's float32 dot product overflows; refused as too large."""
    obj = _euler_object("Huge", 'QUATERNION',
                        values=[[1, 0, 0, 0], [0, 1e20, 0, 0], [0, 1, 0, 0]])
    return [obj], ('"Huge"', "rotation_quaternion", "frame 11", "too large")


def _case_nan_axis_angle():
    obj = _euler_object("AxisNaN", 'AXIS_ANGLE',
                        values=[[0.5, 0, 0, 1], [1.0, np.nan, 0, 1], [2.0, 0, 1, 0]],
                        interpolation='LINEAR')
    return [obj], ('"AxisNaN"', "rotation_axis_angle[1]", "frame 11")


def _case_driver():
    obj = _euler_object("Driven")
    obj.driver_add("rotation_euler", 2)
    return [obj], ('"Driven"', "rotation_euler[2]", "driver")


def _case_nla_strip():
    obj = _euler_object("Strips")
    other = _euler_object("Run")
    strip = obj.animation_data.nla_tracks.new().strips.new("Strip", 1, animdata.get_action(other))
    strip.name = "Strip"     # Blender 3.4 names a new strip after its action
    if hasattr(strip, "action_slot") and strip.action_slot is None:
        strip.action_slot = animdata.get_action(other).slots[0]
    # At half influence the action blends with the strip (at Blender's defaults, Replace
    # at full influence, the action alone plays on the channels it keys: no blend).
    obj.animation_data.action_influence = 0.5
    return [obj], ('"Strips"', 'strip "Strip"', "not muted", "rotation_euler")


def _delta_object(name, values=EULERS):
    obj = scenes.new_object(name, 'ZXY')
    scenes.key_channels(obj, "delta_rotation_euler", FRAMES, values, interpolation='LINEAR')
    return obj


def _case_nan_delta_value():
    values = EULERS.copy()
    values[1, 0] = np.nan
    return [_delta_object("NaNDelta", values)], ('"NaNDelta"', "delta_rotation_euler[0]",
                                                 "frame 11", "not a number")


def _case_driver_on_delta():
    obj = _delta_object("DrivenDelta")
    obj.driver_add("delta_rotation_euler", 1)
    return [obj], ('"DrivenDelta"', "delta_rotation_euler[1]", "driver")


def _case_delta_and_rotation_on_different_frames():
    obj = _delta_object("Ragged")
    scenes.key_channels(obj, "rotation_euler", [1.0, 7.0, 21.0], EULERS)
    return [obj], ('"Ragged"', "delta_rotation_euler[0]", "frame 11", "Merge Key Frames")


def _case_clip_only_in_the_nla():
    obj = _euler_object("Stashed")
    action = animdata.get_action(obj)
    track = obj.animation_data.nla_tracks.new()
    track.strips.new("Stash", 1, action)
    track.mute = True
    animdata.assign_action(obj, None)
    return [obj], ('"Stashed"', "no active action", action.name, "--clips")


BAD_INPUT = [
    _case_no_animation, _case_animation_data_without_action, _case_empty_action,
    _case_fcurves_without_keys, _case_location_keys_only, _case_keys_in_other_mode,
    _case_single_key, _case_channels_on_different_frames, _case_nan_value,
    _case_infinite_value, _case_nan_handle, _case_zero_quaternion, _case_tiny_quaternion,
    _case_huge_quaternion, _case_nan_axis_angle, _case_driver, _case_nla_strip,
    _case_nan_delta_value, _case_driver_on_delta, _case_delta_and_rotation_on_different_frames,
    _case_clip_only_in_the_nla,
]


@pytest.mark.parametrize("build", BAD_INPUT, ids=[f.__name__[6:] for f in BAD_INPUT])
def test_bad_input_is_refused_by_name_and_nothing_changes(clean_blender, build):
    objects, contains = build()
    _op_refused(objects, contains)


def test_nla_tweak_mode_is_refused(clean_blender):
    """The object's action is in an NLA strip being tweaked: QuatBake would bake
    the tweaked action only, so it refuses and says how to leave tweak mode."""
    obj = _euler_object("Tweaked")
    ad = obj.animation_data
    ad.nla_tracks.new().strips.new("Strip", 1, animdata.get_action(obj))
    ad.use_tweak_mode = True
    if not ad.use_tweak_mode:
        pytest.skip("this Blender enters tweak mode only from an NLA editor")
    _op_refused([obj], ('"Tweaked"', "tweak mode"))


def _linked_object(folder):
    # A library path with a space and a non-ASCII letter, as users' folders have.
    return scenes.link_from_library(_euler_object("Lib"),
                                    os.path.join(folder, "library with spaces ü.blend"))


def test_library_linked_object_is_refused(clean_blender):
    with tempfile.TemporaryDirectory() as folder:
        obj = _linked_object(folder)
        _op_refused([obj], ('"Lib"', "library"))


def test_library_overridden_object_playing_the_librarys_action_is_refused(clean_blender):
    """An override bakes (test_overrides.py); this one plays the library's own action,
    linked, which a bake does not take: the sentence names the library."""
    with tempfile.TemporaryDirectory() as folder:
        obj = _linked_object(folder).override_create(remap_local_usages=True)
        _op_refused([obj], ('"Lib"', "is linked from the library", "library with spaces"))


def test_bad_custom_range_from_a_script_is_refused(clean_blender):
    obj = _euler_object("Range")
    _op_refused([obj], ("frame 5", "frame 10"), use_frame_range=True, frame_start=10,
                frame_end=5)


def test_constraints_bake_with_a_warning(clean_blender):
    """Bakeable: the keys are baked (correctly) and a warning says the
    constraint still acts on top."""
    obj = _euler_object("Constrained")
    obj.constraints.new('LIMIT_ROTATION')
    key_quats = scenes.evaluated_quats(obj, FRAMES) if False else \
        animdata.evaluate_rotation(obj, FRAMES)
    result = bake.bake_objects([obj], bake.BakeSettings())
    assert any('"Constrained"' in w.message and "constraint" in w.message
               for w in result.warnings), result.warnings
    obj.constraints.clear()
    assert _replay_error(obj, FRAMES, key_quats) < TOL_RAD


# --------------------------------------------------------------------------
# Shared data
# --------------------------------------------------------------------------

def _shared_pair():
    """Two objects animated by one action: two slots on 4.4+, the same
    F-curves for both before (one action, two users)."""
    a = _euler_object("ShareA")
    action = animdata.get_action(a)
    b = scenes.new_object("ShareB")
    if animdata.is_slotted(action):
        slot = action.slots.new(id_type='OBJECT', name="ShareB")
        animdata.assign_action(b, action, slot.identifier)
        scenes.key_channels(b, "rotation_euler", [1, 30], [[0, 0, 0], [0.5, -0.5, 2.0]])
    else:
        animdata.assign_action(b, action)
    return a, b, action


def test_shared_action_both_baked_then_reverted(clean_blender):
    """Both users of one action baked in one call, then reverted one at a time:
    the shared action is never edited, each object gets its own baked action,
    and after both reverts the file is exactly as before."""
    a, b, action = _shared_pair()
    _refresh()
    before = scenes.scene_snapshot()
    key_a = animdata.evaluate_rotation(a, FRAMES)
    scenes.select_only(a, b)
    assert bpy.ops.quatbake.bake(method='SLERP') == {'FINISHED'}
    assert animdata.get_action(a) not in (action, None)
    assert animdata.get_action(b) not in (action, None, animdata.get_action(a))
    assert scenes.action_snapshot(action).keys() == before["actions"][action.name].keys()
    assert _replay_error(a, FRAMES, key_a) < TOL_RAD
    scenes.select_only(a)
    assert bpy.ops.quatbake.revert() == {'FINISHED'}
    assert animdata.get_action(a) == action and bake.can_revert(b)
    scenes.select_only(b)
    assert bpy.ops.quatbake.revert() == {'FINISHED'}
    _refresh()
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())


# --------------------------------------------------------------------------
# Legitimately bakeable, but unusual
# --------------------------------------------------------------------------

def test_camera_parented_to_animated_object_bakes_its_own_rotation(clean_blender):
    """Bakeable, and correct: the camera's local rotation keys are re-baked; the
    parent's animation is untouched and still moves the camera on top
    (matrix_world = parent's world matrix @ the baked basis)."""
    rig = _euler_object("Rig", 'ZXY', values=EULERS[::-1])
    cam = _euler_object("Cam", 'XYZ', data=bpy.data.cameras.new("CamData"),
                        location=np.array([[0, -5, 1], [2, -5, 1], [4, -4, 2]]))
    cam.parent = rig
    rig_before = scenes.action_snapshot(animdata.get_action(rig))
    key_quats = animdata.evaluate_rotation(cam, FRAMES)
    scenes.select_only(cam)
    assert bpy.ops.quatbake.bake(method='SQUAD', location_method='CATMULL_ROM') == {'FINISHED'}
    assert _replay_error(cam, FRAMES, key_quats, "squad") < TOL_RAD
    after = scenes.action_snapshot(animdata.get_action(rig))
    for key, arrays in rig_before.items():
        np.testing.assert_array_equal(arrays["co"], after[key]["co"])
    for frame in (4, 15):
        bpy.context.scene.frame_set(frame)
        world = np.array(rig.matrix_world) @ np.array(cam.matrix_parent_inverse) \
            @ np.array(cam.matrix_basis)
        np.testing.assert_allclose(np.array(cam.matrix_world), world, atol=1e-5)


def test_negative_scale_bakes_the_rotation_channels(clean_blender):
    """Bakeable, and correct: a mirrored object (scale -1 on X, keyed) keeps its
    scale keys; its rotation channels replay the interpolation (read from the
    evaluated channel values: a mirrored matrix has no rotation quaternion)."""
    obj = _euler_object("Mirror", 'YXZ')
    scenes.key_channels(obj, "scale", FRAMES, [[-1, 1, 1], [-1, 2, 1], [-2, 1, 1]])
    key_quats = animdata.evaluate_rotation(obj, FRAMES)
    scale_before = scenes.action_snapshot(animdata.get_action(obj))
    scenes.select_only(obj)
    assert bpy.ops.quatbake.bake(method='SLERP') == {'FINISHED'}
    frames = np.arange(1, 22)
    shown = []
    for f in frames:
        bpy.context.scene.frame_set(int(f))
        shown.append(np.array(obj.rotation_euler.to_quaternion()))
        assert obj.matrix_basis.determinant() < 0.0
    expected = interp.interpolate(FRAMES, key_quats, frames, "slerp")
    assert quat.angle_between(np.array(shown), expected).max() < TOL_RAD
    baked = scenes.action_snapshot(animdata.get_action(obj))
    for key, arrays in scale_before.items():
        if key[1] == "scale":
            np.testing.assert_array_equal(arrays["co"], baked[key]["co"])


def test_keys_a_million_frames_apart(clean_blender):
    """Bakeable, and correct: two keys 1e6 frames apart bake 1,000,001 frames
    (float32 holds whole frames exactly up to 2**24) that replay slerp."""
    frames = np.array([1.0, 1_000_001.0])
    obj = _euler_object("Far", 'XYZ', frames=frames, values=EULERS[:2])
    key_quats = animdata.evaluate_rotation(obj, frames)
    result = bake.bake_objects([obj], bake.BakeSettings(method='SLERP'))
    assert result.frames_written == 1_000_001
    probe = np.array([1.0, 2.0, 333_333.0, 500_001.0, 999_999.0, 1_000_001.0])
    assert _replay_error(obj, frames, key_quats, frames=probe) < TOL_RAD


def test_hundred_thousand_keys_on_one_channel(clean_blender):
    """Bakeable, and correct: 100,000 keys on rotation_euler[2] (the other two
    channels unkeyed) bake every frame and replay slerp between them."""
    n = 100_000
    frames = np.arange(1.0, n + 1.0)
    rng = np.random.default_rng(7)
    obj = scenes.new_object("Dense", 'XYZ')
    obj.rotation_euler = (0.3, -0.2, 0.0)
    scenes.key_channels(obj, "rotation_euler", frames, np.cumsum(rng.normal(0, 0.05, n)),
                        interpolation='LINEAR', indices=[2])
    key_quats = animdata.evaluate_rotation(obj, frames)
    result = bake.bake_objects([obj], bake.BakeSettings(method='SLERP'))
    assert result.frames_written == n
    probe = np.array([1.0, 2.0, 4_567.0, 50_000.0, 99_999.0, 100_000.0])
    assert _replay_error(obj, frames, key_quats, frames=probe) < TOL_RAD


def test_euler_keys_of_a_million_radians_warn_and_quaternion_output_is_exact(clean_blender):
    """Bakeable with a warning: Euler keys near 1e6 rad are float32-coarse
    (0.06 rad apart), so a bake in the object's own mode says so, names the
    channel and suggests Quaternion output; Quaternion output replays exactly."""
    values = EULERS + 1.0e6
    obj = _euler_object("Spun", values=values)
    key_quats = animdata.evaluate_rotation(obj, FRAMES)
    result = bake.bake_objects([obj], bake.BakeSettings())
    warning = next(w for w in result.warnings if w.channel == "rotation_euler")
    assert '"Spun"' in warning.message and "float32" in warning.message \
        and "Quaternion" in warning.message
    bake.revert_objects([obj])
    # Shortest: the 170 -> -170 jump sits on top of 1e6 rad, outside +-180 deg,
    # so Turns: Auto would read it as keyed on purpose (docs/turns.md) and keep
    # it; this test is about float32, so it compares with the short arc.
    bake.bake_objects([obj], bake.BakeSettings(output_mode='QUATERNION', turns='SHORTEST'))
    assert obj.rotation_mode == 'QUATERNION'
    assert _replay_error(obj, FRAMES, key_quats) < TOL_RAD


def test_locations_of_ten_million_units_warn_about_float32(clean_blender):
    """Bakeable with a warning: at 1e7 units float32 keys are 1 unit apart, so
    a location bake warns (naming the object and the location channel) and
    still bakes the rotation correctly."""
    loc = np.array([[1e7, 0, 0], [1e7 + 3, 1, 0], [1e7 + 5, 2, 0]])
    obj = _euler_object("FarAway", location=loc)
    key_quats = animdata.evaluate_rotation(obj, FRAMES)
    result = bake.bake_objects([obj], bake.BakeSettings(location_method='LINEAR'))
    warning = next(w for w in result.warnings if w.channel == "location")
    assert '"FarAway"' in warning.message and "float32" in warning.message
    assert _replay_error(obj, FRAMES, key_quats) < TOL_RAD


# --------------------------------------------------------------------------
# Sequences of operations
# --------------------------------------------------------------------------

def test_bake_twice_bakes_from_the_original_keys(clean_blender):
    """The second bake replaces the first and interpolates the ORIGINAL keys
    (not the first bake's dense keys); one revert restores the original exactly."""
    obj = _euler_object("Twice", location=np.array([[0, 0, 0], [1, 0, 0], [5, 5, 0]]))
    _refresh()
    before = scenes.scene_snapshot()
    key_quats = animdata.evaluate_rotation(obj, FRAMES)
    scenes.select_only(obj)
    assert bpy.ops.quatbake.bake(method='NLERP', frame_step=5) == {'FINISHED'}
    assert bpy.ops.quatbake.bake(method='SQUAD') == {'FINISHED'}
    assert _replay_error(obj, FRAMES, key_quats, "squad") < TOL_RAD
    assert len(bpy.data.actions) == 2   # the original and one bake: the first one is gone
    assert bpy.ops.quatbake.revert() == {'FINISHED'}
    _refresh()
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())


def test_revert_twice_says_nothing_to_revert(clean_blender):
    obj = _euler_object("Once")
    scenes.select_only(obj)
    _refresh()
    before = scenes.scene_snapshot()
    bpy.ops.quatbake.bake()
    assert bpy.ops.quatbake.revert() == {'FINISHED'}
    with pytest.raises(RuntimeError, match='Nothing to revert.*"Once"'):
        bpy.ops.quatbake.revert()
    _refresh()
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())


def test_manual_action_change_after_bake_is_not_reverted(clean_blender):
    """After a bake the user assigns another action by hand: Revert must not
    throw that choice away; it says there is nothing to revert."""
    obj = _euler_object("Manual")
    scenes.select_only(obj)
    bpy.ops.quatbake.bake()
    other = _euler_object("Other")
    animdata.assign_action(obj, animdata.get_action(other), animdata.get_slot_identifier(other))
    _refresh()
    before = scenes.scene_snapshot()
    scenes.select_only(obj)
    with pytest.raises(RuntimeError, match="Nothing to revert"):
        bpy.ops.quatbake.revert()
    _refresh()
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())


def test_addon_disabled_and_enabled_mid_session_can_still_revert(clean_blender):
    """unregister() + register() between bake and revert (the user toggles the
    add-on): the bake record survives on the objects and Revert restores the
    original keys exactly."""
    objs = [_euler_object("Toggle0", 'XYZ'),
            _euler_object("Toggle1", 'QUATERNION',
                          values=[[1, 0, 0, 0], [0, 1, 0, 0], [0.5, 0.5, 0.5, 0.5]])]
    _refresh()
    before = scenes.scene_snapshot()
    scenes.select_only(*objs)
    assert bpy.ops.quatbake.bake(method='SQUAD') == {'FINISHED'}
    quatbake.unregister()
    assert not hasattr(bpy.types.Object, "quatbake")
    quatbake.register()
    assert all(bake.can_revert(o) for o in objs)
    scenes.select_only(*objs)
    assert bpy.ops.quatbake.revert() == {'FINISHED'}
    _refresh()
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())


def test_bake_with_the_addon_unregistered_is_refused(clean_blender):
    """A script calling the engine while the add-on is off gets a sentence, not
    an AttributeError, and nothing changes."""
    obj = _euler_object("Off")
    _refresh()
    before = scenes.scene_snapshot()
    quatbake.unregister()
    try:
        with pytest.raises(bake.BakeError, match="not registered"):
            bake.bake_objects([obj], bake.BakeSettings())
        _refresh()
        scenes.assert_same_snapshot(before, scenes.scene_snapshot())
    finally:
        quatbake.register()


# --------------------------------------------------------------------------
# Atomicity: a real failure while writing the 3rd object
# --------------------------------------------------------------------------

def _five_objects():
    objs = [
        _euler_object("W0", 'XYZ', location=np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0]])),
        _euler_object("W1", 'QUATERNION', values=[[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]]),
        _euler_object("W2", 'AXIS_ANGLE', values=[[0.5, 0, 0, 1], [2.0, 0, 1, 0], [1.0, 1, 0, 0]]),
        _euler_object("W3", 'ZYX'),
        _euler_object("W4", 'YZX'),
    ]
    # W3 was baked before: this call is a re-bake for it.
    bake.bake_objects([objs[3]], bake.BakeSettings(method='NLERP', output_mode='QUATERNION'))
    return objs


def _fail_on_object(monkeypatch, name: str, target: str):
    """Make animdata.<target> raise (once) when it works for the object ``name``."""
    real = getattr(animdata, target)
    state = {"armed": True}

    def failing(*args, **kwargs):
        first = args[0]
        owner = getattr(first, "name", "") if target != "write_keys" else \
            getattr(first.id_data, "name", "")
        if state["armed"] and owner.startswith(name):
            state["armed"] = False
            raise RuntimeError(f"{target} failed on {name} (injected)")
        return real(*args, **kwargs)

    monkeypatch.setattr(animdata, target, failing)


@pytest.mark.parametrize("target", ["copy_action_for", "write_keys", "assign_action"])
def test_failure_while_writing_the_third_object_restores_all(clean_blender, monkeypatch, target):
    """The 3rd object's write fails (a real exception raised from inside our
    own animdata write function, at three different stages): every object
    already written is put back, half-made actions are deleted, the report
    names the object, and a retry then works."""
    objs = _five_objects()
    _refresh()
    before = scenes.scene_snapshot()
    # copy_action_for and assign_action get the object first; write_keys gets
    # an F-curve whose action is named after the source action ("W2Action...").
    _fail_on_object(monkeypatch, "W2", target)
    scenes.select_only(*objs)
    with pytest.raises(RuntimeError) as info:
        bpy.ops.quatbake.bake(method='SQUAD', location_method='LINEAR')
    message = str(info.value)
    assert '"W2"' in message and "injected" in message and "put back" in message, message
    _refresh()
    scenes.assert_same_snapshot(before, scenes.scene_snapshot())
    monkeypatch.undo()
    assert bpy.ops.quatbake.bake(method='SQUAD') == {'FINISHED'}
    assert all(bake.can_revert(o) for o in objs)


@pytest.mark.parametrize("fault", [ValueError, RuntimeError], ids=["ValueError", "unforeseen"])
def test_a_failure_interpolating_a_group_names_its_transform(clean_blender, monkeypatch, fault,
                                                            capfd):
    """Objects keyed on the same frames are interpolated in one call (plan.interpolate_group);
    when that call fails for one of them (an exception injected into core's
    interpolation, raised on that object's keys only), the group is done again object by object:
    the warning names the object and says what failed; it is left as it was, the others
    baked."""
    from quatbake.addon.bake import plan as bake_plan
    from quatbake.core import rotation

    small = np.radians([[0.0, 0.0, 10.0], [20.0, 10.0, 40.0], [10.0, -20.0, 60.0]])
    objs = [_euler_object(name, values=small + shift)
            for name, shift in (("G1", 0.0), ("G2", 0.2), ("G3", 0.4))]
    marker = rotation.euler_to_quat(small[0] + 0.2, "XYZ")
    real = bake_plan.interp.interpolate_many
    calls = []

    def failing(key_frames, key_quats, frames, method):
        calls.append(len(key_quats))
        if (np.abs(np.asarray(key_quats)[:, 0] @ marker) > 1.0 - 1e-9).any():
            raise fault("injected: G2's interpolation failed.")
        return real(key_frames, key_quats, frames, method)

    monkeypatch.setattr(bake_plan.interp, "interpolate_many", failing)
    said = ["cannot be baked"] if fault is ValueError else ["interpolating its rotation"]
    message = _op_bakes_the_others(capfd, objs, objs[1], ['"G2"', "injected"] + said,
                                   method='SLERP')
    assert '"G1"' not in message and '"G3"' not in message, message
    # One call for the group, then one per object; then the report's refresh analyses the
    # two baked together, at the frames and at the sixteenths between them (keys a frame
    # apart turning 10-20 deg on three axes may stray from slerp there).
    assert calls == [3, 1, 1, 1, 2, 2], calls
    monkeypatch.undo()
    objs = [bpy.data.objects[name] for name in ("G1", "G2", "G3")]   # as the undo left them
    scenes.select_only(*objs)
    assert bpy.ops.quatbake.bake(method='SLERP') == {'FINISHED'}
    assert all(bake.can_revert(o) for o in objs)


def test_a_group_that_fails_only_together_is_baked_and_logged(clean_blender, monkeypatch,
                                                             caplog):
    """A failure of the batched call alone (each object bakes on its own) is QuatBake's
    bug, not the user's: every object is baked, and the console says so, to be reported."""
    import logging

    from quatbake.addon.bake import plan as bake_plan

    small = np.radians([[0.0, 0.0, 10.0], [20.0, 10.0, 40.0], [10.0, -20.0, 60.0]])
    objs = [_euler_object(name, values=small + shift)
            for name, shift in (("G1", 0.0), ("G2", 0.2))]
    real = bake_plan.interp.interpolate_many

    def failing(key_frames, key_quats, frames, method):
        if len(key_quats) > 1:
            raise IndexError("injected: the batched call failed.")
        return real(key_frames, key_quats, frames, method)

    monkeypatch.setattr(bake_plan.interp, "interpolate_many", failing)
    scenes.select_only(*objs)
    with caplog.at_level(logging.WARNING):
        assert bpy.ops.quatbake.bake(method='SLERP') == {'FINISHED'}
    assert all(bake.can_revert(o) for o in objs)
    logged = [r for r in caplog.records if "interpolating 2 transforms together failed" in
              r.getMessage()]
    assert len(logged) == 1 and logged[0].exc_info[0] is IndexError


def test_pose_mode_with_no_bone_selected_says_so(clean_blender):
    """Sweep: in Pose Mode with no bone selected the operators said "select the animated
    objects", though the armature was selected and keyed."""
    rig = scenes.make_rig("Rig", [("arm", None, (0, 0, 0), (0, 1, 0))])
    scenes.key_bone(rig, "arm", "rotation_quaternion", [1, 21],
                    [[1, 0, 0, 0], [0.7071068, 0, 0, 0.7071068]])
    scenes.select_only(rig)
    bpy.ops.object.mode_set(mode='POSE')
    try:
        bpy.ops.pose.select_all(action='DESELECT')
        before = scenes.scene_snapshot()
        for op, doing in ((bpy.ops.quatbake.analyze, "analyze"), (bpy.ops.quatbake.bake, "bake"),
                          (bpy.ops.quatbake.convert_rotation_mode, "convert"),
                          (bpy.ops.quatbake.revert, "revert")):
            with pytest.raises(RuntimeError, match=f"No pose bones are selected in Pose Mode: "
                                                   f"select the bones to {doing}"):
                op()
        scenes.assert_same_snapshot(before, scenes.scene_snapshot())
        bpy.ops.pose.select_all(action='SELECT')
        assert bpy.ops.quatbake.analyze() == {'FINISHED'}
    finally:
        bpy.ops.object.mode_set(mode='OBJECT')


def test_a_rotation_channel_turned_into_samples_is_refused_by_name(clean_blender):
    """A review: a channel turned into samples (the Graph Editor's Keys to Samples) has no
    keys, so it was read as unkeyed and the bake held Z at -3 rad where Blender played
    0 -> 1.5 -> 3 (177 deg off), without a word; Analyze likewise. Refused, naming the
    channel, and nothing changed."""
    obj = _euler_object(frames=np.array([1.0, 11.0, 21.0]))
    z = animdata.find_fcurves(obj, "rotation_euler", 3)[2]
    z.convert_to_samples(1, 22)           # frames 1 to 21
    assert len(z.sampled_points) == 21 and not len(z.keyframe_points)   # the premise
    message = _op_refused([obj], ["rotation_euler[2]", "samples", "Samples to Keys"])
    assert 'Object "Obj"' in message
    scenes.select_only(obj)
    with pytest.raises(RuntimeError, match="could be analysed"):
        bpy.ops.quatbake.analyze()
    from quatbake.addon.analyze.entries import results
    assert "rotation_euler[2] holds 21 samples" in results(bpy.context.scene)["Obj"]["error"]
