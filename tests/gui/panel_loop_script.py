"""Runs INSIDE Blender 3.4.1's window (started by tests/gui/test_panel_gui.py).

The animator's loop of issue 14, at 1600x900 with the QuatBake sidebar tab
open: a camera keyed in XYZ Euler with a 170 -> -170 degree wrap and an empty
in quaternion mode with one key's sign flipped. Steps, each after a redraw,
each with a screenshot in ARTIFACTS (argument 3):

1. Analyze, overlay on             -> 1_analyzed.png
2. Re-bake (quatbake.bake)         -> 2_baked.png
   the redo panel opened by a click -> 2b_redo_panel.png
3. interface scale 2 (the sidebar grows with it)
                                   -> 3_ui_scale_2.png
4. six objects analysed (the compact list)
                                   -> 4_many_objects.png
5. zoomed far out (thinned triads)  -> 5_zoomed_out.png
6. a preset applied: the preset menu's label (wm.call_menu showed no menu
   under Xvfb, so there is no picture of it)
7. the sidebar dragged to half its width -> 7_half_width.png

Per step it records the report entries, whether they are stale, the
legend, the sidebar region's place in the window and every wrapped line the
panels drew with its measured width (addon/ui/texts.drawn_lines). The test
decides from the JSON and the pixels.
"""
import math
import os
import sys

import bpy
from mathutils import Quaternion

RESULT_PATH, REPO_ROOT, ARTIFACTS = sys.argv[sys.argv.index("--") + 1:][:3]
sys.path.insert(0, os.path.join(REPO_ROOT, "tests", "blender"))
sys.path.insert(0, os.path.join(REPO_ROOT, "tests", "gui"))
import timed_steps  # noqa: E402  (a sibling file: importable only after the line above)

result = {"errors": [], "steps": {}, "blender": bpy.app.version_string}


def _build():
    import numpy as np

    import scenes
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    cam = scenes.make_animated_object(
        "ShotCam", 'XYZ', [1.0, 60.0, 120.0],
        np.radians([[80.0, 0.0, 100.0], [80.0, 0.0, 170.0], [80.0, 0.0, -170.0]]),
        location=np.array([[-6.0, -3.0, 0.0], [0.0, 0.0, 0.0], [6.0, -3.0, 0.0]]),
        data=bpy.data.cameras.new("ShotCam"))
    keys = []
    for deg in (0.0, 60.0, 120.0):
        q = Quaternion((0.0, 0.0, 1.0), math.radians(deg))
        keys.append(list(q))
    keys[1] = [-v for v in keys[1]]            # one key's sign flipped
    empty = scenes.make_animated_object(
        "Empty", 'QUATERNION', [1.0, 60.0, 120.0], np.array(keys),
        location=np.array([[-6.0, 3.0, 0.0], [0.0, 4.0, 0.0], [6.0, 3.0, 0.0]]))
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 120
    scene.frame_set(1)
    scenes.select_only(cam, empty)
    return cam, empty


def _set_view(area):
    space = area.spaces.active
    space.show_region_ui = True
    space.show_gizmo = False
    space.overlay.show_floor = False
    space.overlay.show_axis_x = space.overlay.show_axis_y = space.overlay.show_axis_z = False
    space.overlay.show_cursor = False
    rv3d = space.region_3d
    rv3d.view_perspective = 'ORTHO'
    rv3d.view_rotation = Quaternion()
    rv3d.view_location = (0.0, 0.0, 0.0)
    rv3d.view_distance = 16.0


def _to_quatbake_tab(window, regions):
    """Ctrl+wheel over the sidebar's tabs steps through the categories (Item,
    Tool, View, then the add-ons'); Blender 3.4 has no Python way to pick one."""
    ui = regions['UI']
    x = ui.x + ui.width - 8
    y = ui.y + ui.height // 2
    window.event_simulate(type='MOUSEMOVE', value='NOTHING', x=x, y=y)
    for _ in range(3):
        window.event_simulate(type='WHEELDOWNMOUSE', value='PRESS', x=x, y=y, ctrl=True)


def _record(name: str) -> None:
    from quatbake.addon.analyze import entries as report_results
    from quatbake.addon.overlay import draw as overlay
    from quatbake.addon.ui import texts as ui_text

    scene = bpy.context.scene
    window, area, regions = timed_steps.areas()
    ui = regions['UI']
    found = report_results.results(scene)
    legend = overlay.legend()
    result["steps"][name] = {
        "window": [window.width, window.height],
        "sidebar": [ui.x, ui.y, ui.width, ui.height],
        "viewport": [regions['WINDOW'].x, regions['WINDOW'].y, regions['WINDOW'].width,
                     regions['WINDOW'].height],
        "ui_scale": bpy.context.preferences.system.ui_scale,
        "results": {n: {k: v for k, v in e.items() if k != "fingerprint"}
                    for n, e in found.items()},
        "stale": {n: report_results.is_stale(scene, n) for n in found},
        "before_after": {n: report_results.before_after(e) for n, e in found.items()},
        "legend": {"long_arc_count": legend.long_arc_count,
                   "fixed_long_arc_count": legend.fixed_long_arc_count,
                   "objects": legend.objects, "speed_max": legend.speed_max},
        "lines": ui_text.drawn_lines(),
        "has_last_bake": scene.quatbake.has_last_bake,
    }


