"""Overlay bookkeeping and cached geometry with the real bpy (and Blender 3.4.1).

Drawing itself is skipped in background mode (tests/gui/ draws in a real
window); everything else - handler registry, cache rebuilds on depsgraph,
frame and settings changes, load_post, unregister - runs here.
"""
import os
import tempfile

import bpy
import numpy as np
import pytest

import quatbake
from quatbake.addon import animdata, bake
from quatbake.addon.overlay import draw as overlay
from quatbake.core import interp, quat, triads

from scenes import make_animated_object, new_object

pytestmark = pytest.mark.bpy

FRAMES = np.array([1.0, 11.0, 21.0, 31.0])


def _about(axis, degrees):
    axis = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    half = np.radians(degrees) / 2.0
    return np.concatenate([[np.cos(half)], np.sin(half) * axis])


def _camera(name="Cam", flip=True, select=True):
    """Quaternion keys with key 2's sign flipped (Blender turns the long way there)."""
    keys = np.array([_about([0, 0, 1], 0), _about([1, 0, 0], 40), _about([0, 1, 0], 80),
                     _about([1, 1, 0], 30)])
    if flip:
        keys[2] *= -1.0
    location = np.array([[0.0, 0, 0], [2.0, 1, 0], [4.0, -1, 0], [6.0, 0, 1]])
    obj = make_animated_object(name, 'QUATERNION', FRAMES, keys, location=location)
    obj.select_set(select)
    bpy.context.view_layer.objects.active = obj
    return obj


def _handler_lengths():
    return {name: len(getattr(bpy.app.handlers, name))
            for name in dir(bpy.app.handlers)
            if isinstance(getattr(bpy.app.handlers, name), list)}


def _ours_in_app_handlers():
    return [
        (name, h.__qualname__)
        for name in dir(bpy.app.handlers)
        if isinstance(getattr(bpy.app.handlers, name), list)
        for h in getattr(bpy.app.handlers, name)
        if getattr(h, "__module__", "") == overlay.__name__
    ]


def test_toggling_100_times_leaves_no_handlers_behind(clean_blender):
    _camera()
    settings = bpy.context.scene.quatbake
    before = _handler_lengths()
    for _ in range(100):
        settings.show_overlay = True
        settings.show_overlay = False
    assert _handler_lengths() == before
    assert overlay.handler_counts() == {
        "depsgraph_update_post": 0, "frame_change_post": 0, "undo_post": 1, "redo_post": 1,
        "load_post": 1, "draw": 0}
    assert not overlay.is_enabled()
    assert overlay.cached_arrays()["triads"][0].shape == (0, 3)


def test_enable_and_disable_are_idempotent(clean_blender):
    for _ in range(3):
        overlay.enable()
    assert overlay.handler_counts() == {
        "depsgraph_update_post": 1, "frame_change_post": 1, "undo_post": 1, "redo_post": 1,
        "load_post": 1, "draw": 1}
    for _ in range(3):
        overlay.disable()
    assert overlay.handler_counts()["draw"] == 0
    assert overlay.handler_counts()["depsgraph_update_post"] == 0


def test_unregister_removes_every_handler(clean_blender):
    _camera()
    bpy.context.scene.quatbake.show_overlay = True
    assert len(_ours_in_app_handlers()) == 5
    quatbake.unregister()
    try:
        assert _ours_in_app_handlers() == []
        assert overlay.handler_counts()["draw"] == 0
        assert not overlay.is_enabled()
        assert not hasattr(bpy.types, "QUATBAKE_PT_overlay")
    finally:
        quatbake.register()  # the fixture unregisters again


def test_sub_panel_hangs_under_the_main_panel(clean_blender):
    panel = bpy.types.QUATBAKE_PT_overlay
    assert panel.bl_parent_id == "QUATBAKE_PT_main"
    assert panel.bl_space_type == 'VIEW_3D'


