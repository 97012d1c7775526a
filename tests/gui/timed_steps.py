"""Script-side pieces of the window scripts that run their steps one after another on
Blender's timers (panel_loop_script.py, panel_layout_script.py; Blender 3.4.1 under
Xvfb, started by harness.run_window_session): each step runs after a redraw of the one
before, an exception is recorded in the result and ends the session."""
import json
import traceback

import addon_utils
import bpy


def stepper(result: dict, result_path: str):
    """(step, finish) for a script whose JSON ``result`` goes to ``result_path``:
    ``step(fn, then)`` is a timer callback running ``fn`` then scheduling ``then``
    (``finish`` when None), ``finish()`` writes the result and quits Blender."""
    def finish():
        with open(result_path, "w", encoding="utf-8") as handle:
            json.dump(result, handle, indent=1)
        bpy.ops.wm.quit_blender()
        return None

    def step(fn, then=None, delay=1.5):
        def run():
            try:
                fn()
            except Exception:  # noqa: BLE001 - reported to the test
                result["errors"].append(traceback.format_exc())
                finish()
                return None
            bpy.app.timers.register(then or finish, first_interval=delay)
            return None
        return run

    return step, finish


def enable_quatbake(result: dict) -> None:
    """No splash screen, and the add-on enabled as a user enables it (an error recorded)."""
    bpy.context.preferences.view.show_splash = False
    addon_utils.enable("quatbake", default_set=True, handle_error=lambda exc: result[
        "errors"].append("enable: " + "".join(traceback.format_exception(exc))))


def areas():
    """(window, the largest 3D Viewport, its regions by type)."""
    window = bpy.context.window_manager.windows[0]
    area = max((a for a in window.screen.areas if a.type == 'VIEW_3D'),
               key=lambda a: a.width * a.height)
    return window, area, {r.type: r for r in area.regions}


def redraw() -> None:
    for window in bpy.context.window_manager.windows:
        for area in window.screen.areas:
            area.tag_redraw()


def view3d_override() -> dict:
    """An operator context as a click in the 3D Viewport, on the selected objects."""
    window, area, regions = areas()
    objs = list(bpy.context.view_layer.objects.selected)
    return dict(window=window, area=area, region=regions['WINDOW'], selected_objects=objs,
                selected_editable_objects=objs, active_object=objs[0], object=objs[0])