def _shot(name: str) -> None:
    window, area, regions = timed_steps.areas()
    with bpy.context.temp_override(window=window, area=area, region=regions['WINDOW']):
        bpy.ops.screen.screenshot(filepath=os.path.join(ARTIFACTS, name))


step, finish = timed_steps.stepper(result, RESULT_PATH)


def s1_setup():
    timed_steps.enable_quatbake(result)
    _build()
    window, area, regions = timed_steps.areas()
    _set_view(area)
    timed_steps.redraw()


def s1b_tab_and_analyze():
    window, area, regions = timed_steps.areas()
    _to_quatbake_tab(window, regions)
    scene = bpy.context.scene
    scene.quatbake.method = 'SLERP'
    scene.quatbake.overlay_step = 10
    scene.quatbake.overlay_size = 0.8
    scene.quatbake.overlay_line_width = 3.0
    # These shots measure the overlay's lines (pixels near the path, the band's
    # cyan, the ghosts on and off): the legend in the viewport's corner is off;
    # tests/gui/test_overlay_walk_gui.py shows it.
    scene.quatbake.overlay_show_legend = False
    scene.quatbake.show_overlay = True
    with bpy.context.temp_override(**timed_steps.view3d_override()):
        result["analyze"] = sorted(bpy.ops.quatbake.analyze())
    timed_steps.redraw()


def s2_shot_analyzed():
    _shot("1_analyzed.png")
    _record("analyzed")
    with bpy.context.temp_override(**timed_steps.view3d_override()):
        result["bake"] = sorted(bpy.ops.quatbake.bake('EXEC_DEFAULT', True))
    # What the redo panel (F9) shows: the last registered operator's properties.
    last = bpy.context.window_manager.operators[-1]
    result["redo"] = {"operator": last.bl_idname, "use_frame_range": last.properties.use_frame_range,
                      "frame_start": last.properties.frame_start,
                      "frame_end": last.properties.frame_end,
                      "scene_frame_end": bpy.context.scene.quatbake.frame_end}
    timed_steps.redraw()


def s3_shot_baked():
    _shot("2_baked.png")
    _record("baked")
    # Open the redo panel (F9's "Adjust Last Operation", folded at the viewport's
    # bottom left) with a click, as a user does.
    window, area, regions = timed_steps.areas()
    hud = regions.get('HUD')
    result["hud_folded"] = None if hud is None else [hud.x, hud.y, hud.width, hud.height]
    if hud is not None:
        x, y = hud.x + hud.width // 2, hud.y + hud.height // 2
        window.event_simulate(type='MOUSEMOVE', value='NOTHING', x=x, y=y)
        window.event_simulate(type='LEFTMOUSE', value='PRESS', x=x, y=y)
        window.event_simulate(type='LEFTMOUSE', value='RELEASE', x=x, y=y)
    timed_steps.redraw()


def s3b_shot_redo_panel():
    _shot("2b_redo_panel.png")
    hud = timed_steps.areas()[2].get('HUD')
    result["hud_open"] = None if hud is None else [hud.x, hud.y, hud.width, hud.height]
    # Half the sidebar's width cannot be set from Python in 3.4 (region.width is
    # read-only; a simulated drag of its edge hung the window). Interface scale
    # 2 (the sidebar grows with it) checks the wrapping at another scale only.
    bpy.context.preferences.view.ui_scale = 2.0
    timed_steps.redraw()


def s4_shot_scale_2():
    _shot("3_ui_scale_2.png")
    _record("ui_scale_2")
    bpy.context.preferences.view.ui_scale = 1.0
    timed_steps.redraw()


# Ghosts on a dark and on a light-grey background: each shot with the ghosts
# on and off, so the test sees exactly the ghosts' pixels.
GHOST_SHOTS = (("dark", True), ("dark", False), ("light", True), ("light", False))


