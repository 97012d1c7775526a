"""Runs inside a real Blender window (Blender 3.4.1 under Xvfb), started by
test_undo_chain_gui.py:

    blender --factory-startup --python undo_chain_gui_script.py -- RESULT.json REPO_ROOT

QuatBake is enabled as the add-on ``quatbake`` (a symlink the test made).
Once the window is up, a timer runs the chain bake -> undo -> redo -> revert
-> undo -> redo, then bake -> bake -> undo, then a Bezier tolerance bake -> undo ->
redo -> undo and Convert Rotation Mode -> undo -> redo -> revert -> undo -> undo,
each operator with an undo push
from a 3D Viewport context (as a button press does), and records after each
step whether every keyframe, action assignment, slot, rotation mode and
fake user equals the expected state (scenes.scene_snapshot, pose bones included), then
quits. One of the objects is an armature whose two keyed bones are baked.
"""
import os
import sys

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gui_session  # noqa: E402  (a sibling file: importable only after the line above)
from gui_session import snapshot, snapshot_equal, view3d_context  # noqa: E402

result = {"steps": [], "errors": []}


def check(name, ret, expected, can_revert):
    """Record one step: the operator's return value, the snapshot comparison
    and whether the objects can be reverted, against what is expected
    (``can_revert``: one bool for all four objects, or a list, one per object)."""
    from quatbake.addon import bake
    same, detail = snapshot_equal(expected, snapshot())
    objects = [bpy.data.objects[n] for n in ("Arm", "Cam", "Joint", "Rig")]
    reverts = [bake.can_revert(o) for o in objects]
    wanted = can_revert if isinstance(can_revert, list) else [can_revert] * len(objects)
    ok = ret == {'FINISHED'} and same and reverts == wanted
    result["steps"].append({"name": name, "ok": ok, "ret": sorted(ret), "same": same,
                            "can_revert": reverts, "detail": detail})


def build_scene():
    import numpy as np

    import scenes
    gui_session.clear_objects()
    arm = gui_session.new_arm()
    frames = np.array([1.0, 21.0, 41.0])
    quats = np.array([[1, 0, 0, 0], [0, 0, 0.6, 0.8], [-0.5, 0.5, -0.5, 0.5]])
    cam = scenes.make_animated_object("Cam", 'QUATERNION', frames, quats,
                                      location=np.array([[0, 0, 0], [1, 2, 0], [4, 4, 1]]),
                                      data=bpy.data.cameras.new("CamData"))
    # As imports leave them (issue 12): Arm's action also stashed on a muted NLA
    # track (the glTF importer), Joint keyed on delta_rotation_euler only (a BVH
    # object import); the snapshot covers strips and delta values too.
    track = arm.animation_data.nla_tracks.new()
    track.strips.new("ArmStash", 1, arm.animation_data.action)
    track.mute = True
    joint = scenes.new_object("Joint", 'ZXY')
    joint.rotation_euler = (0.2, 0.0, 0.4)
    scenes.key_channels(joint, "delta_rotation_euler", frames,
                        [[0, 0, 0], [0.5, 1.0, -0.4], [2.0, 0.3, 1.2]], interpolation='LINEAR')
    # An armature (issue 13): its keyed bones are baked into one copied action and
    # undo must bring back the action and every bone's rotation mode and values.
    rig = scenes.make_rig("Rig", [("root", None, (0, 0, 0), (0, 0, 1)),
                                  ("arm.L", "root", (0, 0, 1), (1, 0, 1))])
    scenes.key_bone(rig, "root", "rotation_quaternion", frames, quats)
    scenes.key_bone(rig, "arm.L", "rotation_euler", frames,
                    [[0, 0, 3.0], [0, 0, -3.0], [1, 0, 0]], mode='XYZ')
    for obj in (arm, cam, joint, rig):
        obj.select_set(True)
    bpy.context.view_layer.objects.active = arm


def run() -> None:
    override = view3d_context()
    with bpy.context.temp_override(**override):
        build_scene()          # make_rig enters Edit Mode: it needs the viewport's context
    bpy.ops.ed.undo_push(message="scene built")
    original = snapshot()

    def op(fn, *args, **kwargs):
        with bpy.context.temp_override(**override):
            return fn(*args, **kwargs)

    ret = op(bpy.ops.quatbake.bake, 'INVOKE_DEFAULT', True, method='SQUAD',
             location_method='CATMULL_ROM')
    baked = snapshot()
    check("bake", ret, baked, True)
    result["bake_changed_actions"] = baked["objects"]["Arm"][0] != original["objects"]["Arm"][0]
    check("undo the bake", op(bpy.ops.ed.undo), original, False)
    check("redo the bake", op(bpy.ops.ed.redo), baked, True)
    check("revert", op(bpy.ops.quatbake.revert, 'EXEC_DEFAULT', True), original, False)
    check("undo the revert", op(bpy.ops.ed.undo), baked, True)
    result["report_after_undoing_the_revert"] = report_state()
    check("redo the revert", op(bpy.ops.ed.redo), original, False)

    ret = op(bpy.ops.quatbake.bake, 'INVOKE_DEFAULT', True, method='NLERP', frame_step=4)
    first = snapshot()
    check("bake again", ret, first, True)
    ret = op(bpy.ops.quatbake.bake, 'INVOKE_DEFAULT', True, method='SLERP')
    second = snapshot()
    check("re-bake", ret, second, True)
    check("undo the re-bake", op(bpy.ops.ed.undo), first, True)
    check("undo the first bake", op(bpy.ops.ed.undo), original, False)
    bezier_and_convert_chain(op, original)
    pose_mode_chain(op, original)


