# SPDX-License-Identifier: GPL-3.0-or-later
"""The Difference Report in the sidebar: the Analyze and Jump to Worst Frame
operators, the worst-first list and the panels drawing report_results' entries."""
from __future__ import annotations

import math

import bpy
from bpy.props import EnumProperty, StringProperty
from bpy.types import Operator, Panel

from .compare import compare_method
from .messages import count_phrase, tally
from .ops_bake import has_selection
from .props import METHOD_ITEMS
from .report_results import (
    FINE_DEG,
    VERDICT_FINE,
    VERDICT_LONG_WAY,
    VERDICT_VISIBLE,
    analyze_into,
    before_after,
    forget_all,
    is_stale,
    named_transform,
    results,
    worst_first,
)

# Objects named in the status line after Analyze; more are counted.
STATUS_NAMES = 4


class QUATBAKE_OT_analyze(Operator):
    """Compare Blender's own rotation interpolation of the selected objects with the chosen
    method. Verdicts: fine (under 0.1 degrees), visible (more), long way round (a key interval
    turns more than 180 degrees where less would do)"""

    bl_idname = "quatbake.analyze"
    bl_label = "Analyze"
    bl_options = {'REGISTER'}

    method: EnumProperty(
        name="Method", items=METHOD_ITEMS, default='SLERP',
        description="Interpolation to compare Blender's with (default: the scene's QuatBake method)",
    )
    object_name: StringProperty(
        name="Object", default="", options={'SKIP_SAVE'},
        description="Analyze only this object (default: the selected objects)",
    )

    @classmethod
    def poll(cls, context) -> bool:
        return has_selection(cls, context, "Select the animated objects to analyze")

    def execute(self, context):
        # Left out, the method comes from the scene settings (as for quatbake.bake).
        method = (self.method.lower() if self.properties.is_property_set("method")
                  else compare_method(context.scene.quatbake))
        scene = context.scene
        from .transform import as_transforms, selected_items

        transforms = as_transforms(selected_items(context))
        if self.object_name:
            obj = named_transform(scene, self.object_name)
            if obj is None:
                self.report({'ERROR'}, f"Object \"{self.object_name}\" is not in this scene.")
                return {'CANCELLED'}
            found = analyze_into(scene, [obj], method)
        else:
            found = analyze_into(scene, transforms, method, replace=True)
        for entry in found.values():
            if entry.get("error"):
                self.report({'WARNING'}, entry["error"])
        done = {n: s for n, s in found.items() if not s.get("error")}
        if not done:
            self.report({'ERROR'}, "None of the selected objects has rotation keys to analyze.")
            return {'CANCELLED'}
        # Every object named (the first few), worst first: the status line once
        # named only the worst of two.
        ordered = [(n, e) for n, e in worst_first(done)]
        parts = [f"{n} {e['max_deviation_deg']:.2f} deg ({e['verdict']})"
                 for n, e in ordered[:STATUS_NAMES]]
        more = len(ordered) - STATUS_NAMES
        if more > 0:
            parts.append(f"{more} more")
        # Objects and bones counted apart, each once (an object analysed by its NLA clips
        # has an entry per clip), in the words of the bake's report.
        count = count_phrase(*tally((e["object"], e["bone"]) for e in done.values()))
        self.report({'INFO'}, f"Analyzed {count}: " + "; ".join(parts) + ".")
        return {'FINISHED'}


class QUATBAKE_OT_jump_to_worst(Operator):
    """Set the current frame to the frame where this object deviates most"""

    bl_idname = "quatbake.jump_to_worst"
    bl_label = "Jump to Worst Frame"
    bl_options = {'REGISTER', 'UNDO'}

    object_name: StringProperty(name="Object", description="Object whose worst frame to show")

    def execute(self, context):
        result = results(context.scene).get(self.object_name)
        if not result or result.get("error") or "worst_frame" not in result:
            self.report({'ERROR'}, f"Object \"{self.object_name}\" has not been analyzed yet: "
                        "run Analyze first.")
            return {'CANCELLED'}
        frame = float(result["worst_frame"])
        whole = math.floor(frame)
        context.scene.frame_set(whole, subframe=frame - whole)
        if result.get("bone"):
            _select_bone(context, result["object"], result["bone"])
        return {'FINISHED'}


