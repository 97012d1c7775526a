# SPDX-License-Identifier: GPL-3.0-or-later
"""The "Export Check (glTF)" sub-panel: the button, and per object (or pose bone) the
last check's largest difference, key count, interpolation and causes, worst first
(ops._found). Lines wrap to the sidebar's measured width (ui.texts), never cut."""
import re

import bpy
from bpy.types import Panel

from ...core.frames import label
from ...core.words import counted
from ..ui import texts, translations
from .ops import results

PANEL = "export_check"

# The command lines an advice names beside the panel's controls: "Re-bake with Key
# Tolerance 0.01 and Keys: Linear (quatbake bake --tolerance 0.01 --keys linear)" and
# "(Re-bake, or quatbake bake)". The JSON, the
# HTML page and the CLI's table keep them; in the sidebar they broke over four lines of
# options cut from their values (the window walk), and the control is named already.
_COMMAND = re.compile(r" \(quatbake [^()]*\)|, or quatbake bake,?")


# What a line must not break inside, while it fits one (the window walk saw "Keys: /
# Linear", "Key Tolerance / 0.01", "up to 98 / deg", "(208 / bytes)", "at frame / 13").
_TOGETHER = re.compile(r"Keys: Linear|Key Tolerance [\d.]+|frames? [\d.]+"
                       r"|[\d.]+(?:e[-+]?\d+)? (?:deg\b|bytes\b|scene units|intervals?\b"
                       r"|Linear keys|Bezier keys|keys\b)")


def panel_text(advice: str) -> str:
    """``advice`` as the panel shows it: the panel's controls, without the command lines
    named beside them; a control and its value, and a figure and its unit, kept on one
    line while they fit one (texts.KEEP_TOGETHER)."""
    return _TOGETHER.sub(lambda m: m.group(0).replace(" ", texts.KEEP_TOGETHER),
                         _COMMAND.sub("", advice))


class _ExportCheckPanel:
    bl_region_type = 'UI'
    bl_category = "QuatBake"
    bl_label = "Export Check (glTF)"
    bl_options = {'DEFAULT_CLOSED'}
    bl_order = 3   # last, after the Overlay (ui.panel)

    def draw(self, context):
        layout = self.layout
        texts.start_panel(PANEL)
        layout.operator("quatbake.export_check", icon='EXPORT')
        found = results(context.scene)
        if not found:
            texts.wrapped_label(layout, context, "Select objects and check their glTF export.",
                                panel=PANEL)
            return
        for name, s in found.items():
            box = layout.box()
            if s.get("error") or s.get("skipped"):
                texts.wrapped_label(box, context, name, 'ERROR' if s.get("error") else 'INFO',
                                    PANEL, translate=False)
                texts.wrapped_label(box, context, s.get("error") or s["skipped"], panel=PANEL,
                                    translate=False)
                continue
            texts.wrapped_label(box, context, name, 'ERROR' if s["causes"] else 'CHECKMARK',
                                PANEL, translate=False)
            col = box.column(align=True)
            # The panel's own lines are patterns translated before their figures go in.
            iface_ = translations.iface
            lines = [iface_("Max deviation {:.3g}\u00b0 at frame {}").format(
                         s['max_deviation_deg'], label(s['worst_frame'])),
                     s.get("keys_text") or iface_("{:d} rotation keys, {}").format(
                         s['key_count'], s['interpolation'])]
            if s.get("bezier_max_deg") is not None:
                lines.append(iface_("Quarter frames: {:.3g}\u00b0").format(s['bezier_max_deg']))
            # Counted per interval; inherited and not_exported are said by the advice.
            lines += [f"{cause}: {counted(count, 'interval')}"
                      for cause, count in s["causes"].items()
                      if cause not in ("inherited", "not_exported")]
            if s["causes"] or s.get("linear_is_better"):
                lines.append(panel_text(s["advice"]))
            if s.get("note"):
                lines.append(s["note"])
            for line in lines:
                texts.wrapped_label(col, context, line, panel=PANEL, translate=False)


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
