# SPDX-License-Identifier: GPL-3.0-or-later
"""Viewport overlay: RGB axis triads along the path of the selected animated objects.

What is drawn (geometry from ``core.triads``, see its docstring for colours),
for every selected animated object and every object pinned with
``obj.quatbake.overlay_pinned``:

- solid triads: QuatBake's interpolation (``scene.quatbake.method``) of the
  orientations at the current action's rotation keys, every Nth frame, key
  poses larger, the current frame's triad larger and wider;
- ghost triads (optional): Blender's own evaluation of the current action
  (``animdata.evaluate_rotation``), faded, at the same positions. After a bake
  the action holds QuatBake's keys, so the ghost coincides with the solid
  triads: a visible fan of faded axes is exactly the difference a bake makes;
- the path (the location channels, evaluated by Blender) coloured by angular
  speed, and a cyan band under key intervals that Blender turns the long way.

How it is wired (one registry in this module; the sampling and the geometry
live in ``overlay.geometry``, imported on the first rebuild so that
registering the add-on does not load the interpolation engine, measured in
benchmarks/bench_register.py):

- ``enable()`` / ``disable()`` are idempotent. Enabled = one SpaceView3D draw
  handler + our depsgraph_update_post and frame_change_post functions in
  ``bpy.app.handlers`` + msgbus subscriptions. ``scene.quatbake.show_overlay``
  calls them from its update callback.
- Geometry is brought up to date in the handlers (keys, selection or settings
  changed), never in the draw callback: ``overlay.reuse`` keeps each transform's
  geometry with a key of what it is made from and makes again only the ones whose
  key changed, so a selection change only re-picks which are drawn. The current
  frame's triad is re-picked from the cached samples on frame change. The draw
  callback uploads the cached float32 arrays when they changed (the GPU batch
  needs a GPU context) and otherwise only binds, sets uniforms and draws.
- Objects are remembered by name only, so undo cannot leave a dangling RNA
  reference in the cache.
- ``load_post`` (registered for as long as the add-on is) drops everything and
  re-enables only if the loaded file's scene asks for the overlay; ``undo_post``
  and ``redo_post`` (also always registered) follow the restored setting and
  rebuild. ``unregister()`` removes every handler.
- In background mode (``bpy.app.background``) the handlers and the draw handle
  are still registered (so the bookkeeping is the same and testable) but the
  draw callback returns before touching ``gpu``.
"""
from __future__ import annotations

import bpy
import numpy as np
from bpy.app.handlers import persistent

from .. import versions
from ..ui import translations
from .legend import Legend


class _Registry:
    """Module state: handles, cached arrays and their GPU batches."""

    def __init__(self) -> None:
        self.enabled = False
        self.draw_handle = None
        self.label_handle = None    # POST_PIXEL: the names at the paths' ends
        self.msgbus_owner = object()
        self.reset_cache()
        self.error_logged = False
        self.rebuild_count = 0      # how often the geometry was recomputed (tests, tuning)
        self.lod_level = 1          # the thinning the last draw used (core.triads.LOD_LEVELS)

    def reset_cache(self) -> None:
        self.arrays: dict[str, tuple[np.ndarray, np.ndarray]] = {
            key: _empty_arrays() for key in BATCH_ORDER if key != "current"}
        self.current: tuple[np.ndarray, np.ndarray] = _empty_arrays()
        self.samples: list = []         # geometry.Samples, one per drawn object
        self.cache = None               # reuse.GeometryCache, made on the first rebuild
        self.labels: list = []          # (name, world position (3,)) at each path's end
        self.legend = Legend()
        self.generation = 0         # bumped on every change of the cached arrays
        self.batch_generation = -1  # the generation the GPU batches were built from
        # The current frame's triad changes on every frame of playback: it has
        # its own counter so only its 6 vertices are re-uploaded then.
        self.current_generation = 0
        self.current_for = None     # (samples, frame, triad size) the current triads are of
        self.current_batch_generation = -1
        self.batches: dict = {}
        # Per viewport (region pointer): (what its triads were thinned for, their batches):
        # the triads drawn depend on the view (arrays_for_view).
        self.view_batches: dict = {}
        self.drawn_triads = 0       # triads the last draw drew (tests, tuning)
        self.legend_box = None      # (x, y, width, height) of the last viewport legend, px
        self.shader = None
        self.polyline = True


