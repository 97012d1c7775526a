"""Runs INSIDE Blender 3.4.1's window (started by tests/gui/test_panel_layout_gui.py).

Issue 24's layout findings on a real capture: the CMU walk (tests/data/realdata/bvh/
cmu_12_01_walk.bvh) imported as an armature by Blender's own BVH importer, selected in
Object Mode (its 31 keyed bones), in a 1600x900 window with the QuatBake tab open at
the sidebar's default width, the overlay on and its legend open. Steps, each after a
redraw, each with a screenshot in ARTIFACTS (argument 3):

1. Analyze                          -> 1_walk_analyzed_en.png
2. Re-bake (Slerp)                  -> 2_walk_baked_en.png
3. the interface in Chinese         -> 3_walk_baked_zh.png
4. the Settings sub-panel clicked open (its header found in the last screenshot)
                                    -> 4_settings_zh.png
5. back to English                  -> 5_settings_en.png

Per step it records the sidebar's place in the window, the panels' wrapped lines and
property labels with their measured widths (addon/ui/texts.drawn_lines), and the
Difference Report's rows. The test decides from the JSON and the pixels.
"""
import os
import sys

import bpy
from mathutils import Quaternion

RESULT_PATH, REPO_ROOT, ARTIFACTS = sys.argv[sys.argv.index("--") + 1:][:3]
sys.path.insert(0, os.path.join(REPO_ROOT, "tests", "gui"))
import header_bands  # noqa: E402  (a sibling file: importable only after the line above)
import timed_steps  # noqa: E402

CMU = os.path.join(REPO_ROOT, "tests", "data", "realdata", "bvh", "cmu_12_01_walk.bvh")
result = {"errors": [], "steps": {}, "blender": bpy.app.version_string,
          "header_rgb": list(bpy.context.preferences.themes[0].view_3d.space.panelcolors.header)}


def _shot(name: str) -> str:
    window, area, regions = timed_steps.areas()
    path = os.path.join(ARTIFACTS, name)
    with bpy.context.temp_override(window=window, area=area, region=regions['WINDOW']):
        bpy.ops.screen.screenshot(filepath=path)
    return path


def _record(name: str, shot: str) -> None:
    from quatbake.addon.ui import texts as ui_text

    window, area, regions = timed_steps.areas()
    ui = regions['UI']
    settings = bpy.context.scene.quatbake
    result["steps"][name] = {
        "shot": shot,
        "window": [window.width, window.height],
        "sidebar": [ui.x, ui.y, ui.width, ui.height],
        "ui_scale": bpy.context.preferences.system.ui_scale,
        "language": bpy.context.preferences.view.language,
        "lines": ui_text.drawn_lines(),
        "labels": getattr(ui_text, "drawn_labels", dict)(),
        "rows": [r.name for r in settings.report_rows],
        "has_last_bake": settings.has_last_bake,
    }


def _language(code: str) -> None:
    view = bpy.context.preferences.view
    view.language = code
    view.use_translate_interface = code != 'en_US'


step, finish = timed_steps.stepper(result, RESULT_PATH)


def s1_setup():
    timed_steps.enable_quatbake(result)
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    timed_steps.import_bvh(CMU)        # the importer's defaults: an armature
    rig = bpy.context.view_layer.objects.active
    result["armature"] = rig.name
    rig.select_set(True)
    scene = bpy.context.scene
    scene.frame_set(scene.frame_start)
    window, area, regions = timed_steps.areas()
    space = area.spaces.active
    space.show_region_ui = True
    space.show_gizmo = False
    rv3d = space.region_3d
    rv3d.view_perspective = 'ORTHO'
    rv3d.view_rotation = Quaternion((0.7071, 0.7071, 0.0, 0.0))     # from the front
    rv3d.view_location = (0.0, 0.0, 1.0)
    rv3d.view_distance = 40.0
    timed_steps.redraw()


def s2_click_quatbake_tab():
    result["tabs"] = timed_steps.click_last_tab(_shot("0_tabs.png"))


def s2a_analyze():
    settings = bpy.context.scene.quatbake
    settings.method = 'SLERP'
    settings.show_overlay = True
    with bpy.context.temp_override(**timed_steps.view3d_override()):
        result["analyze"] = sorted(bpy.ops.quatbake.analyze())
    timed_steps.redraw()


def s2b_park_pointer():
    # Over the viewport (after the wheel events were handled over the tabs): no tooltip
    # or highlight in the sidebar's pictures.
    timed_steps.areas()[0].event_simulate(type='MOUSEMOVE', value='NOTHING', x=200, y=200)
    timed_steps.redraw()


def s3_shot_analyzed():
    _record("analyzed_en", _shot("1_walk_analyzed_en.png"))
    with bpy.context.temp_override(**timed_steps.view3d_override()):
        result["bake"] = sorted(bpy.ops.quatbake.bake('EXEC_DEFAULT', True))
    timed_steps.redraw()


def s4_shot_baked():
    _record("baked_en", _shot("2_walk_baked_en.png"))
    _language('zh_CN')
    timed_steps.redraw()


def s5_shot_zh_and_open_settings():
    shot = _shot("3_walk_baked_zh.png")
    _record("baked_zh", shot)
    # Click the Settings sub-panel's header open, as a user does. A sub-panel of a
    # sub-panel has no header colour of its own in 3.4: its header is the row just
    # above the Overlay's (the header after Re-bake's), found in the screenshot.
    window, area, regions = timed_steps.areas()
    ui = regions['UI']
    scale = bpy.context.preferences.system.ui_scale
    bands = header_bands.header_bands(timed_steps.sidebar_pixels(shot), result["header_rgb"], scale)
    result["bands_for_click"] = bands
    if len(bands) > header_bands.OVERLAY_HEADER:
        top = bands[header_bands.OVERLAY_HEADER][0] - header_bands.HEADER_PX * scale / 2
        timed_steps.click(ui.x + ui.width // 3, int(ui.y + ui.height - top))
        timed_steps.areas()[0].event_simulate(type='MOUSEMOVE', value='NOTHING', x=200, y=200)
    timed_steps.redraw()


def s6_shot_settings_zh():
    _record("settings_zh", _shot("4_settings_zh.png"))
    _language('en_US')
    timed_steps.redraw()


def s7_shot_settings_en():
    _record("settings_en", _shot("5_settings_en.png"))


# Before the window opens: the splash screen takes every event until it is closed
# (and no screenshot shows it).
bpy.context.preferences.view.show_splash = False
STEPS = [s1_setup, s2_click_quatbake_tab, s2a_analyze, s2b_park_pointer, s3_shot_analyzed, s4_shot_baked,
         s5_shot_zh_and_open_settings, s6_shot_settings_zh, s7_shot_settings_en]
chain = None
for fn in reversed(STEPS):
    chain = step(fn, chain)
bpy.app.timers.register(chain, first_interval=1.0)
