"""A tolerance bake (issue 15) vs today's dense bake, same objects, same run.

    .venv/bin/python -m benchmarks.bench_tolerance [--smoke]

Scene: bench_bake's (N empties, XYZ Euler rotation and location keyed every
50 frames with Bezier, baked with slerp + linear location over F frames).
Both runs call ``addon.bake.bake_objects`` on a fresh scene; the tolerance
run adds ``tolerance_deg=0.01`` (``core.keyreduce`` checks Blender's LINEAR
playback and a glTF player's slerp at every frame and keeps the keys both
need). Output KEEP (Euler: per-channel Euler is not slerp when several axes
move, so most keys stay) and QUATERNION (few keys stay). The target: the
tolerance bake takes at most 2x the dense bake's time. Best of a few runs,
process CPU time (a shared, loaded machine inflates wall time).
"""

from __future__ import annotations

import sys
import time

from quatbake.addon import bake

from .bench_bake import build_scene

TOLERANCE_DEG = 0.01


def _time(n_objects: int, n_frames: int, settings: bake.BakeSettings, repeats: int):
    """(best CPU seconds, best wall seconds, keys dense, keys written)."""
    best = None
    for _ in range(repeats):
        objects = build_scene(n_objects, n_frames, 0)
        cpu, wall = time.process_time(), time.perf_counter()
        result = bake.bake_objects(objects, settings)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        if best is None or cpu < best[0]:
            best = (cpu, wall, result.keys_dense, result.keys_written)
    return best


def main(argv: list[str]) -> int:
    smoke = "--smoke" in argv
    n_objects, n_frames, repeats = (5, 200, 1) if smoke else (100, 1_000, 5)
    print(
        f"{n_objects} objects x {n_frames} frames, slerp + linear location, "
        f"tolerance {TOLERANCE_DEG} deg; best of {repeats}"
    )
    print(
        f"{'output':>10} {'dense CPU s':>12} {'tol. CPU s':>11} {'ratio':>6} "
        f"{'dense wall':>11} {'tol. wall':>10} {'keys dense':>11} {'keys kept':>10}"
    )
    for output in ('KEEP', 'QUATERNION'):
        common = dict(method='SLERP', location_method='LINEAR', output_mode=output)
        dense = _time(n_objects, n_frames, bake.BakeSettings(**common), repeats)
        sparse = _time(
            n_objects, n_frames, bake.BakeSettings(tolerance_deg=TOLERANCE_DEG, **common), repeats
        )
        print(
            f"{output:>10} {dense[0]:>12.3f} {sparse[0]:>11.3f} {sparse[0] / dense[0]:>5.2f}x "
            f"{dense[1]:>11.3f} {sparse[1]:>10.3f} {sparse[2]:>11,} {sparse[3]:>10,}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
