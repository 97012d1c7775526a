"""Script-side pieces of the window scripts that run their steps one after another on
Blender's timers (panel_loop_script.py, panel_layout_script.py, overlay_walk_script.py;
Blender 3.4.1 under Xvfb, started by harness.run_window_session): each step runs after
a redraw of the one before, an exception is recorded in the result and ends the
session. Also what those scripts do alike: import a BVH, read the sidebar's pixels of
a screenshot, click, pick the QuatBake tab."""
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


def sidebar_pixels(shot: str):
    """The sidebar's pixels of the screenshot ``shot`` (header_bands' layout)."""
    import header_bands

    window, _area, regions = areas()
    ui = regions['UI']
    image = bpy.data.images.load(shot)
    try:
        pixels = header_bands.blender_image_rgb(image)
    finally:
        bpy.data.images.remove(image)
    return header_bands.region_pixels(pixels, [ui.x, ui.y, ui.width, ui.height], window.height)


def click(x: int, y: int) -> None:
    """A left click at window pixel (x, y), as a user's."""
    window = areas()[0]
    window.event_simulate(type='MOUSEMOVE', value='NOTHING', x=x, y=y)
    window.event_simulate(type='LEFTMOUSE', value='PRESS', x=x, y=y)
    window.event_simulate(type='LEFTMOUSE', value='RELEASE', x=x, y=y)


def click_last_tab(shot: str) -> list:
    """Click the sidebar's last tab (QuatBake: Item, Tool, View, then the add-ons') where
    the screenshot ``shot`` shows it: Blender 3.4 has no Python way to pick a tab.
    Returns the tabs found, (top, bottom) rows each."""
    import header_bands

    _window, _area, regions = areas()
    ui = regions['UI']
    found = header_bands.tabs(sidebar_pixels(shot))
    top, bottom = found[-1]
    click(ui.x + ui.width - header_bands.TAB_COLUMN_FROM_RIGHT,
          ui.y + ui.height - (top + bottom) // 2)
    return found


def import_bvh(path: str) -> None:
    """Blender's BVH importer as it comes. Debian's 3.4.1 runs Python 3.11, where the
    importer's open(path, 'rU') fails: 'rU' is mapped to 'r', which is what text mode
    always does in Python 3 (as tests/blender/test_realdata_import.open_mode_ru_as_r)."""
    import builtins

    real_open = builtins.open

    def open_without_u(file, mode="r", *args, **kwargs):
        return real_open(file, "r" if mode == "rU" else mode, *args, **kwargs)

    builtins.open = open_without_u
    try:
        bpy.ops.import_anim.bvh(filepath=path)
    finally:
        builtins.open = real_open
