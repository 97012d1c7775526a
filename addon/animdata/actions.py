# SPDX-License-Identifier: GPL-3.0-or-later
"""Where Blender keeps an object's F-curves, version by version.

Blender 3.4 - 4.3 keep an object's F-curves in ``action.fcurves``. Blender 4.4+
use slotted actions: ``action.slots`` name the animated IDs and each slot's
F-curves live in a channelbag, ``action.layers[*].strips[*].channelbag(slot)``;
``obj.animation_data.action_slot`` says which slot animates the object. 5.0
removed ``action.fcurves``. Every difference is detected with ``hasattr`` on
the action (never with a version number alone), so everything else in the
add-on asks this package and stays version-blind. The other differences between
releases (bones' selection and visibility, GPU shaders, fonts, translations,
buffers) are in ``addon/versions.py``."""
from __future__ import annotations

import bpy

from . import memo
from .paths import (
    BONE_PATH_START,
    ROTATION_DATA_PATHS,
    TRANSFORM_GROUP,
    bone_name_from_path,
    path_prefix,
)

KEYFRAME_ENUMS = ("interpolation", "easing", "type")
# Blender 3.4's foreach_get/foreach_set on these two enums read and write the
# wrong bytes (garbage out, silently ignored in), so they go key by key through RNA.
HANDLE_TYPE_ENUMS = ("handle_left_type", "handle_right_type")


def enum_value(prop: str, identifier: str) -> int:
    return bpy.types.Keyframe.bl_rna.properties[prop].enum_items[identifier].value



def is_slotted(action) -> bool:
    """True when ``action`` stores keys in slots/channelbags (Blender 4.4+)."""
    return hasattr(action, "slots") and hasattr(action, "layers")


def get_action(obj) -> "bpy.types.Action | None":
    """The action assigned to ``obj`` (None without animation data or action)."""
    ad = obj.animation_data
    return ad.action if ad is not None else None


def get_slot_identifier(obj) -> str:
    """Identifier of the slot that animates ``obj`` ("" before 4.4 or without a slot)."""
    ad = obj.animation_data
    if ad is None or ad.action is None or not hasattr(ad, "action_slot"):
        return ""
    slot = ad.action_slot
    return slot.identifier if slot is not None else ""


def find_slot(action, slot_identifier: str):
    for slot in action.slots:
        if slot.identifier == slot_identifier:
            return slot
    return None


def slot_handle(action, slot_identifier: str) -> int:
    """The handle of ``action``'s slot ``slot_identifier`` (-1: no such slot, or before
    4.4): unlike the identifier, it stays when the animator renames the slot."""
    if action is None or not is_slotted(action) or not slot_identifier:
        return -1
    slot = find_slot(action, slot_identifier)
    return int(getattr(slot, "handle", -1)) if slot is not None else -1


def slot_now(action, slot_identifier: str, handle: int) -> str:
    """The identifier now of the slot of ``action`` recorded as ``slot_identifier`` with
    ``handle`` (slot_handle): the identifier changes with the slot's name, the handle does
    not (a walk: a Revert after the animator renamed the slot assigned no slot at all, and
    the object stopped moving). The recorded identifier where the handle is unknown or gone."""
    if action is None or handle < 0 or not is_slotted(action):
        return slot_identifier
    for slot in action.slots:
        if getattr(slot, "handle", None) == handle:
            return slot.identifier
    return slot_identifier


def channelbags(action, slot_identifier: str) -> list:
    """Every channelbag of ``action`` holding keys for the slot (usually one)."""
    slot = find_slot(action, slot_identifier) if slot_identifier else None
    if slot is None:
        return []
    bags = []
    for layer in action.layers:
        for strip in layer.strips:
            if not hasattr(strip, "channelbag"):
                continue
            bag = strip.channelbag(slot)
            if bag is not None:
                bags.append(bag)
    return bags


def action_fcurves(action, slot_identifier: str = "") -> list:
    """The F-curves of ``action`` that animate the slot ``slot_identifier``.

    Before 4.4 an action has one set of F-curves for every user, so the slot is
    ignored. On 4.4+ an empty identifier means no slot: nothing is animated.
    """
    if action is None:
        return []
    if is_slotted(action):
        return [fc for bag in channelbags(action, slot_identifier) for fc in bag.fcurves]
    return list(action.fcurves)


