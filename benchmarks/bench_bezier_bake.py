"""A Bezier tolerance bake (issue 22) vs Blender's Graph Editor Decimate, same scenes, same run.

    .venv/bin/python -m benchmarks.bench_bezier_bake [--smoke] [--size OBJECTS FRAMES]

1. The issue's three scenes, keyed as an animator keys (``keyframe_insert``, 4
   Bezier keys over 121 frames): an Euler camera whose Z is keyed
   150 -> 170 -> -170 -> -150 deg (the wrap), a quaternion camera panning
   0 -> 50 -> 100 -> 140 deg with its third key stored as -q, and a three-axis
   Euler swing. Each is baked, on a fresh scene each time:

   - by QuatBake with ``tolerance_deg`` 0.01 / 0.1 / 1 and Keys: Bezier (the animator's
     keys kept, then let go as Decimate lets them go: ``keep_key_frames=False``), then
     Linear;
   - densely by QuatBake (slerp, a key on every frame), then thinned by Blender's
     own ``bpy.ops.graph.decimate(mode='ERROR', remove_error_margin=...)`` at
     0.0002 / 0.002 / 0.02 (the issue's settings). Decimate needs a Graph Editor:
     headless, the factory screen's largest area is switched to GRAPH_EDITOR and
     the operator runs under ``bpy.context.temp_override`` (window, screen, area,
     region) with every key selected.

   Every result is played by Blender (``scene.frame_set`` with subframes, then
   ``matrix_world``) at every quarter frame and at whole frames, and compared
   with scipy's Slerp of the key orientations (the method's path). Keys: the key
   frames of all rotation channels together (a pose in the Dope Sheet), and the
   most any one channel has (Decimate thins each channel on its own).

2. Conversion (bake.convert_objects, 0.01 deg) of the swing from XYZ to QUATERNION
   and to ZXY and of the quaternion camera to XYZ, beside Blender 5.3's own Convert
   Rotation Mode, ``bpy.ops.anim.rotation_mode_convert(mode=..., bake=False / True)``,
   run on the same scene rebuilt (it acts on the selected objects, or on the selected
   pose bones in Pose Mode; no editor context is needed; bake=True keys every frame of
   the keyed range). Where the running bpy has no such operator (before 5.3), a
   stand-in is measured instead and the output says so: a key on every frame of the
   new mode written here from Blender's playback. Each result: rotation keys, and the
   largest error at quarter frames against Blender's playback before the conversion;
   then the issue's goal (QuatBake at most 25% of the per-frame conversion's keys, at
   0.01 deg or better), met or not.

3. Time: OBJECTS x FRAMES (default 100 x 2,000: bench_bake's empties, XYZ Euler
   keyed every 50 frames, uniform in +-3 rad per axis) baked with slerp, rotation
   only: the dense bake, the Bezier tolerance bake at 0.01 deg (and how much of it
   is the fit, ``core.bezier_keys.fit_many``) and the Linear tolerance bake; output
   KEEP (Euler) and QUATERNION. The issue's goal: the Bezier bake at most 3x the
   dense bake's time. Best of a few runs, process CPU time (a shared machine
   inflates wall time). Then the same as the animator waits for it: the Re-bake click,
   ``bpy.ops.quatbake.bake()`` with the refresh it triggers, dense against Bezier at
   0.01 deg, wall time.
"""

from __future__ import annotations

import math
import sys

import bpy
import mathutils
import numpy as np
from scipy.spatial.transform import Rotation, Slerp

import quatbake
from quatbake.addon import animdata, bake
from quatbake.core import bezier_keys

from .bench_bake import build_scene
from .common import clock, select_only, since, timed_op

KEY_FRAMES = [1.0, 41.0, 81.0, 121.0]
TOLERANCES = (0.01, 0.1, 1.0)
DECIMATE_MARGINS = (0.0002, 0.002, 0.02)
QUARTERS = np.arange(1.0, 121.125, 0.25)
WHOLE = np.arange(1.0, 122.0)
SCENES = ("Euler camera", "Quaternion camera", "3-axis swing")


# ---------------------------------------------------------------- the scenes

def _fresh_screen_scene():
    """Factory settings with their screen (Decimate needs an area), no objects."""
    if hasattr(bpy.types.Scene, "quatbake"):
        quatbake.unregister()
    bpy.ops.wm.read_factory_settings(use_empty=False)
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    quatbake.register()
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 121


