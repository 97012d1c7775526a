"""Script-side pieces shared by the GUI scripts that run inside a real Blender
window (undo_gui_script.py, undo_chain_gui_script.py, export_check_gui_script.py;
Blender 3.4.1 under Xvfb, started by harness.run_blender_script).

Each script is called as ``blender ... --python SCRIPT -- RESULT.json REPO_ROOT``,
fills ``result`` (a JSON-able dict with at least "errors") and hands its
``run()`` to :func:`start`, which runs it once the window is up, writes the
result and quits Blender.
"""
import json
import os
import sys
import traceback

import addon_utils
import bpy

RESULT_PATH, REPO_ROOT = sys.argv[sys.argv.index("--") + 1:][:2]
# tests/blender/scenes.py builds the keyed objects and takes the snapshots.
sys.path.insert(0, os.path.join(REPO_ROOT, "tests", "blender"))


def view3d_context() -> dict:
    """Window, 3D Viewport area and its main region: an operator context like a button press."""
    window = bpy.context.window_manager.windows[0]
    area = next(a for a in window.screen.areas if a.type == 'VIEW_3D')
    region = next(r for r in area.regions if r.type == 'WINDOW')
    return {"window": window, "area": area, "region": region}


def snapshot() -> dict:
    """scenes.scene_snapshot() at frame 1 (what undo steps are compared by)."""
    import scenes
    bpy.context.scene.frame_set(1)
    return scenes.scene_snapshot()


def snapshot_equal(a: dict, b: dict) -> tuple:
    """(True, "") if two scenes.scene_snapshot() results match, else (False, the difference)."""
    import scenes
    try:
        scenes.assert_same_snapshot(a, b)
        return True, ""
    except AssertionError as err:
        return False, str(err)[:500]


def record_step(result: dict, name: str, ok: bool, detail="") -> None:
    """Append one named check to ``result["steps"]`` (the test asserts every "ok")."""
    result["steps"].append({"name": name, "ok": bool(ok), "detail": str(detail)})


def count_draws(result: dict, panel_idname: str) -> None:
    """Count successful draws of a panel in ``result["draws"]`` and keep any exception its
    draw raised in ``result["errors"]`` (the panel is drawn by Blender, not by the script)."""
    cls = getattr(bpy.types, panel_idname)
    original = cls.draw
    result.setdefault("draws", {})[panel_idname] = 0

    def draw(self, context):
        try:
            original(self, context)
        except Exception:
            result["errors"].append(f"{panel_idname}.draw: {traceback.format_exc()}")
            raise
        result["draws"][panel_idname] += 1

    cls.draw = draw


def clear_objects() -> None:
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)


def new_arm():
    """The object "Arm": XYZ Euler keys at frames 1, 21, 41 that cross the +-180 degree wrap."""
    import numpy as np

    import scenes
    frames = np.array([1.0, 21.0, 41.0])
    eulers = np.radians([[0.0, 0.0, 170.0], [80.0, 30.0, -170.0], [10.0, -60.0, 60.0]])
    return scenes.make_animated_object("Arm", 'XYZ', frames, eulers)


def start(run, result: dict, quit_after: float) -> None:
    """Enable QuatBake, call ``run()`` once the window is up, then write ``result`` and quit.

    Exceptions (from enabling the add-on or from ``run``) are appended to
    ``result["errors"]`` as tracebacks. ``quit_after`` (seconds) leaves the
    window that long after ``run`` before writing and quitting, e.g. for a
    redraw cycle.
    """
    def finish():
        with open(RESULT_PATH, "w", encoding="utf-8") as handle:
            json.dump(result, handle, indent=1)
        bpy.ops.wm.quit_blender()

    def on_timer():
        try:
            run()
        except Exception:
            result["errors"].append(traceback.format_exc())
        bpy.app.timers.register(finish, first_interval=quit_after)
        return None

    bpy.context.preferences.view.show_splash = False
    addon_utils.enable("quatbake", default_set=True, handle_error=lambda exc: result["errors"].append(
        "enable: " + "".join(traceback.format_exception(exc))))
    bpy.app.timers.register(on_timer, first_interval=1.0)