def _ghost_shot(k):
    def run():
        if k > 0:
            background, ghosts = GHOST_SHOTS[k - 1]
            _shot(f"ghosts_{background}_{'on' if ghosts else 'off'}.png")
        if k == len(GHOST_SHOTS):
            return
        background, ghosts = GHOST_SHOTS[k]
        shading = timed_steps.areas()[1].spaces.active.shading
        shading.background_type = 'VIEWPORT'
        shading.background_color = (0.05, 0.05, 0.05) if background == "dark" else (0.6, 0.6, 0.6)
        bpy.context.scene.quatbake.overlay_show_ghost = ghosts
        timed_steps.redraw()
    return run


def s4b_many_objects():
    import numpy as np

    import scenes
    bpy.context.scene.quatbake.overlay_show_ghost = True
    timed_steps.areas()[1].spaces.active.shading.background_type = 'THEME'
    # More objects than the report gives boxes to: the compact list, worst first.
    objects = [bpy.data.objects["ShotCam"], bpy.data.objects["Empty"]]
    for k, deg in enumerate((10.0, 60.0, 120.0, 30.0)):
        objects.append(scenes.make_animated_object(
            f"Prop{k}", 'XYZ', [1.0, 30.0], np.radians([[0, 0, 0], [0, 0, deg]]),
            location=np.array([[-6.0, -6.0 - k, 0.0], [6.0, -6.0 - k, 0.0]])))
    scenes.select_only(*objects)
    with bpy.context.temp_override(**timed_steps.view3d_override()):
        result["analyze_many"] = sorted(bpy.ops.quatbake.analyze())
    timed_steps.redraw()


def s5_shot_many():
    from quatbake.addon.overlay import draw as overlay

    _shot("4_many_objects.png")
    _record("many")
    result["rows"] = [r.name for r in bpy.context.scene.quatbake.report_rows]
    result["lod_level_near"] = overlay.drawn_lod_level()
    timed_steps.areas()[1].spaces.active.region_3d.view_distance = 400.0     # zoomed far out
    timed_steps.redraw()


def s6_shot_zoomed_out():
    from quatbake.addon.overlay import draw as overlay

    _shot("5_zoomed_out.png")
    result["lod_level_far"] = overlay.drawn_lod_level()


bpy.context.preferences.view.show_splash = False
# Each step after a redraw of the previous one: the lines are recorded by the
# draw, so a shot comes one redraw after the change it shows.
def s7_apply_preset():
    from quatbake.addon.bake import presets

    scene = bpy.context.scene
    path = presets.preset_files()["Camera move, even speed"]
    with bpy.context.temp_override(**timed_steps.view3d_override()):
        result["apply_preset"] = sorted(bpy.ops.quatbake.apply_preset(filepath=path))
    result["preset_label"] = presets.active_preset_label(scene.quatbake)
    timed_steps.redraw()


# Halving the sidebar: drag its left edge (the resize zone starts 8 px inside
# the region under Xvfb's 3.4.1; one event per timer step, the zone needs the
# pointer over it first). Region widths cannot be set from Python in 3.4.
_DRAG = {}


def s9_drag_press():
    window, area, regions = timed_steps.areas()
    ui = regions['UI']
    _DRAG.update(window=window, y=ui.y + ui.height // 2, start=ui.x + 8,
                 end=ui.x + 8 + ui.width // 2, width_before=ui.width)
    window.event_simulate(type='MOUSEMOVE', value='NOTHING', x=_DRAG["start"], y=_DRAG["y"])


def s9b_drag_move():
    window, y = _DRAG["window"], _DRAG["y"]
    window.event_simulate(type='LEFTMOUSE', value='PRESS', x=_DRAG["start"], y=y)


def s9c_drag_release():
    window, y = _DRAG["window"], _DRAG["y"]
    for x in range(_DRAG["start"], _DRAG["end"] + 1, 10):
        window.event_simulate(type='MOUSEMOVE', value='NOTHING', x=x, y=y)
    window.event_simulate(type='LEFTMOUSE', value='RELEASE', x=_DRAG["end"], y=y)
    timed_steps.redraw()


def s9d_redraw_half():
    result["sidebar_widths"] = [_DRAG["width_before"], timed_steps.areas()[2]['UI'].width]
    timed_steps.redraw()


def s10_shot_half():
    _shot("7_half_width.png")
    _record("half_width")


STEPS = [s1_setup, s1b_tab_and_analyze, s2_shot_analyzed, s3_shot_baked, s3b_shot_redo_panel,
         s4_shot_scale_2,
         *(_ghost_shot(k) for k in range(len(GHOST_SHOTS) + 1)), s4b_many_objects,
         s5_shot_many, s6_shot_zoomed_out, s7_apply_preset,
         s9_drag_press, s9b_drag_move, s9c_drag_release, s9d_redraw_half, s10_shot_half]
chain = None
for fn in reversed(STEPS):
    chain = step(fn, chain)
bpy.app.timers.register(chain, first_interval=1.0)