def _empty_arrays() -> tuple[np.ndarray, np.ndarray]:
    return np.zeros((0, 3), np.float32), np.zeros((0, 4), np.float32)


# Draw order: ghosts (on their dark halo) under everything, the long-arc band
# and the kept band (spins, steps) under the path (or turn arc), the spokes to an
# in-place object's key poses, triads and their key marks over the path, the current
# frame's triad on top.
BATCH_ORDER = ("ghost_halo", "ghosts", "long_arc", "kept", "path", "spokes_halo", "spokes",
               "triads", "marks_halo", "marks", "current")

_STATE = _Registry()


# --------------------------------------------------------------------------
# Cache: rebuilt by overlay.geometry (no GPU), read by the draw callback
# --------------------------------------------------------------------------

def _settings(scene):
    return getattr(scene, "quatbake", None)


def rebuild(scene=None, view_layer=None) -> Legend:
    """Bring every cached array up to date with the scene's data; returns the legend.

    Safe to call at any time (tests call it directly). Each transform's geometry is
    made again only when what it is made from changed (``overlay.reuse``); the arrays
    are marked for upload only when the drawn geometry changed. An object whose keys
    cannot be read is skipped and named in ``Legend.problems``.
    """
    from . import reuse

    scene = scene or bpy.context.scene
    view_layer = view_layer or bpy.context.view_layer
    _STATE.rebuild_count += 1
    if _STATE.cache is None:
        _STATE.cache = reuse.GeometryCache()
    geometry, changed = _STATE.cache.build(view_layer, _settings(scene))
    _STATE.samples = geometry.samples
    _STATE.labels = geometry.labels
    _STATE.legend = geometry.legend
    _update_current(scene, again=False)
    if changed:
        _STATE.arrays = geometry.arrays
        _STATE.generation += 1
    _tag_redraw()
    return geometry.legend


def cache_stats():
    """What the geometry cache did since the overlay was enabled (``overlay.reuse.Stats``:
    transforms sampled, parts built, recoloured, reused, joins), or None before its first
    rebuild. For the tests and the benchmark."""
    return None if _STATE.cache is None else _STATE.cache.stats


def _update_current(scene, again: bool = True) -> None:
    """Re-pick the emphasised triad of every object at the scene's current frame
    (``again`` False: only if the samples, frame or size differ from the last pick's, as
    after a rebuild that reused every transform)."""
    settings = _settings(scene)
    if settings is None or not _STATE.samples:
        picked_for = None
        if not again and _STATE.current_for is None and not _STATE.current[0].shape[0]:
            return
        _STATE.current = _empty_arrays()
    else:
        from .. import animdata  # loaded with geometry, by the rebuild that made the samples

        # The samples are in the keys' time: under Time Remapping the scene's frame
        # plays another one.
        frame = animdata.played_time(scene)
        size = float(settings.overlay_size)
        picked_for = (_STATE.samples, frame, size)
        last = _STATE.current_for
        # The same samples (the cache's own objects, held here so none is freed and
        # mistaken for another) at the same frame and size: the same triads.
        if not again and last is not None and last[1:] == picked_for[1:] and len(last[0]) == len(
                _STATE.samples) and all(a is b for a, b in zip(last[0], _STATE.samples)):
            return
        from . import geometry  # loaded by the rebuild that made the samples

        _STATE.current = geometry.current_arrays(_STATE.samples, frame, size)
    _STATE.current_for = picked_for
    _STATE.current_generation += 1


