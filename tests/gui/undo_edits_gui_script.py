"""Runs inside a real Blender window (Blender 3.4.1 under Xvfb), started by
test_undo_edits_gui.py:

    blender --factory-startup --python undo_edits_gui_script.py -- RESULT.json REPO_ROOT

The animator's loop with keys set after the bake: bake, key the scale in the baked
action, Re-bake (QuatBake keeps the scale key in a copy of the animator's action,
'<Action>.edited'), undo, redo, key again and Re-bake again (one copy, same name), undo,
redo, Revert (the copy plays), undo, redo. After each step every action (its keys and
fake user), the object's action, rotation and NLA must equal the state first reached
there (scenes.scene_snapshot), and the bake record (original action, edited_from,
whether Revert can run), the action playing, the scale keys and the actions in the file
must be what that step expects, written out here.
"""
import os
import sys

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gui_session  # noqa: E402  (a sibling file: importable only after the line above)
from gui_session import snapshot, snapshot_equal, view3d_context  # noqa: E402

result = {"steps": [], "errors": []}


def state() -> dict:
    """What the record says and what plays: compared with what the step expects."""
    from quatbake.addon import bake
    arm = bpy.data.objects["Arm"]
    rec = arm.quatbake
    return {
        "plays": getattr(arm.animation_data.action, "name", None),
        "can_revert": bake.can_revert(arm),
        "original": getattr(rec.original_action, "name", None),
        "edited_from": rec.edited_from,
        "scale": [tuple(k.co) for fc in arm.animation_data.action.fcurves
                  if fc.data_path == "scale" and fc.array_index == 2 for k in fc.keyframe_points],
        "actions": sorted(a.name for a in bpy.data.actions),
        "fake_users": sorted(a.name for a in bpy.data.actions if a.use_fake_user),
    }


def check(name, ret, expected_snapshot, expected_state):
    same, detail = snapshot_equal(expected_snapshot, snapshot())
    now = state()
    ok = ret == {'FINISHED'} and same and now == expected_state
    result["steps"].append({"name": name, "ok": ok, "ret": sorted(ret), "same": same,
                            "state": now, "expected": expected_state, "detail": detail})


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

    def key_scale(frame):
        arm = bpy.data.objects["Arm"]        # undo and redo replace the Python objects
        arm.scale = (1.0, 1.0, 0.5)
        arm.keyframe_insert("scale", frame=frame)
        bpy.ops.ed.undo_push(message="scale keyed")

    op(bpy.ops.quatbake.bake, 'INVOKE_DEFAULT', True, method='SLERP')
    action = arm.animation_data.action.name          # "ArmAction.quatbake"
    animator = action[:-len(".quatbake")]            # "ArmAction"
    key_scale(30)
    keyed, keyed_state = snapshot(), state()
    # What each step must leave: the record's original, the action playing, the scale keys.
    # The animator's action keeps the bake's fake user throughout (the note says it stays),
    # and the copy has one while it is the record's original.
    assert keyed_state["fake_users"] == [animator], keyed_state
    rebaked_state = {**keyed_state, "original": animator + ".edited", "edited_from": animator,
                     "actions": sorted([animator, animator + ".edited", action]),
                     "fake_users": [animator, animator + ".edited"]}
    reverted_state = {**rebaked_state, "plays": animator + ".edited", "can_revert": False,
                      "original": None, "edited_from": "",
                      "actions": sorted([animator, animator + ".edited"]),
                      "fake_users": [animator]}
    ret = op(bpy.ops.quatbake.bake, 'INVOKE_DEFAULT', True, method='SQUAD')
    rebaked = snapshot()
    result["rebaked_actions"] = rebaked_state["actions"]
    check("re-bake keeps the scale key", ret, rebaked, rebaked_state)
    check("undo the re-bake", op(bpy.ops.ed.undo), keyed, keyed_state)
    check("redo the re-bake", op(bpy.ops.ed.redo), rebaked, rebaked_state)
    # A second edit and Re-bake: the first copy replaced by one of the same name.
    key_scale(35)
    twice_keyed, twice_keyed_state = snapshot(), state()
    ret = op(bpy.ops.quatbake.bake, 'INVOKE_DEFAULT', True, method='SLERP')
    twice = snapshot()
    twice_state = {**twice_keyed_state, "actions": rebaked_state["actions"]}
    check("a second re-bake keeps one copy", ret, twice, twice_state)
    check("undo the second re-bake", op(bpy.ops.ed.undo), twice_keyed, twice_keyed_state)
    check("redo the second re-bake", op(bpy.ops.ed.redo), twice, twice_state)
    ret = op(bpy.ops.quatbake.revert, 'EXEC_DEFAULT', True)
    reverted = snapshot()
    reverted_state["scale"] = twice_state["scale"]
    check("revert plays the copy with the scale keys", ret, reverted, reverted_state)
    check("undo the revert", op(bpy.ops.ed.undo), twice, twice_state)
    check("redo the revert", op(bpy.ops.ed.redo), reverted, reverted_state)


gui_session.start(run, result, quit_after=0.5)
