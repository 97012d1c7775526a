# SPDX-License-Identifier: GPL-3.0-or-later
"""The Difference Report panel: the analysis results, worst first, each with its
advice, a Re-run or Jump to Worst button, and the before -> after of a bake."""
import bpy
from bpy.types import Panel

from ...core.frames import label, span
from ..ui import translations
from .entries import (
    FINE_DEG,
    VERDICT_CHECK,
    VERDICT_FINE,
    VERDICT_LONG_WAY,
    VERDICT_SKIPPED,
    VERDICT_VISIBLE,
    VERDICT_WITHIN,
    is_stale,
    panel_sentence,
    results,
    row_figures,
    worst_first,
)

iface_ = translations.iface

# A tick only when nothing needs doing (issue 24): "to check" has findings to act on.
VERDICT_ICONS = {VERDICT_LONG_WAY: 'ERROR', VERDICT_VISIBLE: 'INFO', VERDICT_CHECK: 'INFO',
                 VERDICT_WITHIN: 'CHECKMARK', VERDICT_FINE: 'CHECKMARK',
                 VERDICT_SKIPPED: 'REMOVE'}


PANEL_NAME = "Difference Report"
# Where the rows' names are recorded (ui.texts.drawn_labels), apart from the panel's
# settings: a name is a single word that must never be cut.
ROWS_PANEL = "Difference Report rows"


# Up to this many objects each get a box with their details; more go into a
# compact list (worst first) with the details of the one picked in it.
MAX_BOXES = 3
# Rows of the list: one group (the usual case: one rig, or objects alone), and
# each list when there are several groups; at most MAX_LISTS lists are drawn.
LIST_ROWS = 4
LIST_ROWS_GROUPED = 3
MAX_LISTS = 3


def entry_group(entry: dict, name: str) -> tuple[str, str]:
    """(armature, bone) of a bone's entry, (ui.groups.OBJECTS, name) of an object's."""
    from ..ui.groups import OBJECTS

    if entry.get("bone"):
        return entry.get("object", ""), entry["bone"]
    return OBJECTS, name


def report_groups(found: dict[str, dict]) -> list[tuple[str, list]]:
    """The entries worst first, grouped by armature (ui.groups.grouped): [(armature or
    "", [(bone or object name, entry name), ...]), ...], the worst group first."""
    from ..ui.groups import grouped

    return grouped((*entry_group(entry, name), name) for name, entry in worst_first(found))


# The list's id names its group: "QUATBAKE_UL_report" + "_" + this + the group's
# index in report_groups (Blender prefixes the list type to the id it is given).
_GROUP_LIST_ID = "group"


# Per list (its group's index), whether its rows show their figures (ui.texts.
# figures_fit of all its names): set by the panel's draw just before it draws the list,
# read by the list's draw_item, which Blender calls inside template_list.
_LIST_FIGURES: dict[int, bool] = {}


def _group_index(list_id: str) -> int:
    tail = list_id.rpartition(_GROUP_LIST_ID)[2]
    return int(tail) if tail.isdigit() else -1


def group_header(layout, armature: str) -> None:
    """The header row of an armature's bones: its name once, not on every row."""
    layout.label(text=armature, icon='ARMATURE_DATA', translate=False)