def fcurve_collections(action, slot_identifier: str = "") -> list:
    """The collections that hold ``action``'s F-curves of the slot ``slot_identifier``, to
    remove curves from: 3.4 - 4.3, ``[action.fcurves]`` (one set for every user, the slot
    ignored); 4.4+, each of the slot's channelbags' ``fcurves`` (none without the slot)."""
    if is_slotted(action):
        return [bag.fcurves for bag in channelbags(action, slot_identifier)]
    return [action.fcurves]


def keep_only_slot(action, slot_identifier: str) -> None:
    """Remove every slot of ``action`` but ``slot_identifier`` (4.4+; with them the keys
    they held). Before 4.4 an action has no slots: nothing to remove."""
    if is_slotted(action):
        for slot in [s for s in action.slots if s.identifier != slot_identifier]:
            action.slots.remove(slot)


def remove_fcurves(action, slot_identifier: str, fcurves: list) -> None:
    """Remove ``fcurves`` from ``action``: 3.4 - 4.3 from ``action.fcurves``; 4.4+ from the
    channelbags of its slot ``slot_identifier`` (curves in none of them stay)."""
    if not fcurves:
        return
    if not is_slotted(action):
        for fc in fcurves:
            action.fcurves.remove(fc)
        return
    doomed = {fc.as_pointer() for fc in fcurves}
    for bag in channelbags(action, slot_identifier):
        for fc in [f for f in bag.fcurves if f.as_pointer() in doomed]:
            bag.fcurves.remove(fc)


def add_object_slot(action, name: str) -> str:
    """Make the new, empty ``action`` ready to animate an object named ``name``; returns
    the slot identifier to assign with it. 4.4+: a new OBJECT slot named ``name``, its
    identifier; 3.4 - 4.3 (no slots): the action's ``id_root`` set to OBJECT, ""."""
    if is_slotted(action):
        return action.slots.new(id_type='OBJECT', name=name).identifier
    action.id_root = 'OBJECT'
    return ""


def assign_slot(anim_data, action, slot_identifier: str) -> None:
    """Make ``anim_data``, just given ``action`` (None: no action), play its slot
    ``slot_identifier`` ("": no slot). Only 4.4+ has ``AnimData.action_slot``; before,
    an action has one set of curves for every user and there is nothing to set."""
    if action is not None and hasattr(anim_data, "action_slot") and is_slotted(action):
        anim_data.action_slot = find_slot(action, slot_identifier) if slot_identifier else None


def strip_slot_identifier(strip) -> str:
    """Identifier of the slot an NLA strip plays: ``NlaStrip.action_slot``, 4.4+ ("" before,
    or without a slot)."""
    slot = getattr(strip, "action_slot", None)
    return slot.identifier if slot is not None else ""


def ensure_channelbag(action, slot_identifier: str):
    """The channelbag of ``action``'s slot ``slot_identifier`` new F-curves go into (4.4+
    only: before, F-curves are the action's own), made where the slot has none yet (with
    the action's first layer and keyframe strip where it has none). ValueError: no such
    slot."""
    slot = find_slot(action, slot_identifier)
    if slot is None:
        raise ValueError(f"Action \"{action.name}\" has no slot \"{slot_identifier}\".")
    bags = channelbags(action, slot_identifier)
    if bags:
        return bags[0]
    if len(action.layers) == 0:
        action.layers.new("Layer")
    layer = action.layers[0]
    if len(layer.strips) == 0:
        layer.strips.new(type='KEYFRAME')
    return layer.strips[0].channelbag(slot, ensure=True)


def fcurves_new_takes_group_name(fcurves) -> bool:
    """Whether a channelbag's ``fcurves.new`` takes ``group_name`` (5.0+); 4.4 and 4.5 take
    no group: the curve is put in one afterwards. (3.4 - 4.3's ``action.fcurves.new``
    takes ``action_group``.)"""
    return "group_name" in fcurves.bl_rna.functions["new"].parameters


