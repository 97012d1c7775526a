"""addon/bake/ (the engine) with the real bpy (5.0, slotted actions) and Blender 3.4 (action.fcurves).

The oracle for every bake is independent of the bake's own code path: Blender's
evaluated orientation (frame_set + matrix_basis) at the key frames BEFORE the
bake, interpolated by core.interp, against Blender's evaluated orientation at
every baked frame AFTER the bake.
"""
import os
import tempfile

import bpy
import numpy as np
import pytest

from quatbake.addon import animdata, bake
from quatbake.core import interp, path, quat

from scenes import (
    ROTATION_MODES,
    action_snapshot,
    assert_same_snapshot,
    evaluated_quats,
    key_channels,
    link_from_library,
    make_animated_object,
    new_object,
    part_of,
    scene_snapshot,
)

pytestmark = pytest.mark.bpy

METHODS = ('LERP', 'NLERP', 'SLERP', 'SQUAD')
# Baked keys are float32 and Blender builds the matrix in float32: one rotation
# from 3-4 float32 channels of magnitude <= ~10 is good to a few 1e-7 rad; the
# oracle's key orientations come from float32 matrices too (~1e-7).
TOL_RAD = 2e-6
KEY_FRAMES = np.array([1.0, 9.0, 20.0, 26.0, 40.0])


def _values(mode, rng):
    n = len(KEY_FRAMES)
    if mode == 'QUATERNION':
        q = rng.normal(size=(n, 4))
        q /= np.linalg.norm(q, axis=1, keepdims=True)
        q[2] *= -1.0 if np.dot(q[1], q[2]) > 0 else 1.0   # a sign flip: Blender's long way
        return q
    if mode == 'AXIS_ANGLE':
        axis = rng.normal(size=(n, 3))
        axis /= np.linalg.norm(axis, axis=1, keepdims=True)
        # Angles inside +-180 deg: a jump past 180 between them is a defect that
        # Turns: Auto takes the short way (an angle keyed past 180 would be a spin).
        return np.column_stack([rng.uniform(-3.1, 3.1, n), axis])
    vals = rng.uniform(-2.5, 2.5, size=(n, 3))
    vals[2, 0], vals[3, 0] = np.radians(170), np.radians(-170)   # an Euler wrap
    return vals


def _animated(name, mode, seed=0, location=True, interpolation='BEZIER'):
    rng = np.random.default_rng(seed)
    loc = rng.uniform(-4, 4, size=(len(KEY_FRAMES), 3)) if location else None
    return make_animated_object(name, mode, KEY_FRAMES, _values(mode, rng), interpolation, loc)


def _capture(name: str, frames, step: float, seed: int):
    """An XYZ object keyed LINEAR on every one of ``frames``, a random walk of up to
    ``step`` radians per key on each axis (a capture's keys)."""
    rng = np.random.default_rng(seed)
    return make_animated_object(name, 'XYZ', frames, np.cumsum(
        rng.uniform(-step, step, (len(frames), 3)), axis=0), 'LINEAR')


def _world_quats(obj, times) -> np.ndarray:
    """(n, 4) Blender's playback: frame_set at each time (whole frame + subframe), then
    matrix_world's rotation."""
    scene = bpy.context.scene
    out = []
    for t in times:
        scene.frame_set(int(np.floor(t)), subframe=float(t - np.floor(t)))
        q = obj.matrix_world.to_quaternion()
        out.append((q.w, q.x, q.y, q.z))
    return np.array(out)


def _baked_frames(obj):
    fc = next(fc for fc in animdata.rotation_fcurves(obj) if fc is not None)
    return animdata.read_keyframe_arrays(fc, ("co",))["co"][:, 0]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("mode", ROTATION_MODES)
def test_bake_replays_core_interpolation(clean_blender, mode, method):
    obj = _animated(f"B{mode}{method}", mode, seed=ROTATION_MODES.index(mode))
    key_quats = evaluated_quats(obj, KEY_FRAMES)
    frames = np.arange(KEY_FRAMES[0], KEY_FRAMES[-1] + 1)
    result = bake.bake_objects([obj], bake.BakeSettings(method=method))
    assert obj.rotation_mode == mode
    np.testing.assert_array_equal(_baked_frames(obj), frames)
    expected = interp.interpolate(KEY_FRAMES, key_quats, frames, method.lower())
    got = evaluated_quats(obj, frames)
    assert quat.angle_between(expected, got).max() < TOL_RAD
    assert result.objects == [obj.name] and result.frames_written == len(frames)


@pytest.mark.parametrize("mode", ROTATION_MODES)
def test_bake_to_quaternion_output(clean_blender, mode):
    obj = _animated(f"Q{mode}", mode, seed=10 + ROTATION_MODES.index(mode))
    key_quats = evaluated_quats(obj, KEY_FRAMES)
    frames = np.arange(KEY_FRAMES[0], KEY_FRAMES[-1] + 1)
    bake.bake_objects([obj], bake.BakeSettings(method='SQUAD', output_mode='QUATERNION'))
    assert obj.rotation_mode == 'QUATERNION'
    expected = interp.interpolate(KEY_FRAMES, key_quats, frames, "squad")
    assert quat.angle_between(expected, evaluated_quats(obj, frames)).max() < TOL_RAD
    # The written quaternion keys are hemisphere-continuous (no sign jumps).
    fcs = animdata.rotation_fcurves(obj)
    q = np.column_stack([animdata.read_keyframe_arrays(fc, ("co",))["co"][:, 1] for fc in fcs])
    assert (np.einsum("ij,ij->i", q[1:], q[:-1]) > 0).all()


@pytest.mark.parametrize("mode", ('XYZ', 'ZYX', 'AXIS_ANGLE'))
def test_keep_mode_is_continuous_from_the_first_keys_winding(clean_blender, mode):
    rng = np.random.default_rng(7)
    values = _values(mode, rng)
    values[0, 0] += 4 * np.pi   # two extra turns on the first key: keep that winding
    obj = make_animated_object(f"W{mode}", mode, KEY_FRAMES, values)
    bake.bake_objects([obj], bake.BakeSettings(method='SLERP'))
    fcs = animdata.rotation_fcurves(obj)
    baked = np.column_stack([animdata.read_keyframe_arrays(fc, ("co",))["co"][:, 1] for fc in fcs])
    # First frame = first key, written with the same numbers (float32).
    np.testing.assert_allclose(baked[0], values[0], atol=2e-6)
    # No +-2pi jumps between consecutive frames (slerp turns < pi per frame here).
    assert np.abs(np.diff(baked, axis=0)).max() < np.pi


def test_step_and_range(clean_blender):
    """A key every 3 frames over the range, plus the animator's keys, which are further
    apart than the step: each pose stays a key (a workflow walk saw Step 4 cut one)."""
    obj = _animated("Step", 'XYZ', seed=3)
    key_quats = evaluated_quats(obj, KEY_FRAMES)
    bake.bake_objects([obj], bake.BakeSettings(method='SLERP', frame_step=3, frame_range=(-5, 47)))
    frames = _baked_frames(obj)
    grid = np.append(np.arange(-5.0, 47.0, 3.0), 47.0)
    np.testing.assert_array_equal(frames, np.union1d(grid, KEY_FRAMES))
    expected = interp.interpolate(KEY_FRAMES, key_quats, frames, "slerp")
    assert quat.angle_between(expected, evaluated_quats(obj, frames)).max() < TOL_RAD