def cached_arrays() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The float32 (points, colours) arrays per batch, as the draw callback uploads them."""
    out = dict(_STATE.arrays)
    out["current"] = _STATE.current
    return out


def legend() -> Legend:
    return _STATE.legend


def drawn_lod_level() -> int:
    """The thinning level (core.triads.LOD_LEVELS) of the last draw, for tests."""
    return _STATE.lod_level


def rebuild_count() -> int:
    """How many times the geometry has been recomputed since the add-on loaded."""
    return _STATE.rebuild_count


# --------------------------------------------------------------------------
# Handlers
# --------------------------------------------------------------------------

def _safe_rebuild(scene=None, view_layer=None) -> None:
    """Handlers must never raise into Blender: log once and keep going."""
    try:
        rebuild(scene, view_layer)
    except Exception:  # noqa: BLE001 - a handler that raises breaks every later update
        _log_once("QuatBake overlay: rebuilding the geometry failed")


@persistent
def _on_depsgraph_update(scene, depsgraph) -> None:
    if not _STATE.enabled:
        return
    # Keys, selection (a Scene update) and settings (a Scene update) all come
    # through here; a pure redraw or frame change does not. Selecting bones
    # updates the armature (its Armature data on Blender before 5.0).
    watched = (bpy.types.Object, bpy.types.Action, bpy.types.Scene, bpy.types.Armature)
    relevant = any(isinstance(u.id, watched) for u in depsgraph.updates)
    if relevant:
        _safe_rebuild(scene, depsgraph.view_layer)


@persistent
def _on_undo_redo(scene, *_args) -> None:
    """Undo/redo restore data wholesale, show_overlay included, without update callbacks.

    Follow the restored setting; the cache holds names only, so a rebuild from
    the restored data is all it takes.
    """
    try:
        if not isinstance(scene, bpy.types.Scene):  # handler arguments vary by version
            scene = bpy.context.scene
        settings = _settings(scene)
        wanted = settings is not None and settings.show_overlay
        if wanted and not _STATE.enabled:
            enable()
        elif not wanted and _STATE.enabled:
            disable()
        elif wanted:
            rebuild(scene)
    except Exception:  # noqa: BLE001 - a handler must never raise into Blender
        _log_once("QuatBake overlay: following undo/redo failed")


@persistent
def _on_frame_change(scene, depsgraph=None) -> None:
    if not _STATE.enabled:
        return
    try:
        _update_current(scene)
    except Exception:  # noqa: BLE001
        _log_once("QuatBake overlay: updating the current frame's triad failed")


@persistent
def _on_load_post(*_args) -> None:
    """A new file: drop the old file's cache and follow the new file's setting."""
    try:
        disable()
        settings = _settings(bpy.context.scene)
        if settings is not None and settings.show_overlay:
            enable()
    except Exception:  # noqa: BLE001 - a handler must never raise into Blender
        _log_once("QuatBake overlay: following the loaded file's setting failed")


def _on_msgbus() -> None:
    _safe_rebuild()


# Present while the overlay is enabled.
_APP_HANDLERS = (
    ("depsgraph_update_post", _on_depsgraph_update),
    ("frame_change_post", _on_frame_change),
)
# Present while the add-on is registered: they follow scene.quatbake.show_overlay
# when a file load or an undo step changes it without its update callback.
_ALWAYS_HANDLERS = (
    ("load_post", _on_load_post),
    ("undo_post", _on_undo_redo),
    ("redo_post", _on_undo_redo),
)


def _same_function(a, b) -> bool:
    """Also matches our functions from an earlier import of this module (add-on reload)."""
    return a is b or (
        getattr(a, "__module__", None) == b.__module__
        and getattr(a, "__qualname__", None) == b.__qualname__
    )


def _remove_app_handler(list_name: str, func) -> None:
    handlers = getattr(bpy.app.handlers, list_name)
    for existing in [h for h in handlers if _same_function(h, func)]:
        handlers.remove(existing)


def _add_app_handler(list_name: str, func) -> None:
    _remove_app_handler(list_name, func)
    getattr(bpy.app.handlers, list_name).append(func)


def handler_counts() -> dict[str, int]:
    """How many of our functions sit in each bpy.app.handlers list, plus the draw handle
    ("draw": the geometry's POST_VIEW handle and the names' POST_PIXEL handle, added and
    removed together: 1 when both are there)."""
    counts = {
        name: sum(_same_function(h, func) for h in getattr(bpy.app.handlers, name))
        for name, func in _APP_HANDLERS + _ALWAYS_HANDLERS
    }
    counts["draw"] = int(_STATE.draw_handle is not None and _STATE.label_handle is not None)
    return counts


def is_enabled() -> bool:
    return _STATE.enabled


def _subscribe_msgbus() -> None:
    owner = _STATE.msgbus_owner
    bpy.msgbus.clear_by_owner(owner)
    # The active object changes without a depsgraph update in some versions.
    bpy.msgbus.subscribe_rna(key=(bpy.types.LayerObjects, "active"), owner=owner, args=(),
                             notify=_on_msgbus)
    # The method decides QuatBake's triads; its property has no update callback of ours.
    settings_type = getattr(bpy.types, "QUATBAKE_PG_settings", None)
    if settings_type is not None:
        bpy.msgbus.subscribe_rna(key=(settings_type, "method"), owner=owner, args=(),
                                 notify=_on_msgbus)


def enable() -> None:
    """Start drawing (idempotent): one draw handle, our app handlers, msgbus, fresh cache."""
    if _STATE.draw_handle is None:
        _STATE.draw_handle = bpy.types.SpaceView3D.draw_handler_add(
            _draw, (), 'WINDOW', 'POST_VIEW')
    if _STATE.label_handle is None:
        _STATE.label_handle = bpy.types.SpaceView3D.draw_handler_add(
            _draw_labels, (), 'WINDOW', 'POST_PIXEL')
    for list_name, func in _APP_HANDLERS:
        _add_app_handler(list_name, func)
    _subscribe_msgbus()
    _STATE.enabled = True
    _STATE.error_logged = False
    _safe_rebuild()


def disable() -> None:
    """Stop drawing (idempotent) and forget every cached array and batch."""
    if _STATE.draw_handle is not None:
        bpy.types.SpaceView3D.draw_handler_remove(_STATE.draw_handle, 'WINDOW')
        _STATE.draw_handle = None
    if _STATE.label_handle is not None:
        bpy.types.SpaceView3D.draw_handler_remove(_STATE.label_handle, 'WINDOW')
        _STATE.label_handle = None
    for list_name, func in _APP_HANDLERS:
        _remove_app_handler(list_name, func)
    bpy.msgbus.clear_by_owner(_STATE.msgbus_owner)
    _STATE.enabled = False
    _STATE.reset_cache()
    _tag_redraw()


def sync(scene=None) -> None:
    """Enable or disable to match ``scene.quatbake.show_overlay``."""
    scene = scene or bpy.context.scene
    settings = _settings(scene)
    if settings is not None and settings.show_overlay:
        enable()
    else:
        disable()


def settings_changed(scene=None) -> None:
    """Update callback of the overlay settings: rebuild when drawing."""
    if _STATE.enabled:
        _safe_rebuild(scene)


def _tag_redraw() -> None:
    wm = getattr(bpy.context, "window_manager", None)
    if wm is None:
        return
    for window in wm.windows:
        for area in window.screen.areas:
            if area.type == 'VIEW_3D':
                area.tag_redraw()


def _log_once(message: str) -> None:
    if not _STATE.error_logged:
        _STATE.error_logged = True
        # Imported on the first error only: logging costs as much as the rest
        # of this module's import at register time (bench_register).
        import logging

        logging.getLogger(__name__).exception(message)


# --------------------------------------------------------------------------
# Drawing (GPU): only here, only with a window
# --------------------------------------------------------------------------

def _polyline_shader_name() -> str:
    return versions.builtin_shader('POLYLINE_SMOOTH_COLOR')


def _plain_shader_name() -> str:
    return versions.builtin_shader('SMOOTH_COLOR')


def _ensure_batches() -> None:
    """(Re)upload the cached arrays when they changed since the last draw."""
    import gpu
    from gpu_extras.batch import batch_for_shader

    if _STATE.shader is None:
        try:
            _STATE.shader = gpu.shader.from_builtin(_polyline_shader_name())
            _STATE.polyline = True
        except (ValueError, SystemError):
            # No wide-line shader on this GPU: thin lines via line_width_set.
            _STATE.shader = gpu.shader.from_builtin(_plain_shader_name())
            _STATE.polyline = False
        _STATE.batch_generation = _STATE.current_batch_generation = -1
    if _STATE.batch_generation != _STATE.generation:
        from . import geometry  # loaded by the rebuild that made the arrays

        batches = {}
        for key, (points, colors) in _STATE.arrays.items():
            # The triads and their marks are uploaded per view, thinned on screen.
            if key in geometry.THINNED_SETS or "@" in key or key in geometry.INDEX_SETS:
                continue
            if points.shape[0]:
                batches[key] = batch_for_shader(_STATE.shader, 'LINES',
                                                {"pos": points, "color": colors})
        batches["current"] = _STATE.batches.get("current")
        _STATE.batches = batches
        _STATE.batch_generation = _STATE.generation
        _STATE.view_batches = {}
    if _STATE.current_batch_generation != _STATE.current_generation:
        points, colors = _STATE.current
        _STATE.batches["current"] = (
            batch_for_shader(_STATE.shader, 'LINES', {"pos": points, "color": colors})
            if points.shape[0] else None)
        _STATE.current_batch_generation = _STATE.current_generation


def _line_widths(width: float) -> dict[str, float]:
    return {
        "ghost_halo": width + 4.0,     # 2 px of dark edge each side
        "ghosts": width,
        "marks": width,
        "marks_halo": width + 4.0,
        "spokes": width,
        "spokes_halo": width + 4.0,
        "long_arc": width * 3.0 + 2.0,
        "kept": width * 2.0 + 1.0,
        "path": width,
        "triads": width,
        "current": width * 2.0 + 1.0,
    }


def arrays_for_view(perspective, width: float, height: float, pixels_per_unit: float,
                    level: int = 1) -> dict:
    """The triads, ghosts, key marks and spokes (and their halos) as a view draws them:
    float32 (points, colours) per set of ``geometry.THINNED_SETS``, by its base name.

    ``perspective``: the view's 4x4 perspective matrix (``rv3d.perspective_matrix``,
    window @ view) of a region ``width`` x ``height`` pixels; ``pixels_per_unit`` how
    many pixels a Blender unit spans at the view's centre; ``level``: the LOD level
    (core.triads.LOD_LEVELS) whose triads are the candidates. Of those, the ones drawn
    land on screen at least MIN_TRIAD_SPACING_PX and TRIAD_SPACING_SIZES of their axis
    length apart, across every path (core.triads.spread_on_screen): the coarsest
    level's triads first, key poses before in-betweens. A key pose's mark and spoke go
    with its triad.
    """
    from ...core import triads  # loaded by the rebuild that made the arrays
    from . import geometry

    arrays = _STATE.arrays
    origins, info = arrays.get("triad_info", _empty_arrays())
    out = {key: arrays.get(key, _empty_arrays()) for key in geometry.THINNED_SETS}
    if not origins.shape[0]:
        _STATE.drawn_triads = 0
        return out
    m = np.asarray(perspective, dtype=np.float64).reshape(4, 4)
    clip = origins.astype(np.float64) @ m[:3, :3].T + m[:3, 3]
    w = origins.astype(np.float64) @ m[3, :3] + m[3, 3]
    with np.errstate(divide="ignore", invalid="ignore"):
        xy = np.stack(((clip[:, 0] / w + 1.0) * 0.5 * width,
                       (clip[:, 1] / w + 1.0) * 0.5 * height), axis=1)
    rank = info[:, 0].astype(np.float64)
    off = (w <= 0.0) | (rank < level) | (xy[:, 0] < 0.0) | (xy[:, 0] > width) \
        | (xy[:, 1] < 0.0) | (xy[:, 1] > height)
    xy[off] = np.nan
    sizes = info[~off, 1] if (~off).any() else info[:, 1]
    spacing = max(triads.MIN_TRIAD_SPACING_PX,
                  triads.TRIAD_SPACING_SIZES * float(np.median(sizes)) * pixels_per_unit)
    drawn = triads.spread_on_screen(xy, rank * 2.0 + info[:, 2], spacing)
    _STATE.drawn_triads = int(drawn.sum())
    rows = np.repeat(drawn, 6)
    for key in ("triads", "ghosts", "ghost_halo"):
        points, colors = out[key]
        if points.shape[0]:
            out[key] = (points[rows], colors[rows])
    for keys, owner in ((("marks", "marks_halo"), "mark_owner"),
                        (("spokes", "spokes_halo"), "spoke_owner")):
        owners = arrays.get(owner, (np.zeros(0, np.int64),))[0]
        for key in keys:
            points, colors = out[key]
            if points.shape[0] and owners.shape[0] == points.shape[0]:
                keep = drawn[owners]
                out[key] = (points[keep], colors[keep])
    return out


def _view_batches(context, level: int) -> dict:
    """The GPU batches of the triads (and marks, spokes) thinned for this viewport's view,
    made again only when the view, the region's size, the level or the arrays changed."""
    from gpu_extras.batch import batch_for_shader

    region, rv3d = context.region, context.region_data
    if region is None or rv3d is None:
        return {}
    perspective = rv3d.perspective_matrix
    scale = _pixels_per_unit(context)
    key = (_STATE.generation, level, region.width, region.height, scale,
           tuple(tuple(row) for row in perspective))
    pointer = region.as_pointer()
    found = _STATE.view_batches.get(pointer)
    if found is not None and found[0] == key:
        return found[1]
    batches = {}
    for name, (points, colors) in arrays_for_view(perspective, region.width, region.height,
                                                  scale, level).items():
        if points.shape[0]:
            batches[name] = batch_for_shader(_STATE.shader, 'LINES',
                                             {"pos": points, "color": colors})
    if len(_STATE.view_batches) > 8:     # viewports closed since: forget them
        _STATE.view_batches = {}
    _STATE.view_batches[pointer] = (key, batches)
    return batches


