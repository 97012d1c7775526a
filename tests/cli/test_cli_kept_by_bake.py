"""`quatbake report` of a baked file says what the bake kept (issue 24): the demo's
FollowCam, keyed from a lerp used as a filter, still creeps after the slerp bake
`quatbake demo` saves, so its report is "to check" with the creep, as the panel's row
is. The creep is checked on Blender's playback of the saved file."""
import json

import numpy as np
from cli_processes import run_python, run_quatbake

# Blender's playback of FollowCam in the saved file at the frames of its original
# (pre-bake) rotation keys, which the file keeps for Revert: the angle of each step.
PLAYED_STEPS = r"""
import json, sys
import bpy
import quatbake
quatbake.register()
bpy.ops.wm.open_mainfile(filepath=sys.argv[1])
cam = bpy.data.objects["FollowCam"]
action = cam.quatbake.original_action
frames = sorted({kp.co[0] for fc in action.fcurves if fc.data_path.startswith("rotation")
                 for kp in fc.keyframe_points}) if hasattr(action, "fcurves") else []
if not frames:   # a slotted action (Blender 4.4 and newer): its channelbag's curves
    from quatbake.addon import animdata
    frames = sorted({kp.co[0] for fc in animdata.action_fcurves(action,
                     cam.quatbake.original_slot) if fc.data_path.startswith("rotation")
                     for kp in fc.keyframe_points})
played = []
for f in frames:
    bpy.context.scene.frame_set(int(f))
    played.append(cam.matrix_world.to_quaternion())
print(json.dumps([a.rotation_difference(b).angle for a, b in zip(played, played[1:])]))
"""


def test_report_of_a_baked_file_keeps_the_creep_to_check(tmp_path):
    done = run_quatbake("demo", "--out", tmp_path)
    assert done.returncode == 0, done.stderr
    blend = tmp_path / "demo.blend"
    out = tmp_path / "after.json"
    done = run_quatbake("report", blend, "--json", out, "--quiet")
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    cam = next(o for o in report["objects"] if o["name"] == "FollowCam")
    assert cam["verdict"] == "to check", cam
    assert "creep towards a target" in cam["advice"], cam["advice"]
    assert "a bake keeps these poses" in cam["advice"], cam["advice"]
    # What the verdict says, on Blender's playback: each step a near-constant fraction of
    # the last (a lerp filter), after the bake as before it.
    steps = np.array(json.loads(run_python(PLAYED_STEPS, blend).splitlines()[-1]))
    moving = steps > 1e-3
    both = moving[1:] & moving[:-1]
    ratios = steps[1:][both] / steps[:-1][both]
    assert ratios.size >= 4 and np.ptp(ratios) < 0.05 and ratios.max() < 1.0, ratios