def test_a_step_bake_reports_what_it_changed_between_its_keys(clean_blender):
    """Step 3 on keys on every frame (a mocap clip's) thins them to every third frame;
    between those Blender plays each channel in a straight line. The largest change the
    bake reports is the largest angle between Blender's playback before and after at any
    whole frame (frame_set both times), not 0 at the keys (a workflow walk: 0.00 deg
    reported, 84.7 deg played)."""
    frames = np.arange(1.0, 31.0)
    obj = _capture("Clip", frames, 0.6, seed=12)
    before = evaluated_quats(obj, frames)
    result = bake.bake_objects([obj], bake.BakeSettings(method='SLERP', frame_step=3))
    assert len(_baked_frames(obj)) < frames.size            # thinned
    after = evaluated_quats(obj, frames)
    changed = np.degrees(quat.angle_between(before, after).max())
    assert changed > 5.0                                    # the step changed the motion
    assert result.max_deviation_deg == pytest.approx(changed, abs=1e-3)


@pytest.mark.parametrize("location_method", ('LINEAR', 'CATMULL_ROM'))
@pytest.mark.parametrize("constant_speed", (False, True))
def test_location_and_constant_speed(clean_blender, location_method, constant_speed):
    obj = _animated("Loc", 'QUATERNION', seed=4)
    key_quats = evaluated_quats(obj, KEY_FRAMES)
    key_points = np.empty((len(KEY_FRAMES), 3))
    for i, f in enumerate(KEY_FRAMES):
        bpy.context.scene.frame_set(int(f))
        key_points[i] = tuple(obj.location)
    frames = np.arange(KEY_FRAMES[0], KEY_FRAMES[-1] + 1)
    bake.bake_objects([obj], bake.BakeSettings(method='SLERP', location_method=location_method,
                                               constant_speed=constant_speed))
    lm = location_method.lower()
    times = path.constant_speed_times(KEY_FRAMES, key_points, frames, lm) if constant_speed \
        else frames
    expected_loc = path.interpolate_positions(KEY_FRAMES, key_points, frames, lm, constant_speed)
    expected_rot = interp.interpolate(KEY_FRAMES, key_quats, times, "slerp")
    got = np.empty((len(frames), 3))
    for i, f in enumerate(frames):
        bpy.context.scene.frame_set(int(f))
        got[i] = tuple(obj.location)
    # float32 keys of values up to ~4 units: ~5e-7; key points from float32 too.
    np.testing.assert_allclose(got, expected_loc, atol=3e-6)
    assert quat.angle_between(expected_rot, evaluated_quats(obj, frames)).max() < TOL_RAD
    if constant_speed:
        # Constant speed along the path: equal frame-to-frame chords, except the
        # few frames that cut a corner at a key (a chord is shorter than the arc).
        step = np.sort(np.linalg.norm(np.diff(got, axis=0), axis=1))[len(KEY_FRAMES):]
        assert step.max() - step.min() < 0.02 * step.mean()


def test_other_channels_copied_and_original_kept(clean_blender):
    obj = _animated("Keep", 'XYZ', seed=5)
    key_channels(obj, "scale", [1, 15, 40], [[1, 1, 1], [2, 1, 3], [1, 1, 1]])
    obj["power"] = 0.0
    key_channels(obj, '["power"]', [3, 30], [[0.0], [7.0]])
    original = animdata.get_action(obj)
    slot = animdata.get_slot_identifier(obj)
    before = action_snapshot(original)
    bake.bake_objects([obj], bake.BakeSettings(method='NLERP'))
    baked = animdata.get_action(obj)
    assert baked != original and baked.name == original.name + ".quatbake"
    assert original.use_fake_user
    after = action_snapshot(original)
    assert sorted(before) == sorted(after)
    for key in before:
        for field, value in before[key].items():
            if isinstance(value, np.ndarray):
                np.testing.assert_array_equal(value, after[key][field])
    copied = action_snapshot(baked)
    for key in before:
        if key[1] in ("scale", '["power"]', "location"):
            np.testing.assert_array_equal(before[key]["co"], copied[(slot,) + key[1:]]["co"])
            np.testing.assert_array_equal(before[key]["handle_left"],
                                          copied[(slot,) + key[1:]]["handle_left"])


def test_second_bake_starts_from_the_original_keys(clean_blender):
    obj = _animated("Twice", 'QUATERNION', seed=6)
    key_quats = evaluated_quats(obj, KEY_FRAMES)
    original = animdata.get_action(obj)
    bake.bake_objects([obj], bake.BakeSettings(method='SLERP', frame_step=4))
    first = animdata.get_action(obj)
    result = bake.bake_objects([obj], bake.BakeSettings(method='LERP'))
    second = animdata.get_action(obj)
    frames = np.arange(KEY_FRAMES[0], KEY_FRAMES[-1] + 1)
    expected = interp.interpolate(KEY_FRAMES, key_quats, frames, "lerp")
    assert quat.angle_between(expected, evaluated_quats(obj, frames)).max() < TOL_RAD
    names = sorted(a.name for a in bpy.data.actions)
    assert names == sorted([original.name, original.name + ".quatbake"])
    assert second.name == original.name + ".quatbake"
    assert first != second or len(bpy.data.actions) == 2
    assert result.frames_written == len(frames)
    assert obj.quatbake.original_action == original


@pytest.mark.parametrize("output_mode", ('KEEP', 'QUATERNION'))
def test_revert_restores_everything_exactly(clean_blender, output_mode):
    obj = _animated("Rev", 'YZX', seed=8)
    obj.rotation_euler[1] = 0.0
    key_channels(obj, "scale", [1, 40], [[1, 1, 1], [2, 2, 2]])
    bpy.context.scene.frame_set(1)
    before = scene_snapshot()
    assert not bake.can_revert(obj)
    bake.bake_objects([obj], bake.BakeSettings(method='SQUAD', output_mode=output_mode,
                                               location_method='CATMULL_ROM'))
    assert bake.can_revert(obj)
    assert bake.revert_objects([obj]) == [obj.name]
    assert not bake.can_revert(obj)
    bpy.context.scene.frame_set(1)
    assert_same_snapshot(before, scene_snapshot())
    with pytest.raises(bake.BakeError) as info:
        bake.revert_objects([obj])
    assert "Nothing to revert" in str(info.value) and "Rev" in str(info.value)
    # A walk: a second Revert read "a bake whose action was changed by hand since cannot
    # be reverted", as if the animator's edits stood in the way.
    assert "reverted already" in str(info.value) and "by hand" not in str(info.value)
    # A review: with the action from before the bake deleted since, that sentence was
    # wrong too (the object plays its bake); it says what is missing.
    bake.bake_objects([obj], bake.BakeSettings(method='SLERP'))
    baked = animdata.get_action(obj)
    bpy.data.actions.remove(obj.quatbake.original_action)
    with pytest.raises(bake.BakeError) as info:
        bake.revert_objects([obj])
    said = str(info.value)
    assert f'plays its bake "{baked.name}"' in said and "was deleted since" in said, said
    assert animdata.get_action(obj) == baked
    # Another action made active too: what plays comes first (a second review).
    animdata.assign_action(obj, bpy.data.actions.new("Other"), "")
    with pytest.raises(bake.BakeError) as info:
        bake.revert_objects([obj])
    assert 'plays "Other", not its bake' in str(info.value), str(info.value)


