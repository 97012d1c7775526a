"""Keys the animator adds or changes in the baked action, on channels the bake did not
write, survive a Re-bake and a Revert (a walk of the animator's loop: both composed the
new action from the keys before the bake, and a scale keyed since, a location moved or a
bone animated since were gone without a word).

Every expectation is the animator's own numbers (the keys this test sets) or the keys as
they were before the bake, read from the action before anything ran, and Blender's
playback (``frame_set``) against mathutils' rotation of the keyed values.
"""
import bpy
import mathutils
import numpy as np
import pytest

from quatbake.addon import animdata, bake, transform

import scenes

pytestmark = pytest.mark.bpy

# Baked keys are float32 and Blender builds the matrix in float32: 2e-6 rad leaves a margin
# over the 4e-7 rad measured (tests/blender/test_bones.py).
REPLAY_RAD = 2e-6


def _keyed_object():
    obj = bpy.data.objects.new("Obj", None)
    bpy.context.scene.collection.objects.link(obj)
    for frame, rotation, x in ((1, (0, 0, 0), 0.0), (21, (1.0, 0.3, 1.5), 1.0),
                               (41, (0.2, -0.7, 3.0), 2.0)):
        obj.rotation_euler = rotation
        obj.keyframe_insert("rotation_euler", frame=frame)
        obj.location = (x, 0.0, 0.0)
        obj.keyframe_insert("location", frame=frame)
    scenes.select_only(obj)
    return obj


def _keys(obj, action=None) -> dict:
    """{(data path, index): (n, 2) key (frame, value)} of ``action`` (default: the one
    ``obj`` plays), for its slot."""
    action = action or animdata.get_action(obj)
    return {(fc.data_path, fc.array_index): np.array([tuple(k.co) for k in fc.keyframe_points])
            for fc in animdata.action_fcurves(action, animdata.get_slot_identifier(obj))}


def _animator_edits(obj):
    """What an animator does after a bake: key a squash at frame 30, and move the middle
    location key (Location: Keep left it theirs)."""
    obj.scale = (1.0, 1.0, 0.5)
    obj.keyframe_insert("scale", frame=30)
    location_x = animdata.find_fcurves(obj, "location", 3)[0]
    location_x.keyframe_points[1].co[1] = 5.0
    location_x.update()


def _assert_edits_kept(obj):
    keys = _keys(obj)
    np.testing.assert_array_equal(keys[("scale", 2)], [[30.0, 0.5]])
    np.testing.assert_array_equal(keys[("location", 0)], [[1.0, 0.0], [21.0, 5.0], [41.0, 2.0]])
    bpy.context.scene.frame_set(21)
    assert obj.location.x == pytest.approx(5.0, abs=1e-6)
    bpy.context.scene.frame_set(30)
    assert obj.scale.z == pytest.approx(0.5, abs=1e-6)


def test_rebake_and_revert_keep_keys_keyed_or_changed_since_the_bake(clean_blender):
    obj = _keyed_object()
    original = animdata.get_action(obj)
    before = _keys(obj)
    bake.bake_objects([obj], bake.BakeSettings(method='SLERP', location_method='KEEP'))
    _animator_edits(obj)

    result = bake.bake_objects([obj], bake.BakeSettings(method='SQUAD', location_method='KEEP'))
    _assert_edits_kept(obj)
    said = [i.message for i in result.notes if "since the bake" in i.message]
    assert said and "location" in said[0] and "scale" in said[0] and '"ObjAction.edited"' in said[0]
    # One action, and what it is (a walk read 'puts back "ObjAction.edited", "ObjAction"
    # with those changes' as two).
    assert 'puts back "ObjAction.edited" ("ObjAction" with those changes)' in said[0], said

    notes = []
    assert bake.revert_objects([obj], notes) == ["Obj"]
    _assert_edits_kept(obj)
    plays = animdata.get_action(obj)
    assert plays != original and plays.name == "ObjAction.edited"
    assert notes and '"ObjAction.edited"' in notes[0] and '"ObjAction" stays' in notes[0]
    assert 'plays "ObjAction.edited" ("ObjAction" with those changes)' in notes[0], notes
    # The rotation is the animator's keys before the bake, and their action is untouched.
    for key in (("rotation_euler", i) for i in range(3)):
        np.testing.assert_array_equal(_keys(obj)[key], before[key])
    assert _keys(obj, original).keys() == before.keys()
    for key, co in before.items():
        np.testing.assert_array_equal(_keys(obj, original)[key], co)


