"""QuatBake's bone bake (and analysis) vs ``bpy.ops.nla.bake(bake_types={'POSE'})``.

    .venv/bin/python -m benchmarks.bench_bones [--smoke]

Scene: one armature with N bones in a chain of 6-bone limbs, each bone's
rotation_quaternion keyed (Bezier) every 100 frames over F frames with random
unit quaternions. Both bakers write a rotation key on every frame of the range
for every bone into a new action:

- QuatBake: ``addon.bake.bake_objects`` on the armature (slerp): reads the
  keys once, interpolates in numpy, writes in bulk, never calls frame_set.
- nla.bake: ``bpy.ops.nla.bake(bake_types={'POSE'})`` on the same (selected)
  bones and frames, visual keying off, timed twice: with its default channel
  types (the call as issue 13 writes it: location, rotation, scale, B-Bone and
  custom properties) and with ``channel_types={'ROTATION'}``, the same work as
  QuatBake's rotation bake. It sets every frame and reads each bone back.

Also times ``analyze.analyze_object`` over every bone (the report's analysis).
Each timing is the best of 5 runs, each on a fresh scene, for every timer
alike; ratios in process CPU time (``time.process_time``: nla.bake's includes
Blender's depsgraph threads) and in wall-clock time, both printed.
"""
from __future__ import annotations

import sys

import bpy
import numpy as np

import quatbake
from quatbake.addon import analyze, animdata, bake, transform, versions

from .common import clock, key_fcurve, since

KEY_EVERY = 100
LIMB = 6


def _enum(identifier: str) -> int:
    return bpy.types.Keyframe.bl_rna.properties["interpolation"].enum_items[identifier].value


def build_rig(n_bones: int, n_frames: int, seed: int = 0):
    """A fresh factory scene with one armature of ``n_bones`` keyed bones."""
    if hasattr(bpy.types.Scene, "quatbake"):
        quatbake.unregister()
    bpy.ops.wm.read_factory_settings(use_empty=True)
    quatbake.register()
    scene = bpy.context.scene
    arm = bpy.data.armatures.new("Rig")
    rig = bpy.data.objects.new("Rig", arm)
    scene.collection.objects.link(rig)
    bpy.context.view_layer.objects.active = rig
    rig.select_set(True)
    bpy.ops.object.mode_set(mode='EDIT')
    names = []
    for i in range(n_bones):
        eb = arm.edit_bones.new(f"bone{i:03d}")
        limb, pos = divmod(i, LIMB)
        eb.head = (limb * 0.5, 0.0, pos * 0.3)
        eb.tail = (limb * 0.5, 0.0, pos * 0.3 + 0.3)
        if pos:
            eb.parent = arm.edit_bones[names[-1]]
        names.append(eb.name)
    bpy.ops.object.mode_set(mode='OBJECT')
    rng = np.random.default_rng(seed)
    key_frames = np.arange(1.0, n_frames + 1, KEY_EVERY)
    if key_frames[-1] != n_frames:
        key_frames = np.append(key_frames, float(n_frames))
    n = key_frames.shape[0]
    action, slot = animdata.new_action_for(rig, "RigAction")
    animdata.assign_action(rig, action, slot)
    bezier = _enum('BEZIER')
    for name in names:
        q = rng.normal(size=(n, 4))
        q /= np.linalg.norm(q, axis=1, keepdims=True)
        for index in range(4):
            fc = animdata.new_fcurve(action, slot, transform.bone_path_prefix(name)
                                     + "rotation_quaternion", index, group=name)
            key_fcurve(fc, key_frames, q[:, index], bezier)
    scene.frame_start, scene.frame_end = 1, n_frames
    return rig


def time_quatbake(rig, n_bones: int, n_frames: int) -> tuple[float, float]:
    start = clock()
    result = bake.bake_objects([rig], bake.BakeSettings(method='SLERP'))
    elapsed = since(start)
    assert result.frames_written == n_bones * n_frames, result.frames_written
    return elapsed