def test_revert_clears_every_field_of_the_bake_records(clean_blender):
    """The record's fields were listed three times; the bake's notes (method, tolerance,
    keys, path, checksums) were in none of the lists that a revert cleared."""
    from scenes import key_bone, make_rig

    obj = _animated("Noted", 'XYZ', seed=3)
    rig = make_rig("Rig", [("arm", None, (0, 0, 0), (0, 0, 1))])
    key_bone(rig, "arm", "rotation_quaternion", KEY_FRAMES,
             np.tile([1.0, 0.0, 0.0, 0.0], (KEY_FRAMES.size, 1)) + np.linspace(0, 1, 5)[:, None]
             * np.array([0.0, 0.0, 0.0, 1.0]), mode='QUATERNION')
    obj.quatbake.overlay_pinned = True        # the animator's, not the bake's
    bake.bake_objects([obj, rig], bake.BakeSettings(method='SQUAD', tolerance_deg=0.1))
    records = [obj.quatbake, rig.quatbake, rig.pose.bones["arm"].quatbake]
    for rec in (obj.quatbake, rig.pose.bones["arm"].quatbake):     # each transform baked
        assert rec.bake_method == "squad" and rec.baked_checksums, rec
    assert sorted(bake.revert_objects([obj, rig])) == ["Noted", "Rig: arm"]
    fresh_rig = make_rig("Fresh", [("arm", None, (0, 0, 0), (0, 0, 1))])
    fresh = {"object": fresh_rig.quatbake, "bone": fresh_rig.pose.bones["arm"].quatbake}

    def values(rec):
        return {p.identifier: (tuple(v) if hasattr(v, "__len__") and not isinstance(v, str)
                               else v)
                for p in rec.bl_rna.properties
                if p.identifier not in ("rna_type", "name", "overlay_pinned")
                for v in [getattr(rec, p.identifier)]}

    for rec in records:
        kind = "bone" if hasattr(rec, "baked_name") else "object"
        left = {k: v for k, v in values(rec).items() if v != values(fresh[kind])[k]}
        assert left == {}, left
    assert obj.quatbake.overlay_pinned


@pytest.mark.parametrize("location_method", ('KEEP', 'CATMULL_ROM'))
def test_revert_after_blender_evaluated_the_bake_restores_the_static_values(
        clean_blender, location_method):
    """QUATERNION output, then a frame change (Blender writes the baked values
    into rotation_quaternion and location), a re-bake, another frame change,
    then Revert: the original Euler keys drive rotation_euler again, but
    rotation_quaternion is no longer animated and kept the baked value, unless
    the bake record put back what the object had before the first bake."""
    obj = _animated("Evaluated", 'XYZ', seed=12)
    scene = bpy.context.scene
    scene.frame_set(1)
    before = scene_snapshot()
    baked_location = location_method != 'KEEP'   # KEEP copies the location keys as they are

    def static():
        return (tuple(obj.rotation_quaternion), tuple(obj.rotation_euler),
                tuple(obj.rotation_axis_angle), tuple(obj.location) if baked_location else None)

    static_before = static()
    settings = bake.BakeSettings(output_mode='QUATERNION', location_method=location_method)
    bake.bake_objects([obj], settings)
    scene.frame_set(23)
    bake.bake_objects([obj], settings)   # a re-bake must not record the baked values
    scene.frame_set(31)
    assert tuple(obj.rotation_quaternion) != static_before[0]   # the bake was evaluated
    bake.revert_objects([obj])
    # Before any frame change: every static value the bake touched is back.
    assert static() == static_before
    scene.frame_set(1)
    assert_same_snapshot(before, scene_snapshot())


def test_revert_keeps_unkeyed_rotation_values(clean_blender):
    """Switching to QUATERNION and back must not rewrite an unkeyed Euler channel."""
    obj = new_object("Unkeyed", 'XYZ')
    obj.rotation_euler = (0.0, 0.3, 7.0)   # Z unkeyed, beyond 2*pi on purpose
    key_channels(obj, "rotation_euler", [1, 10], [[0.0], [1.5]], indices=[0])
    before = scene_snapshot()
    bake.bake_objects([obj], bake.BakeSettings(output_mode='QUATERNION'))
    assert tuple(obj.rotation_euler)[1:] == pytest.approx((0.3, 7.0), abs=1e-7)
    bake.revert_objects([obj])
    assert_same_snapshot(before, scene_snapshot())


def test_shared_action_stays_with_the_other_object(clean_blender):
    a = _animated("SA", 'XYZ', seed=9)
    action = animdata.get_action(a)
    b = new_object("SB", 'XYZ')
    if animdata.is_slotted(action):
        slot = action.slots.new(id_type='OBJECT', name="SB")
        animdata.assign_action(b, action, slot.identifier)
        key_channels(b, "rotation_euler", [1, 30], [[0, 0, 0], [0.5, 0.5, 2.0]])
    else:
        animdata.assign_action(b, action)
    frames = np.arange(1, 41)
    b_before = evaluated_quats(b, frames)
    before = action_snapshot(action)
    bake.bake_objects([a], bake.BakeSettings(method='SLERP'))
    assert animdata.get_action(b) == action and animdata.get_action(a) != action
    after = action_snapshot(action)
    assert sorted(before) == sorted(after)
    for key in before:
        np.testing.assert_array_equal(before[key]["co"], after[key]["co"])
    # The keys are compared exactly above; B's playback is two separate
    # evaluations (float32 F-curves, float64 conversion): equal to 1e-12.
    np.testing.assert_allclose(evaluated_quats(b, frames), b_before, rtol=0, atol=1e-12)
    if animdata.is_slotted(action):
        baked = animdata.get_action(a)
        assert [s.identifier for s in baked.slots] == [animdata.get_slot_identifier(a)]


def test_max_deviation_is_the_difference_from_blenders_own(clean_blender):
    obj = _animated("Dev", 'QUATERNION', seed=11)
    frames = np.arange(KEY_FRAMES[0], KEY_FRAMES[-1] + 1)
    blender = evaluated_quats(obj, frames)
    result = bake.bake_objects([obj], bake.BakeSettings(method='SLERP'))
    ours = evaluated_quats(obj, frames)
    measured = np.degrees(quat.angle_between(blender, ours).max())
    # The flipped key makes Blender go the long way: a large difference.
    assert measured > 20
    # Both sides float32 rotations: agree to ~1e-4 degree.
    assert result.max_deviation_deg == pytest.approx(measured, abs=1e-3)


@pytest.mark.parametrize("static", [(0.0, 0.0, 0.0), (0.3, -0.2, 0.5)],
                         ids=["delta only", "over a turned rotation"])
