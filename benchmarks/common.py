"""Pieces the Blender benchmarks share: a CPU + wall clock, bulk-keyed F-curves, selection."""
from __future__ import annotations

import time

import numpy as np


def clock() -> tuple[float, float]:
    """(process CPU seconds, wall seconds) now."""
    return time.process_time(), time.perf_counter()


def since(start: tuple[float, float]) -> tuple[float, float]:
    """(CPU, wall) seconds since ``start`` (a ``clock()``)."""
    cpu, wall = clock()
    return cpu - start[0], wall - start[1]


def key_fcurve(fc, frames, values, interpolation: int) -> None:
    """Key an empty F-curve at ``frames`` with ``values`` in bulk (one add, two
    foreach_set), ``interpolation`` being the Keyframe enum's value; handles updated."""
    n = len(frames)
    kps = fc.keyframe_points
    kps.add(n)
    co = np.empty(2 * n, dtype=np.float32)
    co[0::2] = frames
    co[1::2] = values
    kps.foreach_set("co", co)
    kps.foreach_set("interpolation", np.full(n, interpolation, dtype=np.int32))
    fc.update()


def timed_op(call) -> float:
    """Wall seconds of one operator call (``bpy.ops...``), as the user waits for it; the
    call must finish."""
    start = time.perf_counter()
    result = call()
    elapsed = time.perf_counter() - start
    assert result == {'FINISHED'}, result
    return elapsed


def size_options(argv: list, frames: int, smoke_frames: int, repeats: int = 3) -> tuple:
    """(smoke, frames, repeats) from ``--smoke``, ``--frames N`` and ``--repeats R``
    (smoke size: ``smoke_frames``, one round)."""
    smoke = "--smoke" in argv
    if "--frames" in argv:
        frames = int(argv[argv.index("--frames") + 1])
    elif smoke:
        frames = smoke_frames
    if "--repeats" in argv:
        repeats = int(argv[argv.index("--repeats") + 1])
    elif smoke:
        repeats = 1
    return smoke, frames, repeats


def select_only(objects) -> None:
    """Select ``objects`` and nothing else in the view layer; the first one active.
    bpy is imported here: the numpy-only benchmarks import this module too."""
    import bpy
    for obj in bpy.context.view_layer.objects:
        obj.select_set(False)
    for obj in objects:
        obj.select_set(True)
    bpy.context.view_layer.objects.active = objects[0]
