# SPDX-License-Identifier: GPL-3.0-or-later
"""The Re-bake panel and its Settings sub-panel, and the bake settings' layout that the
operator's redo panel draws too.

Like every QuatBake panel it is registered twice, under the 3D Viewport's and the
Graph Editor's main panel (``ui.panel``). It names the operators by their idname, so
the operators (``bake.ops``) import this module and not the other way round.
"""
import json

import bpy
from bpy.types import Panel

from ..ui import translations
from ..ui.counts import count_phrase
from ..ui.props import BAKE_METHOD_ITEMS
from .presets import draw_preset_selector

iface_ = translations.iface

# The engine (bake.engine) is imported where it is used, on the panel's first draw:
# registering must not load it (measured in benchmarks/bench_register.py).


def last_bake(scene) -> dict[str, int]:
    """{object name: rotation keys written per channel} of the last bake in ``scene`` (their
    sum is the total's keys). A scene setting, as the totals are, so that undo and a
    saved file keep the two together (an undo walk: after Ctrl+Z the lines named the
    bake undone; in a file opened again they were gone, "Last bake:" and nothing)."""
    settings = getattr(scene, "quatbake", None)
    if settings is None or not settings.has_last_bake or not settings.last_bake_keys:
        return {}
    try:
        found = json.loads(settings.last_bake_keys)
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def remember_last_bake(scene, frames_per_object: dict[str, int]) -> None:
    scene.quatbake.last_bake_keys = json.dumps({str(k): int(v)
                                                for k, v in frames_per_object.items()})


def forget_last_bake(scene) -> None:
    scene.quatbake.last_bake_keys = ""


def draw_method_row(layout, data) -> None:
    """The bake method as three buttons across the width (never Lerp, see props).

    No property split: split, the three names were cut to "M..", "S..".
    """
    layout.use_property_split = False
    row = layout.row(align=True)
    for identifier, _name, _tip in BAKE_METHOD_ITEMS:
        row.prop_enum(data, "method", identifier)


# The settings drawn with a label beside them (ui.texts.labelled_prop), in order.
_LABELLED = ("location_method", "output_mode", "turns", "timing", "frame_start", "frame_end",
             "frame_step", "tolerance", "tolerance_px", "tolerance_tip", "key_interpolation",
             "clip")


def _bones_in_reach(context) -> bool:
    """Whether a Bone Tip Tolerance applies to what the bake would act on: Pose Mode, or
    an armature among the selected objects (it bakes its keyed bones)."""
    if getattr(context, "mode", "") == 'POSE':
        return True
    return any(getattr(o, "type", "") == 'ARMATURE'
               for o in getattr(context, "selected_objects", None) or ())


def draw_more_settings(layout, data, context=None, panel: str = "") -> None:
    """Every bake setting after the method, in the sidebar's order and greying.

    Check boxes span the full width (no property split): split, their labels
    sat in the right-hand 60% and were cut ("Constant Sp...", "Custom Ran...").
    The other settings keep their label beside the field only where it reads whole
    (ui.texts.labelled_prop): Blender's 40% label column cut "Key Tolerance" to
    "Key Toler..." at the default width; a wider column (one for all, so the fields
    stay aligned) or, for a label longer still ("Camera Tolerance (px)", 相机容差（像素）),
    the label on its own line above the field.
    """
    from ..ui.texts import label_factor, labelled_prop

    context = context or bpy.context
    layout.use_property_split = False
    layout.use_property_decorate = False
    col = layout.column()
    bones = _bones_in_reach(context)
    factor = label_factor(context, data, tuple(p for p in _LABELLED
                                               if bones or p != "tolerance_tip"))

    def field(target, prop, **kwargs):
        labelled_prop(target, context, data, prop, factor, panel=panel, **kwargs)

    for prop in ("location_method", "output_mode", "turns", "timing"):
        field(col, prop)
    flags = col.column(align=True)
    sub = flags.row()
    sub.active = data.location_method != 'KEEP'    # retiming needs a location path
    sub.prop(data, "constant_speed")
    flags.prop(data, "union_keys")
    # Its name in QuatBake's own context: Blender's catalogue has "Custom Range" too.
    flags.prop(data, "use_frame_range", text="Custom Range", text_ctxt=translations.CONTEXT)
    sub = col.column(align=True)
    sub.active = data.use_frame_range
    field(sub, "frame_start")
    field(sub, "frame_end")
    field(col, "frame_step")
    field(col, "tolerance")
    field(col, "tolerance_px")
    if bones:
        field(col, "tolerance_tip")     # only where it applies: bones in the selection
    sub = col.column()
    # What a tolerance writes.
    sub.active = data.tolerance > 0.0 or data.tolerance_px > 0.0 or data.tolerance_tip > 0.0
    field(sub, "key_interpolation")
    # Both the scene settings and the bake operator have it: the NLA clip to bake.
    field(col, "clip", icon='NLA')


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


