"""Runs INSIDE Blender 3.4.1's window (started by tests/gui/test_overlay_walk_gui.py).

The overlay on real work ('The panel on real work'): the CMU walk (tests/data/realdata/
bvh/cmu_12_01_walk.bvh) imported as an armature by Blender's own BVH importer and
selected in Object Mode (its 31 keyed bones), in a 1600x900 window with the QuatBake
tab open, the overlay on; then the demo scene. Steps, each after a redraw, each with a
screenshot in ARTIFACTS (argument 3):

1. Analyze and Re-bake the walk, seen from the front (the walk comes towards the
   viewer)                                   -> 1_walk_front.png
2. the same from the side                    -> 2_walk_side.png
3. Load Demo Scene, the overlay on, Analyze  -> 3_demo.png

Per step it records the viewport's and the sidebar's place in the window, the box the
viewport legend was drawn in (overlay.draw, region pixels), the triads the last draw
drew and the legend's numbers. The test decides from the JSON and the pixels.
"""
import os
import sys

import bpy
from mathutils import Quaternion

RESULT_PATH, REPO_ROOT, ARTIFACTS = sys.argv[sys.argv.index("--") + 1:][:3]
sys.path.insert(0, os.path.join(REPO_ROOT, "tests", "gui"))
import timed_steps  # noqa: E402  (a sibling file: importable only after the line above)

CMU = os.path.join(REPO_ROOT, "tests", "data", "realdata", "bvh", "cmu_12_01_walk.bvh")
FRONT = Quaternion((0.7071, 0.7071, 0.0, 0.0))
SIDE = Quaternion((0.5, 0.5, 0.5, 0.5))
result = {"errors": [], "steps": {}, "blender": bpy.app.version_string}


def _view(rotation) -> None:
    window, area, regions = timed_steps.areas()
    rv3d = area.spaces.active.region_3d
    rv3d.view_perspective = 'ORTHO'
    rv3d.view_rotation = rotation
    rv3d.view_location = (0.0, 0.0, 1.0)
    rv3d.view_distance = 40.0
    timed_steps.redraw()


def _shot(name: str) -> None:
    from quatbake.addon.overlay import draw as overlay

    window, area, regions = timed_steps.areas()
    path = os.path.join(ARTIFACTS, name + ".png")
    with bpy.context.temp_override(window=window, area=area, region=regions['WINDOW']):
        bpy.ops.screen.screenshot(filepath=path)
    view, ui = regions['WINDOW'], regions['UI']
    legend = overlay.legend()
    result["steps"][name] = {
        "shot": path,
        "window": [window.width, window.height],
        "viewport": [view.x, view.y, view.width, view.height],
        "sidebar": [ui.x, ui.y, ui.width, ui.height],
        "legend_box": list(overlay._STATE.legend_box or []) or None,
        "drawn_triads": overlay._STATE.drawn_triads,
        "objects": len(legend.objects),
        "speed_max": legend.speed_max,
        "has_last_bake": bpy.context.scene.quatbake.has_last_bake,
    }


step, finish = timed_steps.stepper(result, RESULT_PATH)


def s1_setup():
    timed_steps.enable_quatbake(result)
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    timed_steps.import_bvh(CMU)        # the importer's defaults: an armature
    rig = bpy.context.view_layer.objects.active
    rig.select_set(True)
    scene = bpy.context.scene
    scene.frame_set(scene.frame_start)
    window, area, regions = timed_steps.areas()
    space = area.spaces.active
    space.show_region_ui = True
    space.show_gizmo = False
    _view(FRONT)


def s2_click_quatbake_tab():
    window, area, regions = timed_steps.areas()
    path = os.path.join(ARTIFACTS, "0_tabs.png")
    with bpy.context.temp_override(window=window, area=area, region=regions['WINDOW']):
        bpy.ops.screen.screenshot(filepath=path)
    timed_steps.click_last_tab(path)


def s3_overlay_analyze_bake():
    settings = bpy.context.scene.quatbake
    settings.method = 'SLERP'
    settings.show_overlay = True
    with bpy.context.temp_override(**timed_steps.view3d_override()):
        result["analyze"] = sorted(bpy.ops.quatbake.analyze())
        result["bake"] = sorted(bpy.ops.quatbake.bake('EXEC_DEFAULT', True))
    # the pointer over the viewport: no tooltip or highlight in the pictures
    timed_steps.areas()[0].event_simulate(type='MOUSEMOVE', value='NOTHING', x=200, y=200)
    timed_steps.redraw()


def s4_shot_front():
    _shot("1_walk_front")
    _view(SIDE)


def s5_shot_side_then_demo():
    _shot("2_walk_side")
    window, area, regions = timed_steps.areas()
    with bpy.context.temp_override(window=window, area=area, region=regions['WINDOW']):
        result["demo"] = sorted(bpy.ops.quatbake.demo_scene())
    bpy.context.scene.quatbake.show_overlay = True
    with bpy.context.temp_override(**timed_steps.view3d_override()):
        result["demo_analyze"] = sorted(bpy.ops.quatbake.analyze())
    timed_steps.redraw()


def s6_shot_demo():
    _shot("3_demo")


# Before the window opens: the splash screen takes every event until it is closed.
bpy.context.preferences.view.show_splash = False
STEPS = [s1_setup, s2_click_quatbake_tab, s3_overlay_analyze_bake, s4_shot_front,
         s5_shot_side_then_demo, s6_shot_demo]
chain = None
for fn in reversed(STEPS):
    chain = step(fn, chain)
bpy.app.timers.register(chain, first_interval=1.0)
