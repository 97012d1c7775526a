"""What the animator waits for: Re-bake and Analyze clicked, against ``nla.bake``.

    .venv/bin/python -m benchmarks.bench_ops [--smoke] [--repeats N]

Each action is one whole ``bpy.ops`` call, as the panel's button makes it, with
every refresh it triggers included: ``bpy.ops.quatbake.bake()`` (the bake, then
the Difference Report's before -> after refresh), ``bpy.ops.quatbake.analyze()``,
then the animator's loop: Re-bake clicked after Analyze (its refresh takes Analyze's
analysis of the keys before the bake, analyze.reuse) and Revert after both, timed alone;
and the peer ``bpy.ops.nla.bake`` on the same transforms and frames (visual
keying off, rotation and location channels only where Blender has
``channel_types``), in the same run and process, on fresh scenes:

- a rig: 60 bones x 1,000 frames, quaternion keys every 100 frames (Object Mode,
  the armature selected: every keyed bone);
- objects: 100 empties x 2,000 frames, Euler rotation and location keys every
  100 frames (Location: Linear, so both bake the same channels).

The ratio is nla.bake's wall time over ours (the user waits on the wall clock).
Beside the clicks: the write floor (write_floor), the least any bake writes through
Blender's Python API with nothing computed, which bounds how much faster than nla.bake
any Re-bake could be; and, never instead of the clicks, ``core.analysis.analyze_group`` alone on the inputs
those clicks hand it (core_times), the part of Analyze and of the Re-bake's refresh that
is QuatBake's own numpy.
Peak memory: each case also runs once in a child process of its own, which
reports its resident size before the action and the largest it reached during
it (Linux's VmHWM, reset just before), so one action's memory does not hide in
another's; that includes the 200 bones x 10,000 frames case (full size only).
"""
from __future__ import annotations

import json
import subprocess
import sys

import bpy
import numpy as np

from . import bench_bake, bench_bones
from .common import select_only, timed_op

RIG = (60, 1_000)
OBJECTS = (100, 2_000)
BIG_RIG = (200, 10_000)
SMOKE_RIG = (6, 200)
SMOKE_OBJECTS = (5, 200)


def _scene(kind: str, size: tuple[int, int]) -> list:
    """Fresh scene: [the rig] or the animated objects, selected, Object Mode."""
    if kind == "rig":
        objects = [bench_bones.build_rig(*size)]
    else:
        objects = bench_bake.build_scene(size[0], size[1], extra=0)
    select_only(objects)
    settings = bpy.context.scene.quatbake
    settings.method = 'SLERP'
    settings.location_method = 'KEEP' if kind == "rig" else 'LINEAR'
    return objects


def _nla_bake(kind: str, size: tuple[int, int]) -> dict:
    if kind == "rig":
        return bench_bones.nla_bake_kwargs(size[1])
    kwargs = dict(frame_start=1, frame_end=size[1], only_selected=True, visual_keying=False,
                  bake_types={'OBJECT'})
    if "channel_types" in bpy.ops.nla.bake.get_rna_type().properties:
        kwargs["channel_types"] = {'LOCATION', 'ROTATION'}
    return kwargs


def time_action(kind: str, size: tuple[int, int], action: str) -> float:
    """Wall seconds of one click of ``action``: 'bake', 'analyze', 'nla.bake', or the
    animator's loop: 'bake after analyze' (Re-bake clicked after Analyze, whose analysis
    of the keys before the bake its refresh takes) and 'revert' (Revert after Analyze and
    Re-bake); the clicks before the one timed are not timed."""
    objects = _scene(kind, size)
    if action == "bake":
        return timed_op(bpy.ops.quatbake.bake)
    if action == "bake after analyze":
        timed_op(bpy.ops.quatbake.analyze)
        return timed_op(bpy.ops.quatbake.bake)
    if action == "revert":
        timed_op(bpy.ops.quatbake.analyze)
        timed_op(bpy.ops.quatbake.bake)
        return timed_op(bpy.ops.quatbake.revert)
    if action == "analyze":
        return timed_op(bpy.ops.quatbake.analyze)
    kwargs = _nla_bake(kind, size)
    if kind == "rig":
        bench_bones.select_pose_bones(objects[0])
        try:
            return timed_op(lambda: bpy.ops.nla.bake(**kwargs))
        finally:
            bpy.ops.object.mode_set(mode='OBJECT')
    return timed_op(lambda: bpy.ops.nla.bake(**kwargs))


