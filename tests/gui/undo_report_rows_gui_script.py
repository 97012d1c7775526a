"""Runs inside a real Blender window (Blender 3.4.1 under Xvfb), started by
test_undo_report_rows_gui.py:

    blender --factory-startup --python undo_report_rows_gui_script.py -- RESULT.json REPO_ROOT

Four objects keyed over 30,001 frames each (together past REFRESH_FRAME_LIMIT, so the
Re-bake's refresh leaves their entries pending, as a long shot's), each a wrap from 170
to -170 deg: Analyze, Re-bake, Analyze again (the Re-run), then Ctrl+Z and Ctrl+Shift+Z;
then a second Re-bake, left pending too, and its Ctrl+Z and Ctrl+Shift+Z.
After each step it records, per entry, its list row as drawn (entries.row_figures; none
where the list has no row for it: Ctrl+Z of the bake goes back to before Analyze, which is
no undo step, and its rows), the entry, whether it is current, and Blender's playback
against mathutils' slerp of the key orientations (the oracle, sampled every 250 frames)."""
import math
import os
import sys

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gui_session  # noqa: E402  (a sibling file: importable only after the line above)
from gui_session import view3d_context  # noqa: E402

result = {"steps": [], "errors": []}
NAMES = ("A", "B", "C", "D")
FRAMES = (1, 15001, 30001)


def oracle_deg(obj) -> float:
    scene = bpy.context.scene
    at = {}
    for frame in FRAMES:
        scene.frame_set(frame)
        at[frame] = obj.matrix_basis.to_quaternion()
    worst = 0.0
    for a, b in zip(FRAMES[:-1], FRAMES[1:]):
        for frame in range(a, b + 1, 250):
            scene.frame_set(frame)
            angle = obj.matrix_basis.to_quaternion().rotation_difference(
                at[a].slerp(at[b], (frame - a) / (b - a))).angle
            worst = max(worst, min(angle, 2 * math.pi - angle))
    return math.degrees(worst)


def record(name: str) -> None:
    from quatbake.addon.analyze import entries

    scene = bpy.context.scene
    rows = {row.name: row for row in scene.quatbake.report_rows}
    out = {}
    for key, entry in entries.results(scene).items():
        out[key] = {"row": list(entries.row_figures(scene, rows[key])) if key in rows else None,
                    "entry": [entry.get("verdict"), entry.get("max_deviation_deg")],
                    "current": not entries.is_stale(scene, key),
                    "pending": bool(entry.get("pending")),
                    "oracle_deg": oracle_deg(scene.objects[key])}
    result["steps"].append({"name": name, "rows": out})


def run() -> None:
    override = view3d_context()
    gui_session.clear_objects()
    for i, name in enumerate(NAMES):
        obj = bpy.data.objects.new(name, None)
        bpy.context.scene.collection.objects.link(obj)
        for frame, z in zip(FRAMES, (170.0, -170.0 + i, 150.0)):
            obj.rotation_euler = (0.0, 0.0, math.radians(z))
            obj.keyframe_insert("rotation_euler", frame=frame)
        obj.select_set(True)
    bpy.context.view_layer.objects.active = bpy.data.objects["A"]
    bpy.ops.ed.undo_push(message="built")

    def bake(method):
        return lambda: bpy.ops.quatbake.bake('INVOKE_DEFAULT', True, method=method)

    for name, step in (("analyze", bpy.ops.quatbake.analyze),
                       ("bake, left pending", bake('SLERP')),
                       ("analyze again", bpy.ops.quatbake.analyze),
                       ("undo the bake", bpy.ops.ed.undo),
                       ("redo the bake", bpy.ops.ed.redo),
                       ("bake again, left pending", bake('NLERP')),
                       ("undo the second bake", bpy.ops.ed.undo),
                       ("redo the second bake", bpy.ops.ed.redo)):
        with bpy.context.temp_override(**override):
            step()
        record(name)

gui_session.start(run, result, quit_after=0.5)