def _pixels_per_unit(context) -> float:
    """How many pixels one Blender unit spans at the view's centre (0: no view)."""
    region, rv3d = context.region, context.region_data
    if region is None or rv3d is None:
        return 0.0
    from bpy_extras.view3d_utils import location_3d_to_region_2d
    from mathutils import Vector

    centre = rv3d.view_location
    right = rv3d.view_rotation @ Vector((1.0, 0.0, 0.0))
    a = location_3d_to_region_2d(region, rv3d, centre)
    b = location_3d_to_region_2d(region, rv3d, centre + right)
    if a is None or b is None:
        return 0.0
    return (b - a).length


def _lod_level(context) -> int:
    """How thinned to draw the triads in this viewport: the median spacing of each
    level's triads, measured in pixels at the view's centre (core.triads.lod_level_for)."""
    spacing = _STATE.legend.level_spacing or {1: _STATE.legend.triad_spacing}
    if not any(v > 0.0 for v in spacing.values()):
        return 1
    scale = _pixels_per_unit(context)
    if scale <= 0.0:
        return 1
    from ...core import triads  # loaded by the rebuild that made the batches

    return triads.lod_level_for({level: v * scale for level, v in spacing.items()})


def _draw() -> None:
    """SpaceView3D POST_VIEW callback: never raises, always restores gpu state."""
    if bpy.app.background or not _STATE.enabled:
        return
    context = bpy.context
    settings = _settings(context.scene)
    if settings is None or not settings.show_overlay:
        return
    import gpu

    saved = None
    try:
        saved = (gpu.state.blend_get(), gpu.state.depth_test_get(), gpu.state.line_width_get())
        _ensure_batches()
        if not any(_STATE.batches.values()) and not _STATE.arrays.get(
                "triad_info", _empty_arrays())[0].shape[0]:
            return
        gpu.state.blend_set('ALPHA')
        # Drawn in front of the scene: a triad hidden inside a mesh helps nobody.
        gpu.state.depth_test_set('NONE')
        shader = _STATE.shader
        widths = _line_widths(float(settings.overlay_line_width))
        region = context.region
        viewport = (float(region.width), float(region.height))
        shader.bind()
        level = _lod_level(context)
        _STATE.lod_level = level
        thinned = _view_batches(context, level)
        from . import geometry  # loaded by the rebuild that made the batches

        for key in BATCH_ORDER:
            batch = thinned.get(key) if key in geometry.THINNED_SETS else _STATE.batches.get(key)
            if batch is None:
                continue
            if _STATE.polyline:
                shader.uniform_float("viewportSize", viewport)
                shader.uniform_float("lineWidth", widths[key])
            else:
                gpu.state.line_width_set(widths[key])
            batch.draw(shader)
    except Exception:  # noqa: BLE001 - raising here would repeat on every redraw
        _log_once("QuatBake overlay: drawing failed; the overlay is skipped")
    finally:
        if saved is not None:
            gpu.state.blend_set(saved[0])
            gpu.state.depth_test_set(saved[1])
            gpu.state.line_width_set(saved[2])