def test_a_wrap_straightened_on_delta_channels_is_in_the_largest_change(clean_blender,
                                                                        static):
    """A pipeline walk: a BVH imported as objects keys delta_rotation_euler on every frame;
    a dense bake straightened its 170 -> -170 deg wraps (Blender spins 340 deg within the
    frame) and said "largest change 0.00 deg", while the same keys on rotation_euler said
    180. The figure is Blender's playback before against after (frame_set with subframes,
    1/64 of a frame), the rotation composed in both."""
    frames = np.arange(1.0, 9.0)
    z = np.radians([130.0, 150.0, 170.0, -170.0, -150.0, -130.0, -110.0, -90.0])
    obj = new_object("Hip", 'XYZ')
    obj.rotation_euler = static
    key_channels(obj, "delta_rotation_euler", frames,
                 np.column_stack([np.full(8, 0.2), np.zeros(8), z]), 'LINEAR')
    times = np.arange(1.0, 8.0 + 1e-9, 1.0 / 64.0)
    before = _world_quats(obj, times)
    result = bake.bake_objects([obj], bake.BakeSettings(method='SLERP'))
    changed = np.degrees(quat.angle_between(before, _world_quats(obj, times)).max())
    assert changed > 170.0                             # the wrap, straightened
    # Both sample the wrap's middle (3.5: 1/64 and QuatBake's 1/16 grids); float32: 1e-3.
    assert result.max_deviation_deg == pytest.approx(changed, abs=1e-3)


@pytest.mark.parametrize("keys", ['BEZIER', 'LINEAR', 'convert'])
def test_a_tolerance_bakes_largest_change_counts_what_its_keys_play(clean_blender, keys):
    """A pipeline walk: a 0.5 deg Bezier bake of the CMU walk (a key on every frame, where
    the slerp path is Blender's own playback at the frames) said "largest change 0.00
    deg" and passed a batch's --fail-above 0.1, while it played 0.497 deg off. The figure
    is Blender's playback before against after at every frame (frame_set), where the
    thinned keys play within the tolerance of the path, not on it; a conversion too.
    Between the frames too: where the bake samples the source's keys a frame apart whose
    playback may stray from slerp (every sixteenth of a frame), the playback before
    against after."""
    frames = np.arange(1.0, 61.0)
    obj = _capture("Capture", frames, 0.05, seed=5)
    before = evaluated_quats(obj, frames)
    times = np.arange(frames[0], frames[-1] + 1 / 32, 1 / 16)
    played_before = _world_quats(obj, times)
    if keys == 'convert':
        result = bake.convert_objects([obj], 'QUATERNION', 0.5)
    else:
        result = bake.bake_objects([obj], bake.BakeSettings(
            method='SLERP', tolerance_deg=0.5, key_interpolation=keys))
    changed = np.degrees(quat.angle_between(before, evaluated_quats(obj, frames)).max())
    assert 0.05 < changed <= 0.5                        # thinned, within the tolerance
    assert result.keys_written < frames.size
    between = np.degrees(quat.angle_between(played_before, _world_quats(obj, times)).max())
    # float32 keys and matrices on both sides: 1e-4 deg.
    assert result.max_deviation_deg == pytest.approx(max(changed, between), abs=1e-4)


@pytest.mark.parametrize("delta", ["none", "static", "only"])
def test_a_bezier_bakes_largest_change_is_not_the_dense_paths(clean_blender, delta):
    """A review: a quaternion capture (a key on every frame) baked to XYZ Bezier keys
    within 0.5 deg read "largest change 10.41 deg": measured before the keys were thinned,
    as if Blender played the dense path's Euler values in straight lines between frames,
    which it never does. Blender's playback (frame_set, every quarter frame, the delta
    composed) moved less than the tolerance. The figure is at least the whole frames'
    change and at most the change at every sixteenth of a frame, where it also looks
    between keys a frame apart that turn far (a later walk): up to 48 deg a frame here,
    where the fitted curves, held to the tolerance at quarter frames, and Blender's
    channels before part by more between them (1.83 deg at 6.9375, measured)."""
    import mathutils

    rng = np.random.default_rng(3)
    frames = np.arange(1.0, 31.0)
    quats = np.array([tuple(mathutils.Euler(e, 'XYZ').to_quaternion())
                      for e in np.cumsum(rng.uniform(-0.5, 0.5, (frames.size, 3)), axis=0)])
    quats[np.cumsum(np.r_[0, np.einsum("ij,ij->i", quats[1:], quats[:-1]) < 0]) % 2 == 1] *= -1
    obj = new_object("Capture", 'QUATERNION')
    if delta == "static":
        obj.delta_rotation_quaternion = mathutils.Euler((0.4, -0.3, 0.9)).to_quaternion()
    key_channels(obj, "delta_rotation_quaternion" if delta == "only" else "rotation_quaternion",
                 frames, quats, 'LINEAR')
    fine = np.arange(1.0, 30.0 + 1e-9, 1.0 / 16.0)
    before = _world_quats(obj, fine)
    result = bake.bake_objects([obj], bake.BakeSettings(
        method='SLERP', output_mode='XYZ', tolerance_deg=0.5, key_interpolation='BEZIER'))
    moved = np.degrees(quat.angle_between(before, _world_quats(obj, fine)))
    whole, quarters = moved[::16], moved[::4]
    assert 0.05 < quarters.max() <= 0.5
    # float32 keys and matrices on both sides: 1e-4 deg.
    assert whole.max() - 1e-4 <= result.max_deviation_deg <= moved.max() + 1e-4


def test_constraints_warn_but_bake(clean_blender):
    obj = _animated("Con", 'XYZ', seed=12)
    obj.constraints.new('LIMIT_ROTATION')
    result = bake.bake_objects([obj], bake.BakeSettings())
    assert bake.can_revert(obj)
    assert [w.severity for w in result.warnings] == ['WARNING']
    assert "Con" in result.warnings[0].message and "constraint" in result.warnings[0].message


def test_fcurve_modifiers_warn_and_keys_include_them(clean_blender):
    obj = _animated("Mod", 'XYZ', seed=13)
    fc = animdata.rotation_fcurves(obj)[1]
    noise = fc.modifiers.new('NOISE')
    noise.strength = 0.5
    key_quats = evaluated_quats(obj, KEY_FRAMES)   # Blender's orientation, noise included
    # Shortest: with the noise, keys 26-40 are 179.7 deg apart the short way and
    # Blender turns 180.3 deg the other way, a tie that Turns: Auto settles in
    # Blender's direction (test_bake_turns); this test is about the modifiers.
    result = bake.bake_objects([obj], bake.BakeSettings(turns='SHORTEST'))
    assert [w.channel for w in result.warnings] == ["rotation_euler[1]"]
    assert "Noise" in result.warnings[0].message
    frames = np.arange(KEY_FRAMES[0], KEY_FRAMES[-1] + 1)
    expected = interp.interpolate(KEY_FRAMES, key_quats, frames, "slerp")
    assert quat.angle_between(expected, evaluated_quats(obj, frames)).max() < TOL_RAD


