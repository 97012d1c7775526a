"""Bone Tip Tolerance (issue 22): a tolerance bake whose angle for each pose bone is a
distance at the bone's tip, DIST / (the bone's length x the armature's largest scale).

Checked by Blender's playback: the baked rig played with frame_set at every quarter
frame, each bone's tail read in world space (armature matrix_world @ pose_bone.tail),
against where the method's path puts it, computed independently: scipy's Slerp of the
key orientations applied to the bone's rest matrix and rest tail (inside Blender 3.4.1,
whose Python has no scipy, ``mathutils.Quaternion.slerp`` per key interval).
"""
import math

import bpy
import mathutils
import numpy as np
import pytest

from quatbake.addon import animdata, bake

from scenes import (
    assert_same_snapshot,
    key_bone,
    make_animated_object,
    make_rig,
    scene_snapshot,
    select_only,
)

try:
    from scipy.spatial.transform import Rotation, Slerp
except ImportError:            # Blender 3.4.1's own Python
    Rotation = Slerp = None

pytestmark = pytest.mark.bpy

KEY_FRAMES = np.array([1.0, 14.0, 29.0, 41.0])
TIMES = np.arange(1.0, 41.0 + 1e-9, 0.25)      # every quarter frame of the keyed range
# The armature's scale: non-uniform, so the largest axis (1.5) decides the bound.
SCALE = (1.5, 0.5, 1.0)
LENGTHS = {"Long": 2.0, "Short": 0.5}
DIST = 0.002                                    # scene units at the tip
# Blender's float32 matrices (pose, rest, world) and tail positions of a few units:
# ~6e-8 relative each, a few dozen operations -> well under 1e-5 scene units.
FLOAT_TOL = 1e-5

# Key orientations as (axis, degrees) turns of 60-110 deg between keys: far from one
# great circle, so Bezier channels need keys between the animator's to follow a slerp.
_LONG_TURNS = [((0, 0, 1), 0.0), ((1, 0, 0), 80.0), ((0.3, 1.0, 0.2), 150.0),
               ((0.2, -0.4, 1.0), 95.0)]
_SHORT_EULERS = np.radians([[0.0, 0.0, 0.0], [70.0, 30.0, 20.0], [-20.0, 80.0, 110.0],
                            [40.0, -30.0, 170.0]])


def _long_quats():
    """(4, 4) key quaternions (w, x, y, z) of the quaternion bone, from axis and angle."""
    out = []
    for axis, deg in _LONG_TURNS:
        axis = np.asarray(axis, float) / np.linalg.norm(axis)
        half = math.radians(deg) / 2.0
        out.append([math.cos(half), *(axis * math.sin(half))])
    return np.array(out)


def _rig(name="Rig", scale=SCALE):
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 41
    rig = make_rig(name, [("Long", None, (0, 0, 0), (0, LENGTHS["Long"], 0)),
                          ("Short", None, (1, 0, 0), (1, 0, LENGTHS["Short"]))])
    rig.scale = scale
    bpy.context.view_layer.update()                 # matrix_world with the scale
    key_bone(rig, "Long", "rotation_quaternion", KEY_FRAMES, _long_quats(), mode='QUATERNION')
    key_bone(rig, "Short", "rotation_euler", KEY_FRAMES, _SHORT_EULERS, mode='XYZ')
    return rig


def _path_matrices(bone):
    """(len(TIMES), 3, 3): the method's path (Slerp, even timing) of the bone's keys."""
    if Slerp is not None:
        if bone == "Long":
            keys = Rotation.from_quat(_long_quats()[:, [1, 2, 3, 0]])
        else:
            keys = Rotation.from_euler("xyz", _SHORT_EULERS)   # Blender's XYZ: extrinsic
        return Slerp(KEY_FRAMES, keys)(TIMES).as_matrix()
    if bone == "Long":
        keys = [mathutils.Quaternion(q) for q in _long_quats()]
    else:
        keys = [mathutils.Euler(e, 'XYZ').to_quaternion() for e in _SHORT_EULERS]
    out = []
    for t in TIMES:
        i = min(int(np.searchsorted(KEY_FRAMES, t, side="right")) - 1, len(KEY_FRAMES) - 2)
        u = (t - KEY_FRAMES[i]) / (KEY_FRAMES[i + 1] - KEY_FRAMES[i])
        out.append(np.array(keys[i].slerp(keys[i + 1], u).to_matrix()))
    return np.array(out)


