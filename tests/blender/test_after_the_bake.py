"""What the animator does to actions after a bake, and what Revert and Re-bake make of it.

A walk of shared and slotted actions found:
- a slot renamed after a bake (4.4+: a slot's identifier follows its name, its handle
  stays): a Revert read the baked action under the old identifier, so the scale keys
  added since were dropped without a word (and a Re-bake failed with "has no slot"), or
  assigned the original action with no slot at all (the object stopped moving);
- one action shared by two objects, animated on through the other after the bake: a
  Revert took those edits for the baked object's own, kept them in a copy that it then
  played instead of the shared action, and said so.
The oracle is Blender's playback (frame_set + matrix_basis) before the bake, and the
scale it plays."""
import bpy
import numpy as np
import pytest

from quatbake.addon import animdata, bake
from quatbake.addon.transform import AnimatedTransform
from quatbake.core import quat

from scenes import (
    evaluated_quats,
    key_bone,
    key_channels,
    make_animated_object,
    make_rig,
    new_object,
)

pytestmark = pytest.mark.bpy

FRAMES = np.arange(1, 22)
# Playback of the same float32 keys before and after a revert: the same numbers.
SAME_RAD = 1e-6


def _wrapping(name):
    """Euler keys wrapping from 170 to -170 deg: the bake changes what plays."""
    return make_animated_object(name, 'XYZ', [1, 11, 21],
                                np.radians([[0, 0, 0], [0, 0, 170], [0, 0, -170]]))


def _slotted_or_skip(obj):
    if not animdata.is_slotted(animdata.get_action(obj)):
        pytest.skip("actions have no slots before Blender 4.4")


def _scale_at(obj, frame):
    bpy.context.scene.frame_set(frame)
    return tuple(round(v, 6) for v in obj.scale)


def test_keys_added_after_the_bake_stay_when_the_baked_slot_was_renamed(clean_blender):
    obj = _wrapping("A")
    _slotted_or_skip(obj)
    before = evaluated_quats(obj, FRAMES)
    bake.bake_objects([obj], bake.BakeSettings(method='SLERP'))
    baked = animdata.get_action(obj)
    obj.scale = (2.0, 2.0, 2.0)
    obj.keyframe_insert("scale", frame=5)        # the animator keys on, in the bake
    baked.slots[0].name_display = "Hero"         # and tidies the slot's name
    assert animdata.get_slot_identifier(obj) == "OBHero"
    # A Re-bake starts from the keys before the bake and keeps the scale keyed since.
    bake.bake_objects([obj], bake.BakeSettings(method='SQUAD'))
    assert _scale_at(obj, 5) == (2.0, 2.0, 2.0)
    bake.revert_objects([obj])
    assert _scale_at(obj, 1) == _scale_at(obj, 9) == (2.0, 2.0, 2.0)
    assert animdata.action_fcurves(animdata.get_action(obj), animdata.get_slot_identifier(obj))
    after = evaluated_quats(obj, FRAMES)
    assert quat.angle_between(after, before).max() < SAME_RAD


def test_revert_finds_the_original_slot_renamed_since_the_bake(clean_blender):
    a = _wrapping("A")
    _slotted_or_skip(a)
    action = animdata.get_action(a)
    b = new_object("B")
    slot_b = action.slots.new(id_type='OBJECT', name="B")
    animdata.assign_action(b, action, slot_b.identifier)
    key_channels(b, "rotation_euler", [1, 21], [[0, 0, 0], [0, 1.5, 0]])
    before = evaluated_quats(a, FRAMES)
    bake.bake_objects([a], bake.BakeSettings(method='SLERP'))
    action.slots["OBA"].name_display = "Hero"    # renamed while working on B
    bake.revert_objects([a])
    assert animdata.get_action(a) == action
    assert animdata.get_slot_identifier(a) == "OBHero"
    after = evaluated_quats(a, FRAMES)
    assert quat.angle_between(after, before).max() < SAME_RAD