class QUATBAKE_UL_report(bpy.types.UIList):
    """The Difference Report's objects, worst first: verdict icon, name, degrees. One
    list per armature (its bones, each row led by the bone's name under the armature's
    header) and one for the other objects."""

    bl_idname = "QUATBAKE_UL_report"

    def filter_items(self, context, data, propname):
        rows = getattr(data, propname)
        flags = bpy.types.UI_UL_list.filter_items_by_name(
            self.filter_name, self.bitflag_filter_item, rows, "name") or \
            [self.bitflag_filter_item] * len(rows)
        groups = report_groups(results(context.scene))
        k = _group_index(self.list_id)
        if 0 <= k < len(groups):
            members = {name for _short, name in groups[k][1]}
            flags = [f if row.name in members else 0 for f, row in zip(flags, rows)]
        return flags, []

    def draw_item(self, context, layout, data, item, icon, active_data, active_prop, index=0):
        from ..ui.texts import name_and_figure

        entry = results(context.scene).get(item.name, {})
        verdict, figure = row_figures(context.scene, item)
        icon = VERDICT_ICONS.get(verdict, 'ERROR')
        name = entry_group(entry, item.name)[1]    # a bone's own name: its group says the rig
        if verdict not in VERDICT_ICONS or verdict == VERDICT_SKIPPED:
            layout.label(text=name, icon=icon, translate=False)
            return
        name_and_figure(layout, context, name, f"{figure:.1f}\u00b0", icon,
                        _LIST_FIGURES.get(_group_index(self.list_id), False), panel=ROWS_PANEL)


def _draw_entry(layout, context, name: str, entry: dict, stale: bool) -> None:
    """One result's box; ``name`` is the entry's (operators find it by it), the box
    shows a bone's own name (its armature is the group header above)."""
    from ..ui.texts import figures_fit, name_and_figure, wrapped_label

    key, name = name, entry_group(entry, name)[1]
    box = layout.box()
    if entry.get("error") and not entry.get("pending"):
        wrapped_label(box, context, name, icon='ERROR', panel=PANEL_NAME, translate=False)
        wrapped_label(box, context, entry["error"], panel=PANEL_NAME, translate=False)
        return
    if entry.get("skipped") and not entry.get("pending") and not stale:
        # No rotation to compare: why, and the first thing its location keys show.
        wrapped_label(box, context, name, icon=VERDICT_ICONS[VERDICT_SKIPPED], panel=PANEL_NAME,
                      translate=False)
        wrapped_label(box, context, entry["skipped"], panel=PANEL_NAME, translate=False)
        if entry.get("advice"):
            wrapped_label(box, context, "Location: " + panel_sentence(entry["advice"]),
                          panel=PANEL_NAME, translate=False)
        return
    row = box.row(align=True)
    if stale or "verdict" not in entry:
        row.label(text=name, icon='TIME', translate=False)
        op = row.operator("quatbake.analyze", text="Re-run", text_ctxt=translations.CONTEXT,
                          icon='FILE_REFRESH')
        # A bone's entry is found by its label ("Rig: spine"), an object's by its name.
        op.object_name = key if entry.get("bone") else entry.get("object", key)
        why = ("Not re-analysed after the bake (too long to do at once): press Re-run."
               if entry.get("pending") else "Out of date: the keys changed since this analysis.")
        wrapped_label(box, context, why, panel=PANEL_NAME)
        return
    # Name and figure on one row, then one sentence: the before -> after of a
    # bake, else the advice (which already says "long way" or "nothing to do").
    # A separate "180.0 deg at frame 90: long way round" line repeated the
    # advice and pushed the Re-bake button off a 900-pixel screen.
    name_and_figure(row, context, name, f"{entry['max_deviation_deg']:.1f}\u00b0",
                    VERDICT_ICONS[entry["verdict"]],
                    figures_fit(context, [name]), panel=ROWS_PANEL)
    op = row.operator("quatbake.jump_to_worst", text="", icon='TIME')
    op.object_name = key
    wrapped_label(box, context, panel_sentence(entry), panel=PANEL_NAME, translate=False)
    # Issue 11's split, only where it says something: a visible difference
    # (how much of it is off the path, the rest being timing), kept spins, steps.
    # Fine objects get no extra line, so two results and Re-bake still fit.
    extra = []
    if entry["max_deviation_deg"] >= FINE_DEG:
        extra.append(iface_("Off the path: {:.2f}\u00b0 (the rest is timing)").format(
            entry['max_path_deviation_deg']))
    if (entry.get("max_between_deviation_deg") or 0.0) - entry["max_deviation_deg"] >= FINE_DEG:
        # What the frames hide (a wrap between neighbouring frames: 0 deg off at both,
        # seen by motion blur); where the frames show as much, the line would only take
        # the room the legend and Re-bake need on a 900-pixel screen.
        extra.append(iface_("Between frames: {:.1f}\u00b0 at frame {}").format(
            entry['max_between_deviation_deg'], label(entry['worst_between_frame'])))
    if entry.get("spins"):
        spins = ", ".join(span(a, b) for a, b in entry["spins"])
        extra.append(iface_("Keyed spins: {}").format(spins))
    if entry.get("steps"):
        extra.append(iface_("Stepped intervals: {:d}").format(entry['steps']))
    if extra:
        wrapped_label(box, context, "; ".join(extra) + ".", panel=PANEL_NAME, translate=False)


