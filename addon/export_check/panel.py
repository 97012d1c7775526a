# SPDX-License-Identifier: GPL-3.0-or-later
"""The "Export Check (glTF)" sub-panel: the button, and per object the last check's
largest difference, key count, interpolation and causes."""
import textwrap

import bpy
from bpy.types import Panel

from .ops import results

_WRAP_CHARS = 32


class _ExportCheckPanel:
    bl_region_type = 'UI'
    bl_category = "QuatBake"
    bl_label = "Export Check (glTF)"
    bl_options = {'DEFAULT_CLOSED'}
    bl_order = 3   # last, after the Overlay (ui.panel)

    def draw(self, context):
        layout = self.layout
        layout.operator("quatbake.export_check", icon='EXPORT')
        found = results(context.scene)
        if not found:
            layout.label(text="Select objects and check their glTF export.")
            return
        for name, s in found.items():
            box = layout.box()
            if s.get("error") or s.get("skipped"):
                box.label(text=name, icon='ERROR' if s.get("error") else 'INFO')
                for line in textwrap.wrap(s.get("error") or s["skipped"], _WRAP_CHARS):
                    box.label(text=line)
                continue
            box.label(text=name, icon='ERROR' if s["causes"] else 'CHECKMARK')
            col = box.column(align=True)
            col.label(
                text=f"Max deviation: {s['max_deviation_deg']:.3g} deg (frame {s['worst_frame']:g})"
            )
            col.label(text=f"{s['key_count']} rotation keys, {s['interpolation']}")
            if s.get("bezier_max_deg") is not None:
                col.label(text=f"Quarter frames: {s['bezier_max_deg']:.3g} deg")
            for cause, count in s["causes"].items():
                col.label(text=f"{cause}: {count} interval(s)")
            if s["causes"] or s.get("linear_is_better"):
                for line in textwrap.wrap(s["advice"], _WRAP_CHARS):
                    col.label(text=line)
            for line in textwrap.wrap(s.get("note", ""), _WRAP_CHARS):
                col.label(text=line)


class QUATBAKE_PT_export_check(_ExportCheckPanel, Panel):
    bl_idname = "QUATBAKE_PT_export_check"
    bl_space_type = 'VIEW_3D'
    bl_parent_id = "QUATBAKE_PT_main"


class QUATBAKE_PT_export_check_graph(_ExportCheckPanel, Panel):
    bl_idname = "QUATBAKE_PT_export_check_graph"
    bl_space_type = 'GRAPH_EDITOR'
    bl_parent_id = "QUATBAKE_PT_main_graph"


classes = (QUATBAKE_PT_export_check, QUATBAKE_PT_export_check_graph)
register, unregister = bpy.utils.register_classes_factory(classes)
