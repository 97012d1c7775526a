"""The overlay's per-transform geometry cache (issue 24: the overlay on real scenes),
with the real bpy and Blender 3.4.1.

Every change below is made the way a user or a script makes it, then the overlay's
arrays are compared with a fresh ``geometry.build`` of the same scene, which keeps no
cache at all: equal to the bit (the same float32 numbers, since the same steps made
them), so a stale transform, a wrong recolouring or a missed reorder fails. Where
the change has a value of its own (a moved key, a moved parent) the drawn geometry is
also checked against Blender's own evaluation (fc.evaluate, matrix_world). How often
the expensive step ran is counted with ``overlay.cache_stats()``.

The float64 samples behind the current-frame triad are compared to SAMPLE_TOL, not to
the bit: CI's Blender 3.4.1 gave the forearm's orientations 1 ulp apart (1.7e-16 in 4
of 84 numbers, in 2 runs of 3 on one machine, never on another) with the same inputs
and the same steps. numpy and its BLAS promise no bit-for-bit results across memory
layouts and CPUs, so equality to the bit there tested the machine, not the cache. The
float32 arrays that are drawn stay compared to the bit; a stale sample is off by far
more than SAMPLE_TOL (the smallest change below turns a bone by 0.2 rad).
"""
import bpy
import numpy as np
import pytest

from quatbake.addon import animdata, bake, versions
from quatbake.addon.overlay import draw as overlay
from quatbake.addon.overlay import geometry

from scenes import key_bone, make_animated_object, make_rig, new_object, select_only
from test_realdata_import import run_bvh_import

pytestmark = pytest.mark.bpy

FRAMES = np.array([1.0, 11.0, 21.0, 31.0])
# float32 F-curves and matrices: positions ~1e-6 units; 1e-5 leaves room.
POS_TOL = 1e-5
# float64 samples made twice by the same steps: a few ulp (see above).
SAMPLE_TOL = 1e-12


def _about(axis, degrees):
    axis = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    half = np.radians(degrees) / 2.0
    return np.concatenate([[np.cos(half)], np.sin(half) * axis])


def _camera(name, select=True, shift=0.0):
    keys = np.array([_about([0, 0, 1], 0), _about([1, 0, 0], 40), -_about([0, 1, 0], 80),
                     _about([1, 1, 0], 30)])
    location = np.array([[0.0, 0, 0], [2.0, 1, 0], [4.0, -1, 0], [6.0, 0, 1]]) + shift
    obj = make_animated_object(name, 'QUATERNION', FRAMES, keys, location=location)
    obj.select_set(select)
    bpy.context.view_layer.objects.active = obj
    return obj


def assert_same_as_fresh():
    """The overlay's arrays, legend and current-frame samples are what a build from
    scratch makes of the scene now."""
    fresh = geometry.build(bpy.context.view_layer, bpy.context.scene.quatbake)
    cached = overlay.cached_arrays()
    assert set(fresh.arrays) == set(cached) - {"current"}
    for key, (points, colors) in fresh.arrays.items():
        np.testing.assert_array_equal(cached[key][0], points, err_msg=key)
        np.testing.assert_array_equal(cached[key][1], colors, err_msg=key)
    legend = overlay.legend()
    for field in ("objects", "problems", "speed_max", "long_arc_count", "spin_count",
                  "step_count", "in_place", "baked_objects", "fixed_long_arc_count",
                  "cameras", "level_spacing"):
        assert getattr(legend, field) == getattr(fresh.legend, field), field
    assert [name for name, _at in overlay._STATE.labels] == [n for n, _at in fresh.labels]
    for mine, theirs in zip(overlay._STATE.samples, fresh.samples):
        np.testing.assert_array_equal(mine.frames, theirs.frames)
        np.testing.assert_allclose(mine.quats, theirs.quats, rtol=0, atol=SAMPLE_TOL)
        np.testing.assert_allclose(mine.positions, theirs.positions, rtol=0, atol=SAMPLE_TOL)


def _counts():
    s = overlay.cache_stats()
    return s.sampled, s.parts