def _expected_tails(rig, bone):
    """World tail positions (len(TIMES), 3) on the method's path: a root bone's pose
    matrix is its rest matrix times its rotation, the tail (0, length, 0) in bone space."""
    rest = np.array(rig.data.bones[bone].matrix_local, dtype=np.float64)
    world = np.array(rig.matrix_world, dtype=np.float64)
    rot = _path_matrices(bone)                                            # (n, 3, 3)
    local = rot @ np.array([0.0, LENGTHS[bone], 0.0])                     # bone space
    arm = local @ rest[:3, :3].T + rest[:3, 3]
    return arm @ world[:3, :3].T + world[:3, 3]


def _played_tails(rig, bone):
    scene = bpy.context.scene
    out = []
    for t in TIMES:
        scene.frame_set(int(math.floor(t)), subframe=float(t - math.floor(t)))
        out.append(tuple(rig.matrix_world @ rig.pose.bones[bone].tail))
    scene.frame_set(1)
    return np.array(out)


def _tip_error(rig, bone):
    return np.linalg.norm(_played_tails(rig, bone) - _expected_tails(rig, bone), axis=1)


def _bone_keys(rig, bone):
    prefix = rig.pose.bones[bone].path_from_id()
    counts = {len(fc.keyframe_points) for fc in animdata.object_fcurves(rig)
              if fc.data_path.startswith(prefix + ".rotation")}
    assert len(counts) == 1        # every rotation channel keyed on the same frames
    return counts.pop()


def _tip_degrees(bone, scale=SCALE, dist=DIST):
    # Independent of the code: the angle dist / (rest length x largest |scale|).
    return math.degrees(dist / (LENGTHS[bone] * max(abs(s) for s in scale)))


def test_the_oracle_reproduces_blenders_playback_of_the_original_keys(clean_blender):
    """The expected-tail computation itself, checked where it must agree exactly with
    Blender: at the key frames, on the original (unbaked) rig."""
    rig = _rig()
    scene = bpy.context.scene
    for bone in LENGTHS:
        expected = _expected_tails(rig, bone)
        for f in KEY_FRAMES:
            scene.frame_set(int(f))
            got = np.array(rig.matrix_world @ rig.pose.bones[bone].tail)
            i = int(np.searchsorted(TIMES, f))
            assert np.linalg.norm(got - expected[i]) <= FLOAT_TOL, (bone, f)


# (keys, distance): at 0.002 the animator's 4 keys are enough for Bezier; at 0.0002 the
# fit adds keys between them (5 and 6 measured), so both kinds of key are played.
@pytest.mark.parametrize("keys, dist", [('BEZIER', DIST), ('BEZIER', DIST / 10.0),
                                        ('LINEAR', DIST)])
def test_tip_tolerance_keeps_every_bone_tip_within_the_distance(clean_blender, keys, dist):
    rig = _rig()
    result = bake.bake_objects([rig], bake.BakeSettings(
        method='SLERP', tolerance_tip=dist, key_interpolation=keys))
    for bone in LENGTHS:
        name = f"Rig: {bone}"
        stats = result.key_statistics[name]
        # Each bone its own angle, from its own length and the largest axis scale.
        assert stats["tolerance_deg"] == pytest.approx(_tip_degrees(bone, dist=dist),
                                                       rel=1e-12)
        assert stats["tolerance_tip"] == dist
        err = _tip_error(rig, bone)
        if keys == 'BEZIER':
            # Promised at every quarter frame: the tip within the distance of the path.
            assert err.max() <= dist + FLOAT_TOL, (bone, err.max())
        else:
            # LINEAR keys are promised at whole frames only (docs/tolerance.md).
            whole = np.isclose(TIMES, np.round(TIMES))
            assert err[whole].max() <= dist + FLOAT_TOL, (bone, err[whole].max())
        assert _bone_keys(rig, bone) < 41           # fewer than the dense bake's keys
    if dist < DIST:
        assert _bone_keys(rig, "Long") > len(KEY_FRAMES)    # keys were added, and played
    # The statistics notes give the distance beside the degrees.
    notes = [n.message for n in result.notes if "keys per channel" in n.message]
    assert any('bone "Long"' in m and f"{_tip_degrees('Long', dist=dist):.3g} deg "
               f"({dist:g} scene units at the bone's tip)" in m for m in notes), notes


