"""addon/animdata/ against the real bpy (5.0 slotted actions) and Blender 3.4 (action.fcurves)."""
import bpy
import numpy as np
import pytest

from quatbake.addon import animdata
from quatbake.core import quat

from scenes import (
    ROTATION_MODES,
    action_snapshot,
    assert_same_snapshot,
    evaluated_quats,
    key_channels,
    make_animated_object,
    new_object,
    scene_snapshot,
)

pytestmark = pytest.mark.bpy

# Blender stores F-curve values and builds matrices in float32 (~6e-8 relative);
# a rotation assembled from 3-4 such numbers is good to a few 1e-7 rad.
FLOAT32_RAD = 2e-6


def _values(mode, n, rng):
    if mode == 'QUATERNION':
        q = rng.normal(size=(n, 4))
        return q / np.linalg.norm(q, axis=1, keepdims=True)
    if mode == 'AXIS_ANGLE':
        axis = rng.normal(size=(n, 3))
        axis /= np.linalg.norm(axis, axis=1, keepdims=True)
        return np.column_stack([rng.uniform(-3, 3, n), axis])
    return rng.uniform(-3, 3, size=(n, 3))


def test_key_frames_is_the_sorted_union(clean_blender):
    obj = new_object("Union")
    key_channels(obj, "rotation_euler", [1, 10, 20], np.zeros((3, 1)), indices=[0])
    key_channels(obj, "rotation_euler", [5, 10, 30], np.zeros((3, 1)), indices=[2])
    fcs = animdata.rotation_fcurves(obj)
    assert fcs[1] is None and fcs[0] is not None and fcs[2] is not None
    np.testing.assert_array_equal(animdata.key_frames(fcs), [1, 5, 10, 20, 30])
    assert animdata.key_frames([None, None]).shape == (0,)


def test_read_keyframe_arrays_round_trip(clean_blender):
    obj = make_animated_object("Read", 'XYZ', [1, 7, 13], [[0.1, 0.2, 0.3], [1, 2, 3], [-1, 0, 4]],
                               interpolation='LINEAR')
    fc = animdata.rotation_fcurves(obj)[1]
    data = animdata.read_keyframe_arrays(fc)
    np.testing.assert_array_equal(data["co"][:, 0], [1, 7, 13])
    np.testing.assert_allclose(data["co"][:, 1], [0.2, 2, 0], rtol=1e-7)
    linear = bpy.types.Keyframe.bl_rna.properties["interpolation"].enum_items['LINEAR'].value
    assert data["interpolation"].tolist() == [linear] * 3
    # Same as reading each keyframe through RNA one by one.
    for i, kp in enumerate(fc.keyframe_points):
        assert tuple(data["handle_left"][i]) == tuple(kp.handle_left)
        assert tuple(data["handle_right"][i]) == tuple(kp.handle_right)


def test_evaluate_channels_matches_frame_set(clean_blender):
    rng = np.random.default_rng(3)
    obj = make_animated_object("Eval", 'XYZ', [1, 11, 30], rng.uniform(-2, 2, (3, 3)),
                               location=rng.uniform(-5, 5, (3, 3)))
    frames = np.arange(0, 34)
    got = animdata.evaluate_location(obj, frames)
    for i, f in enumerate(frames):
        bpy.context.scene.frame_set(int(f))
        np.testing.assert_allclose(got[i], tuple(obj.location), rtol=0, atol=1e-6)


def test_evaluate_channels_uses_defaults_for_missing_channels(clean_blender):
    obj = new_object("Partial")
    obj.rotation_euler = (0.25, -0.5, 0.75)
    key_channels(obj, "rotation_euler", [1, 9], [[0.0], [1.0]], indices=[1])
    raw = animdata.evaluate_rotation_raw(obj, [1, 5, 9])
    np.testing.assert_allclose(raw[:, 0], 0.25, rtol=1e-7)
    np.testing.assert_allclose(raw[:, 2], 0.75, rtol=1e-7)
    np.testing.assert_allclose(raw[[0, 2], 1], [0.0, 1.0], atol=1e-7)


