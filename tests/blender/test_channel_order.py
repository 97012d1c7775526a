"""The channels keep their order in the Dope Sheet and the Graph Editor through a bake and
a Revert, and the keys their selection (walks: after a bake, and after a Revert that kept
the animator's changes, an object's rotation came below its scale; a baked bone's group
went to the bottom of the rig's, and every baked key came selected).

The expectation is the animator's action itself: its curves' order, read before anything
ran, with the baked rotation (Euler or quaternion) in the place of the rotation it
replaces; and the frames of the keys the test selects.
"""
import bpy
import numpy as np
import pytest

from quatbake.addon import animdata, bake, transform

import scenes

pytestmark = pytest.mark.bpy

ROTATIONS = ("rotation_euler", "rotation_quaternion", "rotation_axis_angle")


def _order(owner, action=None) -> list:
    """[(group, data path with any rotation named "rotation")] of ``action`` (default: the
    one ``owner`` plays), one per curve, in the action's order."""
    action = action or animdata.get_action(owner)
    out = []
    for fc in animdata.action_fcurves(action, animdata.get_slot_identifier(owner)):
        path = fc.data_path
        for name in ROTATIONS:
            path = path.replace(name, "rotation")
        out.append((fc.group.name if fc.group is not None else "", path))
    return out


def _compact(order: list) -> list:
    """One entry per channel (its curves together), as the Dope Sheet lists them."""
    return [item for i, item in enumerate(order) if i == 0 or order[i - 1] != item]


def _laid_out(owner, expected: list) -> list:
    """``owner``'s channels as keyed, one entry per channel: ``expected`` (the premise)."""
    keyed = _compact(_order(owner))
    assert keyed == expected
    return keyed


def _groups(order: list) -> list:
    """The groups, in order, each once."""
    return list(dict.fromkeys(group for group, _path in order))


def _as_kept(order: list, keyed: list, converted: bool) -> None:
    """``order`` is ``keyed``'s: channel by channel, or where the rotation changed mode
    (a channel made anew comes at the end of its group) group by group, each group's
    channels the same."""
    if not converted:
        assert _compact(order) == keyed
        return
    assert _groups(order) == _groups(keyed)
    for group in _groups(keyed):
        assert sorted(p for g, p in _compact(order) if g == group) == \
            sorted(p for g, p in keyed if g == group)


def _keyed_object():
    obj = bpy.data.objects.new("Obj", None)
    bpy.context.scene.collection.objects.link(obj)
    for frame, z, x in ((1, 0.0, 0.0), (21, 3.0, 1.0), (41, -3.0, 2.0)):
        obj.location = (x, 0.0, 0.0)
        obj.rotation_euler = (0.3, 0.0, z)
        obj.scale = (1.0, 1.0, 1.0 + x)
        for path in ("location", "rotation_euler", "scale"):
            # In its group, as the I key keys it (from a script, Blender 3.4 leaves none).
            obj.keyframe_insert(path, frame=frame, group="Object Transforms")
    scenes.select_only(obj)
    return obj


@pytest.mark.parametrize("output", ['KEEP', 'QUATERNION'])
def test_a_bake_and_a_revert_after_edits_keep_the_objects_channel_order(clean_blender,
                                                                        output):
    obj = _keyed_object()
    keyed = _laid_out(obj, [("Object Transforms", p) for p in ("location", "rotation", "scale")])
    bake.bake_objects([obj], bake.BakeSettings(method='SLERP', output_mode=output))
    _as_kept(_order(obj), keyed, output != 'KEEP')

    # The animator moves a scale key in the baked action: Revert keeps it, in a copy.
    scale_z = animdata.find_fcurves(obj, "scale", 3)[2]
    scale_z.keyframe_points[1].co[1] = 4.0
    scale_z.update()
    bake.revert_objects([obj], [])
    assert animdata.get_action(obj).name == "ObjAction.edited"
    _as_kept(_order(obj), keyed, output != 'KEEP')
    # ...with every curve's keys, the moved one as moved.
    assert [k.co[1] for k in animdata.find_fcurves(obj, "scale", 3)[2].keyframe_points] \
        == pytest.approx([1.0, 4.0, 3.0])


