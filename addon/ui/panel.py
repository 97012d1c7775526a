# SPDX-License-Identifier: GPL-3.0-or-later
"""The main panel, "QuatBake", in the 3D Viewport and Graph Editor sidebars.

A panel class has one space type, so the same draw code is registered twice:
``QUATBAKE_PT_main`` (3D Viewport) and ``QUATBAKE_PT_main_graph`` (Graph
Editor). It draws nothing itself: the features' sub-panels hang from it (``bl_order``):
Difference Report (diagnose, ``analyze.panel``), Re-bake (act, ``bake.panel``, with
its Settings sub-panel closed at first), Overlay (preview, ``overlay.panel``, 3D
Viewport only) and Export Check (``export_check.panel``, closed at first).

Why Re-bake comes before the Overlay (issue 24): with the overlay on and its legend
open, a 1600x900 window showed the legend and put the Re-bake button and the line
saying what the bake did below the bottom of the screen. What is pressed and what
it answers are kept where they are seen without scrolling: above them only the
Difference Report, whose height is bounded (up to three boxes, or short lists
grouped by armature and one box of details); below them what may grow: the
bake's notes, the Settings sub-panel, the overlay's legend (a line per kind of
band it draws, and the objects it cannot draw) and the Export Check. The legend
is a key read while looking at the viewport, not a step to pass before baking.
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
# one ordered list: Difference Report, Re-bake, Overlay, Export Check), so every
# Blender lists those in the same order even where bl_order is not honoured.
main_classes = (QUATBAKE_PT_main, QUATBAKE_PT_main_graph)
register, unregister = bpy.utils.register_classes_factory(main_classes)
