"""A mocap clip through the command line, against Blender's own BVH import (issue 23).

    .venv/bin/python -m benchmarks.bench_cli_bvh [--smoke] [--frames N] [--repeats R]

The issue's case is a CMU capture of 31 joints x 2,753 frames at 120 fps. The
repository holds a real CMU capture of the same skeleton, ``cmu_12_01_walk.bvh`` (31
joints, 524 frames at 120 fps, tests/data/realdata/bvh); this benchmark makes a clip
of N frames (default 2,753) from it by playing its frames over again, the hierarchy
and every channel as in the file, so the importer and QuatBake read a file of the
issue's size. Each step is a whole process, as a pipeline runs it, each timed on the
wall clock (best of R):

- Blender's BVH import: ``python -c "import bpy; bpy.ops.import_anim.bvh(...)"``
  (bpy's start-up included, as in every process here);
- ``python -m quatbake report walk.blend --json ... --quiet`` (the armature's 31 bones
  analysed);
- ``python -m quatbake bake walk.blend --output ... --quiet`` (slerp, a key per frame).

The ratio is (report + bake) / import: the issue's goal is at most 3x. The .blend the
CLI reads is written once by an untimed import.
"""
from __future__ import annotations

import pathlib
import subprocess
import sys
import tempfile
import time

from .common import size_options

HERE = pathlib.Path(__file__).resolve().parent
WALK = HERE.parent / "tests" / "data" / "realdata" / "bvh" / "cmu_12_01_walk.bvh"
FRAMES = 2_753
SMOKE_FRAMES = 120

IMPORT = ("import sys, bpy\n"
          "bpy.ops.wm.read_factory_settings(use_empty=True)\n"
          "assert bpy.ops.import_anim.bvh(filepath=sys.argv[1]) == {'FINISHED'}\n"
          "if len(sys.argv) > 2:\n"
          "    bpy.ops.wm.save_as_mainfile(filepath=sys.argv[2])\n")


def longer_clip(frames: int, out: pathlib.Path) -> None:
    """``WALK`` with ``frames`` frames: its hierarchy, then its motion lines over again."""
    lines = WALK.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip().startswith("Frames:"))
    motion = [line for line in lines[at + 2:] if line.strip()]
    played = [motion[i % len(motion)] for i in range(frames)]
    out.write_text("\n".join(lines[:at] + [f"Frames: {frames}", lines[at + 1]] + played)
                   + "\n")


def timed(cmd: list, cwd: pathlib.Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=1800)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):   # report exits 1 when it finds the long way round
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed ({done.returncode}):\n"
                           f"{done.stderr[-2000:]}")
    return elapsed


def main(argv: list[str]) -> int:
    _smoke, frames, repeats = size_options(argv, FRAMES, SMOKE_FRAMES)
    py = sys.executable
    root = HERE.parent.parent     # the folder holding the quatbake package
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        bvh, blend = tmp / "walk.bvh", tmp / "walk.blend"
        longer_clip(frames, bvh)
        subprocess.run([py, "-c", IMPORT, str(bvh), str(blend)], check=True,
                       capture_output=True, timeout=1800)
        steps = {
            "import": [py, "-c", IMPORT, str(bvh)],
            "report": [py, "-m", "quatbake", "report", str(blend), "--json",
                       str(tmp / "r.json"), "--quiet"],
            "bake": [py, "-m", "quatbake", "bake", str(blend), "--output",
                     str(tmp / "baked.blend"), "--quiet"],
        }
        best = {name: float("inf") for name in steps}
        for _ in range(repeats):
            for name, cmd in steps.items():
                best[name] = min(best[name], timed(cmd, root))
    ours = best["report"] + best["bake"]
    print(f"31 joints x {frames:,} frames (cmu_12_01_walk played over), each a process, "
          f"best of {repeats}:")
    print(f"  Blender's BVH import {best['import']:.2f} s; quatbake report "
          f"{best['report']:.2f} s + bake {best['bake']:.2f} s = {ours:.2f} s "
          f"= {ours / best['import']:.2f}x the import (goal: at most 3x)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