def _keyed(name, mode, values, camera=True):
    obj = bpy.data.objects.new(name, bpy.data.cameras.new(name) if camera else None)
    bpy.context.scene.collection.objects.link(obj)
    obj.rotation_mode = mode
    path = "rotation_quaternion" if mode == 'QUATERNION' else "rotation_euler"
    for frame, value in zip(KEY_FRAMES, values):
        setattr(obj, path, value)
        obj.keyframe_insert(path, frame=frame)
    return obj


def build(which: str):
    _fresh_screen_scene()
    rad = np.radians
    if which == "Euler camera":
        return _keyed("Cam", 'XYZ', rad([[80, 0, 150], [85, 0, 170], [85, 0, -170],
                                         [80, 0, -150]]))
    if which == "Quaternion camera":
        pans = [mathutils.Euler((math.radians(90), 0, math.radians(d)), 'XYZ').to_quaternion()
                for d in (0, 50, 100, 140)]
        pans[2].negate()
        return _keyed("Cam", 'QUATERNION', pans)
    return _keyed("Swing", 'XYZ', rad([[0, 0, 0], [70, 40, 100], [-40, 75, 210],
                                       [30, -35, 320]]), camera=False)


def played(obj, times) -> np.ndarray:
    scene = bpy.context.scene
    out = np.empty((len(times), 4))
    for i, t in enumerate(times):
        whole = math.floor(t)
        scene.frame_set(int(whole), subframe=float(t - whole))
        q = obj.matrix_world.to_quaternion()
        out[i] = (q.w, q.x, q.y, q.z)
    return out


def error_deg(a, b) -> np.ndarray:
    ra = Rotation.from_quat(np.asarray(a)[:, [1, 2, 3, 0]])
    rb = Rotation.from_quat(np.asarray(b)[:, [1, 2, 3, 0]])
    return np.degrees((ra.inv() * rb).magnitude())


def key_counts(obj) -> tuple[int, int]:
    """(key frames of all rotation channels together, most keys on one channel)."""
    fcs = [fc for fc in animdata.object_fcurves(obj) if fc.data_path.startswith("rotation")]
    frames = [animdata.read_keyframe_arrays(fc, ("co",))["co"][:, 0] for fc in fcs]
    return int(np.unique(np.concatenate(frames)).size), max(f.size for f in frames)


def decimate(obj, margin: float) -> None:
    """Blender's Graph Editor Decimate (error mode) on every key of ``obj``, headless."""
    window = bpy.context.window_manager.windows[0]
    area = max(window.screen.areas, key=lambda a: a.width * a.height)
    area.type = 'GRAPH_EDITOR'
    region = next(r for r in area.regions if r.type == 'WINDOW')
    for other in bpy.context.scene.objects:
        other.select_set(other == obj)
    bpy.context.view_layer.objects.active = obj
    with bpy.context.temp_override(window=window, screen=window.screen, area=area,
                                   region=region):
        bpy.ops.graph.reveal()
        bpy.ops.graph.select_all(action='SELECT')
        result = bpy.ops.graph.decimate(mode='ERROR', remove_error_margin=margin)
    if result != {'FINISHED'}:
        raise RuntimeError(f"graph.decimate returned {result}")


