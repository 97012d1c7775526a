"""Runs inside a real Blender window (Blender 3.4.1 under Xvfb), started by
test_export_check_gui.py:

    blender --factory-startup --python export_check_gui_script.py -- RESULT.json REPO_ROOT

Once the window is up: builds issue 15's three empties, runs the Export Check
operator as a button press (window context), draws its sub-panel and the
main panel (with the Key Tolerance field) for real as popovers, bakes the
selection with a tolerance from the scene setting, writes RESULT.json, quits.
"""
import functools
import os
import sys

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gui_session  # noqa: E402  (a sibling file: importable only after the line above)
from gui_session import view3d_context  # noqa: E402

result = {"steps": [], "errors": [], "draws": {}}
step = functools.partial(gui_session.record_step, result)
instrument_draw = functools.partial(gui_session.count_draws, result)


def run() -> None:
    from quatbake.addon import animdata
    from quatbake.addon.export_check import ops as ops_export_check

    from export_scenes import build_three_empties

    gui_session.clear_objects()
    objects = build_three_empties(with_camera=False)
    for obj in objects:
        obj.select_set(True)
    bpy.context.view_layer.objects.active = objects[0]
    override = view3d_context()
    with bpy.context.temp_override(**override):
        ret = bpy.ops.quatbake.export_check('INVOKE_DEFAULT', True,
                                            exporter_options="export_force_sampling=False")
    step("export check finished", ret == {'FINISHED'}, ret)
    found = ops_export_check.results(bpy.context.scene)
    result["causes"] = {name: s.get("causes") for name, s in found.items()}

    for panel in ("QUATBAKE_PT_export_check", "QUATBAKE_PT_main"):
        instrument_draw(panel)
    with bpy.context.temp_override(**override):
        for panel in ("QUATBAKE_PT_export_check", "QUATBAKE_PT_main"):
            bpy.ops.wm.call_panel('INVOKE_DEFAULT', name=panel, keep_open=False)
    override["region"].tag_redraw()

    def drawn():
        # What the Export Check panel drew (ui.texts records each line, its width and the
        # width it had), taken once the popover has been drawn, before the quit.
        from quatbake.addon.ui import texts
        result["export_check_lines"] = texts.drawn_lines().get("export_check", [])

    bpy.app.timers.register(drawn, first_interval=0.5)

    bpy.context.scene.quatbake.tolerance = 0.01
    with bpy.context.temp_override(**override):
        ret = bpy.ops.quatbake.bake('INVOKE_DEFAULT', True, method='SLERP')
    step("tolerance bake finished", ret == {'FINISHED'}, ret)
    swing = bpy.data.objects["Swing"]
    result["swing_keys"] = len(animdata.find_fcurves(swing, "rotation_euler", 3)[2].keyframe_points)


gui_session.start(run, result, quit_after=1.0)