def best(kind: str, size: tuple[int, int], repeats: int) -> dict:
    """Best wall seconds per action over ``repeats`` rounds, actions alternating."""
    times = {a: float("inf") for a in ("nla.bake", "bake", "analyze", "bake after analyze",
                                       "revert")}
    for _ in range(repeats):
        for action in times:
            times[action] = min(times[action], time_action(kind, size, action))
    return times


def write_floor(kind: str, size: tuple[int, int]) -> float:
    """Wall seconds of the least any bake writes through Blender's Python API, with
    nothing computed: for each transform the click bakes, a new action assigned and its
    rotation (and, for the objects, location) channels created, each given a key on
    every frame by one ``keyframe_points.add`` and two ``foreach_set`` (``co``,
    ``interpolation``: LINEAR), no ``fc.update()``. Random values, made before the clock
    starts. No undo step, no refresh, no report: a bound on any Re-bake's click from
    below, so ``nla.bake / write_floor`` is the most a Re-bake can be faster than
    nla.bake through this API."""
    import time

    from quatbake.addon import animdata, transform

    objects = _scene(kind, size)
    n = size[1]
    co = np.empty(2 * n, dtype=np.float32)
    co[0::2] = np.arange(1, n + 1)
    co[1::2] = np.random.default_rng(0).uniform(-1.0, 1.0, n)
    linear = np.full(n, bpy.types.Keyframe.bl_rna.properties["interpolation"]
                     .enum_items['LINEAR'].value, dtype=np.int32)
    if kind == "rig":
        rig = objects[0]
        owners = [(rig, [(transform.bone_path_prefix(b.name) + "rotation_quaternion", 4)
                         for b in rig.pose.bones])]
    else:
        owners = [(obj, [("rotation_euler", 3), ("location", 3)]) for obj in objects]
    start = time.perf_counter()
    for obj, channels in owners:
        action, slot = animdata.new_action_for(obj, obj.name + "Floor")
        animdata.assign_action(obj, action, slot)
        make = animdata.fcurve_maker(action, slot)
        for path, count in channels:
            for index in range(count):
                points = make(path, index).keyframe_points
                points.add(n)
                points.foreach_set("co", co)
                points.foreach_set("interpolation", linear)
    elapsed = time.perf_counter() - start
    written = sum(len(fc.keyframe_points) for obj, _ in owners
                  for fc in animdata.object_fcurves(obj))
    assert written == n * sum(count for _, channels in owners for _, count in channels), written
    return elapsed


def core_times(kind: str, size: tuple[int, int], repeats: int) -> dict:
    """Beside the clicks, never instead of them: the best seconds of
    ``core.analysis.analyze_group`` alone, on the very inputs the clicks hand it (taken
    by wrapping it during one Analyze and one Re-bake on a fresh scene), over
    ``repeats`` runs each: 'analyze' (the keys as keyed) and 'after bake' (the keys the
    bake wrote, which the Re-bake's refresh analyses)."""
    import time

    from quatbake.core import analysis

    original = analysis.analyze_group
    taken: list = []

    def analyze_group(*args, **kwargs):
        taken.append((args, kwargs))
        return original(*args, **kwargs)

    _scene(kind, size)
    analysis.analyze_group = analyze_group
    try:
        timed_op(bpy.ops.quatbake.analyze)
        analysed = len(taken)
        timed_op(bpy.ops.quatbake.bake)
    finally:
        analysis.analyze_group = original
    out = {}
    for name, calls in (("analyze", taken[:analysed]), ("after bake", taken[analysed:])):
        best = float("inf")
        for _ in range(repeats if calls else 0):
            start = time.perf_counter()
            for args, kwargs in calls:
                original(*args, **kwargs)
            best = min(best, time.perf_counter() - start)
        out[name] = best if calls else None
    return out


