"""Runs INSIDE a real Blender window (started by tests/gui/test_overlay_gui.py).

    xvfb-run -a -s "-screen 0 1280x800x24" blender --factory-startup \
        --python tests/gui/overlay_scene.py -- --zip Q.zip --out DIR

Installs QuatBake from the legacy add-on zip (into BLENDER_USER_SCRIPTS, which
the caller points at a temporary folder), builds a scene with an animated
camera, turns the overlay on, and from ``bpy.app.timers`` callbacks (the
window must have drawn in between):

0. saves DIR/overlay_before_bake.png (the long-arc band drawn), then re-bakes
   the camera with ``quatbake.bake``;
1. after a redraw, projects each expected triad (Blender's evaluated pose at every Nth frame
   and at the keys) to window pixels and writes them to DIR/overlay_points.json;
2. saves a screenshot with the overlay on (DIR/overlay_on.png);
3. turns the overlay off and saves DIR/overlay_off.png;
4. undoes the bake (Ctrl+Z; the undo step has the overlay on) and saves
   DIR/overlay_after_undo.png;
5. pops up the overlay sub-panel (legend) and saves DIR/overlay_panel.png;
6. quits. Any failure is written to the JSON as "error" and Blender quits.

The test, not this script, decides pass or fail from the pixels.
"""
import json
import math
import pathlib
import sys
import traceback

import bpy
from bpy_extras.view3d_utils import location_3d_to_region_2d
from mathutils import Quaternion, Vector

ARGS = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []


def _arg(name: str, default=None):
    return ARGS[ARGS.index(name) + 1] if name in ARGS else default


ZIP = _arg("--zip")
OUT = pathlib.Path(_arg("--out", "."))
STEP = 10            # overlay_step: a triad every 10 frames
SIZE = 0.9           # overlay_size, Blender units
LINE_WIDTH = 3.0     # pixels: wide enough that the line's centre is the pure colour

# Keys of the camera: frame, location, rotation (axis, degrees). Key 3's
# quaternion is written with the opposite sign, so Blender's own interpolation
# turns the long way into and out of it (the overlay's cyan band).
KEYS = (
    (1, (-6.0, -1.0, 0.0), ((1, 0, 0), 45.0)),
    (21, (-2.0, 1.0, 0.0), ((0.3, 1, 0.2), 60.0)),
    (41, (2.0, -1.0, 0.0), ((1, 1, 0), 70.0)),
    (61, (6.0, 1.0, 0.0), ((1, 0, 1), 50.0)),
)

report = {"blender": bpy.app.version_string, "steps": [], "error": None}


def _save_report() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "overlay_points.json").write_text(json.dumps(report, indent=1))


def _fail(step: str) -> None:
    report["error"] = f"{step}: {traceback.format_exc()}"
    _save_report()
    bpy.ops.wm.quit_blender()


def _view3d():
    window = bpy.context.window_manager.windows[0]
    area = max((a for a in window.screen.areas if a.type == 'VIEW_3D'),
               key=lambda a: a.width * a.height)
    region = next(r for r in area.regions if r.type == 'WINDOW')
    return window, area, region


def _build_scene():
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    scene = bpy.context.scene
    cam = bpy.data.objects.new("ShotCam", bpy.data.cameras.new("ShotCam"))
    cam.data.display_size = 0.4
    scene.collection.objects.link(cam)
    cam.rotation_mode = 'QUATERNION'
    for i, (frame, location, (axis, degrees)) in enumerate(KEYS):
        cam.location = location
        q = Quaternion(Vector(axis).normalized(), math.radians(degrees))
        cam.rotation_quaternion = -q if i == 2 else q
        cam.keyframe_insert("location", frame=frame)
        cam.keyframe_insert("rotation_quaternion", frame=frame)
    scene.frame_start, scene.frame_end = KEYS[0][0], KEYS[-1][0]
    scene.frame_set(KEYS[0][0])
    view_layer = bpy.context.view_layer
    cam.select_set(True)
    view_layer.objects.active = cam
    return scene, cam