_KEY_FIELDS = ("co", "handle_left", "handle_right", "handle_left_type", "handle_right_type",
               "interpolation", "easing", "back", "amplitude", "period", "type",
               "select_control_point", "select_left_handle", "select_right_handle")


def _curve_fields(fc) -> tuple:
    """Everything of an F-curve a copy must keep, read from Blender key by key."""
    return (fc.auto_smoothing, fc.extrapolation, fc.color_mode, tuple(fc.color), fc.hide,
            [tuple(tuple(v) if hasattr(v, "__len__") and not isinstance(v, str) else v
                   for v in (getattr(k, name) for name in _KEY_FIELDS))
             for k in fc.keyframe_points])


def test_the_copy_revert_puts_back_keeps_every_curve_and_key_setting(clean_blender):
    """A walk: after edits since a bake, Revert puts back a copy of the animator's action
    whose rotation curves were rebuilt, and lost what playback does not show yet: a
    curve's Auto Smoothing (None became Continuous Acceleration), the handles and handle
    types of keys that are not Bezier (collapsed onto the key) and a Bezier key's Back,
    Amplitude and Period. The animator's next key nudge then moved the curve 1.69 deg
    otherwise than on their own action. A review: a Breakdown or Extreme key came back
    a Keyframe. A convert walk: the curves' Graph Editor colours changed. An undo walk: the
    keys' selection. Read field by field, the copy is the original."""
    obj = _keyed_object()
    original = animdata.get_action(obj)
    x, y, z = animdata.find_fcurves(obj, "rotation_euler", 3)
    x.auto_smoothing, y.auto_smoothing = 'NONE', 'CONT_ACCEL'
    for k in y.keyframe_points:        # linear keys whose handles wait for a Bezier switch
        k.interpolation = 'LINEAR'
        k.handle_left_type = k.handle_right_type = 'FREE'
        k.handle_left = (k.co[0] - 3.0, k.co[1] + 0.4)
        k.handle_right = (k.co[0] + 5.0, k.co[1] - 0.2)
    z.keyframe_points[1].back, z.keyframe_points[1].amplitude = 2.5, 0.75
    z.keyframe_points[1].period = 3.5
    z.keyframe_points[0].easing = 'EASE_OUT'
    x.keyframe_points[1].type, x.keyframe_points[2].type = 'BREAKDOWN', 'EXTREME'
    # A convert walk: a reverted bone's curves came back Auto Rainbow where they were
    # XYZ to RGB; one with a colour of its own, and one hidden, stay so.
    x.color_mode, y.color_mode = 'AUTO_RGB', 'CUSTOM'
    y.color, z.hide = (0.9, 0.2, 0.1), True
    # An undo walk: the animator's selection came back every key selected (the middle
    # key alone here, one handle of it on Z).
    for fc in (x, y, z):
        for i, k in enumerate(fc.keyframe_points):
            k.select_control_point = k.select_left_handle = k.select_right_handle = i == 1
    z.keyframe_points[1].select_right_handle = False
    before = [_curve_fields(fc) for fc in (x, y, z)]
    bake.bake_objects([obj], bake.BakeSettings(method='SLERP', location_method='KEEP'))
    _animator_edits(obj)
    bake.revert_objects([obj], [])
    assert animdata.get_action(obj) != original       # the copy with the edits
    after = [_curve_fields(fc) for fc in animdata.find_fcurves(obj, "rotation_euler", 3)]
    for was, now in zip(before, after, strict=True):
        assert now == was


def test_revert_with_no_edits_puts_the_animators_own_action_back(clean_blender):
    obj = _keyed_object()
    original = animdata.get_action(obj)
    bake.bake_objects([obj], bake.BakeSettings(location_method='LINEAR'))
    notes = []
    bake.revert_objects([obj], notes)
    assert animdata.get_action(obj) == original and notes == []
    assert [a.name for a in bpy.data.actions] == ["ObjAction"]


def _rig():
    rig = scenes.make_rig("Rig", [("spine", None, (0, 0, 0), (0, 0, 1)),
                                  ("arm", "spine", (0, 0, 1), (1, 0, 1))])
    frames = np.array([1.0, 21.0, 41.0])
    scenes.key_bone(rig, "spine", "rotation_quaternion", frames,
                    [[1, 0, 0, 0], [0.5, 0.5, 0.5, 0.5], [0, 0, 0.6, 0.8]])
    scenes.key_bone(rig, "arm", "rotation_euler", frames,
                    [[0, 0, 0], [0, 0, 0.5], [0, 0, 1.0]], mode='XYZ')
    return rig


