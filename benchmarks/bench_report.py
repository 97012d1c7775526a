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
        demo.key(obj, "rotation_quaternion", keys, q)
        demo.key(obj, "location", keys, rng.normal(scale=10.0, size=(keys.size, 3)))
        objects.append(obj)
    bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, n_frames
    return objects


def _now():
    return np.array([time.perf_counter(), time.process_time()])


def _since(t0) -> np.ndarray:
    """(wall, CPU) seconds since ``t0``: CPU time is what this process used, which
    a busy shared machine disturbs much less than the wall clock."""
    return _now() - t0


def time_quatbake(objects) -> tuple[np.ndarray, int]:
    t0 = _now()
    frames = 0
    for obj in objects:
        frames += analyze.analyze_object(obj, "slerp").frames.size
    return _since(t0), frames


def time_numpy_read(objects, n_frames) -> np.ndarray:
    frames = np.arange(1, n_frames + 1, dtype=np.float64)
    t0 = _now()
    for obj in objects:
        animdata.evaluate_rotation_raw(obj, frames)
        animdata.evaluate_location(obj, frames)
    return _since(t0)


def time_fc_evaluate(objects, n_frames) -> np.ndarray:
    frames = np.arange(1, n_frames + 1, dtype=np.float64).tolist()
    t0 = _now()
    for obj in objects:
        for fc in animdata.rotation_fcurves(obj) + animdata.location_fcurves(obj):
            np.fromiter(map(fc.evaluate, frames), dtype=np.float64, count=len(frames))
    return _since(t0)


def time_frame_set(objects, n_frames) -> np.ndarray:
    scene = bpy.context.scene
    t0 = _now()
    for f in range(1, n_frames + 1):
        scene.frame_set(f)
        for obj in objects:
            obj.matrix_basis.to_quaternion()
            obj.matrix_basis.to_translation()
    return _since(t0)


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
    print(f"{'method':<48} {'wall s':>8} {'CPU s':>8} {'CPU x ours':>11}")
    for label, t in (("QuatBake analyze_object (read + full analysis)", t_ours),
                     ("QuatBake evaluate_channels (read only)", t_read),
                     ("fc.evaluate loop (read only)", t_eval),
                     ("frame_set + matrix_basis (read only)", t_set)):
        print(f"{label:<48} {t[0]:8.2f} {t[1]:8.2f} {t[1] / t_ours[1]:11.2f}")
    print(f"read only (CPU): numpy {t_eval[1] / t_read[1]:.1f}x faster than fc.evaluate, "
          f"{t_set[1] / t_read[1]:.1f}x faster than frame_set; full analysis "
          f"{t_set[1] / t_ours[1]:.1f}x faster than frame_set alone")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