def last_bake_total(settings, translate=iface_, name_rig: bool = True) -> str:
    """The panel's total of the last bake, counting bones as bones: "Total: 2 objects and
    12 bones, 240 keys per channel" (``last_objects_baked`` counts every transform,
    bones included). The keys are the sum of the per-transform counts the line lists
    before it (``last_bake``), dense bake or Key Tolerance: issue 24 saw each bone say
    "524 frames" (the frames baked) beside a total of 1,710 (the keys kept)."""
    bones = settings.last_bones_baked
    # name_rig False: under the armature's header, which names it already (a line less
    # keeps the Overlay's header on a 900-pixel screen, tests/gui/test_panel_layout_gui).
    count = count_phrase(max(settings.last_objects_baked - bones, 0), bones,
                         settings.last_bones_rig if name_rig else "", translate)
    return translate("Total: {}, {:d} keys per channel").format(
        count, settings.last_frames_written)


class _RebakePanel:
    bl_region_type = 'UI'
    bl_category = "QuatBake"
    bl_label = PANEL_NAME
    # After the Difference Report (0), before the Overlay (2): see ui.panel for why.
    bl_order = 1

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
        row.scale_y = 1.2   # the action stands out; 1.4 cost the legend's last row (ui.panel)
        row.operator("quatbake.bake", text="Re-bake", text_ctxt=translations.CONTEXT, icon='ACTION')
        sub = row.row(align=True)
        sub.enabled = _anything_to_revert(context)
        sub.operator("quatbake.revert", text="Revert", text_ctxt=translations.CONTEXT,
                     icon='LOOP_BACK')
        if _NotesPanel.poll(context):
            # The last bake's notes one click away (a popover, as the overlay's display
            # settings): drawn here they ran to 10 lines and more, and a sub-panel's
            # header cost the row that keeps the legend below on a 900-pixel screen.
            row.popover(panel=QUATBAKE_PT_rebake_notes.bl_idname, text="", icon='INFO')
        nla_only = nla_only_objects(context)
        if nla_only or settings.clip:
            # An object animated only by NLA clips (a glTF import's parent) bakes the clip
            # named here; the field also stays while a clip is chosen, so it can be cleared.
            if nla_only:
                names = ", ".join(nla_only[:2]) + (" ..." if len(nla_only) > 2 else "")
                wrapped_label(layout, context, iface_("{} plays only NLA clips: choose the Clip "
                                                      "to bake.").format(names),
                              icon='NLA', panel=PANEL_NAME, translate=False)
            # Its name in QuatBake's own context: Blender's "Clip" is a movie clip (剪辑(裁切)).
            layout.prop(settings, "clip", text="Clip", text_ctxt=translations.CONTEXT, icon='NLA')

        if not settings.has_last_bake:
            # Nothing under the buttons before a bake (a "No bake in this scene yet"
            # line cost the row that keeps the Overlay's legend on a 900-pixel screen
            # below this panel; the greyed Revert says as much).
            return
        # Per object, then the total labelled as one (a 120-frame scene with
        # two objects wrote 240 frames: the old "Frames written: 240" misled).
        # A rig's bones under one line naming the armature, each led by its own
        # name: "cmu_12_01_walk: Hips: 524 frames; cmu_12_01_walk: ..." filled the
        # line with the armature's name (issue 24).
        from ..ui.groups import grouped, split_name

        per_object = last_bake(context.scene)
        # Keys per channel each, as the total counts them (never "frames": a key count).
        each = "{}: {:d} keys"
        listed = list(per_object.items())[:_LISTED_BAKED]
        groups = grouped((*split_name(context.scene, name), frames) for name, frames in listed)
        more = ["..."] if len(per_object) > _LISTED_BAKED else []
        col = layout.column(align=True)
        head = iface_("Last bake") + ":"
        if not groups:
            # A file saved before the lines were kept with it: the total alone.
            wrapped_label(col, context, f"{head} {last_bake_total(settings)}.",
                          icon='CHECKMARK', panel=PANEL_NAME, translate=False)
            return
        if groups[0][0]:                        # the first group is a rig: it has a header
            wrapped_label(col, context, head, icon='CHECKMARK', panel=PANEL_NAME,
                          translate=False)
            head = ""
        for k, (armature, members) in enumerate(groups):
            counts = {frames for _name, frames in members}
            if len(members) > 1 and len(counts) == 1:
                # A rig's bones baked alike (a dense bake): the names, then the count
                # once ("Hips, LHipJoint, ...: 524 keys each" is two lines, not five).
                names = [name for name, _frames in members]
                if k == len(groups) - 1:
                    names += more
                parts = [iface_("{}: {:d} keys each").format(", ".join(names), counts.pop())]
            else:
                parts = [iface_(each).format(name, frames) for name, frames in members]
                if k == len(groups) - 1:
                    parts += more
            if armature:
                col.label(text=armature, icon='ARMATURE_DATA', translate=False)
            text = "; ".join(parts) + ";"
            if k == len(groups) - 1 and not armature:
                text += " " + last_bake_total(settings) + "."     # no rig last: one label
            elif k == len(groups) - 1:
                text += "\n" + last_bake_total(settings, name_rig=False) + "."   # own line
            for j, piece in enumerate(text.split("\n")):
                piece = " ".join(t for t in (head, piece) if t)
                wrapped_label(col, context, piece, icon='CHECKMARK' if head else 'BLANK1',
                              panel=PANEL_NAME, translate=False)
                head = ""
        # The bake's notes (what was left as it was, turns baked differently from what
        # Blender played, kept spins, steps) are in the Bake Notes popover (the i button
        # beside Revert): drawn here they ran to 10 lines and more and pushed the
        # Overlay's legend below a 900-pixel screen (see ui.panel).