def test_a_muted_modifier_is_said_to_change_nothing(clean_blender):
    """A walk: a muted Noise modifier was said to be baked in at the key frames and
    dropped, as a playing one is; it plays nothing, and the baked keys are the
    modifier-free keys' slerp (Blender's orientation at the keys with it muted)."""
    obj = _animated("Quiet", 'XYZ', seed=13)
    noise = animdata.rotation_fcurves(obj)[1].modifiers.new('NOISE')
    noise.strength, noise.mute = 0.5, True
    key_quats = evaluated_quats(obj, KEY_FRAMES)
    result = bake.bake_objects([obj], bake.BakeSettings(turns='SHORTEST'))
    said = [w.message for w in result.warnings]
    assert len(said) == 1 and "muted F-curve modifiers (Noise)" in said[0], said
    assert "change nothing" in said[0] and "interpolates" not in said[0], said
    frames = np.arange(KEY_FRAMES[0], KEY_FRAMES[-1] + 1)
    expected = interp.interpolate(KEY_FRAMES, key_quats, frames, "slerp")
    assert quat.angle_between(expected, evaluated_quats(obj, frames)).max() < TOL_RAD


def test_union_keys(clean_blender):
    obj = new_object("Union", 'XYZ')
    key_channels(obj, "rotation_euler", [1, 10, 20], [[0.0], [1.0], [0.0]], indices=[0])
    key_channels(obj, "rotation_euler", [1, 15, 20], [[0.0], [2.0], [0.5]], indices=[2])
    with pytest.raises(bake.BakeError) as info:
        bake.bake_objects([obj], bake.BakeSettings())
    issue = info.value.issues[0]
    assert issue.object_name == "Union" and issue.frame in (10.0, 15.0)
    assert issue.channel in ("rotation_euler[0]", "rotation_euler[2]")
    key_quats = evaluated_quats(obj, [1, 10, 15, 20])
    bake.bake_objects([obj], bake.BakeSettings(union_keys=True))
    frames = np.arange(1, 21)
    expected = interp.interpolate([1, 10, 15, 20], key_quats, frames, "slerp")
    assert quat.angle_between(expected, evaluated_quats(obj, frames)).max() < TOL_RAD


def test_progress_is_reported(clean_blender):
    objs = [_animated(f"P{i}", 'XYZ', seed=i) for i in range(3)]
    calls = []
    bake.bake_objects(objs, bake.BakeSettings(), progress=lambda d, t: calls.append((d, t)))
    assert calls[-1] == (6, 6) and [d for d, _ in calls] == list(range(1, 7))


# --------------------------------------------------------------------------
# Atomicity
# --------------------------------------------------------------------------

def test_failure_on_second_object_restores_the_first(clean_blender, monkeypatch):
    modes = ('XYZ', 'QUATERNION', 'ZXY')
    objs = [_animated(f"At{i}", mode, seed=i) for i, mode in enumerate(modes)]
    bake.bake_objects([objs[2]], bake.BakeSettings(output_mode='QUATERNION'))   # a re-bake too
    bpy.context.scene.frame_set(1)
    before = scene_snapshot()
    real = animdata.write_keys
    calls = {"n": 0}

    def failing(fc, frames, values, **options):
        calls["n"] += 1
        # Object 0 writes 3 Euler + 3 location channels; object 1 fails mid-way.
        if calls["n"] == 8:
            raise RuntimeError("disk full (injected)")
        return real(fc, frames, values, **options)

    monkeypatch.setattr(animdata, "write_keys", failing)
    with pytest.raises(bake.BakeError) as info:
        bake.bake_objects(objs, bake.BakeSettings(method='SQUAD', location_method='LINEAR'))
    assert "At1" in str(info.value) and "injected" in str(info.value)
    bpy.context.scene.frame_set(1)
    assert_same_snapshot(before, scene_snapshot())
    monkeypatch.setattr(animdata, "write_keys", real)
    bake.bake_objects(objs, bake.BakeSettings(method='SQUAD'))
    assert all(bake.can_revert(o) for o in objs)


# --------------------------------------------------------------------------
# Bad input: a clear message naming object / channel / frame, nothing changed
# --------------------------------------------------------------------------

def _refused(objects, settings=None, contains=()):
    bpy.context.scene.frame_set(1)
    before = scene_snapshot()
    with pytest.raises(bake.BakeError) as info:
        bake.bake_objects(objects, settings or bake.BakeSettings())
    assert_same_snapshot(before, scene_snapshot())
    message = str(info.value)
    for text in contains:
        assert text in message, message
    assert all(i.severity == 'ERROR' for i in info.value.issues)
    return info.value.issues[0]


def test_no_objects(clean_blender):
    _refused([], contains=("No objects",))


def test_no_animation(clean_blender):
    issue = _refused([new_object("Still")], contains=('"Still"', "no animation"))
    assert issue.object_name == "Still"


def test_no_rotation_keys(clean_blender):
    obj = new_object("OnlyLoc", 'XYZ')
    key_channels(obj, "location", [1, 10], [[0, 0, 0], [1, 1, 1]])
    issue = _refused([obj], contains=('"OnlyLoc"', "rotation_euler"))
    assert issue.channel == "rotation_euler"


def test_keys_in_another_rotation_mode(clean_blender):
    obj = make_animated_object("Mode", 'XYZ', [1, 10], [[0, 0, 0], [1, 1, 1]])
    obj.rotation_mode = 'QUATERNION'
    _refused([obj], contains=('"Mode"', "rotation_quaternion", "QUATERNION"))


def test_action_without_a_slot_for_the_object(clean_blender):
    obj = _animated("NoSlot", 'XYZ')
    if not animdata.is_slotted(animdata.get_action(obj)):
        pytest.skip("actions have no slots before Blender 4.4")
    obj.animation_data.action_slot = None
    _refused([obj], contains=('"NoSlot"', "no slot"))
    # Beside a keyed object it is left as it is and the other one baked, as the report
    # skips it (a walk: the bake refused both).
    live = _animated("Live", 'XYZ')
    result = bake.bake_objects([obj, live], bake.BakeSettings())
    assert result.objects == ["Live"]
    skipped, = result.skipped
    assert skipped.object_name == "NoSlot" and "no slot" in skipped.message


def test_single_key_is_left_as_it_is_and_the_others_baked(clean_blender):
    """One rotation key holds a pose: nothing to interpolate. Alone, nothing is baked and
    the sentence says why; beside a keyed object, that one is baked and this one left."""
    one = make_animated_object("One", 'QUATERNION', [12], [[1, 0, 0, 0]])
    before = scene_snapshot()
    with pytest.raises(bake.BakeError) as info:
        bake.bake_objects([one], bake.BakeSettings())
    issue, = info.value.issues       # nothing baked: the skip's sentence is the refusal
    assert '"One"' in issue.message
    assert "single rotation key (frame 12)" in issue.message
    assert issue.frame == 12.0 and issue.channel.startswith("rotation_quaternion[")
    assert_same_snapshot(before, scene_snapshot())
    two = _animated("Two", 'XYZ')
    result = bake.bake_objects([one, two], bake.BakeSettings())
    assert result.objects == ["Two"]
    assert [s.object_name for s in result.skipped] == ["One"]
    assert scene_snapshot()["objects"]["One"] == before["objects"]["One"]