def test_cached_geometry_matches_blender_and_core(clean_blender):
    obj = _camera()
    settings = bpy.context.scene.quatbake
    settings.overlay_step = 5
    settings.overlay_size = 0.5
    settings.show_overlay = True
    arrays = overlay.cached_arrays()
    samples = np.arange(1.0, 32.0)
    chosen = np.union1d(samples[::5], FRAMES)  # 1, 6, 11, ..., 31 and the keys
    points, colors = arrays["triads"]
    assert points.dtype == np.float32 and points.flags["C_CONTIGUOUS"]
    assert points.shape == (chosen.size * 6, 3)
    # triad origins are Blender's evaluated locations (float32 storage: 1e-6 relative)
    bases = points[0::6].astype(np.float64)
    np.testing.assert_allclose(bases, animdata.evaluate_location(obj, chosen), atol=1e-5)
    # solid X axes: slerp of Blender's key orientations (the method setting)
    ours = interp.interpolate(FRAMES, animdata.evaluate_rotation(obj, FRAMES), chosen, "slerp")
    sizes = np.where(np.isin(chosen, FRAMES), 0.5 * triads.KEY_SCALE, 0.5)
    x_axes = (points[1::6] - points[0::6]) / sizes[:, None]
    np.testing.assert_allclose(x_axes, quat.rotate_vectors(ours, [1.0, 0, 0]), atol=1e-5)
    np.testing.assert_array_equal(colors[0], [1, 0, 0, 1])
    # ghosts: Blender's own evaluation, same origins, faded
    ghost_points, ghost_colors = arrays["ghosts"]
    blender = animdata.evaluate_rotation(obj, chosen)
    ghost_x = (ghost_points[1::6] - ghost_points[0::6]) / sizes[:, None]
    np.testing.assert_allclose(ghost_x, quat.rotate_vectors(blender, [1.0, 0, 0]), atol=1e-5)
    assert np.all(ghost_colors[:, 3] == np.float32(triads.GHOST_ALPHA))
    # the path: one segment per frame; the long way (keys 11-21 and 21-31) highlighted
    assert arrays["path"][0].shape == (2 * 30, 3)
    assert overlay.legend().long_arc_count == 2
    assert arrays["long_arc"][0].shape == (2 * 20, 3)
    assert overlay.legend().objects == ["Cam"]


def test_settings_and_key_changes_rebuild_the_cache(clean_blender):
    obj = _camera()
    settings = bpy.context.scene.quatbake
    settings.overlay_step = 10
    settings.show_overlay = True
    n_triads = overlay.cached_arrays()["triads"][0].shape[0]
    settings.overlay_step = 1
    assert overlay.cached_arrays()["triads"][0].shape[0] == 31 * 6 > n_triads
    settings.overlay_show_ghost = False
    assert overlay.cached_arrays()["ghosts"][0].shape == (0, 3)
    # the method has no update callback of ours: a depsgraph update carries it
    slerp = overlay.cached_arrays()["triads"][0].copy()
    settings.method = 'LERP'
    bpy.context.view_layer.update()
    lerp = overlay.cached_arrays()["triads"][0]
    assert np.abs(lerp - slerp).max() > 1e-3
    # a new key far away extends the path once the depsgraph sees it
    fc = animdata.location_fcurves(obj)[0]
    fc.keyframe_points.insert(61.0, 10.0)
    obj.update_tag()
    bpy.context.view_layer.update()
    assert overlay.cached_arrays()["path"][0].shape == (2 * 60, 3)


def test_selection_decides_what_is_drawn(clean_blender):
    cam = _camera("Cam")
    other = _camera("Other", select=False)
    bpy.context.scene.quatbake.show_overlay = True
    assert overlay.legend().objects == ["Cam"]
    other.select_set(True)
    bpy.context.view_layer.update()
    assert sorted(overlay.legend().objects) == ["Cam", "Other"]
    cam.select_set(False)
    other.select_set(False)
    bpy.context.view_layer.update()
    assert overlay.legend().objects == []
    assert overlay.cached_arrays()["path"][0].shape == (0, 3)


def test_pinned_objects_are_drawn_without_selection(clean_blender):
    _camera("Cam", select=False)
    pinned = _camera("Pinned", select=False)
    bpy.context.scene.quatbake.show_overlay = True
    assert overlay.legend().objects == []
    pinned.quatbake.overlay_pinned = True  # its update callback rebuilds
    assert overlay.legend().objects == ["Pinned"]
    pinned.quatbake.overlay_pinned = False
    assert overlay.legend().objects == []