def _select_bone(context, object_name: str, bone_name: str) -> None:
    """Make the worst bone the only selected (and active) bone of its armature, so the
    Graph Editor and the overlay show it."""
    rig = bpy.data.objects.get(object_name)
    from . import animdata

    if rig is None or rig.type != 'ARMATURE' or bone_name not in rig.data.bones:
        return
    for bone in rig.data.bones:
        animdata.select_bone(rig, bone.name, bone.name == bone_name)
    rig.data.bones.active = rig.data.bones[bone_name]


# Characters per label line: the sidebar at its default width shows about 35.
_WRAP_CHARS = 32
VERDICT_ICONS = {VERDICT_LONG_WAY: 'ERROR', VERDICT_VISIBLE: 'INFO', VERDICT_FINE: 'CHECKMARK'}
PANEL_NAME = "Difference Report"
# Up to this many objects each get a box with their details; more go into a
# compact list (worst first) with the details of the one picked in it.
MAX_BOXES = 3


class QUATBAKE_UL_report(bpy.types.UIList):
    """The Difference Report's objects, worst first: verdict icon, name, degrees."""

    bl_idname = "QUATBAKE_UL_report"

    def draw_item(self, context, layout, data, item, icon, active_data, active_prop, index=0):
        from .ui_text import is_narrow

        icon = VERDICT_ICONS.get(item.verdict, 'ERROR')
        if is_narrow(context) or item.verdict not in VERDICT_ICONS:
            # Narrow: the name alone (the degrees are in the details below).
            layout.label(text=item.name, icon=icon, translate=False)
            return
        # The name gets most of the row (equal halves cut "ShotCam" to "ShotC...").
        split = layout.split(factor=0.68, align=True)
        split.label(text=item.name, icon=icon, translate=False)
        split.label(text=f"{item.max_deviation_deg:.1f}\u00b0", translate=False)


def _draw_entry(layout, context, name: str, entry: dict, stale: bool) -> None:
    from .ui_text import wrapped_label

    box = layout.box()
    if entry.get("error") and not entry.get("pending"):
        wrapped_label(box, context, name, icon='ERROR', panel=PANEL_NAME, translate=False)
        wrapped_label(box, context, entry["error"], panel=PANEL_NAME, translate=False)
        return
    row = box.row(align=True)
    if stale or "verdict" not in entry:
        row.label(text=name, icon='TIME', translate=False)
        op = row.operator(QUATBAKE_OT_analyze.bl_idname, text="Re-run", icon='FILE_REFRESH')
        # A bone's entry is found by its label ("Rig: spine"), an object's by its name.
        op.object_name = name if entry.get("bone") else entry.get("object", name)
        why = ("Not re-analysed after the bake (too long to do at once): press Re-run."
               if entry.get("pending") else "Out of date: the keys changed since this analysis.")
        wrapped_label(box, context, why, panel=PANEL_NAME)
        return
    # Name and figure on one row, then one sentence: the before -> after of a
    # bake, else the advice (which already says "long way" or "nothing to do").
    # A separate "180.0 deg at frame 90: long way round" line repeated the
    # advice and pushed the Re-bake button off a 900-pixel screen.
    split = row.split(factor=0.62, align=True)
    split.label(text=name, icon=VERDICT_ICONS[entry["verdict"]], translate=False)
    split.label(text=f"{entry['max_deviation_deg']:.1f}\u00b0", translate=False)
    op = row.operator(QUATBAKE_OT_jump_to_worst.bl_idname, text="", icon='TIME')
    op.object_name = name
    change = before_after(entry)
    if not change and entry["verdict"] != VERDICT_LONG_WAY:
        # The verdict in words ("long way" is already in that advice).
        change = f"{entry['verdict'].capitalize()}: {entry['advice']}"
    wrapped_label(box, context, change or entry["advice"], panel=PANEL_NAME, translate=False)
    # Issue 11's split, only where it says something: a visible difference
    # (how much of it is off the path, the rest being timing), kept spins, steps.
    # Fine objects get no extra line, so two results and Re-bake still fit.
    extra = []
    if entry["max_deviation_deg"] >= FINE_DEG:
        extra.append(f"Off the path: {entry['max_path_deviation_deg']:.2f}\u00b0 "
                     "(the rest is timing)")
    if entry.get("spins"):
        extra.append("Keyed spins: " + ", ".join(f"{a:g}-{b:g}" for a, b in entry["spins"]))
    if entry.get("steps"):
        extra.append(f"Stepped intervals: {entry['steps']:d}")
    if extra:
        wrapped_label(box, context, "; ".join(extra) + ".", panel=PANEL_NAME, translate=False)