def scenes_table() -> None:
    print("1. The issue's scenes (121 frames, 4 keys): keys (all channels / most on one), "
          "largest error in deg at quarter frames and at whole frames, against scipy's "
          "Slerp of the key orientations")
    print(f"{'scene':>18} {'what':>34} {'keys':>5} {'1 ch.':>6} {'quarter':>9} {'whole':>9}")
    for which in SCENES:
        obj = build(which)
        path = Slerp(KEY_FRAMES, Rotation.from_quat(played(obj, KEY_FRAMES)[:, [1, 2, 3, 0]]))
        target_q = path(QUARTERS).as_quat()[:, [3, 0, 1, 2]]
        target_w = path(WHOLE).as_quat()[:, [3, 0, 1, 2]]
        runs = [(f"QuatBake Bezier {tol:g}", dict(tolerance_deg=tol, key_interpolation='BEZIER'),
                 None) for tol in TOLERANCES]
        # The animator's keys let go (BakeSettings.keep_key_frames=False), as Decimate
        # lets them go: the same comparison, key for key.
        runs += [(f"QuatBake Bezier {tol:g}, keys free", dict(
            tolerance_deg=tol, key_interpolation='BEZIER', keep_key_frames=False), None)
            for tol in TOLERANCES]
        runs += [(f"QuatBake Linear {tol:g}", dict(tolerance_deg=tol, key_interpolation='LINEAR'),
                  None) for tol in TOLERANCES]
        runs += [(f"dense + Decimate {m:g}", {}, m) for m in DECIMATE_MARGINS]
        allowed, turn = moonshot_keys(played(obj, KEY_FRAMES))
        bezier_keys_kept = {}
        for label, extra, margin in runs:
            obj = build(which)
            bake.bake_objects([obj], bake.BakeSettings(method='SLERP', **extra))
            if margin is not None:
                decimate(obj, margin)
            keys, most = key_counts(obj)
            quarter = error_deg(played(obj, QUARTERS), target_q).max()
            whole = error_deg(played(obj, WHOLE), target_w).max()
            print(f"{which:>18} {label:>34} {keys:>5} {most:>6} {quarter:>9.4f} {whole:>9.4f}",
                  flush=True)
            if label.startswith("QuatBake Bezier") and "free" not in label:
                bezier_keys_kept[label.split()[-1]] = keys
        verdicts = ", ".join(f"{tol} {n} keys {'met' if n <= allowed else 'NOT met'}"
                             for tol, n in bezier_keys_kept.items())
        print(f"{which:>18} {'moonshot':>34}  at most {allowed} keys ({len(KEY_FRAMES)} + one "
              f"per 90 deg of the slerp's {turn:.0f} deg): Bezier {verdicts}", flush=True)