def test_subframe_key_is_baked_through(clean_blender):
    """A key on a subframe is a frame of the bake too, so the bake passes through it
    (it used to be refused); the other baked frames stay on the whole-frame grid."""
    obj = make_animated_object("Sub", 'XYZ', [1, 5.5, 10], [[0, 0, 0], [1, 0, 0], [0, 1, 0]])
    key = animdata.evaluate_rotation(obj, [5.5], exact=True)
    bake.bake_objects([obj], bake.BakeSettings(frame_step=2))
    frames = animdata.key_frames(animdata.rotation_fcurves(obj))
    np.testing.assert_array_equal(frames, [1, 3, 5, 5.5, 7, 9, 10])
    # Float32 channels replayed at the key: ~1e-7 rad.
    assert quat.angle_between(animdata.evaluate_rotation(obj, [5.5]), key)[0] < 1e-6


def test_different_key_frames(clean_blender):
    obj = new_object("Diff", 'QUATERNION')
    key_channels(obj, "rotation_quaternion", [1, 10], [[1, 0, 0], [0, 1, 0]], indices=[0, 1, 3])
    key_channels(obj, "rotation_quaternion", [1, 7, 10], [[0.0], [0.5], [0.0]], indices=[2])
    issue = _refused([obj], contains=('"Diff"', "frame 7", "Merge Key Frames"))
    assert issue.frame == 7.0 and issue.channel.startswith("rotation_quaternion[")


def test_nan_key(clean_blender):
    obj = make_animated_object("NaN", 'XYZ', [1, 5, 10],
                               [[0, 0, 0], [0, 0, np.nan], [0, 1, 0]], interpolation='LINEAR')
    issue = _refused([obj], contains=('"NaN"', "rotation_euler[2]", "frame 5"))
    assert (issue.channel, issue.frame) == ("rotation_euler[2]", 5.0)


@pytest.mark.parametrize("scale, word", [(0.0, "zero"), (1e-20, "zero"), (1e20, "too large")])
def test_degenerate_quaternion_key(clean_blender, scale, word):
    obj = make_animated_object("Deg", 'QUATERNION', [1, 8, 16],
                               [[1, 0, 0, 0], [scale, 0, 0, 0], [0, 1, 0, 0]])
    issue = _refused([obj], contains=('"Deg"', "rotation_quaternion", "frame 8", word))
    assert issue.frame == 8.0


def test_driver_on_rotation(clean_blender):
    obj = _animated("Drv", 'XYZ')
    obj.driver_add("rotation_euler", 1)
    issue = _refused([obj], contains=('"Drv"', "rotation_euler[1]", "driver"))
    assert issue.channel == "rotation_euler[1]"


def test_driver_on_location_when_baking_location(clean_blender):
    obj = _animated("DrvLoc", 'XYZ')
    obj.driver_add("location", 0)
    _refused([obj], bake.BakeSettings(location_method='LINEAR'), contains=("location[0]",))
    bake.bake_objects([obj], bake.BakeSettings())   # location kept: the driver is harmless


@pytest.mark.parametrize("muted", [True, False], ids=["stashed", "pushed down"])
def test_active_action_also_on_an_nla_track_bakes_and_reverts(clean_blender, muted):
    """The importer's case built in code (so it runs in Blender 3.4.1 too, whose glTF
    importer fails): the active action is also a strip on a muted track (a stash), or on
    a playing track under it (pushed down and assigned again, blend REPLACE at 1)."""
    obj = _animated("Stashed", 'XYZ')
    action = animdata.get_action(obj)
    track = obj.animation_data.nla_tracks.new()
    strip = track.strips.new("Stash", 1, action)
    track.mute = muted
    bpy.context.scene.frame_set(1)
    before = scene_snapshot()
    key_quats = animdata.evaluate_rotation(obj, KEY_FRAMES, exact=True)
    bake.bake_objects([obj], bake.BakeSettings(method='SLERP'))
    assert strip.action == action and action.use_fake_user     # the strip keeps the original
    frames = np.arange(KEY_FRAMES[0], KEY_FRAMES[-1] + 1)
    # What plays (frame_set, NLA included) is slerp of the key orientations: float32 keys.
    played = evaluated_quats(obj, frames)
    expected = interp.interpolate(KEY_FRAMES, key_quats, frames, "slerp")
    assert quat.angle_between(played, expected).max() < 2e-6
    # A re-bake starts from the original again (the strip still plays it, under the bake).
    bake.bake_objects([obj], bake.BakeSettings(method='NLERP', frame_step=3))
    bake.revert_objects([obj])
    bpy.context.scene.frame_set(1)
    assert_same_snapshot(before, scene_snapshot())


def test_nla_strip_of_another_action_that_blends_is_refused(clean_blender):
    """The action plays at half influence over a strip of another action: what plays is
    a blend of the two (measured: the strip muted or not, other poses), which the bake
    refuses. (At Blender's defaults, Replace at full influence, the action alone plays on
    the channels it keys: test_clip_strips.)"""
    obj = _animated("Nla", 'XYZ')
    other = _animated("Other", 'XYZ', seed=5)
    track = obj.animation_data.nla_tracks.new()
    track.name = "Walk track"
    strip = track.strips.new("Walk", 1, animdata.get_action(other))
    strip.name = "Walk"      # Blender 3.4 names a new strip after its action
    if hasattr(strip, "action_slot") and strip.action_slot is None:
        strip.action_slot = animdata.get_action(other).slots[0]
    obj.animation_data.action_influence = 0.5
    blended = evaluated_quats(obj, KEY_FRAMES)
    track.mute = True
    assert quat.angle_between(blended, evaluated_quats(obj, KEY_FRAMES)).max() > 0.01
    track.mute = False
    issue = _refused([obj], contains=('"Nla"', 'track "Walk track"', 'strip "Walk"',
                                      "rotation_euler", "Mute"))
    assert issue.object_name == "Nla"
    from quatbake.addon import analyze
    found = analyze.analyze_object(obj)        # the report says so too, first and as advice
    finding = found.findings[0]
    assert 'strip "Walk"' in finding and "compares the action alone" in finding
    assert found.advice == finding
    track.mute = True     # what the sentence says to do: then the bake goes ahead
    bake.bake_objects([obj], bake.BakeSettings())
    assert bake.can_revert(obj)


def test_nla_tweak_mode(clean_blender):
    obj = _animated("Tweak", 'XYZ')
    action = animdata.get_action(obj)
    track = obj.animation_data.nla_tracks.new()
    track.strips.new("Strip", 1, action)
    obj.animation_data.use_tweak_mode = True
    if not obj.animation_data.use_tweak_mode:
        pytest.skip("this Blender cannot enter tweak mode without an NLA editor")
    _refused([obj], contains=('"Tweak"', "tweak mode"))


@pytest.mark.parametrize("step", [0, -2, 1.5])
def test_bad_step(clean_blender, step):
    _refused([_animated("Step", 'XYZ')], bake.BakeSettings(frame_step=step), contains=("Step",))


@pytest.mark.parametrize("frame_range, text", [((10, 5), "empty"), ((1.5, 10), "whole"),
                                               ((1,), "whole")])
def test_bad_range(clean_blender, frame_range, text):
    _refused([_animated("Range", 'XYZ')], bake.BakeSettings(frame_range=frame_range),
             contains=(text,))


def test_too_many_frames(clean_blender):
    _refused([_animated("Huge", 'XYZ')], bake.BakeSettings(frame_range=(1, 10**9)),
             contains=('"Huge"', "1..1000000000", "larger step"))


