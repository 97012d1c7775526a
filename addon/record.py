# SPDX-License-Identifier: GPL-3.0-or-later
"""What a QuatBake bake records on the transforms it changes, and reading it back.

The record (``obj.quatbake``, and a pose bone's own ``pose_bone.quatbake``;
ui/props.py) says which action was the original, which is the bake, and the
rotation mode and static values from before the first bake, so a second bake
starts again from the original keys and revert restores them. The overlay and
the difference report read it to show before -> after (original_channels); the
bake's planning reads it to find the original keys (bake.read) and bake.write
writes it.
"""
from __future__ import annotations

from . import animdata
from .transform import AnimatedTransform


def original_slot(record) -> str:
    """The identifier now of the slot of the record's original action that animated the
    owner (the animator may have renamed it since the bake; animdata.slot_now)."""
    return animdata.slot_now(record.original_action, record.original_slot,
                             record.original_slot_handle)


def previous_slot(record) -> str:
    """The same for the action a clip bake replaced as the active one."""
    return animdata.slot_now(record.previous_action, record.previous_slot,
                             record.previous_slot_handle)


def baked_slot(owner) -> str:
    """The slot of the baked action that ``owner`` plays: the one assigned to it (the
    animator may have renamed it since the bake: a walk's Revert then read the baked action
    under the old name, found none of the scale keys added since, and dropped them); with
    none assigned, the baked action's only slot; else the original's (the bake copied the
    original's slot)."""
    rec = owner.quatbake
    baked = rec.baked_action
    if baked is not None and animdata.get_action(owner) == baked:
        assigned = animdata.get_slot_identifier(owner)
        if assigned:
            return assigned
        only = animdata.only_slot(baked)
        if only:
            return only
    return original_slot(rec)


def original_channels(obj):
    """(F-curves, rotation mode) of the action a QuatBake bake replaced, or None.

    Only while the baked action is the one playing: after a revert, or if the
    user assigned another action, the object is treated as not baked.
    """
    # A pose bone's transform: the action-level record is its armature's, the bone's
    # own record says whether the bake rewrote it (and its rotation mode before).
    owner = getattr(obj, "owner", obj)
    record = getattr(owner, "quatbake", None)
    if record is None or record.original_action is None or record.baked_action is None:
        return None
    if record.cache_constraint:
        return None      # a Transform Cache bake: what played before is the cache, not keys
    if animdata.get_action(owner) != record.baked_action:
        return None
    mode = record.original_rotation_mode
    if getattr(obj, "bone_name", ""):
        bone_record = obj.quatbake
        if bone_record is None or not bone_record.baked:
            return None
        mode = bone_record.original_rotation_mode
    elif record.bones_only:
        return None      # only the armature's bones were baked, not its own channels
    prefix = animdata.path_prefix(obj)
    if prefix:
        # A bone's own channels, as object_fcurves gives them: each lookup by data path
        # would otherwise scan every bone's curves (a 60-bone rig's 420, per lookup).
        fcurves = animdata.prefixed_fcurves(record.original_action, original_slot(record),
                                            prefix)
    else:
        fcurves = animdata.action_fcurves(record.original_action, original_slot(record))
    return fcurves, mode or obj.rotation_mode


def derived_paths(obj) -> set[str]:
    """The data paths (relative to the transform ``obj``: an object, or a pose bone's
    transform) whose channels in the baked action its owner plays are the bake's own: the
    ones the bake wrote or replaced. Every other channel there is the animator's, as it
    is now (keys added or changed after the bake included), so a Re-bake or a Revert takes
    those from the baked action, and only these from the original. Empty when the
    transform itself was not baked (a bone the rig's bake left out, an armature of which
    only bones were baked)."""
    if getattr(obj, "bone_name", ""):
        rec = getattr(obj, "quatbake", None)
        return set(paths_of(rec.baked_paths)) if rec is not None and rec.baked else set()
    rec = record_of(getattr(obj, "owner", obj))
    if rec is None or rec.bones_only:
        return set()
    return set(paths_of(rec.baked_paths))


