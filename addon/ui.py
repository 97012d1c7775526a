# SPDX-License-Identifier: GPL-3.0-or-later
"""The main panel, "QuatBake", in the 3D Viewport and Graph Editor sidebars.

A panel class has one space type, so the same draw code is registered twice:
``QUATBAKE_PT_main`` (3D Viewport) and ``QUATBAKE_PT_main_graph`` (Graph
Editor). Its sub-panels run in the order of the work (``bl_order``):
Difference Report (diagnose, addon/ops_analyze.py), Overlay (preview,
addon/overlay.py, 3D Viewport only) and Re-bake (act, here).
"""

import bpy
from bpy.app.translations import pgettext_iface as iface_
from bpy.types import Panel

from .messages import count_phrase
from .ops_bake import (
    QUATBAKE_OT_bake,
    QUATBAKE_OT_revert,
    draw_method_row,
    draw_more_settings,
    last_bake,
)
from .presets import draw_preset_selector

# The engine (.bake) is imported where it is used, on the panel's first draw:
# registering must not load it (measured in benchmarks/bench_register.py).

# Checking every selected object for something to revert on each redraw would
# cost time in huge selections; the first few decide whether the button is live
# (the operator itself still checks them all).
_REVERT_CHECK_LIMIT = 64
# Turn notes of the last bake: how many the panel shows, wrapped to the sidebar's width.
_NOTES_SHOWN = 6
# Objects of the last bake listed one per line; more are only counted.
_LISTED_BAKED = 4
PANEL_NAME = "Re-bake"


def _anything_to_revert(context) -> bool:
    from . import bake

    if getattr(context, "mode", "") == 'POSE':
        from .transform import transforms_of_pose_bones

        objects = transforms_of_pose_bones(
            (getattr(context, "selected_pose_bones", None) or [])[:_REVERT_CHECK_LIMIT])
    else:
        objects = getattr(context, "selected_objects", None) or []
    return any(bake.can_revert(obj) for obj in objects[:_REVERT_CHECK_LIMIT])


def last_bake_total(settings, translate=iface_) -> str:
    """The panel's total of the last bake, counting bones as bones: "Total: 2 objects and
    12 bones, 240 frames" (``last_objects_baked`` counts every transform, bones included)."""
    bones = settings.last_bones_baked
    count = count_phrase(max(settings.last_objects_baked - bones, 0), bones,
                         settings.last_bones_rig, translate)
    return translate("Total: {}, {:d} frames").format(count, settings.last_frames_written)


class _MainPanel:
    bl_region_type = 'UI'
    bl_category = "QuatBake"
    bl_label = "QuatBake"

    @classmethod
    def poll(cls, context) -> bool:
        return getattr(context.scene, "quatbake", None) is not None

    def draw(self, context):
        # Everything is in the sub-panels, in the order of the work.
        pass