def fcurve_maker(action, slot_identifier: str):
    """``make(data_path, index, group)`` -> a new empty F-curve in ``action``, in the group
    named ``group`` (made where missing; "": none). The container is found once, for
    writers that add hundreds of F-curves (a rig's bones): 3.4 - 4.3,
    ``action.fcurves.new(action_group=)``; 4.4+, the slot's channelbag (ensure_channelbag),
    ``fcurves.new(group_name=)`` on 5.0+, the group set afterwards on 4.4 / 4.5."""
    if not is_slotted(action):
        fcurves = action.fcurves
        return lambda data_path, index, group=TRANSFORM_GROUP: fcurves.new(
            data_path, index=index, action_group=group)
    bag = ensure_channelbag(action, slot_identifier)
    fcurves = bag.fcurves
    if fcurves_new_takes_group_name(fcurves):
        return lambda data_path, index, group=TRANSFORM_GROUP: fcurves.new(
            data_path, index=index, group_name=group)

    def make(data_path, index, group=TRANSFORM_GROUP):
        # 4.4 / 4.5: no group_name argument yet; put the F-curve in the group afterwards.
        fc = fcurves.new(data_path, index=index)
        if group:
            fc.group = bag.groups.get(group) or bag.groups.new(group)
        return fc
    return make


def all_fcurves(action) -> list:
    """Every F-curve of ``action``, whichever slot it animates."""
    if not is_slotted(action):
        return list(action.fcurves)
    return [fc for layer in action.layers for strip in layer.strips
            for bag in getattr(strip, "channelbags", ()) for fc in bag.fcurves]


def unplayed_rotation_actions() -> list[str]:
    """The names of the file's actions with rotation keys that nothing uses (an object's
    action, an NLA strip, an Action constraint: a fake user only). Blender's FBX importer
    puts each Maya animation layer's keys in such an action and leaves the object's own
    with no keys (a walk read "nothing to do" with no word of where the keys were)."""
    return [a.name for a in sorted(bpy.data.actions, key=lambda a: a.name)
            if a.users - int(a.use_fake_user) == 0 and any(
                len(fc.keyframe_points) and
                fc.data_path.rsplit(".", 1)[-1] in ROTATION_DATA_PATHS
                for fc in all_fcurves(a))]


def object_fcurves(obj) -> list:
    """The F-curves that animate ``obj`` (its slot's channelbag on 4.4+); for a pose bone's
    transform only those under its data-path prefix."""
    prefix = path_prefix(obj)
    if not prefix:
        return action_fcurves(get_action(obj), get_slot_identifier(obj))
    return prefixed_fcurves(get_action(obj), get_slot_identifier(obj), prefix)


def prefixed_fcurves(action, slot_identifier: str, prefix: str) -> list:
    """The F-curves of ``action`` (its slot ``slot_identifier``) whose data path starts with
    ``prefix`` (a pose bone's ``pose.bones["..."].``). Inside ``read_once()`` each action's
    curves are sorted by bone in one pass, once: a rig's bones each looked through every
    bone's curves, several times per bone (216 Rigify controls: 1.4 s of a Re-bake)."""
    if action is None:
        return []
    held = memo.current
    if held is None or not prefix.startswith(BONE_PATH_START):
        return [fc for fc in action_fcurves(action, slot_identifier)
                if fc.data_path.startswith(prefix)]
    key = ("by bone", action.as_pointer(), slot_identifier)
    by_bone = held.get(key)
    if by_bone is None:
        by_bone = held[key] = _by_bone_prefix(action_fcurves(action, slot_identifier))
    return list(by_bone.get(prefix, ()))


def _by_bone_prefix(fcurves) -> dict:
    """{``pose.bones["name"].``: the F-curves under it}, in one pass (a bone's custom
    properties, ``pose.bones["name"]["prop"]``, are not under its prefix)."""
    out: dict = {}
    prefixes: dict = {}
    for fc in fcurves:
        path = fc.data_path
        name = bone_name_from_path(path)
        if name is None:
            continue
        prefix = prefixes.get(name)
        if prefix is None:
            prefix = prefixes[name] = f'{BONE_PATH_START}{bpy.utils.escape_identifier(name)}"].'
        if path.startswith(prefix):
            out.setdefault(prefix, []).append(fc)
    return out


def slot_missing(action, slot_identifier: str) -> bool:
    """True when ``action`` keeps keys per slot (4.4+) and no slot is ``slot_identifier``."""
    return is_slotted(action) and find_slot(action, slot_identifier) is None


def only_slot(action) -> str:
    """The identifier of ``action``'s one slot ("" before 4.4, or with no slot or several)."""
    if not is_slotted(action) or len(action.slots) != 1:
        return ""
    return action.slots[0].identifier


def action_slot_count(action) -> int:
    """Number of slots of ``action`` (1 before 4.4: one set of curves for all users)."""
    return len(action.slots) if is_slotted(action) else 1
