"""Position paths: quatbake.core.path vs scipy's CubicSpline through the same keys.

    python -m benchmarks.bench_path [--smoke]

Peer: scipy.interpolate.CubicSpline (a C2 spline, compiled evaluation), the
usual way to put a smooth curve through keys in numpy code; for constant
speed the peer is the textbook recipe on top of it (dense arc-length table
from the spline, np.interp inversion, evaluate again). Same keys, same sample
frames, best of several runs; ratios > 1 mean QuatBake is faster. Sizes:
1,000 keys and 1,000,000 samples (--smoke: 50 keys, 10,000 samples).
"""
import sys
import time

import numpy as np
from scipy.interpolate import CubicSpline

from quatbake.core import path


def best_of(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def peer_constant_speed(key_times, key_points, samples, substeps):
    spline = CubicSpline(key_times, key_points)
    table_t = np.linspace(key_times[0], key_times[-1], (key_times.size - 1) * substeps + 1)
    table_p = spline(table_t)
    arc = np.concatenate(([0.0], np.cumsum(np.linalg.norm(np.diff(table_p, axis=0), axis=1))))
    target = arc[-1] * (samples - key_times[0]) / (key_times[-1] - key_times[0])
    return spline(np.interp(target, arc, table_t))


def main(argv):
    smoke = "--smoke" in argv
    n_keys, n_samples, repeats = (50, 10_000, 2) if smoke else (1_000, 1_000_000, 3)
    rng = np.random.default_rng(0)
    key_times = np.cumsum(rng.uniform(1.0, 10.0, n_keys))
    key_points = rng.normal(scale=5.0, size=(n_keys, 3))
    samples = np.linspace(key_times[0], key_times[-1], n_samples)

    rows = []
    ours = best_of(lambda: path.interpolate_positions(key_times, key_points, samples, "catmull_rom"), repeats)
    peer = best_of(lambda: CubicSpline(key_times, key_points)(samples), repeats)
    rows.append(("catmull_rom vs CubicSpline", ours, peer))
    ours = best_of(lambda: path.interpolate_positions(key_times, key_points, samples, "catmull_rom", True), repeats)
    peer = best_of(lambda: peer_constant_speed(key_times, key_points, samples, path.SUBSTEPS), repeats)
    rows.append(("catmull_rom constant speed vs CubicSpline + arc-length table", ours, peer))
    ours = best_of(lambda: path.interpolate_positions(key_times, key_points, samples, "linear"), repeats)
    peer = best_of(lambda: np.stack([np.interp(samples, key_times, key_points[:, a]) for a in range(3)], -1), repeats)
    rows.append(("linear vs np.interp per axis", ours, peer))

    print(f"{n_keys} keys, {n_samples} samples, best of {repeats}")
    for name, ours, peer in rows:
        print(f"  {name:62s} quatbake {ours * 1e3:8.1f} ms  peer {peer * 1e3:8.1f} ms  ratio {peer / ours:5.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