def test_nothing_changed_nothing_is_rebuilt_or_uploaded(clean_blender):
    _camera("A")
    _camera("B", shift=3.0)
    scene = bpy.context.scene
    scene.quatbake.show_overlay = True
    assert _counts() == (2, 2)
    generation = overlay._STATE.generation
    current = overlay._STATE.current_generation
    triads = overlay.cached_arrays()["triads"][0]
    for _ in range(3):
        overlay.rebuild(scene)              # what each depsgraph update does
    assert overlay._STATE.current_generation == current     # nor the current triads
    for frame in (5, 17, 30):
        scene.frame_set(frame)
        overlay.rebuild(scene)              # a depsgraph update after a frame change
        # the current triads are the frame's: A's at its location there (fc.evaluate)
        a_loc = [fc.evaluate(frame) for fc in animdata.location_fcurves(bpy.data.objects["A"])]
        np.testing.assert_allclose(overlay.cached_arrays()["current"][0][0], a_loc,
                                   atol=POS_TOL)
    assert _counts() == (2, 2)
    assert overlay.cache_stats().reused >= 12
    # the same arrays, not marked for upload again
    assert overlay._STATE.generation == generation
    assert overlay.cached_arrays()["triads"][0] is triads
    assert_same_as_fresh()


def test_selection_changes_only_repick_cached_geometry(clean_blender):
    a = _camera("A")
    b = _camera("B", shift=3.0)
    bpy.context.scene.quatbake.show_overlay = True
    sampled, parts = _counts()
    b.select_set(False)
    bpy.context.view_layer.update()         # the depsgraph handler
    assert overlay.legend().objects == ["A"]
    assert_same_as_fresh()
    a.select_set(False)
    b.select_set(True)
    bpy.context.view_layer.update()
    assert overlay.legend().objects == ["B"]
    assert_same_as_fresh()
    a.select_set(True)
    bpy.context.view_layer.update()
    assert sorted(overlay.legend().objects) == ["A", "B"]
    assert_same_as_fresh()
    assert _counts() == (sampled, parts)


def test_a_new_key_and_a_moved_key_rebuild_only_that_object(clean_blender):
    a = _camera("A")
    _camera("B", shift=3.0)
    bpy.context.scene.quatbake.show_overlay = True
    sampled, parts = _counts()
    fc = animdata.location_fcurves(a)[0]
    fc.keyframe_points.insert(41.0, 10.0)
    a.update_tag()
    bpy.context.view_layer.update()
    assert _counts() == (sampled + 1, parts + 1)
    assert_same_as_fresh()
    # A key moved by a script, with no depsgraph tag at all: the next update finds it
    # (the key is a digest of the keys, not a depsgraph flag or a key count).
    co = np.empty(2 * len(fc.keyframe_points), dtype=np.float32)
    fc.keyframe_points.foreach_get("co", co)
    co[1] = 7.5                                    # frame 1's X location
    fc.keyframe_points.foreach_set("co", co)
    fc.update()
    overlay.rebuild(bpy.context.scene)
    assert _counts() == (sampled + 2, parts + 2)
    assert_same_as_fresh()
    # the path now starts where Blender's own curve says A is at frame 1
    legend_row = overlay.legend().objects.index("A")
    path = overlay._STATE.samples[legend_row].positions
    assert path[0, 0] == pytest.approx(fc.evaluate(1.0), abs=POS_TOL)
    assert path[0, 0] == pytest.approx(7.5, abs=POS_TOL)


def test_a_changed_handle_and_interpolation_are_seen(clean_blender):
    a = _camera("A")
    bpy.context.scene.quatbake.show_overlay = True
    sampled, _parts = _counts()
    fc = animdata.rotation_fcurves(a)[1]
    fc.keyframe_points[1].handle_right.y += 0.3
    overlay.rebuild(bpy.context.scene)
    assert _counts()[0] == sampled + 1
    assert_same_as_fresh()
    fc.keyframe_points[2].interpolation = 'LINEAR'
    overlay.rebuild(bpy.context.scene)
    assert _counts()[0] == sampled + 2
    assert_same_as_fresh()


