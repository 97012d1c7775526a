# SPDX-License-Identifier: GPL-3.0-or-later
"""The main panel, "QuatBake", in the 3D Viewport and Graph Editor sidebars.

A panel class has one space type, so the same draw code is registered twice:
``QUATBAKE_PT_main`` (3D Viewport) and ``QUATBAKE_PT_main_graph`` (Graph
Editor). It draws nothing itself: the features' sub-panels hang from it in the
order of the work (``bl_order``): Difference Report (diagnose, ``analyze.panel``),
Overlay (preview, ``overlay.panel``, 3D Viewport only), Re-bake (act,
``bake.panel``) and Export Check (``export_check.panel``).
"""
import bpy
from bpy.types import Panel


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


class QUATBAKE_PT_main(_MainPanel, Panel):
    """Re-bake rotations with real rotation interpolation"""

    bl_idname = "QUATBAKE_PT_main"
    bl_space_type = 'VIEW_3D'


class QUATBAKE_PT_main_graph(_MainPanel, Panel):
    """Re-bake rotations with real rotation interpolation"""

    bl_idname = "QUATBAKE_PT_main_graph"
    bl_space_type = 'GRAPH_EDITOR'


# The main panels register before every feature's sub-panels (addon/__init__'s
# one ordered list), so every Blender lists those in the order of the work even
# where bl_order is not honoured for add-on panels.
main_classes = (QUATBAKE_PT_main, QUATBAKE_PT_main_graph)
register, unregister = bpy.utils.register_classes_factory(main_classes)