# The legend in the viewport's lower right corner (left of the sidebar when the sidebar
# overlaps it): the key sits beside what it explains and is on screen whatever the
# sidebar above it holds; at 900 pixels the sidebar's own legend is below its bottom
# once a rig's report and Last bake are shown. Sizes in pixels at ui_scale 1.
LEGEND_MARGIN_PX = 12.0
LEGEND_PAD_PX = 6.0
LEGEND_LINE_PX = 18.0
LEGEND_SWATCH_PX = (20.0, 11.0)
LEGEND_BACK = (0.0, 0.0, 0.0, 0.55)
LEGEND_TEXT = (1.0, 1.0, 1.0, 0.95)
LEGEND_WARNING = (1.0, 0.75, 0.3, 1.0)


def _legend_rgba(swatch: str) -> tuple:
    """The colour a legend row's swatch (a scene.quatbake swatch property) stands for."""
    from ...core import triads  # loaded by the rebuild that made the legend

    if swatch == "legend_long_arc":
        return tuple(triads.LONG_ARC_COLOR)
    return tuple(triads.ghost_colors(triads.AXIS_COLORS[:1])[0])


def legend_rows(info: Legend, show_ghost: bool) -> list:
    """The viewport legend's rows, top to bottom: lists of (rgba swatch or None, text,
    text colour). The speed ramp on one row; the panel's lines (Legend.lines) below."""
    from ...core import triads  # loaded by the rebuild that made the legend

    tr = translations.iface
    rows = [[(None, tr("Turn speed, \u00b0/frame"), LEGEND_TEXT)],
            [(tuple(rgba), text, LEGEND_TEXT) for rgba, text in
             zip(triads.SPEED_COLORS, triads.legend_labels(info.speed_max))]]
    for swatch, text, warning in info.lines(show_ghost, tr):
        rgba = None if swatch is None else _legend_rgba(swatch)
        rows.append([(rgba, text, LEGEND_WARNING if warning else LEGEND_TEXT)])
    return rows