def test_settings_that_shape_the_geometry_rebuild_it(clean_blender):
    _camera("A")
    settings = bpy.context.scene.quatbake
    settings.show_overlay = True
    for name, value in (("overlay_step", 1), ("overlay_size", 0.8),
                        ("overlay_show_ghost", False), ("method", 'LERP'),
                        ("turns", 'SHORTEST'), ("timing", 'KEYED')):
        before = _counts()
        generation = overlay._STATE.generation
        setattr(settings, name, value)
        overlay.rebuild(bpy.context.scene)   # the method has no update callback of ours
        assert _counts() != before, name
        assert overlay._STATE.generation > generation, name
        assert_same_as_fresh()
    # Line width and names are drawing only: nothing is rebuilt.
    before = _counts()
    settings.overlay_line_width = 4.0
    settings.overlay_show_names = False
    assert _counts() == before


def test_a_bake_and_a_revert_show_the_new_state(clean_blender):
    obj = _camera("A")
    settings = bpy.context.scene.quatbake
    settings.show_overlay = True
    assert overlay.legend().long_arc_count == 2     # into and out of the flipped key
    bake.bake_objects([obj], bake.BakeSettings(method='SLERP'))
    bpy.context.view_layer.update()
    assert overlay.legend().baked_objects == ["A"]
    assert overlay.legend().long_arc_count == 0
    assert_same_as_fresh()
    bake.revert_objects([obj])
    bpy.context.view_layer.update()
    assert overlay.legend().baked_objects == []
    assert overlay.legend().long_arc_count == 2
    assert_same_as_fresh()


def test_undo_shows_the_restored_keys(clean_blender):
    obj = _camera("A")
    scene = bpy.context.scene
    scene.quatbake.show_overlay = True
    before = {k: (p.copy(), c.copy()) for k, (p, c) in overlay.cached_arrays().items()}
    bpy.ops.ed.undo_push(message="before")
    fc = animdata.location_fcurves(obj)[2]
    fc.keyframe_points[1].co.y += 2.0
    fc.keyframe_points[1].handle_left.y += 2.0
    fc.keyframe_points[1].handle_right.y += 2.0
    obj.update_tag()
    bpy.context.view_layer.update()
    assert not np.array_equal(overlay.cached_arrays()["path"][0], before["path"][0])
    bpy.ops.ed.undo_push(message="moved")
    assert bpy.ops.ed.undo() == {'FINISHED'}          # undo_post: the overlay follows
    assert overlay.is_enabled()
    assert_same_as_fresh()
    for key, (points, colors) in before.items():
        if key != "current":
            np.testing.assert_array_equal(overlay.cached_arrays()[key][0], points, err_msg=key)
    assert bpy.ops.ed.redo() == {'FINISHED'}
    assert_same_as_fresh()
    assert not np.array_equal(overlay.cached_arrays()["path"][0], before["path"][0])


def test_a_moved_parent_moves_the_drawing_without_sampling_again(clean_blender):
    parent = new_object("Rig")
    obj = _camera("A")
    obj.parent = parent
    bpy.context.view_layer.update()
    bpy.context.scene.quatbake.show_overlay = True
    sampled, parts = _counts()
    parent.location = (10.0, -2.0, 1.0)
    bpy.context.view_layer.update()
    assert _counts() == (sampled, parts + 1)      # the samples are the parent's child's
    assert_same_as_fresh()
    bpy.context.scene.frame_set(1)
    np.testing.assert_allclose(overlay.cached_arrays()["path"][0][0],
                               np.array(obj.matrix_world.translation), atol=POS_TOL)


def _arm_rig():
    """Upper arm -> forearm, both keyed on rotation; the upper arm's location unkeyed."""
    rig = make_rig("Arm", [("Upper", None, (0, 0, 0), (0, 0, 1)),
                           ("Fore", "Upper", (0, 0, 1), (0, 0, 2))])
    frames = np.array([1.0, 11.0, 21.0])
    for name, degrees in (("Upper", (0, 30, 60)), ("Fore", (0, 45, 90))):
        values = np.zeros((3, 3))
        values[:, 0] = np.radians(degrees)
        key_bone(rig, name, "rotation_euler", frames, values, mode='XYZ')
    select_only(rig)
    return rig