def moonshot_keys(key_quats) -> tuple[int, float]:
    """Issue 22's moonshot for keys at these orientations (w, x, y, z), one per key:
    (the key count plus one per 90 deg the slerp through them turns, that turn in deg).
    A slerp turns the short angle between neighbouring keys (scipy's magnitude)."""
    rot = Rotation.from_quat(np.asarray(key_quats)[:, [1, 2, 3, 0]])
    turn = float(np.degrees((rot[1:] * rot[:-1].inv()).magnitude().sum()))
    return len(key_quats) + int(turn // 90.0), turn


# ---------------------------------------------------------------- time

def _timed_fit():
    """Wrap core.bezier_keys.fit_many as the bake calls it, adding up its CPU time."""
    spent = {"cpu": 0.0}
    original = bezier_keys.fit_many

    def fit_many(*args, **kwargs):
        start = clock()
        try:
            return original(*args, **kwargs)
        finally:
            spent["cpu"] += since(start)[0]

    bezier_keys.fit_many = fit_many
    return spent, original


def _bake_time(n_objects, n_frames, settings, repeats):
    """(best CPU s, its wall s, keys written, fit CPU s in that run)."""
    best = None
    for _ in range(repeats):
        objects = build_scene(n_objects, n_frames, 0)
        spent, original = _timed_fit()
        try:
            start = clock()
            result = bake.bake_objects(objects, settings)
            cpu, wall = since(start)
        finally:
            bezier_keys.fit_many = original
        if best is None or cpu < best[0]:
            best = (cpu, wall, result.keys_written, spent["cpu"])
    return best


def _click_time(n_objects: int, n_frames: int, output: str, tolerance: float) -> float:
    """Wall seconds of one Re-bake click (``bpy.ops.quatbake.bake()``, the Difference
    Report's refresh included) on a fresh scene, every object selected."""
    objects = build_scene(n_objects, n_frames, 0)
    select_only(objects)
    settings = bpy.context.scene.quatbake
    settings.method = 'SLERP'
    settings.location_method = 'KEEP'
    settings.output_mode = output
    settings.tolerance = tolerance
    settings.key_interpolation = 'BEZIER'
    return timed_op(bpy.ops.quatbake.bake)


def click_table(n_objects: int, n_frames: int, repeats: int) -> None:
    """What the animator waits for: the click, dense and Bezier alternating, best wall."""
    print(f"\n   As clicked: bpy.ops.quatbake.bake(), refresh included; best of {repeats}, "
          "wall s")
    print(f"{'output':>10} {'dense':>7} {'Bezier':>7} {'ratio':>6}")
    for output in ('KEEP', 'QUATERNION'):
        dense = bez = math.inf
        for _ in range(repeats):
            dense = min(dense, _click_time(n_objects, n_frames, output, 0.0))
            bez = min(bez, _click_time(n_objects, n_frames, output, 0.01))
        print(f"{output:>10} {dense:>7.2f} {bez:>7.2f} {bez / dense:>5.2f}x", flush=True)


def time_table(n_objects: int, n_frames: int, repeats: int) -> None:
    print(f"\n3. Time: {n_objects} objects x {n_frames} frames (XYZ keys every 50 frames, "
          f"+-3 rad), slerp, rotation only, tolerance 0.01 deg; best of {repeats}, CPU s")
    print(f"{'output':>10} {'dense':>7} {'Bezier':>7} {'ratio':>6} {'fit':>6} {'fit/dense':>9} "
          f"{'Linear':>7} {'ratio':>6} {'Bezier keys':>12} {'Linear keys':>12}")
    for output in ('KEEP', 'QUATERNION'):
        common = dict(method='SLERP', output_mode=output)
        dense = _bake_time(n_objects, n_frames, bake.BakeSettings(**common), repeats)
        bez = _bake_time(n_objects, n_frames, bake.BakeSettings(
            tolerance_deg=0.01, key_interpolation='BEZIER', **common), repeats)
        lin = _bake_time(n_objects, n_frames, bake.BakeSettings(
            tolerance_deg=0.01, key_interpolation='LINEAR', **common), repeats)
        print(f"{output:>10} {dense[0]:>7.2f} {bez[0]:>7.2f} {bez[0] / dense[0]:>5.2f}x "
              f"{bez[3]:>6.2f} {bez[3] / dense[0]:>8.2f}x {lin[0]:>7.2f} {lin[0] / dense[0]:>5.2f}x "
              f"{bez[2]:>12,} {lin[2]:>12,}", flush=True)
    for output in ('KEEP', 'QUATERNION'):
        moonshot_table(n_objects, n_frames, output)


def moonshot_table(n_objects: int, n_frames: int, output: str) -> None:
    """Issue 22's moonshot on the timing scene: each object's Bezier keys at 0.01 deg
    against its keys plus one per 90 deg of the slerp's turn (moonshot_keys, from
    Blender's playback at its key frames)."""
    objects = build_scene(n_objects, n_frames, 0)
    keyed = animdata.key_frames([fc for fc in animdata.object_fcurves(objects[0])
                                 if fc.data_path == "rotation_euler"])
    quats = {obj.name: [] for obj in objects}
    for frame in keyed:
        bpy.context.scene.frame_set(int(frame))
        for obj in objects:
            q = obj.matrix_world.to_quaternion()
            quats[obj.name].append((q.w, q.x, q.y, q.z))
    allowed = {name: moonshot_keys(q)[0] for name, q in quats.items()}
    result = bake.bake_objects(objects, bake.BakeSettings(
        method='SLERP', output_mode=output, tolerance_deg=0.01, key_interpolation='BEZIER'))
    got = result.keys_per_object
    over = sum(got[name] > most for name, most in allowed.items())
    print(f"   moonshot, {output}: {sum(got.values()):,} Bezier keys at 0.01 deg, at most "
          f"{sum(allowed.values()):,} ({len(keyed) * len(objects):,} keyed + one per 90 deg of "
          f"turn); {over} of {len(objects)} objects over", flush=True)


# ---------------------------------------------------------------- conversion

CONVERSIONS = (("Euler swing", "3-axis swing", 'QUATERNION'), ("Euler swing", "3-axis swing", 'ZXY'),
               ("quaternion turn", "Quaternion camera", 'XYZ'))


def has_blender_conversion() -> bool:
    """Whether this bpy has Blender 5.3's Convert Rotation Mode operator."""
    return "rotation_mode_convert" in dir(bpy.ops.anim)


def blender_conversion(obj, mode: str, bake_keys: bool) -> None:
    """Blender 5.3's own ``anim.rotation_mode_convert`` on ``obj`` alone (it acts on the
    selected objects in Object Mode; no editor context needed)."""
    for other in bpy.context.scene.objects:
        other.select_set(other == obj)
    bpy.context.view_layer.objects.active = obj
    result = bpy.ops.anim.rotation_mode_convert(mode=mode, bake=bake_keys)
    if result != {'FINISHED'} or obj.rotation_mode != mode:
        raise RuntimeError(f"anim.rotation_mode_convert returned {result}, "
                           f"rotation mode {obj.rotation_mode}")


def _per_frame_conversion(obj, mode: str) -> None:
    """The stand-in where bpy has no rotation_mode_convert: a key on every frame of the
    new mode, from Blender's playback there (what Blender 5.3's
    rotation_mode_convert(bake=True) writes), Euler continuous through each frame's
    compatible Euler."""
    scene = bpy.context.scene
    quats = [mathutils.Quaternion(q) for q in played(obj, WHOLE)]
    obj.animation_data_clear()
    obj.rotation_mode = mode
    previous = None
    for frame, q in zip(WHOLE, quats):
        if mode == 'QUATERNION':
            if previous is not None and previous.dot(q) < 0.0:
                q = -q
            obj.rotation_quaternion = q
            obj.keyframe_insert("rotation_quaternion", frame=frame)
        else:
            e = q.to_euler(mode, previous) if previous is not None else q.to_euler(mode)
            obj.rotation_euler = e
            obj.keyframe_insert("rotation_euler", frame=frame)
            q = e
        previous = q
    scene.frame_set(1)


GOAL_SHARE, GOAL_DEG = 0.25, 0.01


def conversion_table() -> None:
    real = has_blender_conversion()
    print("\n2. Conversion: keys and largest error in deg at quarter frames against Blender's "
          "playback before it")
    if real:
        print(f"   Blender's own: bpy.ops.anim.rotation_mode_convert (bpy "
              f"{bpy.app.version_string})")
        version = ".".join(map(str, bpy.app.version[:2]))
        runs = [("QuatBake convert 0.01", "quatbake"),
                (f"Blender {version}, bake=False", "blender"),
                (f"Blender {version}, bake=True", "blender-bake")]
    else:
        print(f"   bpy {bpy.app.version_string} has no anim.rotation_mode_convert (Blender 5.3+): "
              "STAND-IN measured instead, a key on every frame of the new mode written from "
              "Blender's playback")
        runs = [("QuatBake convert 0.01", "quatbake"),
                ("stand-in: key per frame", "stand-in")]
    print(f"{'case':>26} {'what':>30} {'keys':>5} {'quarter':>9}")
    for label, which, mode in CONVERSIONS:
        case = f"{label} to {mode}"
        figures = {}
        for what, how in runs:
            obj = build(which)
            before = played(obj, QUARTERS)
            if how == "quatbake":
                bake.convert_objects([obj], mode, 0.01)
            elif how == "stand-in":
                _per_frame_conversion(obj, mode)
            else:
                blender_conversion(obj, mode, bake_keys=how == "blender-bake")
            keys, _most = key_counts(obj)
            err = error_deg(before, played(obj, QUARTERS)).max()
            figures[how] = (keys, err)
            print(f"{case:>26} {what:>30} {keys:>5} {err:>9.4f}", flush=True)
        ours_keys, ours_err = figures["quatbake"]
        per_frame = "blender-bake" if real else "stand-in"
        their_keys = figures[per_frame][0]
        share = ours_keys / their_keys
        met = share <= GOAL_SHARE and ours_err <= GOAL_DEG
        print(f"{case:>26} {'goal':>30}  {ours_keys} keys = {100 * share:.0f}% of "
              f"{'Blender bake=True' if real else 'the stand-in'}'s {their_keys}, "
              f"{ours_err:.4f} deg: {'met' if met else 'NOT met'} (at most "
              f"{100 * GOAL_SHARE:.0f}%, at most {GOAL_DEG} deg)", flush=True)


def main(argv: list[str]) -> int:
    smoke = "--smoke" in argv
    n_objects, n_frames, repeats = (5, 200, 1) if smoke else (100, 2_000, 3)
    if "--size" in argv:
        at = argv.index("--size")
        n_objects, n_frames = int(argv[at + 1]), int(argv[at + 2])
    scenes_table()
    conversion_table()
    time_table(n_objects, n_frames, repeats)
    click_table(n_objects, n_frames, repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
