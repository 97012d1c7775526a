"""The overlay on real scenes (issue 24, item 8), with the real bpy and Blender 3.4.1:
the CMU walk BVH (a key on every frame, 31 joints) imported with Blender's importer, and
an object turning in place. Geometry only (no GPU: tests/gui draws in a window).

Checked against what Blender itself poses (frame_set + matrix_world, matrix_world @
pose_bone.matrix / head), mathutils' rotations (scipy is not inside Blender 3.4.1) and
numpy's percentile, never against the overlay's own code.
"""
import bpy
import numpy as np
import pytest

from quatbake.addon import versions
from quatbake.addon.overlay import draw as overlay
from quatbake.addon.overlay import geometry
from quatbake.core import triads

from scenes import make_animated_object, select_only
from test_realdata_import import run_bvh_import

pytestmark = pytest.mark.bpy

WALK = "cmu_12_01_walk.bvh"
# float32 F-curves and matrices: positions ~1e-6 units; 1e-4 leaves room.
POS_TOL = 1e-4


@pytest.fixture
def walk():
    import quatbake

    clip, scene = run_bvh_import(WALK)
    quatbake.register()
    try:
        arm = bpy.context.object
        assert arm.type == 'ARMATURE' and arm.mode == 'OBJECT'
        for bone in arm.data.bones:      # a fresh import, as bpy 5.0 leaves it
            versions.select_bone(arm, bone.name, False)
        select_only(arm)
        yield clip, arm, scene
    finally:
        quatbake.unregister()


def _hide_in_own_collection(arm, name: str) -> None:
    """Put bone ``name`` alone in a hidden bone collection (4.0+) / hidden layer (3.4)."""
    bone = arm.data.bones[name]
    if hasattr(bone, "collections"):
        hidden = arm.data.collections.new("Hidden")
        for other in list(bone.collections):
            other.unassign(bone)
        hidden.assign(bone)
        hidden.is_visible = False
    else:
        bone.layers = [i == 7 for i in range(32)]
        arm.data.layers[7] = False


def _world_bones(arm, scene, frames):
    """{bone: ((n, 3) heads, [mathutils.Quaternion] * n)} of every pose bone, from
    frame_set."""
    heads = {b.name: [] for b in arm.pose.bones}
    rots = {b.name: [] for b in arm.pose.bones}
    for f in frames:
        scene.frame_set(int(f))
        world = arm.matrix_world
        for b in arm.pose.bones:
            heads[b.name].append(np.array(world @ b.head))
            rots[b.name].append((world @ b.matrix).to_3x3().normalized().to_quaternion())
    scene.frame_set(1)
    return {n: (np.array(heads[n]), rots[n]) for n in heads}


def test_an_armature_in_object_mode_shows_its_keyed_visible_bones(walk):
    clip, arm, _scene = walk
    joints = {j.name for j in clip.joints}          # the file's joints (tests/oracles)
    arm.data.bones["LeftHand"].hide = True
    _hide_in_own_collection(arm, "RightHand")
    drawn = geometry.overlay_objects(bpy.context.view_layer)
    assert {t.bone_name for t in drawn} == joints - {"LeftHand", "RightHand"}
    # In Pose Mode the selection decides, as before.
    bpy.ops.object.mode_set(mode='POSE')
    for name in ("LeftUpLeg", "RightUpLeg"):
        versions.select_bone(arm, name, True)
    assert [t.bone_name for t in geometry.overlay_objects(bpy.context.view_layer)] == [
        "LeftUpLeg", "RightUpLeg"]
    bpy.ops.object.mode_set(mode='OBJECT')
    # Bones selected in Pose Mode stay the choice in Object Mode.
    assert {t.bone_name for t in geometry.overlay_objects(bpy.context.view_layer)} == {
        "LeftUpLeg", "RightUpLeg"}


def test_the_walks_key_poses_are_thinned_when_zoomed_out_and_stay_on_the_bones(walk):
    """524 frames, a key on each, 31 bones: every key is a key pose at full detail (the
    'wall' of issue 24); zoomed out, each level keeps one key pose per Triad Every x level
    frames, and every triad drawn sits on a head Blender poses at some frame."""
    clip, arm, scene = walk
    settings = scene.quatbake
    settings.overlay_show_ghost = False
    built = geometry.build(bpy.context.view_layer, settings)
    assert not built.legend.problems, built.legend.problems
    bones = len(built.legend.objects)
    assert bones == len(clip.joints) == 31
    frames = clip.frame_count
    step = settings.overlay_step
    poses = {level: built.arrays[geometry.thinned_name("marks", level)][0].shape[0] // 6
             for level in triads.LOD_LEVELS}
    assert poses[1] == bones * frames
    for level in triads.LOD_LEVELS[1:]:
        windows = int(np.ceil(frames / (step * level)))
        # one per window, plus the first and last keys (and any long-way keys: none here)
        assert poses[level] <= bones * (windows + 2), (level, poses[level])
    assert poses[16] < poses[1] / 40           # 16,244 key poses -> a few hundred
    # Zoomed out the spacing grows level by level, so the screen-space rule can find one.
    spacing = built.legend.level_spacing
    assert all(spacing[a] < spacing[b] for a, b in zip(triads.LOD_LEVELS, triads.LOD_LEVELS[1:]))
    px_per_unit = 100.0     # the 1.7-unit walker about 170 px tall
    level = triads.lod_level_for({lv: v * px_per_unit for lv, v in spacing.items()})
    assert spacing[level] * px_per_unit >= triads.MIN_TRIAD_SPACING_PX or level == 16
    # Every triad drawn at level 16 is a bone head Blender poses at a frame of the walk.
    posed = _world_bones(arm, scene, np.arange(1, frames + 1))
    heads = np.concatenate([posed[t.bone_name][0] for t in
                            geometry.overlay_objects(bpy.context.view_layer)])
    bases = built.arrays[geometry.thinned_name("triads", 16)][0][0::6].astype(np.float64)
    nearest = np.min(np.linalg.norm(bases[:, None, :] - heads[None, :, :], axis=2), axis=1)
    assert nearest.max() < POS_TOL, nearest.max()