class _RebakePanel:
    bl_region_type = 'UI'
    bl_category = "QuatBake"
    bl_label = PANEL_NAME
    bl_order = 2   # after Difference Report (0) and Overlay (1)

    def draw(self, context):
        from .ui_text import start_panel, wrapped_label

        start_panel(PANEL_NAME)
        layout = self.layout
        settings = context.scene.quatbake
        draw_preset_selector(layout, context)
        draw_method_row(layout.column(), settings)
        if settings.method == 'LERP':
            wrapped_label(layout, context, "Lerp is for comparisons only: pick Nlerp, Slerp "
                          "or Squad to bake.", icon='ERROR', panel=PANEL_NAME)

        row = layout.row(align=True)
        row.scale_y = 1.4
        row.operator(QUATBAKE_OT_bake.bl_idname, text="Re-bake", icon='ACTION')
        sub = row.row(align=True)
        sub.enabled = _anything_to_revert(context)
        sub.operator(QUATBAKE_OT_revert.bl_idname, text="Revert", icon='LOOP_BACK')

        if not settings.has_last_bake:
            layout.label(text="No bake in this scene yet", icon='INFO')
            return
        # Per object, then the total labelled as one (a 120-frame scene with
        # two objects wrote 240 frames: the old "Frames written: 240" misled).
        per_object = last_bake(context.scene)
        parts = [iface_("{}: {:d} frames").format(name, frames)
                 for name, frames in list(per_object.items())[:_LISTED_BAKED]]
        if len(per_object) > _LISTED_BAKED:
            parts.append("...")
        text = iface_("Last bake") + ": " + "; ".join(parts + [last_bake_total(settings)]) + "."
        wrapped_label(layout, context, text, icon='CHECKMARK', panel=PANEL_NAME, translate=False)
        # The bake's turn notes (intervals baked differently from what Blender
        # played, kept spins, steps), wrapped to the sidebar like the rest.
        notes = settings.last_turn_notes.splitlines()
        for note in notes[:_NOTES_SHOWN]:
            wrapped_label(layout, context, note, icon='INFO', panel=PANEL_NAME, translate=False)
        if len(notes) > _NOTES_SHOWN:
            wrapped_label(layout, context, iface_("...and {:d} more (see the Info editor)").format(
                len(notes) - _NOTES_SHOWN), panel=PANEL_NAME, translate=False)


class _SettingsPanel:
    """The bake settings after the method (closed at first: the preset and the
    method are what most bakes change; keeps the Re-bake button on screen)."""

    bl_region_type = 'UI'
    bl_category = "QuatBake"
    bl_label = "Settings"
    bl_options = {'DEFAULT_CLOSED'}

    def draw(self, context):
        draw_more_settings(self.layout.column(), context.scene.quatbake)


class QUATBAKE_PT_main(_MainPanel, Panel):
    """Re-bake rotations with real rotation interpolation"""

    bl_idname = "QUATBAKE_PT_main"
    bl_space_type = 'VIEW_3D'


class QUATBAKE_PT_main_graph(_MainPanel, Panel):
    """Re-bake rotations with real rotation interpolation"""

    bl_idname = "QUATBAKE_PT_main_graph"
    bl_space_type = 'GRAPH_EDITOR'


class QUATBAKE_PT_rebake(_RebakePanel, Panel):
    bl_idname = "QUATBAKE_PT_rebake"
    bl_space_type = 'VIEW_3D'
    bl_parent_id = "QUATBAKE_PT_main"


class QUATBAKE_PT_rebake_graph(_RebakePanel, Panel):
    bl_idname = "QUATBAKE_PT_rebake_graph"
    bl_space_type = 'GRAPH_EDITOR'
    bl_parent_id = "QUATBAKE_PT_main_graph"


class QUATBAKE_PT_rebake_settings(_SettingsPanel, Panel):
    bl_idname = "QUATBAKE_PT_rebake_settings"
    bl_space_type = 'VIEW_3D'
    bl_parent_id = "QUATBAKE_PT_rebake"


class QUATBAKE_PT_rebake_settings_graph(_SettingsPanel, Panel):
    bl_idname = "QUATBAKE_PT_rebake_settings_graph"
    bl_space_type = 'GRAPH_EDITOR'
    bl_parent_id = "QUATBAKE_PT_rebake_graph"


# The main panels register here; their Re-bake sub-panels after the
# Difference Report and Overlay modules (addon/__init__ registers "ui_rebake"
# last), so every Blender lists them in the order of the work even where
# bl_order is not honoured for add-on panels.
main_classes = (QUATBAKE_PT_main, QUATBAKE_PT_main_graph)
rebake_classes = (QUATBAKE_PT_rebake, QUATBAKE_PT_rebake_graph, QUATBAKE_PT_rebake_settings,
                  QUATBAKE_PT_rebake_settings_graph)
register, unregister = bpy.utils.register_classes_factory(main_classes)
register_rebake, unregister_rebake = bpy.utils.register_classes_factory(rebake_classes)