@pytest.mark.parametrize("mode", ROTATION_MODES)
def test_evaluate_rotation_is_what_blender_shows(clean_blender, mode):
    """Blender's own interpolation (channel by channel, then normalised) at every frame."""
    rng = np.random.default_rng(ROTATION_MODES.index(mode))
    obj = make_animated_object(f"Rot{mode}", mode, [1, 8, 20, 31], _values(mode, 4, rng))
    frames = np.arange(1, 32)
    ours = animdata.evaluate_rotation(obj, frames)
    np.testing.assert_allclose(quat.norm(ours), 1.0, atol=1e-12)
    blender = evaluated_quats(obj, frames)
    assert quat.angle_between(ours, blender).max() < FLOAT32_RAD


def test_evaluate_rotation_of_another_mode(clean_blender):
    """Reading a mode other than the current one (what a re-bake of a switched object needs)."""
    obj = make_animated_object("Switched", 'ZXY', [1, 10], [[0, 0, 0], [0.5, 1.0, -0.3]],
                               interpolation='LINEAR')
    expected = evaluated_quats(obj, [1, 4, 10])
    obj.rotation_mode = 'QUATERNION'
    got = animdata.evaluate_rotation(obj, [1, 4, 10], mode='ZXY')
    assert quat.angle_between(got, expected).max() < FLOAT32_RAD


def test_zero_quaternion_names_object_channel_frame(clean_blender):
    obj = make_animated_object("ZeroQ", 'QUATERNION', [1, 5, 9],
                               [[1, 0, 0, 0], [0, 0, 0, 0], [1, 0, 0, 0]], interpolation='LINEAR')
    with pytest.raises(animdata.ChannelError) as info:
        animdata.evaluate_rotation(obj, [1, 5, 9])
    err = info.value
    assert err.object_name == "ZeroQ" and err.frame == 5.0
    assert err.channel == "rotation_quaternion[0]"
    assert "ZeroQ" in str(err) and "frame 5" in str(err) and "rotation_quaternion" in str(err)


def test_nan_key_names_object_channel_frame(clean_blender):
    obj = make_animated_object("NaNKey", 'XYZ', [1, 5, 9],
                               [[0, 0, 0], [0, np.nan, 0], [0, 1, 0]], interpolation='LINEAR')
    with pytest.raises(animdata.ChannelError) as info:
        animdata.evaluate_rotation(obj, [1, 5, 9])
    assert info.value.channel == "rotation_euler[1]" and info.value.frame == 5.0
    assert "NaNKey" in str(info.value)


def test_shared_action_sees_only_the_objects_channels(clean_blender):
    """Two objects on one action: each reads its own channels (its slot on 4.4+)."""
    a = make_animated_object("SharedA", 'XYZ', [1, 10], [[0, 0, 0], [1, 0, 0]])
    action = animdata.get_action(a)
    b = new_object("SharedB")
    if animdata.is_slotted(action):
        slot = action.slots.new(id_type='OBJECT', name="SharedB")
        animdata.assign_action(b, action, slot.identifier)
        key_channels(b, "location", [1, 10], [[0, 0, 0], [0, 0, 5]])
        assert [fc.data_path for fc in animdata.object_fcurves(b)] == ["location"] * 3
        assert {fc.data_path for fc in animdata.object_fcurves(a)} == {"rotation_euler"}
        assert animdata.action_slot_count(action) == 2
    else:
        animdata.assign_action(b, action)
        # Before 4.4 every user of an action is animated by all of its curves.
        assert len(animdata.object_fcurves(b)) == len(animdata.object_fcurves(a)) == 3
        assert animdata.action_slot_count(action) == 1
    assert action.users == 2