class _AnalyzePanel:
    bl_region_type = 'UI'
    bl_category = "QuatBake"
    bl_label = PANEL_NAME
    bl_order = 0   # diagnose first, then Re-bake (act), then the Overlay (ui.panel)

    def draw(self, context):
        from ..ui.texts import figures_fit, is_narrow, start_panel, wrapped_label

        start_panel(PANEL_NAME)
        start_panel(ROWS_PANEL)
        layout = self.layout
        settings = context.scene.quatbake
        row = layout.row(align=True)
        row.operator("quatbake.analyze", icon='GRAPH')
        row.operator("quatbake.export_report", text="", icon='EXPORT')
        col = layout.column()
        # Narrow, a split label would cut both ("C..." beside "Ba..."): the
        # choice alone, full width (its tooltip says what it is).
        col.use_property_split = not is_narrow(context)
        col.use_property_decorate = False
        col.prop(settings, "compare_method", text="Compare" if col.use_property_split else "",
                 text_ctxt=translations.CONTEXT)
        found = results(context.scene)
        found = {n: e for n, e in found.items() if e.get("object", n) in context.scene.objects}
        if not found:
            wrapped_label(layout, context, "Select animated objects and press Analyze.",
                          panel=PANEL_NAME)
            layout.operator("quatbake.demo_scene", icon='SCENE_DATA')
            return
        groups = report_groups(found)
        # The list's rows are written with the results; if they do not match
        # (an undo restored older rows), the boxes are drawn instead.
        if len(found) <= MAX_BOXES or len(settings.report_rows) != len(results(context.scene)):
            shown = 0
            for armature, members in groups:
                if shown >= MAX_BOXES:
                    break
                if armature:
                    group_header(layout, armature)
                for _short, name in members[:MAX_BOXES - shown]:
                    _draw_entry(layout, context, name, found[name],
                                is_stale(context.scene, name))
                    shown += 1
            return
        # One list per armature under its header (and one for the objects): rows
        # lead with the bone's name. Shorter lists when there are several, so the
        # Re-bake panel under this one stays on a 900-pixel screen.
        rows = LIST_ROWS if len(groups) == 1 else LIST_ROWS_GROUPED
        for k, (armature, members) in enumerate(groups[:MAX_LISTS]):
            if armature:
                group_header(layout, armature)
            _LIST_FIGURES[k] = figures_fit(context, [short for short, _name in members])
            layout.template_list(QUATBAKE_UL_report.bl_idname, f"{_GROUP_LIST_ID}{k}",
                                 settings, "report_rows", settings, "report_index", rows=rows)
        if len(groups) > MAX_LISTS:
            wrapped_label(layout, context, iface_("...and {:d} more armatures").format(
                len(groups) - MAX_LISTS), panel=PANEL_NAME, translate=False)
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


classes = (QUATBAKE_UL_report, QUATBAKE_PT_analyze, QUATBAKE_PT_analyze_graph)
register, unregister = bpy.utils.register_classes_factory(classes)