def is_baked(obj) -> bool:
    """Whether ``obj`` plays a QuatBake bake right now (of its keys or of its cache)."""
    return original_channels(obj) is not None or bool(cache_baked(obj))


def cache_baked(obj) -> str:
    """The name of the Transform Cache constraint a QuatBake bake turned into the keys
    ``obj`` plays now (the bake muted it), or "" (no such bake, reverted, a bone, or
    another action assigned since)."""
    if getattr(obj, "bone_name", ""):
        return ""
    owner = getattr(obj, "owner", obj)
    rec = getattr(owner, "quatbake", None)
    if rec is None or not rec.cache_constraint or rec.baked_action is None:
        return ""
    current = animdata.get_action(owner)
    return rec.cache_constraint if current is not None and current == rec.baked_action else ""

# Not the bake's: the overlay's pin is the animator's, and stays through a revert.
NOT_RECORD = frozenset({"rna_type", "name", "overlay_pinned"})
_FIELDS: dict = {}


def record_of(obj):
    return getattr(obj, "quatbake", None)


def _fields(rec) -> tuple:
    """Every field of the bake record ``rec`` (QUATBAKE_PG_object or QUATBAKE_PG_bone, as
    ui.props declares them), in their order: one list, so a field added there is copied,
    put back and cleared with the others (the bake's notes once stayed after a revert)."""
    kind = type(rec)
    if kind not in _FIELDS:
        _FIELDS[kind] = tuple(p.identifier for p in rec.bl_rna.properties
                              if p.identifier not in NOT_RECORD)
    return _FIELDS[kind]


def get_record(obj) -> dict:
    """A copy of the bake record of ``obj`` (an object, or a transform: the bone's record),
    {field: value}."""
    rec = obj.quatbake
    # tuple(): a vector property is a live view of the record, not a copy.
    return {name: v if isinstance(v, (str, bool, int, float)) or v is None or hasattr(v, "name")
            else tuple(v) for name, v in ((n, getattr(rec, n)) for n in _fields(rec))}


def set_record(obj, values: dict) -> None:
    """Put back a record ``get_record`` copied."""
    rec = obj.quatbake
    for name, value in values.items():
        setattr(rec, name, value)


def clear_record(rec) -> None:
    """Every field of the bake record ``rec`` back to its default (a revert)."""
    for name in _fields(rec):
        rec.property_unset(name)


def new_record(obj, **fields) -> None:
    """Start the bake record of ``obj`` (its first bake): every field at its default but
    those named."""
    rec = obj.quatbake
    clear_record(rec)
    for name, value in fields.items():
        setattr(rec, name, value)


def paths_of(text: str) -> list[str]:
    return [p for p in text.split("\n") if p]


def rotation_props(obj) -> tuple:
    return (tuple(obj.rotation_quaternion), tuple(obj.rotation_euler),
            tuple(obj.rotation_axis_angle))


def delta_props(obj) -> tuple:
    return (tuple(obj.delta_rotation_quaternion), tuple(obj.delta_rotation_euler),
            tuple(obj.delta_location))


def restore_delta_props(obj, saved: tuple) -> None:
    obj.delta_rotation_quaternion, obj.delta_rotation_euler, obj.delta_location = saved


def set_rotation_mode(obj, mode: str) -> None:
    """Set rotation_mode without Blender's value conversion touching the stored rotations.

    Assigning rotation_mode converts the current rotation into the new mode's
    property; an unkeyed channel would then silently change, so all three
    rotation properties are put back afterwards.
    """
    if obj.rotation_mode == mode:
        return
    saved = rotation_props(obj)
    obj.rotation_mode = mode
    restore_rotation_props(obj, saved)


def restore_rotation_props(obj, saved: tuple) -> None:
    obj.rotation_quaternion, obj.rotation_euler, obj.rotation_axis_angle = saved