def test_edits_through_another_user_of_the_action_are_not_taken_for_the_bakes(clean_blender):
    """A and B play one action (on 4.4+ through the same slot); A is baked, B is keyed on
    in the shared action. Reverting A gives it the shared action back, B's keys and all:
    nothing of A's changed since its bake, so there is nothing to keep apart or to say."""
    a = _wrapping("A")
    action = animdata.get_action(a)
    b = new_object("B")
    animdata.assign_action(b, action, animdata.get_slot_identifier(a))
    fake_before = action.use_fake_user
    before = evaluated_quats(a, FRAMES)
    bake.bake_objects([a], bake.BakeSettings(method='SLERP'))
    b.scale = (3.0, 3.0, 3.0)
    b.keyframe_insert("scale", frame=21)          # into the shared action
    notes = []
    assert bake.revert_objects([a], notes) == ["A"]
    assert animdata.get_action(a) == action and not notes, notes
    assert _scale_at(a, 21) == _scale_at(b, 21) == (3.0, 3.0, 3.0)
    assert not [x.name for x in bpy.data.actions if x.name.endswith(".edited")]
    assert action.use_fake_user == fake_before
    after = evaluated_quats(a, FRAMES)
    assert quat.angle_between(after, before).max() < SAME_RAD


def _hand_y(rig, frame):
    bpy.context.scene.frame_set(frame)
    return round(rig.pose.bones["hand"].matrix_basis.to_euler().y, 5)


def test_a_key_added_since_the_bake_stays_through_a_bone_revert_and_the_rigs(clean_blender):
    """A review of the edit signature: a Revert of one baked bone took the signature of the
    animator's channels again while a key added since (on a bone the bake left out) was
    still in the baked action, so the whole Revert found nothing to keep and lost it."""
    rig = make_rig("Rig", [(name, None, (0, 0, i), (0, 0, i + 1))
                           for i, name in enumerate(("spine", "arm", "hand"))])
    for name in ("spine", "arm", "hand"):
        key_bone(rig, name, "rotation_euler", [1, 11, 21],
                 np.radians([[0, 0, 0], [0, 0, 170], [0, 0, -170]]), mode='XYZ')
    bake.bake_objects([AnimatedTransform(rig, "spine"), AnimatedTransform(rig, "arm")],
                      bake.BakeSettings(method='SLERP'))
    hand = rig.pose.bones["hand"]
    hand.rotation_euler = (0.0, 1.0, 0.0)
    hand.keyframe_insert("rotation_euler", frame=30)
    bake.revert_objects([AnimatedTransform(rig, "arm")])
    assert _hand_y(rig, 30) == 1.0
    notes = []
    bake.revert_objects([rig], notes)
    assert _hand_y(rig, 30) == 1.0
    assert notes and "kept" in notes[0], notes


def test_a_clip_bakes_edits_are_named_when_a_revert_after_a_rebake_takes_them(clean_blender):
    """A review: a Re-bake of a clip took the signature again with the scale keyed since
    in it; the Revert, which puts back what played before the clip bake, then took the
    scale keys without a word."""
    obj = make_animated_object("Clipped", 'QUATERNION', [1, 21, 41],
                               [[1, 0, 0, 0], [0.5, 0.5, 0.5, 0.5], [0, 0, 0.6, 0.8]])
    action = animdata.get_action(obj)
    obj.animation_data.action = None
    obj.animation_data.nla_tracks.new().strips.new("Walk", 1, action)
    bake.bake_objects([obj], bake.BakeSettings(clip=action.name))
    obj.scale = (1.0, 1.0, 0.5)
    obj.keyframe_insert("scale", frame=30)
    bake.bake_objects([obj], bake.BakeSettings(method='SQUAD', clip=action.name))
    notes = []
    bake.revert_objects([obj], notes)
    assert any("(scale) went with it" in note for note in notes), notes


def test_a_rebake_finds_the_baked_action_with_no_slot_assigned(clean_blender):
    """A review: with the baked action's slot unassigned, a Re-bake read it under no slot
    and failed ("has no slot \"\""); it takes the baked action's only slot."""
    obj = _wrapping("A")
    _slotted_or_skip(obj)
    bake.bake_objects([obj], bake.BakeSettings(method='SLERP'))
    obj.animation_data.action_slot = None
    bake.bake_objects([obj], bake.BakeSettings(method='SQUAD'))
    assert animdata.get_slot_identifier(obj) == "OBA"
    assert animdata.rotation_fcurves(obj)


