# SPDX-License-Identifier: GPL-3.0-or-later
"""Every difference between the Blender releases QuatBake runs on (3.4 to 5.x) that is
not the shape of animation data (bones' selection and visibility, GPU shaders, fonts,
translations, buffers, presets), in one place: what differs, from which release, and the
one name the rest of the add-on uses for it. (Where F-curves live, actions, slots and
channelbags, is read from the data itself by ``animdata.actions``.)

Imports bpy only, so every layer of the add-on may ask it.
"""
from __future__ import annotations

import bpy
from bpy.app.translations import pgettext_tip

_FOUR = bpy.app.version >= (4, 0, 0)

# foreach_set("interpolation") takes the bulk path only with a buffer of DNA's own
# BezTriple.ipo type (signed char up to 3.x, uint8_t from 4.0); any other integer type
# goes item by item, about 4x slower.
KEYFRAME_ENUM_DTYPE = "uint8" if _FOUR else "int8"

# Blender 3.4's foreach_get/foreach_set on the handle types read and write the wrong
# bytes (garbage out, silently ignored in): before 4.0 they are set key by key.
_HANDLE_CODES: dict = {}


def set_handle_types(keyframe_points, left, right) -> None:
    """Set the handle types of every key of ``keyframe_points``: ``left`` and ``right``,
    one identifier ('FREE', 'ALIGNED' ...) a key each. Before the handles are placed:
    a type set by its property recalculates them."""
    if _FOUR:
        import numpy as np

        if not _HANDLE_CODES:   # {identifier: enum value}, the same for both sides
            items = bpy.types.Keyframe.bl_rna.properties["handle_left_type"].enum_items
            _HANDLE_CODES.update({item.identifier: item.value for item in items})
        for name, types in (("handle_left_type", left), ("handle_right_type", right)):
            keyframe_points.foreach_set(
                name, np.array([_HANDLE_CODES[t] for t in types], dtype=np.uint8))
        return
    # One key at a time, and only where they differ from a new key's: each set
    # recalculates the key's handles (a review: a copy of 200,000 Linear keys went from
    # 0.03 to 0.41 s setting them all).
    for kp, a, b in zip(keyframe_points, left, right):
        if kp.handle_left_type != a:
            kp.handle_left_type = a
        if kp.handle_right_type != b:
            kp.handle_right_type = b

# Blender 4.0 renamed the locale of Simplified Chinese ``zh_CN`` to ``zh_HANS``: the
# interface's translations are registered under both, so 3.4 and current releases find
# the same dictionary.
SIMPLIFIED_CHINESE_LOCALES = ("zh_HANS", "zh_CN")

# Reports are translated in their own context from 4.0; 3.4 uses the tooltip function.
report_text = getattr(bpy.app.translations, "pgettext_rpt", pgettext_tip)

# Blender 4.2+ lets an add-on add a preset folder (the redo panel's preset menu then
# lists the shipped presets); before, that menu showed "* Missing Paths *" only, so an
# operator offers its redo panel's preset menu (REDO_PRESET_OPTIONS, for bl_options) from
# 4.2 on. The sidebar's own preset menu works on every version.
_PRESET_PATHS = hasattr(bpy.utils, "register_preset_path")
REDO_PRESET_OPTIONS = frozenset({'PRESET'}) if _PRESET_PATHS else frozenset()


def add_preset_path(folder: str) -> bool:
    """Add ``folder`` to Blender's preset folders where Blender has them (4.2+); whether
    it was (remove_preset_path takes it away again)."""
    return bool(_PRESET_PATHS and bpy.utils.register_preset_path(folder))


def remove_preset_path(folder: str) -> None:
    """Take ``folder`` away from Blender's preset folders (after add_preset_path)."""
    bpy.utils.unregister_preset_path(folder)

# The bpy module releases whose own teardown fails once a command has opened a file
# with QuatBake registered: 4.2 crashes (segfault, exit status 139), 4.5 deadlocks
# (a static destructor waits on its file-closing thread). Measured with 4.2.23 and
# 4.5.15; tests/blender/test_cli_exit.py checks every module the matrix tests.
TEARDOWN_BROKEN = ((4, 2), (4, 5))


def teardown_broken() -> bool:
    """True in a bpy module (not a Blender program) of a TEARDOWN_BROKEN release."""
    return not bpy.app.binary_path and tuple(bpy.app.version[:2]) in TEARDOWN_BROKEN


def builtin_shader(name: str, space: str = "3D") -> str:
    """The name of a built-in GPU shader (``"SMOOTH_COLOR"``): before 4.0 they began with
    their space, ``"3D_"`` or ``"2D_"``."""
    return name if _FOUR else f"{space}_{name}"


def font_size(font: int, size: float) -> None:
    """``blf.size`` in points: before 4.0 it also took the DPI (72 = as given)."""
    import blf

    if _FOUR:
        blf.size(font, size)
    else:
        blf.size(font, size, 72)


def select_bone(rig, bone_name: str, selected: bool) -> None:
    """Select or deselect a bone for Pose Mode: ``PoseBone.select`` on Blender 5.0+,
    ``Bone.select`` (with its head and tail) before."""
    pbone = rig.pose.bones[bone_name]
    if hasattr(pbone, "select"):
        pbone.select = selected
        return
    bone = rig.data.bones[bone_name]
    bone.select = bone.select_head = bone.select_tail = selected


def bone_visible(rig, bone_name: str) -> bool:
    """Whether the bone shows in the viewport: not hidden (``PoseBone.hide`` on 5.0+,
    ``Bone.hide``), and in a visible bone collection (4.0+; 4.1+ follows the collections'
    parents and solo: ``is_visible_effectively``; a bone in none is visible) or on a
    visible armature layer (before 4.0)."""
    pbone = rig.pose.bones.get(bone_name) if rig.pose is not None else None
    bone = rig.data.bones.get(bone_name)
    if pbone is None or bone is None or bone.hide or getattr(pbone, "hide", False):
        return False
    collections = getattr(bone, "collections", None)
    if collections is not None:
        return not len(collections) or any(
            getattr(c, "is_visible_effectively", c.is_visible) for c in collections)
    return any(own and shown for own, shown in zip(bone.layers, rig.data.layers))


def bone_selected(rig, bone_name: str) -> bool:
    """Whether the bone is selected for Pose Mode: ``PoseBone.select`` on Blender 5.0+,
    ``Bone.select`` before."""
    pbone = rig.pose.bones[bone_name]
    return bool(pbone.select if hasattr(pbone, "select") else rig.data.bones[bone_name].select)