def _front_view(heads, width: float, height: float):
    """(perspective matrix, pixels per unit, centre, right, up) of an orthographic view
    looking along the walk (the horizontal axis its heads travel furthest on), the whole
    walk in the middle 80% of a ``width`` x ``height`` region: the view where every frame
    of a bone lands on one spot."""
    span = heads.max(axis=0) - heads.min(axis=0)
    along = int(np.argmax(span[:2]))
    right = np.eye(3)[1 - along]
    up = np.array([0.0, 0.0, 1.0])
    centre = 0.5 * (heads.max(axis=0) + heads.min(axis=0))
    scale = 0.8 * min(width / span[1 - along], height / span[2])
    perspective = np.eye(4)
    perspective[0, :3] = 2.0 * scale / width * right
    perspective[1, :3] = 2.0 * scale / height * up
    perspective[2, :3] = np.eye(3)[along]
    perspective[:2, 3] = -perspective[:2, :3] @ centre
    perspective[2, 3] = 0.0
    return perspective, scale, centre, right, up


def test_the_walk_seen_from_the_front_draws_triads_apart_on_screen(walk):
    """The wall of 'The panel on real work': seen along its path, every frame of a bone
    lands on one spot and 31 bones share one figure, so thinning by frames cannot help.
    The triads a view draws are at least MIN_TRIAD_SPACING_PX and one axis length apart
    on screen, across every bone; each sits on a head Blender poses (frame_set), its
    pixels computed here from that head, its axis length from the bone's own length."""
    clip, arm, scene = walk
    settings = scene.quatbake
    settings.show_overlay = True
    legend = overlay.rebuild()
    assert len(legend.objects) == 31 and not legend.problems, legend.problems
    frames = clip.frame_count
    posed = _world_bones(arm, scene, np.arange(1, frames + 1))
    names = list(posed)
    heads = np.concatenate([posed[n][0] for n in names])
    owner = np.repeat(np.arange(len(names)), frames)
    width, height = 1000.0, 800.0
    perspective, scale, centre, right, up = _front_view(heads, width, height)
    drawn = overlay.arrays_for_view(perspective, width, height, scale, level=1)
    bases = drawn["triads"][0][0::6].astype(np.float64)
    assert 10 <= bases.shape[0] < 31 * frames / 20, bases.shape
    # every drawn triad is a head Blender poses at a frame of the walk
    gap = np.linalg.norm(bases[:, None, :] - heads[None, :, :], axis=2)
    nearest = np.argmin(gap, axis=1)
    assert gap[np.arange(bases.shape[0]), nearest].max() < POS_TOL
    assert len(set(owner[nearest])) >= 5          # several bones, not the first only
    # on screen, from those heads: x along ``right``, y along ``up``, ``scale`` px/unit
    at = heads[nearest] - centre
    xy = np.stack((at @ right, at @ up), axis=1) * scale
    apart = np.linalg.norm(xy[:, None, :] - xy[None, :, :], axis=2)
    apart[np.diag_indices_from(apart)] = np.inf
    # every frame is a key: key poses' axes are KEY_SCALE x Triad Size x the bone length
    world_scale = float(np.cbrt(abs(np.linalg.det(np.array(arm.matrix_world)[:3, :3]))))
    axis_px = np.median([arm.data.bones[n].length * world_scale for n in names]) \
        * settings.overlay_size * triads.KEY_SCALE * scale
    # float32 points: far below 0.01 px at this scale
    assert apart.min() >= max(triads.MIN_TRIAD_SPACING_PX, axis_px) - 0.01, (
        apart.min(), axis_px)
    # each drawn key pose keeps its white triangle; no other triangle is drawn
    assert drawn["marks"][0].shape[0] == 6 * bases.shape[0]