def time_analysis(rig, n_bones: int, n_frames: int) -> tuple[float, float]:
    start = clock()
    done = [analyze.analyze_object(t, "slerp") for t in transform.transforms_of_objects([rig])]
    elapsed = since(start)
    assert len(done) == n_bones and done[0].frames.size == n_frames
    return elapsed


def time_nla_bake_defaults(rig, n_bones: int, n_frames: int) -> tuple[float, float]:
    """``nla.bake(bake_types={'POSE'})`` as the issue writes it: every channel type."""
    return time_nla_bake(rig, n_bones, n_frames, rotation_only=False)


def select_pose_bones(rig) -> None:
    """Pose Mode with every bone selected: what nla.bake(only_selected=True) bakes."""
    bpy.context.view_layer.objects.active = rig
    rig.select_set(True)
    bpy.ops.object.mode_set(mode='POSE')
    for b in rig.pose.bones:
        versions.select_bone(rig, b.name, True)


def nla_bake_kwargs(n_frames: int, rotation_only: bool = True) -> dict:
    kwargs = dict(frame_start=1, frame_end=n_frames, only_selected=True, visual_keying=False,
                  bake_types={'POSE'})
    if rotation_only and "channel_types" in bpy.ops.nla.bake.get_rna_type().properties:
        kwargs["channel_types"] = {'ROTATION'}
    return kwargs


def time_nla_bake(rig, n_bones: int, n_frames: int,
                  rotation_only: bool = True) -> tuple[float, float]:
    select_pose_bones(rig)
    kwargs = nla_bake_kwargs(n_frames, rotation_only)
    start = clock()
    bpy.ops.nla.bake(**kwargs)
    elapsed = since(start)
    bpy.ops.object.mode_set(mode='OBJECT')
    baked = [fc for fc in animdata.object_fcurves(rig) if fc.data_path.endswith("quaternion")]
    assert any(len(fc.keyframe_points) == n_frames for fc in baked), "nla.bake baked nothing"
    return elapsed


def best(timer, n_bones: int, n_frames: int, repeats: int) -> tuple[float, float]:
    times = []
    for _ in range(repeats):
        rig = build_rig(n_bones, n_frames)
        times.append(timer(rig, n_bones, n_frames))
    return min(t[0] for t in times), min(t[1] for t in times)


def main(argv: list[str]) -> int:
    smoke = "--smoke" in argv
    n_bones, n_frames, repeats = (6, 200, 1) if smoke else (60, 1_000, 5)
    print(f"Blender {bpy.app.version_string}; {n_bones} bones, quaternion keys every "
          f"{KEY_EVERY} frames, {n_frames} frames baked on every frame")
    # The same number of fresh scenes for every timer: best-of-N favours no one.
    peers = (("nla.bake POSE (its defaults)", best(time_nla_bake_defaults, n_bones, n_frames,
                                                   repeats)),
             ("nla.bake POSE, rotation only", best(time_nla_bake, n_bones, n_frames, repeats)))
    ours = best(time_quatbake, n_bones, n_frames, repeats)
    report = best(time_analysis, n_bones, n_frames, repeats)
    print(f"{'':>34} {'CPU s':>8} {'wall s':>8}")
    for label, t in peers:
        print(f"{label:>34} {t[0]:>8.3f} {t[1]:>8.3f}")
    for label, t in (("QuatBake bake_objects (slerp)", ours),
                     ("QuatBake analysis, every bone", report)):
        # nla.bake's CPU time exceeds its wall time when Blender's depsgraph evaluates
        # the pose on both cores; QuatBake is single-threaded. Both ratios, then.
        ratios = ", ".join(f"{theirs[0] / t[0]:.1f}x CPU / {theirs[1] / t[1]:.1f}x wall"
                           for _l, theirs in peers)
        print(f"{label:>34} {t[0]:>8.3f} {t[1]:>8.3f}   vs the two: {ratios}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