def owner_record_of(obj):
    return getattr(obj, "owner_record", None) if isinstance(obj, AnimatedTransform) \
        else record_of(obj)


def can_revert(obj) -> bool:
    """True when ``obj`` (an object, or a transform: its owner) shows a QuatBake bake whose
    original action is still there."""
    if isinstance(obj, AnimatedTransform):
        if obj.bone_name and not (obj.exists and obj.quatbake.baked):
            return False
        obj = obj.owner
    rec = record_of(obj)
    if rec is None or rec.baked_action is None:
        return False
    # A Transform Cache bake of an object that had no action keeps None as its original.
    if rec.original_action is None and not rec.cache_constraint:
        return False
    if animdata.linked_sentence(obj):
        return False
    current = animdata.get_action(obj)
    return current is not None and current == rec.baked_action


def note_bake(obj, method: str, tolerance_deg: float, keys: int,
              checksums: list = (), path: str = "", edited: str | None = None) -> None:
    """Write how the bake that just succeeded on ``obj`` was made (its method, Key
    Tolerance in degrees, rotation keys per channel, and ``path``: its Turns, Timing and
    Constant Speed, bake_path), for the Difference Report's words, and ``checksums`` of
    what it wrote ((data path, channels, checksum) each), so that a Re-bake can tell keys
    edited since (edited_since_bake). ``edited``: a conversion of keys edited since the
    bake before it, which keep counting as edited."""
    rec = record_of(obj)
    if rec is None:
        return
    rec.bake_method = str(method).lower()
    rec.bake_tolerance_deg = max(float(tolerance_deg), 0.0)
    rec.bake_keys = max(int(keys), 0)
    rec.bake_path = path
    lines = [f"{EDITED} {edited}"] if edited else []
    rec.baked_checksums = "\n".join(lines + [f"{data_path} {count:d} {int(value):d}"
                                              for data_path, count, value in checksums])


# The first line of baked_checksums when the keys were edited before a conversion kept them.
EDITED = "edited"


def bake_path(obj) -> str:
    """The Turns, Timing and Constant Speed of the QuatBake bake ``obj`` plays, as note_bake
    wrote them ("" when unknown: a record from before they were noted)."""
    rec = record_of(obj)
    return getattr(rec, "bake_path", "") if rec is not None else ""


def edited_since_bake(obj) -> str | None:
    """The first data path whose keys, as the last bake of ``obj`` wrote them
    (baked_checksums), were changed since (a key moved, a handle dragged, a channel
    deleted); None when none was, or no checksum was kept."""
    edited, kept = baked_checksums(obj)
    if edited is not None:
        return edited
    for path, count, value in kept:
        curves = animdata.find_fcurves(obj, path, count)
        if None in curves or animdata.keys_checksum(curves) != value:
            return path
    return None


def baked_checksums(obj) -> tuple[str | None, list]:
    """What note_bake kept of the last bake of ``obj``: the data path a conversion found
    edited (the EDITED line), or None; and (data path, channels, checksum) of each path
    it wrote ([] when none were kept)."""
    rec = record_of(obj)
    edited, out = None, []
    for line in (getattr(rec, "baked_checksums", "") if rec is not None else "").splitlines():
        if line.startswith(EDITED + " "):
            edited = line[len(EDITED) + 1:]
            continue
        path, count, value = line.split(" ")
        out.append((path, int(count), int(value)))
    return edited, out


def bake_made(obj) -> tuple[str, float, int] | None:
    """(method, Key Tolerance in degrees, keys per channel) of the QuatBake bake ``obj``
    plays, or None (no bake plays, or a record written before QuatBake noted them)."""
    if not is_baked(obj):
        return None
    rec = record_of(obj)
    method = getattr(rec, "bake_method", "") if rec is not None else ""
    if not method:
        return None
    return method, float(rec.bake_tolerance_deg), int(rec.bake_keys)
