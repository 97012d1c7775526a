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
from quatbake.core import quat

from scenes import evaluated_quats, key_channels, make_animated_object, new_object

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