def _rig():
    """Three bones keyed in order: spine and arm their rotation alone, hand its location,
    rotation and scale (a group each)."""
    rig = scenes.make_rig("Rig", [("spine", None, (0, 0, 0), (0, 0, 1)),
                                  ("arm", "spine", (0, 0, 1), (1, 0, 1)),
                                  ("hand", "arm", (1, 0, 1), (1.3, 0, 1))])
    frames = np.array([1.0, 21.0, 41.0])
    turns = [[1, 0, 0, 0], [0.5, 0.5, 0.5, 0.5], [0, 0, 0.6, 0.8]]
    scenes.key_bone(rig, "spine", "rotation_quaternion", frames, turns)
    scenes.key_bone(rig, "arm", "rotation_quaternion", frames, turns)
    scenes.key_bone(rig, "hand", "location", frames, [[0, 0, 0], [0, 1, 0], [0, 0, 1]])
    scenes.key_bone(rig, "hand", "rotation_quaternion", frames, turns)
    scenes.key_bone(rig, "hand", "scale", frames, [[1, 1, 1], [1, 2, 1], [1, 1, 3]])
    return rig


@pytest.mark.parametrize("output", ['KEEP', 'XYZ'])
def test_baked_and_reverted_bones_keep_their_groups_and_channels_in_order(clean_blender,
                                                                           output):
    rig = _rig()
    keyed = _laid_out(rig, [(bone, f'pose.bones["{bone}"].{channel}') for bone, channel in (
        ("spine", "rotation"), ("arm", "rotation"), ("hand", "location"), ("hand", "rotation"),
        ("hand", "scale"))])
    spine, arm, hand = (transform.AnimatedTransform(rig, b) for b in ("spine", "arm", "hand"))
    settings = bake.BakeSettings(method='SLERP', output_mode=output)
    # The first bone alone: its group, emptied and made again, went to the end.
    bake.bake_objects([spine], settings)
    _as_kept(_order(rig), keyed, output != 'KEEP')
    bake.bake_objects([arm, hand], settings)
    _as_kept(_order(rig), keyed, output != 'KEEP')
    bake.revert_objects([spine, hand])
    assert not rig.pose.bones["spine"].quatbake.baked and rig.pose.bones["arm"].quatbake.baked
    _as_kept(_order(rig), keyed, output != 'KEEP')
    bake.revert_objects([rig])
    assert _compact(_order(rig)) == keyed       # the animator's own action, as it was


def _selected(fc) -> list:
    return [k.co[0] for k in fc.keyframe_points
            if k.select_control_point or k.select_left_handle or k.select_right_handle]


@pytest.mark.parametrize("output, tolerance", [('KEEP', 0.01), ('QUATERNION', 0.01),
                                               ('KEEP', 0.0)])
def test_the_baked_keys_are_selected_where_the_animator_had_keys_selected(clean_blender,
                                                                          output, tolerance):
    """Keys an animator goes on editing (a Key Tolerance's Bezier keys) are selected on the
    frames selected before, and no others; a dense bake's (a key on every frame) come all
    selected, as Blender's own bake leaves them (deselecting them cost a 100-object Re-bake
    half its time again)."""
    obj = _keyed_object()
    for fc in animdata.action_fcurves(animdata.get_action(obj), animdata.get_slot_identifier(obj)):
        for k in fc.keyframe_points:
            on = fc.data_path == "rotation_euler" and fc.array_index == 2 and k.co[0] == 21.0
            k.select_control_point = k.select_left_handle = k.select_right_handle = on
    bake.bake_objects([obj], bake.BakeSettings(method='SLERP', output_mode=output,
                                               tolerance_deg=tolerance))
    path = "rotation_quaternion" if output == 'QUATERNION' else "rotation_euler"
    rotation = animdata.find_fcurves(obj, path, 4 if output == 'QUATERNION' else 3)
    assert all(21.0 in [k.co[0] for k in fc.keyframe_points] for fc in rotation)
    if not tolerance:
        assert [_selected(fc) for fc in rotation] == [list(range(1, 42))] * 3
    elif output == 'QUATERNION':
        # New channels: the frames selected on the Euler angles they replace.
        assert [_selected(fc) for fc in rotation] == [[21.0]] * 4
    else:
        assert [_selected(fc) for fc in rotation] == [[], [], [21.0]]
    for path in ("location", "scale"):
        assert [_selected(fc) for fc in animdata.find_fcurves(obj, path, 3)] == [[]] * 3


