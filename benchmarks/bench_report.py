"""Difference report speed: reading F-curves with numpy vs fc.evaluate vs frame_set.

    python -m benchmarks.bench_report [--smoke]

The requirement: 1,000,000 object-frames analysed in a few seconds. The scene
is built in code with the bpy module: objects with Bezier-keyed quaternion
rotation and location (7 channels each, a key every 25 frames). Three ways
to read Blender's own interpolation of every frame are timed in the same run:

- QuatBake: addon.analyze.analyze_object (core.fcurve numpy evaluation of the
  F-curves, then the whole core.analysis), for every object and frame;
- peer 1: an ``fc.evaluate(frame)`` loop over the same channels and frames
  (reading only; no analysis);
- peer 2: ``scene.frame_set(f)`` + ``obj.matrix_basis`` per frame, what a
  script without QuatBake does (reading only; timed on a slice, scaled).

Ratios stay meaningful on a shared machine where absolute seconds do not.
"""
import sys
import time

import bpy
import numpy as np

import quatbake
from quatbake.addon import analyze, animdata


def build(n_objects: int, n_frames: int, rng) -> list:
    bpy.ops.wm.read_factory_settings(use_empty=True)
    from quatbake.addon import demo

    objects = []
    keys = np.arange(1, n_frames + 1, 25, dtype=np.float64)
    if keys[-1] != n_frames:
        keys = np.append(keys, float(n_frames))
    for i in range(n_objects):
        obj = bpy.data.objects.new(f"Obj{i:03d}", None)
        bpy.context.scene.collection.objects.link(obj)
        obj.rotation_mode = 'QUATERNION'
        q = rng.normal(size=(keys.size, 4))
        q /= np.linalg.norm(q, axis=1, keepdims=True)
        demo._key(obj, "rotation_quaternion", keys, q)
        demo._key(obj, "location", keys, rng.normal(scale=10.0, size=(keys.size, 3)))
        objects.append(obj)
    bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, n_frames
    return objects


def time_quatbake(objects) -> tuple[float, int]:
    t0 = time.perf_counter()
    frames = 0
    for obj in objects:
        frames += analyze.analyze_object(obj, "slerp").frames.size
    return time.perf_counter() - t0, frames


def time_numpy_read(objects, n_frames) -> float:
    frames = np.arange(1, n_frames + 1, dtype=np.float64)
    t0 = time.perf_counter()
    for obj in objects:
        animdata.evaluate_rotation_raw(obj, frames)
        animdata.evaluate_location(obj, frames)
    return time.perf_counter() - t0


def time_fc_evaluate(objects, n_frames) -> float:
    frames = np.arange(1, n_frames + 1, dtype=np.float64).tolist()
    t0 = time.perf_counter()
    for obj in objects:
        for fc in animdata.rotation_fcurves(obj) + animdata.location_fcurves(obj):
            np.fromiter(map(fc.evaluate, frames), dtype=np.float64, count=len(frames))
    return time.perf_counter() - t0


def time_frame_set(objects, n_frames) -> float:
    scene = bpy.context.scene
    t0 = time.perf_counter()
    for f in range(1, n_frames + 1):
        scene.frame_set(f)
        for obj in objects:
            obj.matrix_basis.to_quaternion()
            obj.matrix_basis.to_translation()
    return time.perf_counter() - t0


def main(argv) -> int:
    smoke = "--smoke" in argv
    rng = np.random.default_rng(11)
    if smoke:
        n_objects, n_frames, peer_objects, peer_frames = 4, 500, 4, 200
    else:
        n_objects, n_frames, peer_objects, peer_frames = 100, 10_000, 10, 2_000
    quatbake.register()
    try:
        objects = build(n_objects, n_frames, rng)
        total = n_objects * n_frames
        t_ours, frames = time_quatbake(objects)
        assert frames == total, (frames, total)
        t_read = time_numpy_read(objects, n_frames)
        # Peers are timed on a slice and scaled linearly to the same object-frames
        # (both loops cost the same per frame and per channel).
        t_eval = time_fc_evaluate(objects[:peer_objects], n_frames) * (n_objects / peer_objects)
        t_set = time_frame_set(objects, peer_frames) * (n_frames / peer_frames)
    finally:
        quatbake.unregister()
    print(f"object-frames: {total:,} ({n_objects} objects x {n_frames} frames, 7 Bezier channels each)")
    print(f"{'method':<48} {'seconds':>9} {'x ours':>8}")
    print(f"{'QuatBake analyze_object (read + full analysis)':<48} {t_ours:9.2f} {1.0:8.1f}")
    print(f"{'QuatBake evaluate_channels (read only)':<48} {t_read:9.2f} {t_read / t_ours:8.1f}")
    print(f"{'fc.evaluate loop (read only)':<48} {t_eval:9.2f} {t_eval / t_ours:8.1f}")
    print(f"{'frame_set + matrix_basis (read only)':<48} {t_set:9.2f} {t_set / t_ours:8.1f}")
    print(f"read only: numpy {t_eval / t_read:.1f}x faster than fc.evaluate, "
          f"{t_set / t_read:.1f}x faster than frame_set")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