def test_the_tip_tolerance_is_what_makes_the_keys_few(clean_blender):
    """The same bake without the tip tolerance keeps a key on every frame; with a far
    smaller distance it needs more keys: the distance sets how many are kept."""
    rig = _rig()
    dense = bake.bake_objects([rig], bake.BakeSettings(method='SLERP'))
    assert dense.keys_per_object["Rig: Long"] == 41
    loose = bake.bake_objects([rig], bake.BakeSettings(
        method='SLERP', tolerance_tip=DIST, key_interpolation='BEZIER'))
    tight = bake.bake_objects([rig], bake.BakeSettings(
        method='SLERP', tolerance_tip=DIST / 100.0, key_interpolation='BEZIER'))
    for bone in LENGTHS:
        name = f"Rig: {bone}"
        assert loose.keys_per_object[name] < tight.keys_per_object[name], name
    # The long bone (same distance, longer lever) needs a smaller angle: more keys.
    assert loose.keys_per_object["Rig: Long"] >= loose.keys_per_object["Rig: Short"]


@pytest.mark.parametrize("tolerance_deg", [0.005, 0.5])
def test_with_a_key_tolerance_too_each_bone_takes_the_smaller(clean_blender, tolerance_deg):
    rig = _rig()
    result = bake.bake_objects([rig], bake.BakeSettings(
        method='SLERP', tolerance_tip=DIST, tolerance_deg=tolerance_deg,
        key_interpolation='BEZIER'))
    for bone in LENGTHS:
        stats = result.key_statistics[f"Rig: {bone}"]
        want = min(tolerance_deg, _tip_degrees(bone))
        assert stats["tolerance_deg"] == pytest.approx(want, rel=1e-12), bone
        assert stats["max_deg"] <= want


def test_objects_and_bones_of_no_world_length_take_the_key_tolerance_with_one_note(
        clean_blender):
    rig = _rig()
    flat = _rig("Flat", scale=(0.0, 0.0, 0.0))      # no length in the world
    kf = np.array([1.0, 21.0, 41.0])
    cube = make_animated_object("Cube", 'XYZ', kf, np.radians([[0, 0, 0], [0, 90, 0],
                                                                [90, 90, 0]]))
    result = bake.bake_objects([rig, flat, cube], bake.BakeSettings(
        method='SLERP', tolerance_tip=DIST, tolerance_deg=0.05, key_interpolation='BEZIER'))
    assert result.key_statistics["Cube"]["tolerance_deg"] == 0.05
    assert "tolerance_tip" not in result.key_statistics["Cube"]
    for bone in LENGTHS:
        assert result.key_statistics[f"Flat: {bone}"]["tolerance_deg"] == 0.05
        assert result.key_statistics[f"Rig: {bone}"]["tolerance_deg"] == pytest.approx(
            min(0.05, _tip_degrees(bone)), rel=1e-12)
    said = [n.message for n in result.notes + result.warnings
            if "Bone Tip Tolerance" in n.message]
    assert len(said) == 1, said                      # once, for all of them
    assert 'Object "Cube" (not a pose bone)' in said[0]
    assert 'Armature "Flat", bone "Long" (of zero length' in said[0]
    assert "3 of the baked transforms" in said[0] and "0.05 deg" in said[0]


def test_a_negative_distance_is_refused_in_one_sentence_with_nothing_changed(clean_blender):
    rig = _rig()
    select_only(rig)
    before = scene_snapshot()
    with pytest.raises(bake.BakeError) as caught:
        bake.bake_objects([rig], bake.BakeSettings(method='SLERP', tolerance_tip=-0.01))
    (issue,) = caught.value.issues
    assert issue.severity == 'ERROR'
    assert issue.message.startswith("Bone tip tolerance (scene units) must be a finite "
                                    "number, 0 or more (got -0.01)")
    assert_same_snapshot(before, scene_snapshot())


def test_the_operator_takes_the_tip_tolerance_from_the_scene(clean_blender):
    rig = _rig()
    select_only(rig)
    settings = bpy.context.scene.quatbake
    settings.tolerance_tip = DIST
    assert bpy.ops.quatbake.bake() == {'FINISHED'}
    assert settings.last_keys_kind == 'BEZIER'       # the panel's default keys
    for bone in LENGTHS:
        assert _bone_keys(rig, bone) < 41
        err = _tip_error(rig, bone)
        assert err.max() <= DIST + FLOAT_TOL, (bone, err.max())
