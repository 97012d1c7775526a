"""Runs inside a real Blender window (Blender 3.4.1 under Xvfb), started by
test_undo_gui.py:

    blender --factory-startup --python undo_gui_script.py -- RESULT.json REPO_ROOT

QuatBake is installed as the add-on ``quatbake`` (a symlink in the
BLENDER_USER_SCRIPTS folder the test made) and enabled with addon_utils. Once
the window is up, a timer: builds a keyed object, draws both QuatBake panels
for real (as popovers), bakes with an operator context in the window (pushing
an undo step as a button press does), undoes, redoes, runs each shipped preset
the way the redo panel's preset menu does, writes RESULT.json and quits.
"""
import functools
import os
import sys

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gui_session  # noqa: E402  (a sibling file: importable only after the line above)
from gui_session import snapshot_equal, view3d_context  # noqa: E402

result = {"steps": [], "errors": [], "draws": {}}
step = functools.partial(gui_session.record_step, result)
instrument_draw = functools.partial(gui_session.count_draws, result)


def build_scene():
    gui_session.clear_objects()
    obj = gui_session.new_arm()
    obj.select_set(True)
    bpy.context.view_layer.objects.active = obj
    bpy.context.scene.frame_set(1)


def run() -> None:
    from quatbake.addon import animdata, bake
    from quatbake.addon.bake import presets

    import scenes

    step("addon enabled", hasattr(bpy.types, "QUATBAKE_PT_main"))
    build_scene()
    override = view3d_context()
    # Every edit of a real session leaves an undo step; this is the one before the bake.
    bpy.ops.ed.undo_push(message="scene built")
    before = scenes.scene_snapshot()

    instrument_draw("QUATBAKE_PT_main")
    instrument_draw("QUATBAKE_PT_main_graph")
    with bpy.context.temp_override(**override):
        for panel in ("QUATBAKE_PT_main", "QUATBAKE_PT_main_graph"):
            bpy.ops.wm.call_panel('INVOKE_DEFAULT', name=panel, keep_open=False)
    override["region"].tag_redraw()

    with bpy.context.temp_override(**override):
        ret = bpy.ops.quatbake.bake('INVOKE_DEFAULT', True, method='SQUAD')
    step("bake finished", ret == {'FINISHED'}, ret)
    bpy.context.scene.frame_set(1)
    baked = scenes.scene_snapshot()
    step("bake changed the action",
         baked["objects"]["Arm"][0] != before["objects"]["Arm"][0], baked["objects"]["Arm"][0])
    active = bpy.context.window_manager.operators[-1] if bpy.context.window_manager.operators \
        else None
    step("bake is the last registered operator",
         active is not None and active.bl_idname == "QUATBAKE_OT_bake",
         getattr(active, "bl_idname", None))

    with bpy.context.temp_override(**override):
        ret = bpy.ops.ed.undo()
    bpy.context.scene.frame_set(1)
    same, detail = snapshot_equal(before, scenes.scene_snapshot())
    step("undo restores the keyframes", ret == {'FINISHED'} and same, detail or ret)
    step("undo leaves nothing to revert", not bake.can_revert(bpy.data.objects["Arm"]))

    with bpy.context.temp_override(**override):
        ret = bpy.ops.ed.redo()
    bpy.context.scene.frame_set(1)
    same, detail = snapshot_equal(baked, scenes.scene_snapshot())
    step("redo bakes again", ret == {'FINISHED'} and same, detail or ret)
    step("redo can be reverted", bake.can_revert(bpy.data.objects["Arm"]))

    # The redo panel's preset menu executes the preset file with the bake as
    # bpy.context.active_operator (Blender's script.execute_preset). Undo
    # cleared the operator stack, so bake once more first (a re-bake).
    preset_values = {}
    with bpy.context.temp_override(**override):
        ret = bpy.ops.quatbake.bake('INVOKE_DEFAULT', True, method='NLERP')
        step("re-bake finished", ret == {'FINISHED'}, ret)
        for name, path in presets.preset_files().items():
            bpy.ops.script.execute_preset(filepath=path, menu_idname="QUATBAKE_MT_presets")
            op = bpy.context.active_operator
            preset_values[name] = None if op is None else {
                prop: getattr(op, prop)
                for prop in ("method", "location_method", "constant_speed", "frame_step")
            }
    result["preset_values"] = preset_values
    result["rotation_paths"] = list(animdata.ROTATION_PATHS)


# 1 s after run(): the popovers get a redraw cycle to be drawn before quitting.
gui_session.start(run, result, quit_after=1.0)