def test_current_frame_triad_follows_the_playhead(clean_blender):
    obj = _camera()
    scene = bpy.context.scene
    scene.quatbake.overlay_size = 1.0
    scene.quatbake.show_overlay = True
    for frame in (1, 7, 26):
        scene.frame_set(frame)
        points = overlay.cached_arrays()["current"][0]
        assert points.shape == (6, 3)
        np.testing.assert_allclose(points[0], animdata.evaluate_location(obj, [frame])[0], atol=1e-5)
        length = np.linalg.norm(points[1] - points[0])
        assert length == pytest.approx(triads.CURRENT_SCALE, rel=1e-5)
    scene.frame_set(100)  # outside the path: no emphasised triad
    assert overlay.cached_arrays()["current"][0].shape == (0, 3)
    # Time Remapping 1:2 plays the keys at half the scene's frame: the triad stays on the
    # camera as Blender places it, not on the key frame of the scene's number.
    scene.render.frame_map_old, scene.render.frame_map_new = 1, 2
    for frame in (2, 14, 52):
        scene.frame_set(frame)
        points = overlay.cached_arrays()["current"][0]
        assert points.shape == (6, 3), frame
        np.testing.assert_allclose(points[0], obj.matrix_world.translation, atol=1e-5)


def test_frame_changes_do_not_rebuild_the_geometry(clean_blender):
    _camera()
    scene = bpy.context.scene
    scene.quatbake.show_overlay = True
    rebuilds = overlay.rebuild_count()
    generation = overlay._STATE.generation
    current_generation = overlay._STATE.current_generation
    triads_before = overlay.cached_arrays()["triads"][0]
    for frame in range(1, 32):
        scene.frame_set(frame)
    assert overlay.rebuild_count() == rebuilds
    assert overlay.cached_arrays()["triads"][0] is triads_before
    # only the current frame's 6-vertex batch is marked for re-upload
    assert overlay._STATE.generation == generation
    assert overlay._STATE.current_generation == current_generation + 31


def test_after_a_bake_the_ghost_is_blenders_interpolation_of_the_original_keys(clean_blender):
    obj = _camera()
    before = animdata.evaluate_rotation(obj, np.arange(1.0, 32.0))
    bake.bake_objects([obj], bake.BakeSettings(method='SLERP'))
    scene = bpy.context.scene
    scene.quatbake.overlay_step = 1
    scene.quatbake.show_overlay = True
    points, _ = overlay.cached_arrays()["triads"]
    ghost, _ = overlay.cached_arrays()["ghosts"]
    frames = np.arange(1.0, 32.0)
    sizes = np.where(np.isin(frames, FRAMES), scene.quatbake.overlay_size * triads.KEY_SCALE,
                     scene.quatbake.overlay_size)
    # solid = the baked action as it plays; ghost = the original keys as Blender played them
    playing = animdata.evaluate_rotation(obj, frames)
    np.testing.assert_allclose((points[1::6] - points[0::6]) / sizes[:, None],
                               quat.rotate_vectors(playing, [1.0, 0, 0]), atol=1e-5)
    np.testing.assert_allclose((ghost[1::6] - ghost[0::6]) / sizes[:, None],
                               quat.rotate_vectors(before, [1.0, 0, 0]), atol=1e-5)
    # key poses (larger) are still the original keys, not every baked frame
    assert np.isin(frames[sizes > scene.quatbake.overlay_size], FRAMES).all()
    # the loop closes: the baked action plays the short arc, so the band is
    # gone and the legend counts the two long arcs as fixed
    assert overlay.legend().long_arc_count == 0
    assert overlay.cached_arrays()["long_arc"][0].shape == (0, 3)
    assert overlay.legend().fixed_long_arc_count == 2
    assert overlay.legend().baked_objects == ["Cam"]
    # after a revert nothing is baked: the ghost is the (original) action again
    bake.revert_objects([obj])
    bpy.context.view_layer.update()
    ghost_after, _ = overlay.cached_arrays()["ghosts"]
    np.testing.assert_allclose(ghost_after, ghost, atol=1e-6)


def test_an_unreadable_object_is_named_and_the_others_still_drawn(clean_blender):
    _camera("Good")
    bad = make_animated_object("Broken", 'QUATERNION', [1.0, 5.0],
                               np.array([[1.0, 0, 0, 0], [0.0, 0, 0, 0]]))
    bad.select_set(True)
    bpy.context.scene.quatbake.show_overlay = True
    legend = overlay.legend()
    assert legend.objects == ["Good"]
    assert len(legend.problems) == 1 and "Broken" in legend.problems[0]
    assert "frame" in legend.problems[0]