def _visible_right(context, region) -> float:
    """The right edge (region pixels) of the part of the viewport no sidebar covers."""
    right = float(region.width)
    for other in getattr(context.area, "regions", ()):
        if other.type == 'UI' and other.width > 1 and other.x > region.x:
            right = min(right, float(other.x - region.x))
    return right


def _draw_legend(context, settings, font: int, scale: float) -> None:
    """The legend (legend_rows) in a dark box in the viewport's lower right corner."""
    import blf
    import gpu
    from gpu_extras.batch import batch_for_shader

    info = _STATE.legend
    if not info.objects or not getattr(settings, "overlay_show_legend", True):
        _STATE.legend_box = None
        return
    region = context.region
    rows = legend_rows(info, bool(settings.overlay_show_ghost))
    pad, line = LEGEND_PAD_PX * scale, LEGEND_LINE_PX * scale
    sw, sh = LEGEND_SWATCH_PX[0] * scale, LEGEND_SWATCH_PX[1] * scale
    widths = []
    for row in rows:
        widths.append(sum((sw + pad if rgba is not None else 0.0) + blf.dimensions(font, text)[0]
                          + pad for rgba, text, _c in row) - pad)
    box_w, box_h = max(widths) + 2 * pad, len(rows) * line + pad
    right = _visible_right(context, region) - LEGEND_MARGIN_PX * scale
    x0, y0 = max(0.0, right - box_w), LEGEND_MARGIN_PX * scale
    _STATE.legend_box = (x0, y0, box_w, box_h)
    shader = gpu.shader.from_builtin(versions.builtin_shader('UNIFORM_COLOR', "2D"))

    def rect(x, y, w, h, rgba):
        batch = batch_for_shader(shader, 'TRIS', {"pos": [(x, y), (x + w, y), (x + w, y + h),
                                                          (x, y + h)]},
                                 indices=[(0, 1, 2), (0, 2, 3)])
        shader.bind()
        shader.uniform_float("color", rgba)
        batch.draw(shader)

    saved = gpu.state.blend_get()
    try:
        gpu.state.blend_set('ALPHA')
        rect(x0, y0, box_w, box_h, LEGEND_BACK)
        for i, row in enumerate(rows):
            x = x0 + pad
            base = y0 + box_h - (i + 1) * line + 0.3 * line
            for rgba, text, colour in row:
                if rgba is not None:
                    rect(x, base - 0.1 * sh, sw, sh, (*rgba[:3], 1.0))
                    x += sw + pad * 0.5
                blf.position(font, x, base, 0.0)
                blf.color(font, *colour)
                blf.draw(font, text)
                x += blf.dimensions(font, text)[0] + pad
    finally:
        gpu.state.blend_set(saved)