def _arm_z(rig, action=None) -> list:
    return _keys(rig, action)[('pose.bones["arm"].rotation_euler', 2)].tolist()


ARM_KEYED_SINCE = [[1.0, 0.0], [21.0, 0.5], [30.0, 2.0], [41.0, 1.0]]


def test_a_bone_animated_since_the_bake_is_baked_kept_and_reverted_with_its_new_keys(
        clean_blender):
    rig = _rig()
    original = animdata.get_action(rig)
    spine = transform.AnimatedTransform(rig, "spine")
    arm = transform.AnimatedTransform(rig, "arm")
    bake.bake_objects([spine], bake.BakeSettings(method='SLERP'))
    # The animator goes on with the arm, which the bake left out, in the action the rig plays.
    rig.pose.bones["arm"].rotation_euler = (0.0, 0.0, 2.0)
    rig.pose.bones["arm"].keyframe_insert("rotation_euler", frame=30)

    bake.bake_objects([spine], bake.BakeSettings(method='SQUAD'))
    assert _arm_z(rig) == ARM_KEYED_SINCE

    # Baking the arm now bakes its keys as they are, the one at frame 30 included.
    bake.bake_objects([arm], bake.BakeSettings(method='SLERP'))
    bpy.context.scene.frame_set(30)
    played = rig.pose.bones["arm"].matrix_basis.to_quaternion()
    keyed = mathutils.Euler((0.0, 0.0, 2.0), 'XYZ').to_quaternion()
    assert played.rotation_difference(keyed).angle < REPLAY_RAD

    # Reverting the arm alone brings its keys back as the animator made them; spine stays baked.
    bake.revert_objects([arm])
    assert _arm_z(rig) == ARM_KEYED_SINCE
    assert rig.pose.bones["spine"].quatbake.baked and not rig.pose.bones["arm"].quatbake.baked

    notes = []
    bake.revert_objects([rig], notes)
    assert animdata.get_action(rig).name == "RigAction.edited" and notes
    assert _arm_z(rig) == ARM_KEYED_SINCE
    assert _arm_z(rig, original) == [[1.0, 0.0], [21.0, 0.5], [41.0, 1.0]]   # untouched
    bpy.context.scene.frame_set(21)
    spine_keyed = mathutils.Quaternion((0.5, 0.5, 0.5, 0.5))
    assert rig.pose.bones["spine"].matrix_basis.to_quaternion().rotation_difference(
        spine_keyed).angle < REPLAY_RAD


def test_revert_says_it_takes_away_changes_to_the_baked_keys(clean_blender):
    """A walk: a baked key moved 10 deg, then Revert said only "Reverted 1 object" and the
    edit was gone (a Re-bake says so of the same edit). The object's own edit and a bone's
    are each named; keys left as baked say nothing."""
    obj = _keyed_object()
    rig = _rig()
    bake.bake_objects([obj, rig], bake.BakeSettings())
    baked_x = animdata.find_fcurves(obj, "rotation_euler", 3)[0]
    baked_x.keyframe_points[20].co[1] += 0.2
    baked_x.update()
    arm = next(fc for fc in animdata.object_fcurves(rig)
               if fc.data_path == transform.bone_path_prefix("arm") + "rotation_euler")
    arm.keyframe_points[10].co[1] += 0.1
    arm.update()
    notes = []
    assert bake.revert_objects([obj, rig], notes) == ["Obj", "Rig: arm", "Rig: spine"]
    assert notes == [
        'Object "Obj": its baked rotation_euler keys were changed since the bake. Revert put '
        "back the keys from before the bake, without those changes (Ctrl+Z brings them back).",
        'Armature "Rig", bone "arm": its baked rotation_euler keys were changed since the '
        "bake. Revert put back the keys from before the bake, without those changes (Ctrl+Z "
        "brings them back)."], notes


def test_a_bones_custom_property_keyed_since_is_named_as_keyed(clean_blender):
    """A walk: an IK/FK switch keyed on a bone after the bake was named 'bone "arm"
    "IK_FK"]' in the Re-bake's note."""
    rig = _rig()
    bake.bake_objects([rig], bake.BakeSettings())
    pose_bone = rig.pose.bones["arm"]
    pose_bone["IK_FK"] = 1.0
    pose_bone.keyframe_insert('["IK_FK"]', frame=10)
    notes = [n.message for n in bake.bake_objects([rig], bake.BakeSettings()).notes
             if "since the bake" in n.message]
    assert notes and 'bone "arm" ["IK_FK"]' in notes[0], notes