def _status_mb(field: str) -> float:
    """A size from /proc/self/status (VmRSS: resident now, VmHWM: its peak), in MB."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024 / 1e6
    raise RuntimeError(f"no {field} in /proc/self/status")


def _reset_peak() -> None:
    """Start VmHWM again from the resident size now (Linux 4.0+: clear_refs 5), so the
    peak read after the action is the action's, not the scene building's."""
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")


def child(kind: str, n: int, frames: int, action: str) -> None:
    """One action in this (child) process: prints its time and memory as JSON."""
    objects = _scene(kind, (n, frames))
    del objects
    _reset_peak()
    before = _status_mb("VmRSS")
    if action == "nla.bake" and kind == "rig":
        bench_bones.select_pose_bones(bpy.data.objects["Rig"])
        elapsed = timed_op(lambda: bpy.ops.nla.bake(**_nla_bake(kind, (n, frames))))
    elif action == "nla.bake":
        elapsed = timed_op(lambda: bpy.ops.nla.bake(**_nla_bake(kind, (n, frames))))
    else:
        elapsed = timed_op(getattr(bpy.ops.quatbake, action))
    peak = _status_mb("VmHWM")
    print(json.dumps({"seconds": elapsed, "rss_before_mb": before, "peak_mb": peak}))


def memory(kind: str, size: tuple[int, int], action: str) -> dict:
    done = subprocess.run([sys.executable, "-m", "benchmarks.bench_ops", "--child", kind,
                           str(size[0]), str(size[1]), action],
                          capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        child(argv[1], int(argv[2]), int(argv[3]), argv[4])
        return 0
    smoke = "--smoke" in argv
    repeats = int(argv[argv.index("--repeats") + 1]) if "--repeats" in argv else (1 if smoke else 3)
    cases = [("rig", SMOKE_RIG if smoke else RIG), ("objects", SMOKE_OBJECTS if smoke else OBJECTS)]
    print(f"Blender {bpy.app.version_string}: each action one bpy.ops call, best of {repeats} "
          "fresh scenes; ratio = nla.bake wall / ours")
    print("Re-bake+A: Re-bake clicked after Analyze; Revert: after Analyze and Re-bake")
    print(f"{'scene':<28} {'nla.bake s':>10} {'Re-bake s':>10} {'ratio':>7} "
          f"{'Analyze s':>10} {'ratio':>7} {'Re-bake+A s':>11} {'ratio':>7} {'Revert s':>9}")
    for kind, size in cases:
        t = best(kind, size, repeats)
        label = f"{size[0]} {'bones' if kind == 'rig' else 'objects'} x {size[1]:,} frames"
        print(f"{label:<28} {t['nla.bake']:>10.3f} {t['bake']:>10.3f} "
              f"{t['nla.bake'] / t['bake']:>6.1f}x {t['analyze']:>10.3f} "
              f"{t['nla.bake'] / t['analyze']:>6.1f}x {t['bake after analyze']:>11.3f} "
              f"{t['nla.bake'] / t['bake after analyze']:>6.1f}x {t['revert']:>9.3f}",
              flush=True)
    print("the least any bake writes through Blender's Python API (write_floor: a key on "
          "every frame of the same channels, nothing computed), best of 3, and the most a "
          "Re-bake can then be faster than nla.bake:")
    for kind, size in cases:
        floor = min(write_floor(kind, size) for _ in range(3))
        nla = min(time_action(kind, size, "nla.bake") for _ in range(repeats))
        label = f"{size[0]} {'bones' if kind == 'rig' else 'objects'} x {size[1]:,} frames"
        print(f"{label:<28} write floor {1000 * floor:.1f} ms, nla.bake {nla:.3f} s: at most "
              f"{nla / floor:.1f}x", flush=True)
    print("core.analysis.analyze_group alone, on the inputs of those clicks (an internal "
          "time, beside the clicks), best of 5:")
    for kind, size in cases:
        t = core_times(kind, size, 5)
        label = f"{size[0]} {'bones' if kind == 'rig' else 'objects'} x {size[1]:,} frames"
        print(f"{label:<28} " + "; ".join(
            f"{name} {'-' if s is None else f'{1000 * s:.1f} ms'}" for name, s in t.items()),
            flush=True)
    mem_cases = cases + ([] if smoke else [("rig", BIG_RIG)])
    print("peak memory, one action per child process (MB: resident before the action -> "
          "largest resident size)")
    for kind, size in mem_cases:
        row = []
        for action in ("nla.bake", "bake", "analyze"):
            m = memory(kind, size, action)
            row.append(f"{action} {m['seconds']:.2f} s, {m['rss_before_mb']:.0f} -> "
                       f"{m['peak_mb']:.0f}")
        label = f"{size[0]} {'bones' if kind == 'rig' else 'objects'} x {size[1]:,} frames"
        print(f"{label:<28} " + "; ".join(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