class _AnalyzePanel:
    bl_region_type = 'UI'
    bl_category = "QuatBake"
    bl_label = PANEL_NAME
    bl_order = 0   # diagnose first, then Overlay (preview), then Re-bake (act)

    def draw(self, context):
        from .ui_text import is_narrow, start_panel, wrapped_label

        start_panel(PANEL_NAME)
        layout = self.layout
        settings = context.scene.quatbake
        row = layout.row(align=True)
        row.operator(QUATBAKE_OT_analyze.bl_idname, icon='GRAPH')
        row.operator("quatbake.export_report", text="", icon='EXPORT')
        col = layout.column()
        # Narrow, a split label would cut both ("C..." beside "Ba..."): the
        # choice alone, full width (its tooltip says what it is).
        col.use_property_split = not is_narrow(context)
        col.use_property_decorate = False
        col.prop(settings, "compare_method", text="Compare" if col.use_property_split else "")
        found = results(context.scene)
        found = {n: e for n, e in found.items() if e.get("object", n) in context.scene.objects}
        if not found:
            wrapped_label(layout, context, "Select animated objects and press Analyze.",
                          panel=PANEL_NAME)
            return
        ordered = worst_first(found)
        # The list's rows are written with the results; if they do not match
        # (an undo restored older rows), the boxes are drawn instead.
        if len(ordered) <= MAX_BOXES or len(settings.report_rows) != len(results(context.scene)):
            for name, entry in ordered[:MAX_BOXES]:
                _draw_entry(layout, context, name, entry, is_stale(context.scene, name))
            return
        layout.template_list(QUATBAKE_UL_report.bl_idname, "", settings, "report_rows",
                             settings, "report_index", rows=4)
        index = min(settings.report_index, len(settings.report_rows) - 1)
        name = settings.report_rows[index].name
        if name in found:
            _draw_entry(layout, context, name, found[name], is_stale(context.scene, name))


class QUATBAKE_PT_analyze(_AnalyzePanel, Panel):
    bl_idname = "QUATBAKE_PT_analyze"
    bl_space_type = 'VIEW_3D'
    bl_parent_id = "QUATBAKE_PT_main"


class QUATBAKE_PT_analyze_graph(_AnalyzePanel, Panel):
    bl_idname = "QUATBAKE_PT_analyze_graph"
    bl_space_type = 'GRAPH_EDITOR'
    bl_parent_id = "QUATBAKE_PT_main_graph"


classes = (QUATBAKE_OT_analyze, QUATBAKE_OT_jump_to_worst, QUATBAKE_UL_report,
           QUATBAKE_PT_analyze, QUATBAKE_PT_analyze_graph)
_register_classes, _unregister_classes = bpy.utils.register_classes_factory(classes)


def register() -> None:
    _register_classes()


def unregister() -> None:
    _unregister_classes()
    forget_all()