def test_revert_names_a_rigs_many_edited_bones_in_one_sentence(clean_blender):
    rig = scenes.make_rig("Rig", [(f"b{i}", None, (i, 0, 0), (i, 0, 1)) for i in range(6)])
    for i in range(6):
        scenes.key_bone(rig, f"b{i}", "rotation_quaternion", np.array([1.0, 21.0]),
                        [[1, 0, 0, 0], [0, 0, 0.6, 0.8]])
    bake.bake_objects([rig], bake.BakeSettings())
    for fc in animdata.object_fcurves(rig):
        if fc.array_index == 1 and not fc.data_path.startswith('pose.bones["b5"]'):
            fc.keyframe_points[5].co[1] += 0.1
    notes = []
    bake.revert_objects([rig], notes)
    assert notes == [
        'Armature "Rig": the baked keys of 5 bones ("b0", "b1", "b2" and 2 more) were changed '
        "since the bake. Revert put back the keys from before the bake, without those changes "
        "(Ctrl+Z brings them back)."], notes


def test_the_operator_says_which_action_revert_put_back(clean_blender):
    obj = _keyed_object()
    assert bpy.ops.quatbake.bake(location_method='KEEP') == {'FINISHED'}
    _animator_edits(obj)
    assert bpy.ops.quatbake.revert() == {'FINISHED'}
    assert animdata.get_action(obj).name == "ObjAction.edited"
    _assert_edits_kept(obj)


def test_a_location_baked_then_kept_comes_back_as_it_was_keyed(clean_blender):
    """A Re-bake that no longer writes a channel the bake before it wrote (Location: Linear,
    then Keep) puts the animator's curve back from before the bake: its keys, handles,
    interpolation and easing, extrapolation and modifiers, and so Blender's playback."""
    obj = _keyed_object()
    location = animdata.find_fcurves(obj, "location", 3)
    location[0].extrapolation = 'LINEAR'
    location[1].modifiers.new('CYCLES')
    noise = location[1].modifiers.new('NOISE')
    noise.strength, noise.scale, noise.phase = 0.3, 4.0, 2.5
    for point in location[2].keyframe_points:
        point.interpolation, point.easing = 'BOUNCE', 'EASE_IN'
    frames = np.arange(-5.0, 60.0, 0.5)
    scene = bpy.context.scene

    def played():
        out = []
        for f in frames:
            scene.frame_set(int(np.floor(f)), subframe=float(f - np.floor(f)))
            out.append(tuple(obj.location))
        return np.array(out)

    before = played()
    bake.bake_objects([obj], bake.BakeSettings(location_method='LINEAR'))
    assert not np.allclose(played(), before)        # the bake did change the location
    bake.bake_objects([obj], bake.BakeSettings(location_method='KEEP'))
    np.testing.assert_array_equal(played(), before)
    restored = animdata.find_fcurves(obj, "location", 3)
    assert restored[0].extrapolation == 'LINEAR'
    assert [(m.type, round(getattr(m, "strength", 0), 6), round(getattr(m, "phase", 0), 6))
            for m in restored[1].modifiers] == [('CYCLES', 0, 0), ('NOISE', 0.3, 2.5)]
    assert {(p.interpolation, p.easing) for p in restored[2].keyframe_points} == \
        {('BOUNCE', 'EASE_IN')}


def test_analyze_says_a_rebake_would_replace_baked_keys_edited_by_hand(clean_blender):
    """A walk: after a baked key was moved, Analyze read "fine ... nothing to do" and said
    nothing of what a Re-bake would do to the edit (only the Re-bake's own warning did,
    after the fact)."""
    from quatbake.addon import analyze
    from quatbake.core import findings

    obj = _keyed_object()
    bake.bake_objects([obj], bake.BakeSettings())
    key = animdata.find_fcurves(obj, "rotation_euler", 3)[2].keyframe_points[10]
    key.co[1] += 0.01
    result = analyze.analyze_object(obj)
    assert "edited since the bake" in result.advice and "replaces those edits" in result.advice
    # A note, asking for nothing: the keys, a key on every frame, are still their own path.
    assert findings.verdict(result) == findings.VERDICT_FINE


