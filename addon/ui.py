# SPDX-License-Identifier: GPL-3.0-or-later
"""The main panel, "QuatBake", in the 3D Viewport and Graph Editor sidebars.

A panel class has one space type, so the same draw code is registered twice:
``QUATBAKE_PT_main`` (3D Viewport) and ``QUATBAKE_PT_main_graph`` (Graph
Editor). Sub-panels of other modules use ``bl_parent_id`` with these names.
"""
import bpy
from bpy.app.translations import pgettext_iface as iface_
from bpy.types import Panel

from .ops_bake import QUATBAKE_OT_bake, QUATBAKE_OT_revert
from .presets import QUATBAKE_MT_presets

# The engine (.bake) is imported where it is used, on the panel's first draw:
# registering must not load it (measured in benchmarks/bench_register.py).

# Checking every selected object for something to revert on each redraw would
# cost time in huge selections; the first few decide whether the button is live
# (the operator itself still checks them all).
_REVERT_CHECK_LIMIT = 64


def _anything_to_revert(context) -> bool:
    from . import bake

    if getattr(context, "mode", "") == 'POSE':
        from .transform import transforms_of_pose_bones

        objects = transforms_of_pose_bones(
            (getattr(context, "selected_pose_bones", None) or [])[:_REVERT_CHECK_LIMIT])
    else:
        objects = getattr(context, "selected_objects", None) or []
    return any(bake.can_revert(obj) for obj in objects[:_REVERT_CHECK_LIMIT])


class _MainPanel:
    bl_region_type = 'UI'
    bl_category = "QuatBake"
    bl_label = "QuatBake"

    @classmethod
    def poll(cls, context) -> bool:
        return getattr(context.scene, "quatbake", None) is not None

    def draw_header_preset(self, context):
        self.layout.menu(QUATBAKE_MT_presets.bl_idname, text="", icon='PRESET')

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        layout.use_property_decorate = False
        settings = context.scene.quatbake

        col = layout.column()
        col.menu(QUATBAKE_MT_presets.bl_idname, icon='PRESET')
        col.prop(settings, "method")
        col.prop(settings, "location_method")
        col.prop(settings, "constant_speed")
        col.prop(settings, "output_mode")

        col = layout.column()
        col.prop(settings, "use_frame_range")
        sub = col.column(align=True)
        sub.active = settings.use_frame_range
        sub.prop(settings, "frame_start")
        sub.prop(settings, "frame_end")
        col.prop(settings, "frame_step")
        col.prop(settings, "union_keys")

        row = layout.row(align=True)
        row.scale_y = 1.4
        row.operator(QUATBAKE_OT_bake.bl_idname, text="Re-bake", icon='ACTION')
        sub = row.row(align=True)
        sub.enabled = _anything_to_revert(context)
        sub.operator(QUATBAKE_OT_revert.bl_idname, text="Revert", icon='LOOP_BACK')

        box = layout.box()
        box.use_property_split = False
        if not settings.has_last_bake:
            box.label(text="No bake in this scene yet", icon='INFO')
            return
        col = box.column(align=True)
        col.label(text=iface_("Last bake"), icon='CHECKMARK', translate=False)
        col.label(text=iface_("Objects baked: {:d}").format(settings.last_objects_baked),
                  translate=False)
        col.label(text=iface_("Frames written: {:d}").format(settings.last_frames_written),
                  translate=False)
        col.label(
            text=iface_("Largest difference: {:.3f}\u00b0").format(settings.last_max_deviation_deg),
            translate=False,
        )


class QUATBAKE_PT_main(_MainPanel, Panel):
    """Re-bake rotations with real rotation interpolation"""

    bl_idname = "QUATBAKE_PT_main"
    bl_space_type = 'VIEW_3D'


class QUATBAKE_PT_main_graph(_MainPanel, Panel):
    """Re-bake rotations with real rotation interpolation"""

    bl_idname = "QUATBAKE_PT_main_graph"
    bl_space_type = 'GRAPH_EDITOR'


classes = (QUATBAKE_PT_main, QUATBAKE_PT_main_graph)
register, unregister = bpy.utils.register_classes_factory(classes)