def _set_view(area) -> None:
    """Top orthographic view of the path; no grid axes, no gizmo (their red/green lines)."""
    space = area.spaces.active
    space.show_gizmo = False
    space.overlay.show_floor = False
    space.overlay.show_axis_x = False
    space.overlay.show_axis_y = False
    space.overlay.show_axis_z = False
    space.overlay.show_cursor = False
    space.overlay.show_text = False
    rv3d = space.region_3d
    rv3d.view_perspective = 'ORTHO'
    rv3d.view_rotation = Quaternion()  # identity = looking down -Z (top view)
    rv3d.view_location = (0.0, 0.0, 0.0)
    rv3d.view_distance = 14.0


def _project_triads(scene, cam, window, region) -> list:
    """Blender's evaluated pose at every STEP-th frame and key, as window pixels."""
    rv3d = region.data
    frames = sorted(set(range(KEYS[0][0], KEYS[-1][0] + 1, STEP)) | {k[0] for k in KEYS})
    keys = {k[0] for k in KEYS}
    out = []
    for frame in frames:
        scene.frame_set(frame)
        matrix = cam.matrix_world.copy()
        base = matrix.translation
        # core.triads.KEY_SCALE; at the current frame a larger triad is drawn over it.
        size = SIZE * (1.5 if frame in keys else 1.0)
        points = {"base": base}
        for name, column in zip("xyz", range(3)):
            axis = matrix.to_3x3().col[column].normalized()
            points[name] = base + axis * size
        entry = {"frame": frame, "key": frame in keys}
        for name, point in points.items():
            px = location_3d_to_region_2d(region, rv3d, point)
            # region pixels (origin bottom-left) -> screenshot pixels (origin top-left)
            entry[name] = None if px is None else [
                region.x + px.x, window.height - 1 - (region.y + px.y)]
        out.append(entry)
    scene.frame_set(KEYS[0][0])
    return out


def _screenshot(path: pathlib.Path) -> None:
    window, area, region = _view3d()
    with bpy.context.temp_override(window=window, area=area, region=region):
        bpy.ops.screen.screenshot(filepath=str(path))


def step_setup():
    try:
        prefs = bpy.context.preferences
        prefs.view.show_splash = False
        bpy.ops.preferences.addon_install(filepath=ZIP, overwrite=True)
        bpy.ops.preferences.addon_enable(module="quatbake")
        report["steps"].append("installed")
        import quatbake.addon.overlay.draw as overlay

        scene, cam = _build_scene()
        window, area, region = _view3d()
        _set_view(area)
        settings = scene.quatbake
        settings.overlay_step = STEP
        settings.overlay_size = SIZE
        settings.overlay_line_width = LINE_WIDTH
        # These shots measure the overlay's lines (pixels near the path, the band's
        # cyan, the ghosts on and off): the legend in the viewport's corner is off;
        # tests/gui/test_overlay_walk_gui.py shows it.
        settings.overlay_show_legend = False
        settings.show_overlay = True
        legend = overlay.legend()
        report["legend_before"] = {"long_arc_count": legend.long_arc_count}
        area.tag_redraw()
        report["steps"].append("overlay on")
        _save_report()
    except Exception:  # noqa: BLE001 - reported to the test through the JSON
        _fail("setup")
        return None
    bpy.app.timers.register(step_bake, first_interval=2.0)
    return None