def test_parented_objects_are_drawn_in_world_space(clean_blender):
    parent = new_object("Rig")
    parent.location = (10.0, 0.0, 0.0)
    obj = _camera()
    obj.parent = parent
    bpy.context.view_layer.update()
    bpy.context.scene.quatbake.show_overlay = True
    path = overlay.cached_arrays()["path"][0]
    np.testing.assert_allclose(path[0], [10.0, 0, 0], atol=1e-5)


def test_deleting_a_drawn_object_leaves_no_stale_reference(clean_blender):
    obj = _camera()
    bpy.context.scene.quatbake.show_overlay = True
    assert overlay.legend().objects == ["Cam"]
    bpy.data.objects.remove(obj)
    bpy.context.view_layer.update()
    assert overlay.legend().objects == []
    overlay.rebuild()  # nothing held by reference: a rebuild after removal is fine


def test_drawing_is_skipped_in_background_mode(clean_blender):
    assert bpy.app.background
    _camera()
    bpy.context.scene.quatbake.show_overlay = True
    overlay._draw()  # returns before importing or touching gpu
    assert overlay._STATE.batches == {} and overlay._STATE.shader is None


def test_undo_and_redo_follow_the_restored_setting(clean_blender):
    """Undo restores show_overlay without its update callback; undo_post follows it."""
    _camera()
    scene = bpy.context.scene
    scene.quatbake.show_overlay = True
    # what a memfile undo does: the stored value changes, no update callback runs
    scene.quatbake["show_overlay"] = False
    assert overlay.is_enabled()
    overlay._on_undo_redo(scene)
    assert not overlay.is_enabled() and overlay.handler_counts()["draw"] == 0
    scene.quatbake["show_overlay"] = True
    overlay._on_undo_redo(scene)
    assert overlay.is_enabled() and overlay.legend().objects == ["Cam"]


def test_load_post_follows_the_loaded_files_setting(clean_blender):
    _camera()
    settings = bpy.context.scene.quatbake
    with tempfile.TemporaryDirectory() as tmp:
        off_path = os.path.join(tmp, "off.blend")
        on_path = os.path.join(tmp, "on.blend")
        bpy.ops.wm.save_as_mainfile(filepath=off_path)
        settings.show_overlay = True
        bpy.ops.wm.save_as_mainfile(filepath=on_path)
        assert overlay.is_enabled()
        bpy.ops.wm.open_mainfile(filepath=off_path)
        assert not overlay.is_enabled()
        assert overlay.handler_counts()["draw"] == 0
        assert overlay.handler_counts()["load_post"] == 1
        bpy.ops.wm.open_mainfile(filepath=on_path)
        assert overlay.is_enabled()
        assert overlay.handler_counts() == {
            "depsgraph_update_post": 1, "frame_change_post": 1, "undo_post": 1,
            "redo_post": 1, "load_post": 1, "draw": 1}
        assert overlay.legend().objects == ["Cam"]


def test_euler_wrap_is_marked_as_the_long_way_round(clean_blender):
    """Z keyed 170 -> -170 degrees: Blender turns 340 degrees, the short arc is 20."""
    z = np.radians([0.0, 170.0, -170.0])
    obj = make_animated_object("Wrap", 'XYZ', [1.0, 11.0, 21.0],
                               np.c_[np.zeros(3), np.zeros(3), z], interpolation='LINEAR',
                               location=np.array([[0.0, 0, 0], [1, 0, 0], [2, 0, 0]]))
    obj.select_set(True)
    bpy.context.scene.quatbake.show_overlay = True
    assert overlay.legend().long_arc_count == 1
    band = overlay.cached_arrays()["long_arc"][0]
    assert band.shape == (2 * 10, 3)  # the 10 frame segments from 11 to 21
    np.testing.assert_allclose(band[0::2, 0].min(), 1.0, atol=1e-6)  # starts at x = 1 (frame 11)
    # QuatBake's solid triads take the 20 degree short arc: at frame 16 the
    # X axis points at 180 degrees, Blender's ghost at 0 degrees.
    scene = bpy.context.scene
    scene.quatbake.overlay_step = 1
    points = overlay.cached_arrays()["triads"][0]
    ghost = overlay.cached_arrays()["ghosts"][0]
    i = 15 * 6  # frame 16 (frames 1..21, one triad each)
    ours_x = points[i + 1] - points[i]
    blender_x = ghost[i + 1] - ghost[i]
    assert ours_x[0] < -0.9 * np.linalg.norm(ours_x)
    assert blender_x[0] > 0.9 * np.linalg.norm(blender_x)