NOTES_PANEL_NAME = "Bake Notes"


class _NotesPanel:
    """The last bake's notes, one wrapped label each: the popover of the i button
    beside Revert (the same notes are in the Info editor and the status bar). After a
    Revert that left something baked, that Revert's notes: what it left, and why."""

    bl_region_type = 'HEADER'   # shown only as the Re-bake panel's popover
    bl_label = NOTES_PANEL_NAME

    @classmethod
    def poll(cls, context) -> bool:
        # Not has_last_bake: a Revert clears the last bake, and keeps notes only when it
        # left something baked (ops.QUATBAKE_OT_revert).
        settings = getattr(context.scene, "quatbake", None)
        return settings is not None and bool(settings.last_turn_notes.strip())

    def draw(self, context):
        from ..ui.texts import start_panel, wrapped_label

        start_panel(NOTES_PANEL_NAME)
        layout = self.layout
        notes = context.scene.quatbake.last_turn_notes.splitlines()
        for note in notes[:_NOTES_SHOWN]:
            wrapped_label(layout, context, note, icon='INFO', panel=NOTES_PANEL_NAME,
                          translate=False)
        if len(notes) > _NOTES_SHOWN:
            wrapped_label(layout, context, iface_("...and {:d} more (see the Info editor)").format(
                len(notes) - _NOTES_SHOWN), panel=NOTES_PANEL_NAME, translate=False)


SETTINGS_PANEL_NAME = "Settings"


class _SettingsPanel:
    """The bake settings after the method (closed at first: the preset and the
    method are what most bakes change; keeps the Re-bake button on screen)."""

    bl_region_type = 'UI'
    bl_category = "QuatBake"
    bl_label = SETTINGS_PANEL_NAME
    bl_options = {'DEFAULT_CLOSED'}

    def draw(self, context):
        from ..ui.texts import start_panel

        start_panel(SETTINGS_PANEL_NAME)
        draw_more_settings(self.layout.column(), context.scene.quatbake, context,
                           SETTINGS_PANEL_NAME)


class QUATBAKE_PT_rebake(_RebakePanel, Panel):
    bl_idname = "QUATBAKE_PT_rebake"
    bl_space_type = 'VIEW_3D'
    bl_parent_id = "QUATBAKE_PT_main"


class QUATBAKE_PT_rebake_graph(_RebakePanel, Panel):
    bl_idname = "QUATBAKE_PT_rebake_graph"
    bl_space_type = 'GRAPH_EDITOR'
    bl_parent_id = "QUATBAKE_PT_main_graph"


class QUATBAKE_PT_rebake_notes(_NotesPanel, Panel):
    bl_idname = "QUATBAKE_PT_rebake_notes"
    bl_space_type = 'VIEW_3D'   # a popover: the Graph Editor's Re-bake panel opens it too


class QUATBAKE_PT_rebake_settings(_SettingsPanel, Panel):
    bl_idname = "QUATBAKE_PT_rebake_settings"
    bl_space_type = 'VIEW_3D'
    bl_parent_id = "QUATBAKE_PT_rebake"


class QUATBAKE_PT_rebake_settings_graph(_SettingsPanel, Panel):
    bl_idname = "QUATBAKE_PT_rebake_settings_graph"
    bl_space_type = 'GRAPH_EDITOR'
    bl_parent_id = "QUATBAKE_PT_rebake_graph"


classes = (QUATBAKE_PT_rebake, QUATBAKE_PT_rebake_graph, QUATBAKE_PT_rebake_notes,
           QUATBAKE_PT_rebake_settings,
           QUATBAKE_PT_rebake_settings_graph)


register, unregister = bpy.utils.register_classes_factory(classes)