def test_the_walks_speed_legend_is_a_round_top_above_the_98th_percentile(walk):
    clip, arm, scene = walk
    built = geometry.build(bpy.context.view_layer, scene.quatbake)
    posed = _world_bones(arm, scene, np.arange(1, clip.frame_count + 1))
    # Degrees per frame between consecutive frames, of Blender's own poses (mathutils).
    # (the sign-agnostic angle: a quaternion's angle runs to 360 deg for q and -q)
    angles = np.array([a.rotation_difference(b).angle for _h, r in posed.values()
                       for a, b in zip(r[:-1], r[1:])])
    speeds = np.degrees(np.minimum(angles, 2 * np.pi - angles))
    p98 = np.percentile(speeds, 98.0)
    round_tops = sorted(m * 10.0 ** e for e in range(-2, 4) for m in (1.5, 3.0, 6.0, 9.0))
    expected = min(t for t in round_tops if t >= p98 * (1 - 1e-6))
    assert built.legend.speed_max == pytest.approx(expected, rel=1e-9)
    assert built.legend.speed_max < speeds.max()     # the spikes saturate, not the ramp
    labels = triads.legend_labels(built.legend.speed_max)
    assert labels[-1].endswith("\u00b0+") and all(len(text) <= 6 for text in labels)
    assert all("." not in text or len(text.split(".")[1]) <= 2 for text in labels)


def test_names_go_at_the_end_of_each_path(walk):
    clip, arm, scene = walk
    built = geometry.build(bpy.context.view_layer, scene.quatbake)
    last = _world_bones(arm, scene, [clip.frame_count])
    assert len(built.labels) == 31
    for name, at in built.labels:
        np.testing.assert_allclose(at, last[name][0][-1], atol=POS_TOL)


def test_overlapping_names_are_left_out():
    found = [("Hips", 100.0, 100.0, 30.0, 12.0),
             ("Spine", 105.0, 104.0, 30.0, 12.0),       # on top of Hips: left out
             ("LeftFoot", 100.0, 140.0, 50.0, 12.0),    # above it, clear: drawn
             ("Edge", 390.0, 50.0, 30.0, 12.0)]         # would leave the 400 px region
    placed = geometry.place_labels(found, 400.0, 300.0, offset=8.0)
    assert [p[0] for p in placed] == ["Hips", "LeftFoot"]
    assert placed[0][1:] == (108.0, 94.0)    # 8 px right of its end, centred on it


def _about(axis, degrees):
    axis = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    half = np.radians(degrees) / 2.0
    return np.concatenate([[np.cos(half)], np.sin(half) * axis])


def test_a_long_turn_in_place_is_drawn_as_an_arc_with_its_band(clean_blender):
    """Quaternion keys at 1 and 21, the second 120 deg about Z with its sign flipped:
    Blender's per-channel curves turn 240 deg the long way, in place. The triads sit on
    the arc ARC_RADIUS triad lengths out along the axis whose tip travels furthest (from
    Blender's matrix_world), and the long-way band lies on that arc."""
    keys = np.array([_about([0, 0.3, 1], 0), -_about([0, 0.3, 1], 120)])
    obj = make_animated_object("Turn", 'QUATERNION', np.array([1.0, 21.0]), keys, 'LINEAR')
    obj.location = (1.0, 2.0, 0.5)
    select_only(obj)
    settings = bpy.context.scene.quatbake
    settings.overlay_size = 0.5
    settings.overlay_step = 1
    settings.show_overlay = True
    legend = overlay.legend()
    assert legend.in_place == ["Turn"] and legend.long_arc_count == 1
    scene = bpy.context.scene
    tips = {axis: [] for axis in range(3)}
    for f in range(1, 22):
        scene.frame_set(f)
        m = np.array(obj.matrix_world)
        for axis in range(3):
            tips[axis].append(m[:3, 3] + triads.ARC_RADIUS * 0.5 * m[:3, axis]
                              / np.linalg.norm(m[:3, axis]))
    scene.frame_set(1)
    travel = {a: np.linalg.norm(np.diff(np.array(p), axis=0), axis=1).sum()
              for a, p in tips.items()}
    arc = np.array(tips[max(travel, key=travel.get)])
    arrays = overlay.cached_arrays()
    # The preview (slerp) and Blender's curves differ; the band is what Blender plays
    # before a bake, so compare the band's radius and the ghost-free triads' positions
    # with the arc of what the overlay previews: each on the sphere of the arc.
    band = arrays["long_arc"][0].astype(np.float64)
    assert band.shape[0] >= 2 * 20
    centre = np.array(obj.location)
    np.testing.assert_allclose(np.linalg.norm(band - centre, axis=1),
                               triads.ARC_RADIUS * 0.5, atol=POS_TOL)
    bases = arrays["triads"][0][0::6].astype(np.float64)
    np.testing.assert_allclose(np.linalg.norm(bases - centre, axis=1),
                               triads.ARC_RADIUS * 0.5, atol=POS_TOL)
    # the key poses' spokes start at the object: the first ends on Blender's own arc
    spokes = arrays["spokes"][0].astype(np.float64)
    assert spokes.shape == (4, 3)
    np.testing.assert_allclose(spokes[0], centre, atol=POS_TOL)
    np.testing.assert_allclose(spokes[1], arc[0], atol=POS_TOL)