def report_state() -> dict:
    """The Difference Report now: each entry's name, whether it is out of date, its
    verdict, and the list's rows (which undo restores with the scene)."""
    from quatbake.addon.analyze import entries

    scene = bpy.context.scene
    return {"entries": {name: [entries.is_stale(scene, name), entry.get("verdict")]
                        for name, entry in entries.results(scene).items()},
            "rows": {row.name: row.verdict for row in scene.quatbake.report_rows}}


def bezier_and_convert_chain(op, original) -> None:
    """Issue 22's operators: a Bezier tolerance bake (few keys, their handles written
    by QuatBake) and Convert Rotation Mode (rotation modes and channels replaced) are
    undone, redone and reverted like any bake: every key, handle and mode as it was."""
    ret = op(bpy.ops.quatbake.bake, 'INVOKE_DEFAULT', True, method='SLERP', tolerance=0.05,
             key_interpolation='BEZIER')
    fitted = snapshot()
    check("bezier tolerance bake", ret, fitted, True)
    # What the bake wrote: Arm's rotation keys are Bezier, and fewer than one per frame.
    arm_keys = [kp for fc in bpy.data.objects["Arm"].animation_data.action.fcurves
                if fc.data_path.startswith("rotation") for kp in fc.keyframe_points]
    result["bezier_keys"] = {"interpolations": sorted({kp.interpolation for kp in arm_keys}),
                             "frames": sorted({kp.co[0] for kp in arm_keys})}
    check("undo the bezier bake", op(bpy.ops.ed.undo), original, False)
    check("redo the bezier bake", op(bpy.ops.ed.redo), fitted, True)
    check("undo the bezier bake again", op(bpy.ops.ed.undo), original, False)
    ret = op(bpy.ops.quatbake.convert_rotation_mode, 'EXEC_DEFAULT', True, mode='QUATERNION')
    converted = snapshot()
    # Cam is keyed in Quaternion already: the conversion leaves it as it is (nothing to
    # revert), and converts the others.
    after = [True, False, True, True]
    check("convert to quaternion", ret, converted, after)
    result["converted_modes"] = {name: bpy.data.objects[name].rotation_mode
                                 for name in ("Arm", "Cam", "Joint")}
    result["converted_modes"].update({f"Rig: {b.name}": b.rotation_mode
                                      for b in bpy.data.objects["Rig"].pose.bones})
    check("undo the conversion", op(bpy.ops.ed.undo), original, False)
    check("redo the conversion", op(bpy.ops.ed.redo), converted, after)
    check("revert the conversion", op(bpy.ops.quatbake.revert, 'EXEC_DEFAULT', True),
          original, False)
    check("undo the revert of the conversion", op(bpy.ops.ed.undo), converted, after)
    check("undo the conversion again", op(bpy.ops.ed.undo), original, False)


def pose_mode_chain(op, original) -> None:
    """Issue 13: in Pose Mode the selected bone alone is baked; undo, redo and a
    per-bone revert bring back exactly the states before and after."""
    from quatbake.addon import versions

    rig = bpy.data.objects["Rig"]
    for obj in bpy.data.objects:
        obj.select_set(obj == rig)
    bpy.context.view_layer.objects.active = rig
    op(bpy.ops.object.mode_set, mode='POSE')
    for bone in rig.data.bones:
        versions.select_bone(rig, bone.name, bone.name == "arm.L")
    rig.data.bones.active = rig.data.bones["arm.L"]
    bpy.ops.ed.undo_push(message="arm.L selected in Pose Mode")
    in_pose_mode = snapshot()
    check("pose mode: entered, nothing changed", {'FINISHED'}, original, False)
    only_rig = [False, False, False, True]
    ret = op(bpy.ops.quatbake.bake, 'INVOKE_DEFAULT', True, method='SLERP')
    baked = snapshot()
    result["pose_mode_baked"] = sorted(b.name for b in rig.pose.bones if b.quatbake.baked)
    check("pose mode: bake the selected bone", ret, baked, only_rig)
    check("pose mode: undo the bone's bake", op(bpy.ops.ed.undo), in_pose_mode, False)
    check("pose mode: redo the bone's bake", op(bpy.ops.ed.redo), baked, only_rig)
    check("pose mode: revert the bone", op(bpy.ops.quatbake.revert, 'EXEC_DEFAULT', True),
          in_pose_mode, False)
    check("pose mode: undo the revert", op(bpy.ops.ed.undo), baked, only_rig)
    result["pose_mode_mode"] = bpy.data.objects["Rig"].mode     # undo replaced `rig`


gui_session.start(run, result, quit_after=0.5)
