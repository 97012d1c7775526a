"""Runs inside a real Blender window (Blender 3.4.1 under Xvfb), started by
test_undo_edits_gui.py:

    blender --factory-startup --python undo_edits_gui_script.py -- RESULT.json REPO_ROOT

The animator's loop with a key set after the bake: bake, key the scale in the baked
action, Re-bake (QuatBake keeps the scale key in a copy of the animator's action,
'<Action>.edited'), undo, redo, Revert (the copy plays), undo. After each step every
action (its keys and fake user), the object's action, rotation and NLA must equal the
state recorded when that state was first reached (scenes.scene_snapshot), so undo and
redo bring back the extra action and its record exactly.
"""
import os
import sys

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gui_session  # noqa: E402  (a sibling file: importable only after the line above)
from gui_session import snapshot_equal, view3d_context  # noqa: E402

result = {"steps": [], "errors": []}


def snapshot():
    import scenes
    bpy.context.scene.frame_set(1)
    return scenes.scene_snapshot()


def check(name, ret, expected, plays):
    same, detail = snapshot_equal(expected, snapshot())
    arm = bpy.data.objects["Arm"]
    now = getattr(arm.animation_data.action, "name", None)
    scale = [tuple(k.co) for fc in arm.animation_data.action.fcurves
             if fc.data_path == "scale" and fc.array_index == 2 for k in fc.keyframe_points]
    ok = ret == {'FINISHED'} and same and now == plays and scale == [(30.0, 0.5)]
    result["steps"].append({"name": name, "ok": ok, "ret": sorted(ret), "same": same,
                            "plays": now, "scale": scale, "detail": detail})


def run() -> None:
    override = view3d_context()
    gui_session.clear_objects()
    arm = gui_session.new_arm()
    arm.select_set(True)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.ed.undo_push(message="scene built")

    def op(fn, *args, **kwargs):
        with bpy.context.temp_override(**override):
            return fn(*args, **kwargs)

    op(bpy.ops.quatbake.bake, 'INVOKE_DEFAULT', True, method='SLERP')
    arm.scale = (1.0, 1.0, 0.5)
    arm.keyframe_insert("scale", frame=30)
    bpy.ops.ed.undo_push(message="scale keyed")
    keyed = snapshot()
    action = arm.animation_data.action.name
    ret = op(bpy.ops.quatbake.bake, 'INVOKE_DEFAULT', True, method='SQUAD')
    rebaked = snapshot()
    result["rebaked_actions"] = sorted(rebaked["actions"])
    check("re-bake keeps the scale key", ret, rebaked, action)
    check("undo the re-bake", op(bpy.ops.ed.undo), keyed, action)
    check("redo the re-bake", op(bpy.ops.ed.redo), rebaked, action)
    ret = op(bpy.ops.quatbake.revert, 'EXEC_DEFAULT', True)
    reverted = snapshot()
    check("revert plays the copy with the scale key", ret, reverted,
          result["rebaked_actions"][1] if len(result["rebaked_actions"]) > 1 else None)
    check("undo the revert", op(bpy.ops.ed.undo), rebaked, action)
    check("redo the revert", op(bpy.ops.ed.redo), reverted,
          reverted["objects"]["Arm"][0])


gui_session.start(run, result, quit_after=0.5)