def _groups_collection(owner):
    action = animdata.get_action(owner)
    if animdata.is_slotted(action):
        return animdata.channelbags(action, animdata.get_slot_identifier(owner))[0].groups
    return action.groups


def test_a_bone_reverted_alone_comes_back_in_the_animators_group(clean_blender):
    """A review: bones keyed in one group of the animator's ("Arm"), one converted (its new
    channels go to a group of its name), baked back, the other baked, then the first
    reverted alone: its keys came back in its own group, not in "Arm"."""
    rig = scenes.make_rig("Rig", [(n, None, (i, 0, 0), (i, 0, 1)) for i, n in enumerate("ab")])
    for name in "ab":
        scenes.key_bone(rig, name, "rotation_quaternion", [1.0, 21.0, 41.0],
                        scenes.quats_about_z([0, 60, 120]), mode='QUATERNION')
    arm = _groups_collection(rig).new("Arm")
    for fc in animdata.action_fcurves(animdata.get_action(rig), animdata.get_slot_identifier(rig)):
        fc.group = arm
    a, b = (transform.AnimatedTransform(rig, n) for n in "ab")
    bake.convert_objects([a], 'XYZ', 0.01)
    bake.bake_objects([a], bake.BakeSettings(method='SLERP'))      # Object's Mode: back
    bake.bake_objects([b], bake.BakeSettings(method='SLERP'))
    bake.revert_objects([a])
    assert {g for g, p in _order(rig) if p.startswith('pose.bones["a"]')} == {"Arm"}


def test_a_baked_channel_keeps_no_twin(clean_blender):
    """A review: of two curves of one channel (a rename onto an existing name leaves them)
    the one not written over stayed in the baked action, and QuatBake read its 2 old keys
    after the bake. Every curve of a baked channel is the bake's."""
    obj = _keyed_object()
    action, slot = animdata.get_action(obj), animdata.get_slot_identifier(obj)
    twin = animdata.fcurve_maker(action, slot)("delta_scale", 0, "Object Transforms")
    twin.keyframe_points.add(2)
    twin.keyframe_points[0].co, twin.keyframe_points[1].co = (1, 2.0), (41, 2.0)
    twin.data_path, twin.array_index = "rotation_euler", 2
    bake.bake_objects([obj], bake.BakeSettings(method='SLERP'))
    curves = [fc for fc in animdata.action_fcurves(animdata.get_action(obj),
                                                   animdata.get_slot_identifier(obj))
              if fc.data_path == "rotation_euler"]
    assert sorted(fc.array_index for fc in curves) == [0, 1, 2]
    assert all(len(fc.keyframe_points) == 41 for fc in curves)


def test_a_conversion_of_keys_on_consecutive_frames_keeps_the_selection(clean_blender):
    """A review: keys on frames 1, 2 and 3, frame 2 selected, converted: every key came
    selected, taken for a dense bake's by the curve's shape. A dense bake is one with no
    Key Tolerance."""
    obj = scenes.make_animated_object("Obj", 'XYZ', np.array([1.0, 2.0, 3.0]),
                                      np.radians([[0, 0, 0], [10, 20, 30], [20, 40, 60]]))
    for fc in animdata.find_fcurves(obj, "rotation_euler", 3):
        for k in fc.keyframe_points:
            k.select_control_point = k.select_left_handle = k.select_right_handle = \
                k.co[0] == 2.0
    bake.convert_objects([obj], 'QUATERNION', 0.01)
    rotation = animdata.find_fcurves(obj, "rotation_quaternion", 4)
    assert [_selected(fc) for fc in rotation] == [[2.0]] * 4