def test_constant_speed_needs_a_location_method(clean_blender):
    _refused([_animated("CS", 'XYZ')], bake.BakeSettings(constant_speed=True),
             contains=("Constant speed",))


def test_constant_speed_retimes_what_has_a_path_and_bakes_the_rest_at_even_timing(
        clean_blender):
    """Constant Speed on a selection where one object has no location keys (a workflow
    walk: it refused the whole bake; a rig's FK bones beside its IK controls would): the
    one with a path is retimed along it, the other is baked at the method's own timing
    (the slerp of its keys, as without Constant Speed), named in a warning."""
    moving = _animated("CSLoc", 'XYZ', seed=3)
    still = _animated("CSNoLoc", 'XYZ', seed=4, location=False)
    key_quats = evaluated_quats(still, KEY_FRAMES)
    corners = []
    for f in KEY_FRAMES:
        bpy.context.scene.frame_set(int(f))
        corners.append(np.array(moving.location))
    result = bake.bake_objects([moving, still], bake.BakeSettings(
        constant_speed=True, location_method='LINEAR', method='SLERP'))
    assert sorted(result.objects) == ["CSLoc", "CSNoLoc"]
    said = [w for w in result.warnings if w.object_name == "CSNoLoc"]
    assert len(said) == 1 and "constant speed" in said[0].message, result.warnings
    frames = np.arange(KEY_FRAMES[0], KEY_FRAMES[-1] + 1)
    expected = interp.interpolate(KEY_FRAMES, key_quats, frames, "slerp")
    assert quat.angle_between(expected, evaluated_quats(still, frames)).max() < TOL_RAD
    # The other travels its keys' polyline at one speed: at each frame, where arc length
    # (frames from the start) x (length / frames) along it lies (float32 keys: 1e-4).
    corners = np.array(corners)
    lengths = np.linalg.norm(np.diff(corners, axis=0), axis=1)
    along = np.concatenate([[0.0], np.cumsum(lengths)])
    for f in frames:
        s = (f - frames[0]) / (frames[-1] - frames[0]) * along[-1]
        i = min(int(np.searchsorted(along, s, side="right")) - 1, len(lengths) - 1)
        want = corners[i] + (s - along[i]) / lengths[i] * (corners[i + 1] - corners[i])
        bpy.context.scene.frame_set(int(f))
        assert np.abs(np.array(moving.location) - want).max() < 1e-4, f


def _mathutils_slerp_of_keys(obj, frames) -> np.ndarray:
    """(n, 4): mathutils' slerp (Blender's own, short arc) of what Blender plays at
    ``obj``'s rotation keys, the independent figure a SLERP bake must play at ``frames``."""
    import mathutils

    keys = animdata.key_frames(animdata.rotation_fcurves(obj))
    at_keys = [mathutils.Quaternion(q) for q in evaluated_quats(obj, keys)]
    out = []
    for f in frames:
        i = min(int(np.searchsorted(keys, f, side="right")) - 1, keys.size - 2)
        u = (f - keys[i]) / (keys[i + 1] - keys[i])
        out.append(tuple(at_keys[i].slerp(at_keys[i + 1], u)))
    return np.array(out)


def test_one_bad_object_is_left_as_it_was_and_the_others_baked(clean_blender):
    """A broken key (a NaN value) leaves that object exactly as it was, named in
    ``failed``; the others are baked (one transform's problem never stops the others).
    A single key is only skipped (test_single_key_is_left_as_it_is_and_the_others_baked);
    alone, the broken one refuses the bake (BAD_INPUT in test_hostile_bake)."""
    good = _animated("Good", 'XYZ')
    other = _animated("Other", 'QUATERNION', seed=3)
    bad = make_animated_object("Bad", 'XYZ', [3, 9], [[0, 0, 0], [0, float("nan"), 0]])
    frames = np.arange(KEY_FRAMES[0], KEY_FRAMES[-1] + 1.0)
    want = {o.name: _mathutils_slerp_of_keys(o, frames) for o in (good, other)}
    bpy.context.scene.frame_set(1)      # before the NaN key: the static values are numbers
    before = scene_snapshot()
    result = bake.bake_objects([good, bad, other], bake.BakeSettings(method='SLERP'))
    assert result.objects == ["Good", "Other"]
    assert {i.object_name for i in result.failed} == {"Bad"}
    assert all(i.severity == 'ERROR' for i in result.failed)
    assert '"Bad"' in result.failed[0].message and "rotation_euler[1]" in result.failed[0].message
    after = scene_snapshot()
    assert_same_snapshot(part_of(before, ["Bad"]), part_of(after, ["Bad"]))
    for obj in (good, other):
        assert animdata.get_action(obj).name != before["objects"][obj.name][0]
        # Float32 channels: 1e-4 deg.
        off = quat.angle_between(evaluated_quats(obj, frames), want[obj.name])
        assert np.degrees(off).max() < 1e-4, obj.name
    # Alone, it is refused, nothing changed.
    _refused([bad], contains=('"Bad"',))


def test_when_nothing_can_be_baked_every_transform_is_named(clean_blender):
    """A docs walk: of three broken objects the refusal named the first, so a TD fixed
    one, ran again and met the next; an unanimated one beside them was never named."""
    nan = make_animated_object("BadNaN", 'XYZ', [3, 9], [[0, 0, 0], [0, float("nan"), 0]])
    driven = _animated("BadDriver", 'XYZ')
    driven.driver_add("rotation_euler", 0)
    plain = new_object("Plain")
    bpy.context.scene.frame_set(1)
    before = scene_snapshot()
    with pytest.raises(bake.BakeError) as info:
        bake.bake_objects([nan, driven, plain], bake.BakeSettings())
    assert_same_snapshot(before, scene_snapshot())
    first, *rest = info.value.issues
    assert first.message.startswith('Nothing to bake: none of the 3 transforms (BadNaN, '
                                    'BadDriver, Plain) can be baked. Object "BadNaN"')
    assert [i.object_name for i in rest] == ["BadDriver", "Plain"]
    assert "driver" in rest[0].message and "no animation" in rest[1].message
    # A conversion speaks of converting (a review: "can be baked").
    with pytest.raises(bake.BakeError) as info:
        bake.convert_objects([nan, driven], 'QUATERNION')
    assert info.value.issues[0].message.startswith(
        "Nothing to convert: none of the 2 transforms (BadNaN, BadDriver) can be converted.")


def _linked_object(tmp_dir):
    return link_from_library(_animated("Lib", 'XYZ'), os.path.join(tmp_dir, "library.blend"))


def test_library_linked_object(clean_blender):
    with tempfile.TemporaryDirectory() as tmp:
        obj = _linked_object(tmp)
        assert obj.library is not None
        _refused([obj], contains=('"Lib"', "library"))


def test_library_override_object_playing_the_librarys_action(clean_blender):
    """An override bakes (tests/blender/test_overrides.py); its action here is the
    library's own, linked, which a bake does not take: refused, naming the library."""
    with tempfile.TemporaryDirectory() as tmp:
        obj = _linked_object(tmp).override_create(remap_local_usages=True)
        assert obj.override_library is not None
        _refused([obj], contains=('"Lib"', "is linked from the library", "library.blend"))


