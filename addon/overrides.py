# SPDX-License-Identifier: GPL-3.0-or-later
"""Library overrides: a bake of a linked character keeps its record across saves.

A show animates linked characters through library overrides: the rig is the library's,
its action is the shot's own (local). QuatBake bakes such a rig like any other; but when
the shot is opened again Blender sets every property of an override that the library
file does not override back to the library's value, and QuatBake's record
(``obj.quatbake``, ``pose_bone.quatbake``) is made in the shot, so it came back empty:
the bake kept playing and Revert had lost what to put back. The record of an override
is therefore also kept on its baked action, a local data-block, when the file is saved
(``save_pre``), and given back when a file is opened (``load_post``).
"""
from __future__ import annotations

import bpy
from bpy.app.handlers import persistent

from . import animdata
from .record import get_record, set_record
from .transform import AnimatedTransform

# The ID property of a baked action that holds its override's record.
KEPT = "quatbake_record"

# Overrides whose record was kept (by name: an undo or a library reload replaces the
# Python objects): the depsgraph handler looks at these alone.
_TRACKED: set = set()


def _is_override(obj) -> bool:
    return obj.library is None and obj.override_library is not None


def _plain(values: dict) -> dict:
    """A record as an ID property holds it: no None (a pointer left empty), ints for
    booleans."""
    return {k: int(v) if isinstance(v, bool) else v for k, v in values.items() if v is not None}


def keep(obj) -> None:
    """Write the record of the override ``obj`` (and of its baked bones) on its baked
    action; nothing when it plays no QuatBake bake."""
    rec = obj.quatbake
    baked = rec.baked_action
    if baked is None or baked.library is not None or animdata.get_action(obj) != baked:
        return
    bones = {}
    if obj.pose is not None:
        bones = {b.name: _plain(get_record(AnimatedTransform(obj, b.name)))
                 for b in obj.pose.bones if b.quatbake.baked}
    values = _plain(get_record(obj))
    # Not a pointer to itself: the action would count as its own user, and outlive a
    # revert.
    values.pop("baked_action", None)
    # Its owner's: another rig given the same action is not that bake (a review).
    baked[KEPT] = {"owner": obj.name, "action": baked.name, "object": values, "bones": bones}
    _TRACKED.add(obj.name)


def keep_all(objects) -> None:
    """``keep`` for each library override among ``objects``, as a bake or a conversion
    ends: a library reload in the same session, before any save, resets the record too."""
    for obj in objects:
        if _is_override(obj):
            keep(obj)


def give_back(obj) -> bool:
    """Set the record of the override ``obj`` and its bones from what ``keep`` wrote on
    the action it plays, when its own record came back empty. True when it did."""
    action = animdata.get_action(obj)
    kept = action.get(KEPT) if action is not None else None
    if kept is None or obj.quatbake.baked_action is not None:
        return False
    kept = kept.to_dict()
    if kept.get("owner") != obj.name or kept.get("action", action.name) != action.name:
        return False     # another rig's, or a copy of the baked action (not that bake)
    set_record(obj, {**kept.get("object", {}), "baked_action": action})
    for name, values in kept.get("bones", {}).items():
        if obj.pose is not None and obj.pose.bones.get(name) is not None:
            set_record(AnimatedTransform(obj, name), values)
    return True


def _each_override(do, failed: str) -> None:
    """``do(obj)`` for every library override of the file; a failure is printed
    (``failed``, with the object's name) and the others carry on: a handler must never
    stop a save or a load."""
    for obj in bpy.data.objects:
        if _is_override(obj):
            try:
                do(obj)
            except Exception as exc:  # noqa: BLE001 - see above
                print(f"QuatBake: {failed.format(obj.name)} ({exc})")


@persistent
def _on_save_pre(*_args) -> None:
    _each_override(keep, "keeping the bake record of \"{}\" failed; Revert it before "
                   "closing the file")


@persistent
def _on_load_post(*_args) -> None:
    _TRACKED.clear()
    _each_override(_give_back_and_track, "the bake record of \"{}\" could not be read back")


def _give_back_and_track(obj) -> None:
    give_back(obj)
    if obj.quatbake.baked_action is not None:
        _TRACKED.add(obj.name)


@persistent
def _on_depsgraph_update(*_args) -> None:
    """A library reload (Outliner > Reload: the rig's file was updated) re-applies the
    overrides and resets their records, saving nothing and opening nothing: give them back
    at the next update (a review)."""
    for name in list(_TRACKED):
        obj = bpy.data.objects.get(name)
        if obj is None or not _is_override(obj) or obj.quatbake.baked_action is not None:
            continue
        try:
            give_back(obj)
        except Exception as exc:  # noqa: BLE001 - a handler must never raise into Blender
            print(f"QuatBake: the bake record of \"{name}\" could not be read back ({exc})")


_HANDLERS = (("save_pre", _on_save_pre), ("load_post", _on_load_post),
             ("depsgraph_update_post", _on_depsgraph_update))


def register() -> None:
    for name, func in _HANDLERS:
        handlers = getattr(bpy.app.handlers, name)
        if func not in handlers:
            handlers.append(func)


def unregister() -> None:
    for name, func in _HANDLERS:
        handlers = getattr(bpy.app.handlers, name)
        while func in handlers:
            handlers.remove(func)