def test_copy_action_for_drops_only_named_paths_and_leaves_source(clean_blender):
    rng = np.random.default_rng(5)
    obj = make_animated_object("Copy", 'XYZ', [1, 10, 20], rng.normal(size=(3, 3)),
                               location=rng.normal(size=(3, 3)))
    key_channels(obj, "scale", [1, 20], [[1, 1, 1], [2, 2, 2]])
    source = animdata.get_action(obj)
    before = action_snapshot(source)
    frames = np.arange(1, 21, 3.0)
    expected = animdata.evaluate_rotation_raw(obj, frames, exact=True)
    copy, samples = animdata.copy_action_for(obj, source, animdata.get_slot_identifier(obj),
                                             "Copy.test", {"rotation_euler"}, sample_frames=frames)
    # Blender's own evaluation of the dropped channels, read in bulk: bit-identical.
    # Exact on purpose: both are Blender's C evaluator on the same float32 keys (no
    # numpy arithmetic), and the bake relies on convert_to_samples == fc.evaluate.
    assert sorted(samples) == [("rotation_euler", i) for i in range(3)]
    for i in range(3):
        np.testing.assert_array_equal(samples[("rotation_euler", i)], expected[:, i])
    assert copy.name == "Copy.test" and copy != source
    slot = animdata.get_slot_identifier(obj)
    paths = sorted((fc.data_path, fc.array_index) for fc in animdata.action_fcurves(copy, slot))
    assert paths == [("location", i) for i in range(3)] + [("scale", i) for i in range(3)]
    copied = action_snapshot(copy)
    for key, arrays in before.items():
        if key[1] == "rotation_euler":
            continue
        for field, value in arrays.items():
            if isinstance(value, np.ndarray):
                np.testing.assert_array_equal(value, copied[key][field])
    after = action_snapshot(source)
    assert sorted(before) == sorted(after)
    for key in before:
        np.testing.assert_array_equal(before[key]["co"], after[key]["co"])


def test_write_keys_linear_replays_exactly(clean_blender):
    obj = new_object("Write")
    action, slot = animdata.new_action_for(obj, "WriteAction")
    animdata.assign_action(obj, action, slot)
    frames = np.arange(1, 101, dtype=np.float64)
    values = np.sin(frames / 7.0) * 3.0
    fc = animdata.new_fcurve(action, slot, "location", 2)
    animdata.write_keys(fc, frames, values)
    assert fc.group is not None and fc.group.name == animdata.TRANSFORM_GROUP
    got = animdata.evaluate_location(obj, frames)[:, 2]
    # Exact: a LINEAR key evaluated on its own frame returns the stored float32.
    np.testing.assert_array_equal(got, values.astype(np.float32).astype(np.float64))
    with pytest.raises(ValueError):
        animdata.write_keys(fc, frames, values)


def test_assign_action_round_trip_and_snapshot(clean_blender):
    obj = make_animated_object("Assign", 'QUATERNION', [1, 5], [[1, 0, 0, 0], [0, 1, 0, 0]])
    original = animdata.get_action(obj)
    slot = animdata.get_slot_identifier(obj)
    before = scene_snapshot()
    other, other_slot = animdata.new_action_for(obj, "Other")
    animdata.assign_action(obj, other, other_slot)
    assert animdata.get_action(obj) == other
    animdata.assign_action(obj, original, slot)
    animdata.remove_action(other)
    assert_same_snapshot(before, scene_snapshot())


def test_validation_facts(clean_blender):
    obj = make_animated_object("Facts", 'XYZ', [1, 5], [[0, 0, 0], [1, 1, 1]])
    assert animdata.nla_state(obj) == (False, 0)
    assert animdata.driver_channels(obj, {"rotation_euler"}) == []
    obj.driver_add("rotation_euler", 2)
    assert animdata.driver_channels(obj, {"rotation_euler", "location"}) == ["rotation_euler[2]"]
    track = obj.animation_data.nla_tracks.new()
    track.strips.new("S", 1, animdata.get_action(obj))
    assert animdata.nla_state(obj) == (False, 1)
    assert not animdata.is_read_only(obj)