def test_linked_action_on_local_object(clean_blender):
    with tempfile.TemporaryDirectory() as tmp:
        linked = _linked_object(tmp)
        action = animdata.get_action(linked)
        local = new_object("Local", 'XYZ')
        slot = animdata.get_slot_identifier(linked)
        animdata.assign_action(local, action, slot)
        _refused([local], contains=('"Local"', action.name, "library"))


def _shared_pair():
    a = _animated("FA", 'XYZ', seed=21)
    action = animdata.get_action(a)
    b = new_object("FB", 'XYZ')
    if animdata.is_slotted(action):
        slot = action.slots.new(id_type='OBJECT', name="FB")
        animdata.assign_action(b, action, slot.identifier)
        key_channels(b, "rotation_euler", [1, 30], [[0, 0, 0], [0.5, 0.5, 2.0]])
    else:
        animdata.assign_action(b, action)
    return a, b, action


@pytest.mark.parametrize("user_fake", (False, True))
@pytest.mark.parametrize("together", (True, False))
def test_shared_original_gets_its_own_fake_user_back(clean_blender, user_fake, together):
    a, b, action = _shared_pair()
    action.use_fake_user = user_fake
    if together:
        bake.bake_objects([a, b], bake.BakeSettings())
    else:
        bake.bake_objects([a], bake.BakeSettings())
        bake.bake_objects([b], bake.BakeSettings())
    assert action.use_fake_user
    bake.revert_objects([a])
    assert action.use_fake_user   # still the original of b's bake
    bake.revert_objects([b])
    assert action.use_fake_user == user_fake


def test_rebake_switches_back_to_the_original_mode_and_reverts_exactly(clean_blender):
    obj = _animated("Back", 'ZYX', seed=31)
    key_quats = evaluated_quats(obj, KEY_FRAMES)
    bpy.context.scene.frame_set(1)
    before = scene_snapshot()
    bake.bake_objects([obj], bake.BakeSettings(output_mode='QUATERNION', method='SQUAD'))
    assert obj.rotation_mode == 'QUATERNION'
    result = bake.bake_objects([obj], bake.BakeSettings(output_mode='KEEP', method='NLERP'))
    assert obj.rotation_mode == 'ZYX'
    # Said, not silent (a workflow walk found a conversion turned back without a word).
    said = [n.message for n in result.notes if "played in QUATERNION" in n.message]
    assert len(said) == 1 and "own mode, ZYX" in said[0], result.notes
    again = bake.bake_objects([obj], bake.BakeSettings(output_mode='KEEP', method='NLERP'))
    assert not [n for n in again.notes if "played in" in n.message]    # ZYX already
    frames = np.arange(KEY_FRAMES[0], KEY_FRAMES[-1] + 1)
    expected = interp.interpolate(KEY_FRAMES, key_quats, frames, "nlerp")
    assert quat.angle_between(expected, evaluated_quats(obj, frames)).max() < TOL_RAD
    assert len(bpy.data.actions) == 2
    bake.revert_objects([obj])
    bpy.context.scene.frame_set(1)
    assert_same_snapshot(before, scene_snapshot())


def test_bake_never_moves_the_current_frame(clean_blender):
    objs = [_animated(f"F{i}", 'XYZ', seed=i) for i in range(2)]
    scene = bpy.context.scene
    scene.frame_set(17)
    seen = []
    handler = lambda scene, *args: seen.append(scene.frame_current)  # noqa: E731
    bpy.app.handlers.frame_change_pre.append(handler)
    try:
        bake.bake_objects(objs, bake.BakeSettings(location_method='CATMULL_ROM'))
        bake.revert_objects(objs)
    finally:
        bpy.app.handlers.frame_change_pre.remove(handler)
    assert scene.frame_current == 17 and seen == []


@pytest.mark.parametrize("order", ['XYZ', 'ZXY', 'YZX', 'ZYX'])
def test_a_baked_euler_curve_through_gimbal_lock_is_never_further_from_its_last_frame_than_compat(
        clean_blender, order):
    """Keys with the middle angle at 90 deg as Blender stores it (float32, 4e-8 rad past
    pi/2): there only the sum or difference of the outer angles is fixed. Each baked
    frame must be no farther from the frame before than Blender's own
    ``Matrix.to_euler(order, compat=that frame)`` of the same orientation is."""
    from mathutils import Euler, Matrix

    mid_axis = "XYZ".index(order[1])
    values = np.radians([[10.0, 20.0, 30.0], [40.0, 50.0, 70.0], [80.0, 120.0, 100.0]])
    values[1, mid_axis] = np.pi / 2                   # stored as float32(pi/2)
    obj = make_animated_object("Lock", order, [1, 21, 41], values, 'LINEAR')
    bake.bake_objects([obj], bake.BakeSettings(method='SLERP'))
    fc = animdata.rotation_fcurves(obj)
    baked = np.array([[fc[i].evaluate(f) for i in range(3)] for f in np.arange(1.0, 42.0)])
    for k in range(1, baked.shape[0]):
        matrix = Matrix(Euler(baked[k], order).to_matrix())
        theirs = np.array(matrix.to_euler(order, Euler(baked[k - 1], order)))
        ours = np.abs(baked[k] - baked[k - 1]).sum()
        # float32 keys and matrices: 1e-5 rad of slack on a sum of three angles.
        assert ours <= np.abs(theirs - baked[k - 1]).sum() + 1e-5, (k, baked[k - 1:k + 1], theirs)


def test_step_frames_keep_the_keys_further_apart_than_the_step():
    """Which keys a Step bake keeps beside its grid: those further than the step from a key
    beside them (the animator's poses), not those inside a dense run, with keys as close as
    the step on both sides (a mocap clip's; keys on twos with Step 2, which would
    otherwise fill every frame), and every subframe key."""
    from quatbake.addon.bake.read import bake_frames

    np.testing.assert_array_equal(bake_frames(1, 21, 4, np.array([1.0, 10.0, 21.0])),
                                  [1, 5, 9, 10, 13, 17, 21])
    # Two keys a frame apart (a quick move) are two poses, not a run.
    np.testing.assert_array_equal(bake_frames(1, 21, 4, np.array([1.0, 10.0, 11.0, 21.0])),
                                  [1, 5, 9, 10, 11, 13, 17, 21])
    # A run: every key on every frame from 1 to 21, thinned to the grid.
    np.testing.assert_array_equal(bake_frames(1, 21, 4, np.arange(1.0, 22.0)),
                                  [1, 5, 9, 13, 17, 21])
    twos = np.arange(1.0, 22.0, 2.0)
    np.testing.assert_array_equal(bake_frames(2, 20, 2, twos), np.arange(2.0, 21.0, 2.0))
    np.testing.assert_array_equal(bake_frames(1, 9, 4, np.array([1.0, 4.5, 9.0])),
                                  [1, 4.5, 5, 9])
    # A snap keyed at 10 and 10.5: the whole-frame key is as far from the whole-frame
    # keys beside it as ever, and stays (a walk: Step 2 dropped it, 60 deg off its pose).
    np.testing.assert_array_equal(bake_frames(1, 20, 2, np.array([1.0, 10.0, 10.5, 20.0])),
                                  [1, 3, 5, 7, 9, 10, 10.5, 11, 13, 15, 17, 19, 20])