def test_a_moved_parent_bone_rebuilds_its_children(clean_blender):
    rig = _arm_rig()
    scene = bpy.context.scene
    scene.quatbake.show_overlay = True
    assert len(overlay.legend().objects) == 2
    sampled, _parts = _counts()
    for frame in (4, 15):                 # keyed channels change every frame: no rebuild
        scene.frame_set(frame)
        overlay.rebuild(scene)
    assert _counts()[0] == sampled
    # The upper arm's unkeyed location moves both bones (the forearm hangs from it).
    rig.pose.bones["Upper"].location = (0.0, 0.5, 0.0)
    bpy.context.view_layer.update()
    assert _counts()[0] == sampled + 2
    assert_same_as_fresh()
    # the forearm's drawn head at frame 11 is where Blender poses it
    scene.frame_set(11)
    fore = geometry.overlay_objects(bpy.context.view_layer)
    row = [t.bone_name for t in fore].index("Fore")
    samples = overlay._STATE.samples[row]
    at = samples.positions[np.searchsorted(samples.frames, 11.0)]
    np.testing.assert_allclose(at, np.array(rig.matrix_world @ rig.pose.bones["Fore"].head),
                               atol=POS_TOL)
    # Only the forearm's keys change: the upper arm is reused.
    fc = [f for f in animdata.object_fcurves(rig) if '"Fore"' in f.data_path][0]
    fc.keyframe_points[1].co.y += 0.2
    fc.keyframe_points[1].handle_left.y += 0.2
    fc.keyframe_points[1].handle_right.y += 0.2
    overlay.rebuild(scene)
    assert _counts()[0] == sampled + 3
    assert_same_as_fresh()
    # Moving the armature moves every bone's samples (world space).
    rig.location = (0.0, 3.0, 0.0)
    bpy.context.view_layer.update()
    assert _counts()[0] == sampled + 5
    assert_same_as_fresh()


@pytest.fixture
def walk():
    import quatbake

    _clip, scene = run_bvh_import("cmu_12_01_walk.bvh")
    quatbake.register()
    try:
        arm = bpy.context.object
        for bone in arm.data.bones:
            versions.select_bone(arm, bone.name, False)
        select_only(arm)
        yield arm, scene
    finally:
        quatbake.unregister()


def test_the_walk_is_sampled_once_and_reselected_from_the_cache(walk):
    """The issue's case: 31 bones, a key per frame. Frame changes, deselecting and
    selecting the armature again, and selecting bones one by one in Pose Mode (each a
    new legend top, so the paths are recoloured) never sample a bone again."""
    arm, scene = walk
    scene.quatbake.show_overlay = True
    assert len(overlay.legend().objects) == 31
    assert _counts() == (31, 31)
    for frame in (2, 100, 300):
        scene.frame_set(frame)
        overlay.rebuild(scene)
    arm.select_set(False)
    bpy.context.view_layer.update()
    assert overlay.legend().objects == []
    joins = overlay.cache_stats().joins
    arm.select_set(True)
    bpy.context.view_layer.update()
    assert len(overlay.legend().objects) == 31
    assert _counts() == (31, 31)
    assert overlay.cache_stats().joins == joins     # the arrays joined before deselecting
    assert_same_as_fresh()
    bpy.ops.object.mode_set(mode='POSE')
    for name in ("LeftUpLeg", "RightUpLeg", "Head"):
        versions.select_bone(arm, name, True)
        bpy.context.view_layer.update()
        overlay.rebuild(scene)
        assert_same_as_fresh()
    assert len(overlay.legend().objects) == 3
    assert _counts() == (31, 31)
    assert overlay.cache_stats().recoloured > 0
    bpy.ops.object.mode_set(mode='OBJECT')


def test_geometry_not_drawn_is_let_go_past_the_idle_budget(clean_blender, monkeypatch):
    from quatbake.addon.overlay import reuse

    a = _camera("A")
    _camera("B", shift=3.0)
    bpy.context.scene.quatbake.show_overlay = True
    assert len(overlay._STATE.cache.entries) == 2
    monkeypatch.setattr(reuse, "IDLE_BYTES", 0)     # nothing kept that is not drawn
    a.select_set(False)
    bpy.context.view_layer.update()
    assert list(overlay._STATE.cache.entries) == [("B", "")]
    sampled, _parts = _counts()
    a.select_set(True)
    bpy.context.view_layer.update()
    assert _counts()[0] == sampled + 1              # A sampled again, B kept
    assert_same_as_fresh()
