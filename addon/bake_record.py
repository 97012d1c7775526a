# SPDX-License-Identifier: GPL-3.0-or-later
"""Reading what a QuatBake bake replaced (``obj.quatbake``, written by addon/bake.py).

The overlay and the difference report both need "the keys before the bake"
to show before -> after; only this module knows where the bake keeps them.
Read-only: nothing here writes the record.
"""
from __future__ import annotations

from . import animdata


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
    fcurves = animdata.action_fcurves(record.original_action, record.original_slot)
    return fcurves, mode or obj.rotation_mode


def is_baked(obj) -> bool:
    """Whether ``obj`` plays a QuatBake bake right now."""
    return original_channels(obj) is not None
