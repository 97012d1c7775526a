"""QuatBake's bake engine vs Blender's own ``bpy.ops.nla.bake``, same objects, same run.

    .venv/bin/python -m benchmarks.bench_bake [--smoke]

Scene: N animated empties, rotation (XYZ Euler, Bezier) and location keyed
every 50 frames over F frames. Both bakers write rotation + location keys on
every frame of the range into new actions:

- QuatBake: ``addon.bake.bake_objects`` (slerp, location LINEAR): reads the
  keys, interpolates in numpy, writes in bulk, never calls frame_set.
- nla.bake: ``bpy.ops.nla.bake`` (visual_keying off, object channels
  location + rotation), which sets every frame and reads each object back.

Then the same 100-object bake with 0 and 1,000 extra unanimated objects in the
scene: QuatBake's time should not grow; nla.bake evaluates the scene per frame.
Each timing is the best of a few runs on a fresh scene. The ratios use CPU
time of this process (``time.process_time``: every thread, so Blender's own
threaded scene evaluation counts too), which other programs on a shared,
loaded machine do not inflate; wall-clock seconds are shown beside them.
"""
from __future__ import annotations

import sys

import bpy
import numpy as np

import quatbake
from quatbake.addon import animdata, bake

from .common import clock, key_fcurve, select_only, since

KEY_EVERY = 50


def _enum(identifier: str) -> int:
    return bpy.types.Keyframe.bl_rna.properties["interpolation"].enum_items[identifier].value


def build_scene(n_objects: int, n_frames: int, extra: int, seed: int = 0) -> list:
    """A fresh factory scene with ``n_objects`` animated empties and ``extra`` still ones."""
    if hasattr(bpy.types.Scene, "quatbake"):
        quatbake.unregister()
    bpy.ops.wm.read_factory_settings(use_empty=True)
    quatbake.register()
    rng = np.random.default_rng(seed)
    scene = bpy.context.scene
    key_frames = np.arange(1.0, n_frames + 1, KEY_EVERY)
    if key_frames[-1] != n_frames:
        key_frames = np.append(key_frames, float(n_frames))
    n = key_frames.shape[0]
    bezier = _enum('BEZIER')
    objects = []
    for i in range(n_objects):
        obj = bpy.data.objects.new(f"Animated{i:03d}", None)
        scene.collection.objects.link(obj)
        action, slot = animdata.new_action_for(obj, f"Animated{i:03d}Action")
        animdata.assign_action(obj, action, slot)
        channels = [("rotation_euler", rng.uniform(-3, 3, (n, 3))),
                    ("location", rng.uniform(-10, 10, (n, 3)))]
        for data_path, values in channels:
            for index in range(3):
                fc = animdata.new_fcurve(action, slot, data_path, index)
                key_fcurve(fc, key_frames, values[:, index], bezier)
        objects.append(obj)
    for i in range(extra):
        scene.collection.objects.link(bpy.data.objects.new(f"Still{i:04d}", None))
    scene.frame_start, scene.frame_end = 1, n_frames
    return objects


def time_quatbake(objects, n_frames: int) -> tuple[float, float]:
    settings = bake.BakeSettings(method='SLERP', location_method='LINEAR')
    start = clock()
    result = bake.bake_objects(objects, settings)
    elapsed = since(start)
    assert result.frames_written == len(objects) * n_frames
    return elapsed


def time_nla_bake(objects, n_frames: int) -> float:
    select_only(objects)
    kwargs = dict(frame_start=1, frame_end=n_frames, only_selected=True, visual_keying=False,
                  bake_types={'OBJECT'})
    if "channel_types" in bpy.ops.nla.bake.get_rna_type().properties:
        kwargs["channel_types"] = {'LOCATION', 'ROTATION'}
    start = clock()
    bpy.ops.nla.bake(**kwargs)
    elapsed = since(start)
    baked = animdata.object_fcurves(objects[-1])
    assert any(len(fc.keyframe_points) == n_frames for fc in baked), "nla.bake baked nothing"
    return elapsed


def best(timer, n_objects: int, n_frames: int, extra: int, repeats: int) -> tuple[float, float]:
    """(best CPU seconds, best wall seconds) over ``repeats`` fresh scenes."""
    times = []
    for _ in range(repeats):
        objects = build_scene(n_objects, n_frames, extra)
        times.append(timer(objects, n_frames))
    return min(t[0] for t in times), min(t[1] for t in times)


def _row(label, ours, theirs, note="") -> str:
    return (f"{label:>8} {ours[0]:>9.3f} {theirs[0]:>9.3f} {theirs[0] / ours[0]:>6.1f}x"
            f"   {ours[1]:>9.3f} {theirs[1]:>9.3f} {theirs[1] / ours[1]:>6.1f}x{note}")


_HEADER = (f"{'':>8} {'CPU s':>9} {'':>9} {'':>7}   {'wall s':>9}\n"
           f"{'':>8} {'QuatBake':>9} {'nla.bake':>9} {'ratio':>7}   {'QuatBake':>9} "
           f"{'nla.bake':>9} {'ratio':>7}")


def main(argv: list[str]) -> int:
    smoke = "--smoke" in argv
    if smoke:
        n_objects, frame_counts, extras, ours_n, theirs_n = 5, (200,), (0, 50), 1, 1
        nla_full = True
    else:
        n_objects, frame_counts, extras, ours_n, theirs_n = 100, (1_000, 10_000), (0, 1_000), 5, 3
        nla_full = "--skip-nla-10k" not in argv
    print(f"Blender {bpy.app.version_string}; {n_objects} objects, rotation + location keys "
          f"every {KEY_EVERY} frames, baked on every frame")
    print("frames\n" + _HEADER)
    for frames in frame_counts:
        big = frames > 2_000
        ours = best(time_quatbake, n_objects, frames, 0, 3 if big else ours_n)
        note = ""
        if big and not nla_full:
            base = frame_counts[0]
            cpu, wall = best(time_nla_bake, n_objects, base, 0, theirs_n)
            theirs = (cpu * frames / base, wall * frames / base)
            note = f"  (nla.bake measured at {base} frames, scaled linearly)"
        else:
            theirs = best(time_nla_bake, n_objects, frames, 0, 1 if big else theirs_n)
        print(_row(frames, ours, theirs, note), flush=True)

    frames = frame_counts[0]
    print(f"\nScene size: {n_objects} objects x {frames} frames, plus unanimated objects")
    print("extra\n" + _HEADER)
    rows = []
    for extra in extras:
        ours = best(time_quatbake, n_objects, frames, extra, ours_n)
        theirs = best(time_nla_bake, n_objects, frames, extra, theirs_n)
        rows.append((ours, theirs))
        print(_row(extra, ours, theirs), flush=True)
    (o0, t0), (o1, t1) = rows[0], rows[-1]
    print(f"growth (CPU) with {extras[-1]} extra objects: QuatBake x{o1[0] / o0[0]:.2f}, "
          f"nla.bake x{t1[0] / t0[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