def test_convert_then_revert_keeps_a_bone_keyed_since_the_bake(clean_blender):
    """A review: a bone the bake left out, keyed since, then converted: the conversion made
    its channels the bake's own, and Revert took them from the action before the bake,
    which never had the new key."""
    rig = _rig()
    spine = transform.AnimatedTransform(rig, "spine")
    arm = transform.AnimatedTransform(rig, "arm")
    bake.bake_objects([spine], bake.BakeSettings())
    rig.pose.bones["arm"].rotation_euler = (0.0, 0.0, 2.0)
    rig.pose.bones["arm"].keyframe_insert("rotation_euler", frame=30)
    bake.convert_objects([arm], 'QUATERNION', 0.01)
    bake.revert_objects([rig])
    assert _arm_z(rig) == ARM_KEYED_SINCE
    bpy.context.scene.frame_set(30)
    assert rig.pose.bones["arm"].rotation_euler.z == pytest.approx(2.0, abs=1e-6)


def test_repeated_rebakes_keep_one_copy_and_the_original_survives_a_save(clean_blender,
                                                                          tmp_path):
    """A review: each Re-bake after an edit left another ObjAction.edited.00N behind, and
    the animator's own action, given back no fake user, was gone after a save."""
    obj = _keyed_object()
    before = _keys(obj)
    bake.bake_objects([obj], bake.BakeSettings())
    for frame in (30, 31, 32):
        obj.scale = (1.0, 1.0, 0.5)
        obj.keyframe_insert("scale", frame=frame)
        result = bake.bake_objects([obj], bake.BakeSettings())
    said = [n.message for n in result.notes if "since the bake" in n.message]
    assert said and '"ObjAction.edited"' in said[0]
    assert sorted(a.name for a in bpy.data.actions) == [
        "ObjAction", "ObjAction.edited", "ObjAction.quatbake"]
    path = str(tmp_path / "saved.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    bpy.ops.wm.open_mainfile(filepath=path)
    original = bpy.data.actions["ObjAction"]          # still there, as the note says
    obj = bpy.data.objects["Obj"]
    assert _keys(obj, original).keys() == before.keys()
    for key, co in before.items():
        np.testing.assert_array_equal(_keys(obj, original)[key], co)


def test_two_objects_sharing_a_copy_of_the_animators_changes_bake_together(clean_blender):
    """Found reading the change once more: an object duplicated after a fold shares its
    record's '.edited' copy; baking both after new edits removed the shared copy for the
    first and raised a ReferenceError for the second, after the keys were written."""
    obj = _keyed_object()
    bake.bake_objects([obj], bake.BakeSettings())
    obj.scale = (1.0, 1.0, 0.5)
    obj.keyframe_insert("scale", frame=30)
    bake.bake_objects([obj], bake.BakeSettings())
    twin = obj.copy()                       # Shift+D: the record comes along
    bpy.context.scene.collection.objects.link(twin)
    twin.animation_data.action = obj.animation_data.action.copy()
    twin.quatbake.baked_action = twin.animation_data.action
    for each, frame in ((obj, 31), (twin, 32)):     # 0.25: exact in float32
        each.scale = (1.0, 1.0, 0.25)
        each.keyframe_insert("scale", frame=frame)
    result = bake.bake_objects([obj, twin], bake.BakeSettings())
    assert len([n for n in result.notes if "since the bake" in n.message]) == 2
    for each, frame in ((obj, 31), (twin, 32)):
        assert (float(frame), 0.25) in [tuple(k) for k in _keys(each)[("scale", 2)].tolist()]
        assert bake.revert_objects([each]) == [each.name]
        assert (float(frame), 0.25) in [tuple(k) for k in _keys(each)[("scale", 2)].tolist()]


def test_the_notes_keep_the_warning_that_a_rebake_replaced_an_edit(clean_blender):
    """A Rigify walk: the Re-bake's warning that it replaced a baked key moved by hand
    flashed in the status bar, and the panel's notes (the i button), where an animator
    looks again, did not have it. It is there, first, with the bake's other notes."""
    obj = _keyed_object()
    assert bpy.ops.quatbake.bake(method='SLERP') == {'FINISHED'}
    assert "changed since" not in bpy.context.scene.quatbake.last_turn_notes
    key = animdata.find_fcurves(obj, "rotation_euler", 3)[2].keyframe_points[10]
    key.co[1] += 0.1
    edited = float(key.co[1])
    assert bpy.ops.quatbake.bake(method='SLERP') == {'FINISHED'}
    notes = bpy.context.scene.quatbake.last_turn_notes.splitlines()
    assert notes and notes[0].startswith('Object "Obj": its baked rotation_euler keys were '
                                         "changed since the bake."), notes
    # What it says is so: the key is the method's again, the edit replaced.
    again = animdata.find_fcurves(obj, "rotation_euler", 3)[2].keyframe_points[10]
    assert abs(again.co[1] - (edited - 0.1)) < 1e-5 and abs(again.co[1] - edited) > 0.05