def test_a_rebake_gives_an_older_record_its_signature(clean_blender):
    """A review: a record written before the signature existed (empty) was never given one
    by a Re-bake, so a Revert after the other user of the shared action keyed on took its
    keys for the baked object's, as before the signature. A Re-bake that finds nothing of
    the animator's changed (against the action before the bake) takes the signature."""
    a = _wrapping("A")
    action = animdata.get_action(a)
    b = new_object("B")
    animdata.assign_action(b, action, animdata.get_slot_identifier(a))
    bake.bake_objects([a], bake.BakeSettings(method='SLERP'))
    a.quatbake.others_signature = ""              # as an older QuatBake wrote the record
    bake.bake_objects([a], bake.BakeSettings(method='SQUAD'))
    assert a.quatbake.others_signature
    b.scale = (3.0, 3.0, 3.0)
    b.keyframe_insert("scale", frame=21)
    notes = []
    bake.revert_objects([a], notes)
    assert animdata.get_action(a) == action and not notes, notes


def test_a_bake_after_switching_actions_by_hand_reverts_only_its_own_bones(clean_blender):
    """A walk, following docs/convert.md: convert Walk (Hips, Spine) to XYZ, keep it (a fake
    user), make Run (Hips, Head) active by hand, set Hips back to Quaternion, convert
    again, Revert. The Revert also took back Spine, which only the first conversion had
    rewritten: set to Quaternion (80 deg off in the converted Walk), with a warning that
    its keys had changed. Spine is left as the second conversion found it."""
    rig = make_rig("Rig", [("Hips", None, (0, 0, 0), (0, 0, 1)),
                           ("Spine", "Hips", (0, 0, 1), (0, 0, 2)),
                           ("Head", "Spine", (0, 0, 2), (0, 0, 3))])
    turn = quat.normalize(np.array([[1.0, 0, 0, 0], [0.7, 0.7, 0, 0], [0, 1.0, 0, 0]]))
    for bone in ("Hips", "Spine"):
        key_bone(rig, bone, "rotation_quaternion", [1, 11, 21], turn, mode='QUATERNION')
    walk = animdata.get_action(rig)
    run, slot = animdata.new_action_for(rig, "Run")
    bake.convert_objects([rig], 'XYZ')
    animdata.get_action(rig).use_fake_user = True
    animdata.assign_action(rig, run, slot)
    for bone in ("Hips", "Head"):
        key_bone(rig, bone, "rotation_quaternion", [1, 11, 21], turn[::-1], mode='QUATERNION')
    rig.pose.bones["Spine"].rotation_mode = 'XYZ'     # as the first conversion left it
    spine = AnimatedTransform(rig, "Spine")
    bake.convert_objects([rig], 'ZXY')
    assert [rig.pose.bones[b].rotation_mode for b in ("Hips", "Spine", "Head")] == \
        ['ZXY', 'XYZ', 'ZXY']
    notes = []
    assert sorted(bake.revert_objects([rig], notes)) == ["Rig: Head", "Rig: Hips"]
    assert animdata.get_action(rig) == run
    assert spine.rotation_mode == 'XYZ' and rig.pose.bones["Hips"].rotation_mode == 'QUATERNION'
    assert not [n for n in notes if "Spine" in n], notes
    assert walk.name == "RigAction"


def test_a_revert_after_a_hand_switch_says_how_to_get_back(clean_blender):
    """A game-rig walk: bake, make another action active by hand, Revert: refused, saying
    only that a bake changed by hand cannot be reverted. It names the action playing and
    the bake to make active again; done so, the Revert works."""
    obj = _wrapping("Cube")
    original = animdata.get_action(obj)
    bake.bake_objects([obj], bake.BakeSettings(method='SLERP'))
    baked = animdata.get_action(obj)
    other, slot = animdata.new_action_for(obj, "Other")
    animdata.assign_action(obj, other, slot)
    with pytest.raises(bake.BakeError) as info:
        bake.revert_objects([obj])
    said = str(info.value)
    assert f'"Cube" plays "Other", not its bake "{baked.name}". Make "{baked.name}" its ' \
        "active action again" in said, said
    animdata.assign_action(obj, baked, animdata.get_slot_identifier(obj) or slot)
    assert bake.revert_objects([obj]) == ["Cube"] and animdata.get_action(obj) == original