def _draw_labels() -> None:
    """SpaceView3D POST_PIXEL callback: each drawn path's name at its end, skipping a
    name that would overlap one already drawn (geometry.place_labels), and the legend
    (_draw_legend). Never raises."""
    if bpy.app.background or not _STATE.enabled:
        return
    context = bpy.context
    settings = _settings(context.scene)
    if settings is None or not settings.show_overlay:
        return
    try:
        import blf

        if context.region is None or context.region_data is None:
            return
        scale = context.preferences.system.ui_scale
        versions.font_size(0, round(LEGEND_LINE_PX * 0.65 * scale))
        _draw_legend(context, settings, 0, scale)
    except Exception:  # noqa: BLE001 - raising here would repeat on every redraw
        _log_once("QuatBake overlay: drawing the legend failed; it is skipped")
    if not _STATE.labels or not getattr(settings, "overlay_show_names", False):
        return
    try:
        import blf
        from bpy_extras.view3d_utils import location_3d_to_region_2d

        from . import geometry  # loaded by the rebuild that made the labels

        region, rv3d = context.region, context.region_data
        if region is None or rv3d is None:
            return
        font = 0
        ui_scale = context.preferences.system.ui_scale
        size = round(geometry.LABEL_SIZE_PX * ui_scale)
        versions.font_size(font, size)
        found = []
        for name, at in _STATE.labels:
            xy = location_3d_to_region_2d(region, rv3d, at)
            if xy is not None:
                width, height = blf.dimensions(font, name)
                found.append((name, float(xy.x), float(xy.y), width, height))
        pad = geometry.LABEL_OFFSET_PX * ui_scale
        for name, x, y in geometry.place_labels(found, region.width, region.height, pad):
            blf.position(font, x + 1.0, y - 1.0, 0.0)       # a dark shadow under light text
            blf.color(font, *geometry.LABEL_SHADOW)
            blf.draw(font, name)
            blf.position(font, x, y, 0.0)
            blf.color(font, *geometry.LABEL_COLOR)
            blf.draw(font, name)
    except Exception:  # noqa: BLE001 - raising here would repeat on every redraw
        _log_once("QuatBake overlay: drawing the names failed; they are skipped")


# --------------------------------------------------------------------------
# Registration
# --------------------------------------------------------------------------


def register() -> None:
    from ..ui.props import OverlayListener

    OverlayListener.listen(sync, settings_changed)
    for list_name, func in _ALWAYS_HANDLERS:
        _add_app_handler(list_name, func)


def unregister() -> None:
    from ..ui.props import OverlayListener

    disable()
    for list_name, func in _ALWAYS_HANDLERS:
        _remove_app_handler(list_name, func)
    OverlayListener.listen()