def test_long_arc_band_marks_defects_only_and_kept_spins_get_their_own(clean_blender):
    """Issue 11: a turntable keyed 0 -> 360 -> 720 deg turns the long way on
    purpose (Turns: Auto keeps it): green band, no cyan; an Euler wrap 170 ->
    -170 is still cyan; CONSTANT keys get the grey step band."""
    def euler(name, frames, z, interpolation='LINEAR'):
        values = np.zeros((len(frames), 3))
        values[:, 2] = np.radians(z)
        obj = make_animated_object(name, 'XYZ', np.array(frames, float), values, interpolation)
        obj.select_set(True)
        return obj

    spin = euler("Spin", [1, 21, 41], [0, 360, 720])
    settings = bpy.context.scene.quatbake
    settings.show_overlay = True
    arrays = overlay.cached_arrays()
    legend = overlay.legend()
    assert legend.long_arc_count == 0 and legend.spin_count == 2
    assert arrays["long_arc"][0].shape == (0, 3)
    assert arrays["kept"][0].shape == (2 * 40, 3)          # both intervals, a segment per frame
    np.testing.assert_allclose(arrays["kept"][1][0], triads.KEPT_SPIN_COLOR, atol=1e-7)
    # The preview of the bake keeps the turns: X axis at frame 11 is turned 180 deg.
    x = arrays["triads"][0]
    frames = np.union1d(np.arange(1.0, 42.0)[::settings.overlay_step], [1, 21, 41])
    row = int(np.searchsorted(frames, 11.0))
    direction = (x[6 * row + 1] - x[6 * row]).astype(np.float64)
    np.testing.assert_allclose(direction / np.linalg.norm(direction), [-1, 0, 0], atol=1e-5)
    spin.select_set(False)
    euler("Wrap", [1, 21], [170, -170])
    euler("Step", [1, 11, 21], [0, 50, 90], interpolation='CONSTANT')
    overlay.rebuild(bpy.context.scene)
    legend = overlay.legend()
    assert legend.long_arc_count == 1 and legend.spin_count == 0 and legend.step_count == 2


def test_a_camera_gets_its_view_direction_and_an_empty_does_not(clean_blender):
    """Key poses get a white triangle each; a camera's also get dashes along its
    -Z axis, which Blender's own matrix_world says is where it looks."""
    cam = make_animated_object("Cam", 'XYZ', [1.0, 21.0], np.radians([[90, 0, 0], [90, 0, 90]]),
                               location=np.array([[0.0, 0, 0], [4.0, 0, 0]]),
                               data=bpy.data.cameras.new("Cam"))
    cam.select_set(True)
    settings = bpy.context.scene.quatbake
    settings.overlay_size = 1.0
    settings.show_overlay = True
    marks, _ = overlay.cached_arrays()["marks"]
    assert overlay.legend().cameras == ["Cam"]
    per_key = 6 + 2 * triads.VIEW_DASHES
    assert marks.shape == (2 * per_key, 3)
    # the first key's dashes run from the camera along its -Z axis
    bpy.context.scene.frame_set(1)
    look = -np.array(cam.matrix_world.to_3x3().col[2])
    # the triangles of both keys come first, then each key's dashes
    dashes = marks[2 * 6: 2 * 6 + 2 * triads.VIEW_DASHES]
    direction = dashes[-1] - dashes[0]
    direction /= np.linalg.norm(direction)
    # float32 F-curves and matrices: ~1e-6
    np.testing.assert_allclose(direction, look, atol=1e-5)
    halo, _ = overlay.cached_arrays()["marks_halo"]
    np.testing.assert_allclose(halo, marks)
    cam.select_set(False)
    empty = make_animated_object("Empty", 'XYZ', [1.0, 21.0], np.radians([[0, 0, 0], [0, 0, 90]]))
    empty.select_set(True)
    bpy.context.view_layer.update()
    assert overlay.legend().cameras == []
    assert overlay.cached_arrays()["marks"][0].shape == (2 * 6, 3)   # triangles only
