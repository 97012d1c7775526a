# SPDX-License-Identifier: GPL-3.0-or-later
"""The Re-bake panel and its Settings sub-panel, and the bake settings' layout that the
operator's redo panel draws too.

Like every QuatBake panel it is registered twice, under the 3D Viewport's and the
Graph Editor's main panel (``ui.panel``). It names the operators by their idname, so
the operators (``bake.ops``) import this module and not the other way round.
"""
import bpy
from bpy.app.translations import pgettext_iface as iface_
from bpy.types import Panel

from ..ui.counts import count_phrase
from ..ui.props import BAKE_METHOD_ITEMS
from .presets import draw_preset_selector

# The engine (bake.engine) is imported where it is used, on the panel's first draw:
# registering must not load it (measured in benchmarks/bench_register.py).


# Per scene name: {object name: frames baked} of the last bake (the panel's
# per-object lines; the totals are scene settings, saved with the file).
_LAST_BAKE: dict[str, dict[str, int]] = {}


def last_bake(scene) -> dict[str, int]:
    """{object name: rotation keys written per channel} of the last bake in ``scene`` this
    session (their sum is the total's keys)."""
    return _LAST_BAKE.get(scene.name, {})


def remember_last_bake(scene, frames_per_object: dict[str, int]) -> None:
    _LAST_BAKE[scene.name] = dict(frames_per_object)


def forget_last_bake(scene) -> None:
    _LAST_BAKE.pop(scene.name, None)


def draw_method_row(layout, data) -> None:
    """The bake method as three buttons across the width (never Lerp, see props).

    No property split: split, the three names were cut to "M..", "S..".
    """
    layout.use_property_split = False
    row = layout.row(align=True)
    for identifier, _name, _tip in BAKE_METHOD_ITEMS:
        row.prop_enum(data, "method", identifier)


def draw_more_settings(layout, data) -> None:
    """Every bake setting after the method, in the sidebar's order and greying.

    Check boxes span the full width (no property split): split, their labels
    sat in the right-hand 60% and were cut ("Constant Sp...", "Custom Ran...").
    """
    layout.use_property_split = True
    layout.use_property_decorate = False
    col = layout.column()
    col.prop(data, "location_method")
    col.prop(data, "output_mode")
    col.prop(data, "turns")
    col.prop(data, "timing")
    flags = col.column(align=True)
    flags.use_property_split = False
    sub = flags.row()
    sub.active = data.location_method != 'KEEP'    # retiming needs a location path
    sub.prop(data, "constant_speed")
    flags.prop(data, "union_keys")
    flags.prop(data, "use_frame_range")
    sub = col.column(align=True)
    sub.active = data.use_frame_range
    sub.prop(data, "frame_start")
    sub.prop(data, "frame_end")
    col.prop(data, "frame_step")
    col.prop(data, "tolerance")
    col.prop(data, "tolerance_px")
    sub = col.row()
    sub.active = data.tolerance > 0.0 or data.tolerance_px > 0.0   # what a tolerance writes
    sub.prop(data, "key_interpolation")
    # Both the scene settings and the bake operator have it: the NLA clip to bake.
    col.prop(data, "clip", icon='NLA')


def draw_bake_settings(layout, data) -> None:
    """All bake settings of ``data`` (scene.quatbake or the bake operator): the
    redo panel draws this; the sidebar draws the same two parts, the method in
    the Re-bake panel and the rest in its Settings sub-panel."""
    draw_method_row(layout.column(), data)
    draw_more_settings(layout.column(), data)


# Checking every selected object for something to revert on each redraw would
# cost time in huge selections; the first few decide whether the button is live
# (the operator itself still checks them all).
_REVERT_CHECK_LIMIT = 64


# Turn notes of the last bake: how many the panel shows, wrapped to the sidebar's width.
_NOTES_SHOWN = 6


# Objects of the last bake listed one per line; more are only counted.
_LISTED_BAKED = 4


PANEL_NAME = "Re-bake"


def nla_only_objects(context) -> list[str]:
    """Names of the selected objects (the first few) animated only by NLA clips: no active
    action, clips in the NLA. The Re-bake panel offers the Clip choice for them."""
    found = []
    for obj in list(getattr(context, "selected_objects", None) or [])[:_REVERT_CHECK_LIMIT]:
        ad = obj.animation_data
        if ad is not None and ad.action is None and any(
                strip.action is not None for track in ad.nla_tracks for strip in track.strips):
            found.append(obj.name)
    return found


def _anything_to_revert(context) -> bool:
    from .. import bake

    if getattr(context, "mode", "") == 'POSE':
        from ..transform import transforms_of_pose_bones

        objects = transforms_of_pose_bones(
            (getattr(context, "selected_pose_bones", None) or [])[:_REVERT_CHECK_LIMIT])
    else:
        objects = getattr(context, "selected_objects", None) or []
    return any(bake.can_revert(obj) for obj in objects[:_REVERT_CHECK_LIMIT])


def last_bake_total(settings, translate=iface_) -> str:
    """The panel's total of the last bake, counting bones as bones: "Total: 2 objects and
    12 bones, 240 keys per channel in all" (``last_objects_baked`` counts every transform,
    bones included). The keys are the sum of the per-transform counts the line lists
    before it (``last_bake``), dense bake or Key Tolerance: issue 24 saw each bone say
    "524 frames" (the frames baked) beside a total of 1,710 (the keys kept)."""
    bones = settings.last_bones_baked
    count = count_phrase(max(settings.last_objects_baked - bones, 0), bones,
                         settings.last_bones_rig, translate)
    return translate("Total: {}, {:d} keys per channel in all").format(
        count, settings.last_frames_written)


class _RebakePanel:
    bl_region_type = 'UI'
    bl_category = "QuatBake"
    bl_label = PANEL_NAME
    bl_order = 2   # after Difference Report (0) and Overlay (1)

    def draw(self, context):
        from ..ui.texts import start_panel, wrapped_label

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
        row.operator("quatbake.bake", text="Re-bake", icon='ACTION')
        sub = row.row(align=True)
        sub.enabled = _anything_to_revert(context)
        sub.operator("quatbake.revert", text="Revert", icon='LOOP_BACK')
        nla_only = nla_only_objects(context)
        if nla_only or settings.clip:
            # An object animated only by NLA clips (a glTF import's parent) bakes the clip
            # named here; the field also stays while a clip is chosen, so it can be cleared.
            if nla_only:
                names = ", ".join(nla_only[:2]) + (" ..." if len(nla_only) > 2 else "")
                wrapped_label(layout, context, iface_("{} plays only NLA clips: choose the Clip "
                                                      "to bake.").format(names),
                              icon='NLA', panel=PANEL_NAME, translate=False)
            layout.prop(settings, "clip", icon='NLA')

        if not settings.has_last_bake:
            layout.label(text="No bake in this scene yet", icon='INFO')
            return
        # Per object, then the total labelled as one (a 120-frame scene with
        # two objects wrote 240 frames: the old "Frames written: 240" misled).
        per_object = last_bake(context.scene)
        # Keys per channel each, as the total counts them (never "frames": a key count).
        parts = [iface_("{}: {:d} keys").format(name, frames)
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


classes = (QUATBAKE_PT_rebake, QUATBAKE_PT_rebake_graph, QUATBAKE_PT_rebake_settings,
                  QUATBAKE_PT_rebake_settings_graph)


register, unregister = bpy.utils.register_classes_factory(classes)