def step_bake():
    """Screenshot before the bake (band drawn), then bake as its own undo step."""
    try:
        import quatbake.addon.overlay.draw as overlay

        _screenshot(OUT / "overlay_before_bake.png")
        report["steps"].append("shot before bake")
        cam = bpy.data.objects["ShotCam"]
        window, area, region = _view3d()
        override = dict(window=window, area=area, region=region, active_object=cam, object=cam,
                        selected_objects=[cam], selected_editable_objects=[cam])
        with bpy.context.temp_override(**override):
            # An undo step for the scene as built, then the bake as its own
            # step (bpy.ops pushes undo only when asked): step_undo goes back.
            bpy.ops.ed.undo_push(message="QuatBake GUI test scene")
            result = bpy.ops.quatbake.bake('EXEC_DEFAULT', True)
        report["bake"] = sorted(result)
        report["baked_action"] = cam.animation_data.action.name
        report["handlers_on"] = overlay.handler_counts()
        legend = overlay.legend()
        report["legend"] = {"objects": legend.objects, "speed_max": legend.speed_max,
                            "long_arc_count": legend.long_arc_count,
                            "fixed_long_arc_count": legend.fixed_long_arc_count,
                            "problems": legend.problems}
        area.tag_redraw()
        report["steps"].append("baked")
        _save_report()
    except Exception:  # noqa: BLE001 - reported to the test through the JSON
        _fail("bake")
        return None
    bpy.app.timers.register(step_project, first_interval=2.0)
    return None


def step_project():
    """After a redraw: the region's view matrices now describe the top view."""
    try:
        scene = bpy.context.scene
        cam = bpy.data.objects["ShotCam"]
        window, area, region = _view3d()
        report["window"] = [window.width, window.height]
        report["region"] = [region.x, region.y, region.width, region.height]
        report["triads"] = _project_triads(scene, cam, window, region)
        area.tag_redraw()
        report["steps"].append("projected")
        _save_report()
    except Exception:  # noqa: BLE001
        _fail("projecting the triads")
        return None
    bpy.app.timers.register(step_shot_on, first_interval=2.0)
    return None


def step_shot_on():
    try:
        _screenshot(OUT / "overlay_on.png")
        report["steps"].append("shot on")
        bpy.context.scene.quatbake.show_overlay = False
        import quatbake.addon.overlay.draw as overlay

        report["handlers_off"] = overlay.handler_counts()
        _view3d()[1].tag_redraw()
        _save_report()
    except Exception:  # noqa: BLE001
        _fail("screenshot with the overlay on")
        return None
    bpy.app.timers.register(step_shot_off, first_interval=2.0)
    return None


def step_shot_off():
    try:
        _screenshot(OUT / "overlay_off.png")
        report["steps"].append("shot off")
        # Undo the bake while drawing: the undo step restores show_overlay
        # (True when pushed) and the pre-bake action; the cache holds names,
        # not RNA pointers, so undo_post simply rebuilds from restored data.
        import quatbake.addon.overlay.draw as overlay

        before = overlay.rebuild_count()
        window, area, region = _view3d()
        with bpy.context.temp_override(window=window, area=area, region=region):
            bpy.ops.ed.undo()
        cam = bpy.data.objects["ShotCam"]
        report["undo"] = {
            "rebuilt": overlay.rebuild_count() > before,
            "enabled": overlay.is_enabled(),
            "action": cam.animation_data.action.name,
            "objects": overlay.legend().objects,
            "long_arc_count": overlay.legend().long_arc_count,
        }
        area.tag_redraw()
        _save_report()
    except Exception:  # noqa: BLE001
        _fail("screenshot with the overlay off / undo")
        return None
    bpy.app.timers.register(step_shot_undo, first_interval=2.0)
    return None


def step_shot_undo():
    try:
        _screenshot(OUT / "overlay_after_undo.png")
        report["steps"].append("shot after undo")
        # The overlay sub-panel popped up: its legend is drawn (a panel draw
        # error would print a traceback the test looks for).
        window, area, region = _view3d()
        with bpy.context.temp_override(window=window, area=area, region=region):
            bpy.ops.wm.call_panel(name="QUATBAKE_PT_overlay", keep_open=True)
        _save_report()
    except Exception:  # noqa: BLE001
        _fail("screenshot after undo")
        return None
    bpy.app.timers.register(step_shot_panel, first_interval=2.0)
    return None


def step_shot_panel():
    try:
        _screenshot(OUT / "overlay_panel.png")
        report["steps"].append("shot panel")
        _save_report()
    except Exception:  # noqa: BLE001
        _fail("screenshot of the overlay panel")
        return None
    bpy.ops.wm.quit_blender()
    return None


bpy.context.preferences.view.show_splash = False
bpy.app.timers.register(step_setup, first_interval=1.0)
