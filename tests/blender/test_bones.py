"""Pose bones: bake, revert, analysis and command line on armatures built in code.

The rig of issue 13's "checked by": a quaternion bone with a sign-flipped key
(``flip``), an Euler bone wrapping from 170 to -170 deg (``wrap``), a bone
named with quotes, brackets, a dot and non-ASCII characters, and a keyed bone
left unselected (``still``). Played back with ``frame_set`` and each bone's
``matrix_basis`` (what Blender evaluates), compared with the glTF spec's slerp
(tests/oracles, not QuatBake's code) of the key orientations as mathutils
turns the key values into rotations. Runs with bpy 5.0.1 and inside Blender 3.4.1.
"""
import re

import bpy
import mathutils
import numpy as np
import pytest

from quatbake.addon import animdata, bake, cli, transform, versions
from quatbake.addon.analyze import entries as report_results

import scenes
from oracles import gltf_reference as gr
from report_schema import load_report

pytestmark = pytest.mark.bpy

# Baked keys are float32 (~6e-8 relative per component) and Blender builds the
# bone's matrix in float32 too: 2e-6 rad (the bound) leaves a margin of
# about 5 over what was measured (4e-7 rad).
REPLAY_RAD = 2e-6
NAMED = 'arm["L"].001 Hüfte'
H = np.sqrt(0.5)
FLIP_KEYS = ([1, 11, 21], [[1, 0, 0, 0], [H, H, 0, 0], [-0.0, -1, 0, 0]])
WRAP_KEYS = ([1, 11], np.radians([[0, 0, 170], [0, 0, -170]]))
NAMED_KEYS = ([1, 21], [[1, 0, 0, 0], [0.6, 0, 0.8, 0]])
STILL_KEYS = ([1, 21], [[1, 0, 0, 0], [0, 0, 0, 1]])


def make_checked_rig(name="Rig"):
    rig = scenes.make_rig(name, [
        ("root", None, (0, 0, 0), (0, 0, 1)),
        ("flip", "root", (0, 0, 1), (0, 0, 2)),
        ("wrap", "flip", (0, 0, 2), (0, 0, 3)),
        (NAMED, "root", (0, 0, 1), (1, 0, 1)),
        ("still", "root", (0, 0, 1), (0, 1, 1)),
    ])
    scenes.key_bone(rig, "flip", "rotation_quaternion", *FLIP_KEYS)
    scenes.key_bone(rig, "wrap", "rotation_euler", *WRAP_KEYS, mode='XYZ')
    scenes.key_bone(rig, NAMED, "rotation_quaternion", *NAMED_KEYS)
    scenes.key_bone(rig, "still", "rotation_quaternion", *STILL_KEYS)
    return rig


def key_quats(mode, values) -> np.ndarray:
    """Key values -> (w, x, y, z) as Blender's mathutils builds the rotation (independent)."""
    if mode == 'QUATERNION':
        return np.array([mathutils.Quaternion(v).normalized() for v in values])
    return np.array([mathutils.Euler(v, mode).to_quaternion() for v in values])


def slerp_reference(keys, quats, frames) -> np.ndarray:
    keys = np.asarray(keys, dtype=np.float64)
    seg = np.clip(np.searchsorted(keys, frames, side="right") - 1, 0, keys.size - 2)
    u = np.clip((frames - keys[seg]) / (keys[seg + 1] - keys[seg]), 0.0, 1.0)
    return np.array([gr.slerp_short_arc(quats[i], quats[i + 1], float(t))
                     for i, t in zip(seg, u)])


def angle_rad(a, b) -> np.ndarray:
    """Sign-blind angle between rows of two (n, 4) quaternion arrays, 2 atan2(|v|, |w|)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    a = a / np.linalg.norm(a, axis=1, keepdims=True)
    b = b / np.linalg.norm(b, axis=1, keepdims=True)
    dot = np.abs(np.einsum("ij,ij->i", a, b))
    return 2.0 * np.arctan2(np.sqrt(np.clip(1.0 - dot * dot, 0.0, None)), dot)


def enter_pose_mode(rig, bones):
    scenes.select_only(rig)
    bpy.ops.object.mode_set(mode='POSE')
    for b in rig.data.bones:
        versions.select_bone(rig, b.name, b.name in bones)
    rig.data.bones.active = rig.data.bones[bones[0]]


def evaluated_snapshot() -> dict:
    """``scenes.scene_snapshot`` at frame 1 after Blender evaluated it: playback writes the
    animated channels' values into the bones' properties, so both sides of a comparison are
    taken after the same evaluation (channels the original action does not animate, like
    rotation_quaternion after a QUATERNION-output bake of an Euler bone, keep what revert
    restored)."""
    bpy.context.scene.frame_set(1)
    return scenes.scene_snapshot()


def bone_fcurves(rig, bone):
    prefix = transform.bone_path_prefix(bone)
    return {(fc.data_path, fc.array_index): animdata.read_keyframe_arrays(fc, ("co",))["co"]
            for fc in animdata.object_fcurves(rig) if fc.data_path.startswith(prefix)}


def test_selected_bones_baked_in_pose_mode_replay_slerp_and_revert_exactly(clean_blender):
    rig = make_checked_rig()
    untouched = bone_fcurves(rig, "still")
    original = animdata.get_action(rig)
    slot = animdata.get_slot_identifier(rig)       # "" before Blender 4.4
    before = evaluated_snapshot()
    enter_pose_mode(rig, ["flip", "wrap", NAMED])
    try:
        assert bpy.ops.quatbake.bake(method='SLERP') == {'FINISHED'}
        baked = animdata.get_action(rig)
        assert baked != original and original.use_fake_user
        # Every bone in one action: on 4.4+ one slot of it, the one the armature played.
        assert animdata.get_slot_identifier(rig) == slot
        if animdata.is_slotted(baked):
            assert [s.identifier for s in baked.slots] == [slot] and slot.startswith("OB")
        frames = np.arange(1.0, 22.0)
        for bone, (keys, values), mode in (("flip", FLIP_KEYS, 'QUATERNION'),
                                           ("wrap", WRAP_KEYS, 'XYZ'),
                                           (NAMED, NAMED_KEYS, 'QUATERNION')):
            played = scenes.bone_world_quats(rig, bone, frames)
            reference = slerp_reference(keys, key_quats(mode, values), frames)
            assert angle_rad(played, reference).max() < REPLAY_RAD, bone
            assert rig.pose.bones[bone].rotation_mode == mode
        # The unselected bone's channels are copied key for key into the baked action.
        after = bone_fcurves(rig, "still")
        assert sorted(after) == sorted(untouched)
        for key, co in untouched.items():
            np.testing.assert_array_equal(after[key], co)
        # One bake of some bones: one new action for the armature, the original untouched.
        assert sorted(a.name for a in bpy.data.actions) == sorted(
            [original.name, original.name + bake.BAKED_SUFFIX])
        assert bpy.ops.quatbake.revert() == {'FINISHED'}
    finally:
        bpy.ops.object.mode_set(mode='OBJECT')
    scenes.assert_same_snapshot(before, evaluated_snapshot())


def test_revert_one_bone_keeps_the_others_baked_then_revert_all_is_exact(clean_blender):
    rig = make_checked_rig()
    before = evaluated_snapshot()
    flip_original = bone_fcurves(rig, "flip")
    scenes.select_only(rig)
    result = bake.bake_objects([rig], bake.BakeSettings())
    assert sorted(result.objects) == sorted(f"Rig: {b}" for b in ("flip", "wrap", NAMED, "still"))
    wrap_baked = bone_fcurves(rig, "wrap")
    assert bake.revert_objects([transform.AnimatedTransform(rig, "flip")]) == ["Rig: flip"]
    # flip has its original keys back, wrap keeps its baked ones (both in a new copy).
    for key, co in flip_original.items():
        np.testing.assert_array_equal(bone_fcurves(rig, "flip")[key], co)
    for key, co in wrap_baked.items():
        np.testing.assert_array_equal(bone_fcurves(rig, "wrap")[key], co)
    assert not rig.pose.bones["flip"].quatbake.baked and rig.pose.bones["wrap"].quatbake.baked
    # Baking flip again carries wrap's bake over; one revert of the armature undoes all.
    bake.bake_objects([transform.AnimatedTransform(rig, "flip")], bake.BakeSettings())
    for key, co in wrap_baked.items():
        np.testing.assert_array_equal(bone_fcurves(rig, "wrap")[key], co)
    assert len(bpy.data.actions) == 2
    bake.revert_objects([rig])
    scenes.assert_same_snapshot(before, evaluated_snapshot())


@pytest.mark.parametrize("owner", ["Object", "PoseBone"])
def test_bake_records_hold_the_static_values_as_the_transform_stores_them(clean_blender, owner):
    # The object's and the bone's records share these fields (props._StaticValuesRecord, a
    # mix-in): registered on both, with the size and identity default of the transform's own
    # property as Blender defines it, so a revert writes back exactly what was there (the
    # defaults are constants such as 1.0 and 0.0, so they compare exactly).
    own = getattr(bpy.types, owner).bl_rna.properties
    record = own["quatbake"].fixed_type.properties
    for name in ("rotation_quaternion", "rotation_euler", "rotation_axis_angle", "location"):
        saved = record["original_" + name]
        assert saved.type == own[name].type == 'FLOAT', name
        assert saved.array_length == own[name].array_length, name
        assert tuple(saved.default_array) == tuple(own[name].default_array), name
    assert record["original_rotation_mode"].type == 'STRING'
    assert record["location_baked"].type == 'BOOLEAN'


def test_object_mode_armature_means_every_keyed_bone_and_its_own_channels(clean_blender):
    rig = make_checked_rig()
    rig.rotation_mode = 'QUATERNION'
    scenes.key_channels(rig, "rotation_quaternion", [1, 21], [[1, 0, 0, 0], [-0.0, 0, 0, -1]])
    names = [t.display_name for t in transform.transforms_of_objects([rig])]
    assert names == ["Rig", "Rig: flip", "Rig: wrap", f"Rig: {NAMED}", "Rig: still"]
    before = evaluated_snapshot()
    scenes.select_only(rig)
    assert bpy.ops.quatbake.bake(method='SLERP') == {'FINISHED'}
    frames = np.arange(1.0, 22.0)
    played = scenes.evaluated_quats(rig, frames)     # the armature object's own matrix_basis
    ref = slerp_reference([1, 21], key_quats('QUATERNION', [[1, 0, 0, 0], [0, 0, 0, -1]]), frames)
    assert angle_rad(played, ref).max() < REPLAY_RAD
    ref = slerp_reference(*STILL_KEYS[:1], key_quats('QUATERNION', STILL_KEYS[1]), frames)
    assert angle_rad(scenes.bone_world_quats(rig, "still", frames), ref).max() < REPLAY_RAD
    assert bpy.ops.quatbake.revert() == {'FINISHED'}
    scenes.assert_same_snapshot(before, evaluated_snapshot())


def test_analysis_has_a_row_per_bone_and_jump_to_worst_selects_the_bone(clean_blender):
    rig = make_checked_rig()
    scenes.select_only(rig)
    assert bpy.ops.quatbake.analyze(method='SLERP') == {'FINISHED'}
    found = report_results.results(bpy.context.scene)
    assert set(found) == {f"Rig: {b}" for b in ("flip", "wrap", NAMED, "still")}
    devs = [s["max_deviation_deg"] for s in found.values()]
    assert devs == sorted(devs, reverse=True)          # the panel lists the worst bone first
    assert found["Rig: flip"]["long_arc_segments"] == [[11.0, 21.0]]
    assert found["Rig: wrap"]["long_arc_segments"] == [[1.0, 11.0]]
    bpy.context.scene.frame_set(1)
    assert bpy.ops.quatbake.jump_to_worst(object_name="Rig: wrap") == {'FINISHED'}
    assert [b.name for b in rig.data.bones if versions.bone_selected(rig, b.name)] == ["wrap"]
    assert rig.data.bones.active.name == "wrap"
    # Keys 1 and 11, symmetric: half way (frame 6) Blender's long way is at 0 deg about Z
    # and slerp's short way at 180 deg, the largest angle two rotations can be apart.
    assert bpy.context.scene.frame_current == 6


def test_cli_report_rows_per_bone_worst_first_and_bones_option(clean_blender, tmp_path):
    make_checked_rig()
    scene = tmp_path / "rig.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(scene), copy=True)
    out, html = tmp_path / "r.json", tmp_path / "r.html"
    assert cli.main(["report", str(scene), "--json", str(out), "--html", str(html),
                     "--quiet"]) == cli.EXIT_OK
    page = html.read_text(encoding="utf-8")
    assert page.count("Armature Rig") == 1 and "4 bones, worst first" in page
    report = load_report(out)        # validated against the JSON Schema
    rows = report["objects"]
    assert [r["name"] for r in rows] == ["Rig"] * 4
    assert {r["bone"] for r in rows} == {"flip", "wrap", NAMED, "still"}
    devs = [r["max_deviation_deg"] for r in rows]
    assert devs == sorted(devs, reverse=True)
    flip = next(r for r in rows if r["bone"] == "flip")
    assert flip["long_arc_segments"] == [[11, 21]]
    out_named = tmp_path / "named.json"
    assert cli.main(["report", str(scene), "--objects", "Rig", "--json", str(out_named),
                     "--quiet"]) == cli.EXIT_OK
    assert {r["bone"] for r in load_report(out_named)["objects"]} == {"flip", "wrap", NAMED,
                                                                      "still"}
    # --bones with the first colon ending the armature's name, names written as they are.
    out2 = tmp_path / "r2.json"
    assert cli.main(["report", str(scene), "--bones", f"Rig:flip,{NAMED}", "--json", str(out2),
                     "--quiet"]) == cli.EXIT_OK
    assert [r["bone"] for r in load_report(out2)["objects"]] == ["flip", NAMED]
    baked = tmp_path / "baked.blend"
    assert cli.main(["bake", str(scene), "--bones", "Rig:flip", "--output", str(baked),
                     "--quiet"]) == cli.EXIT_OK
    bpy.ops.wm.open_mainfile(filepath=str(baked))
    rig = bpy.data.objects["Rig"]
    assert rig.pose.bones["flip"].quatbake.baked and not rig.pose.bones["wrap"].quatbake.baked
    ref = slerp_reference(FLIP_KEYS[0], key_quats('QUATERNION', FLIP_KEYS[1]), np.arange(1.0, 22))
    played = scenes.bone_world_quats(rig, "flip", np.arange(1.0, 22))
    assert angle_rad(played, ref).max() < REPLAY_RAD


@pytest.mark.parametrize("spec, expected", [
    ("Rig:spine,neck", ("Rig", ["spine", "neck"])),
    ("Rig:mixamorig:Hips", ("Rig", ["mixamorig:Hips"])),
    ("Rig:DEF-upper_arm.L.001", ("Rig", ["DEF-upper_arm.L.001"])),
    (r"Rig:a\,b,c", ("Rig", ["a,b", "c"])),
    (r"My\:Rig:arm[\"L\"]", ("My:Rig", ['arm["L"]'])),
    ("Rig:Hüfte,日本", ("Rig", ["Hüfte", "日本"])),
])
def test_bones_option_escaping(spec, expected):
    assert cli.args._bone_list(spec) == expected


def test_bones_option_reaches_bones_named_with_commas_and_colons(clean_blender, tmp_path):
    # The written forms of docs/cli.md's bone names in --bones, end to end through a file.
    rig = scenes.make_rig("My:Rig", [("a,b", None, (0, 0, 0), (0, 0, 1)),
                                     ("mixamorig:Hips", None, (1, 0, 0), (1, 0, 1)),
                                     ("DEF-upper_arm.L.001", None, (2, 0, 0), (2, 0, 1))])
    for bone in ("a,b", "mixamorig:Hips", "DEF-upper_arm.L.001"):
        scenes.key_bone(rig, bone, "rotation_quaternion", *STILL_KEYS)
    scene = tmp_path / "names.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(scene), copy=True)
    out = tmp_path / "r.json"
    assert cli.main(["report", str(scene), "--bones", r"My\:Rig:a\,b,mixamorig:Hips",
                     "--json", str(out), "--quiet"]) == cli.EXIT_OK
    rows = load_report(out)["objects"]
    assert sorted((r["name"], r["bone"]) for r in rows) == [("My:Rig", "a,b"),
                                                            ("My:Rig", "mixamorig:Hips")]


def test_unknown_bone_is_one_sentence(clean_blender):
    make_checked_rig()
    args = cli.build_parser().parse_args(["report", "s.blend", "--bones", "Rig:nope"])
    with pytest.raises(cli.BadInput, match='armature "Rig" has no bone "nope"'):
        cli.resolve_targets(bpy, args)


INHERIT_SCALE_MODES = ['NONE', 'AVERAGE', 'ALIGNED', 'FIX_SHEAR', 'NONE_LEGACY']


@pytest.mark.parametrize("chain", ["inherit", "mirrored", "inherit_rotation_off",
                                   "local_location_off",
                                   *(f"inherit_scale_{m}" for m in INHERIT_SCALE_MODES)])
def test_overlay_draws_selected_bones_in_world_space_as_blender_poses_them(clean_blender,
                                                                           chain):
    """Triads at the bones' heads along the animation: checked against frame_set and
    Blender's own armature matrix_world @ pose_bone.matrix (parent turning, located and
    scaled, the armature moved and scaled), for the selected bones only; with Inherit
    Rotation off, Local Location off or each inherit-scale mode on the drawn bones and
    on a parent of one, under a root scaled unevenly (so scale inheritance shows)."""
    from quatbake.addon.overlay import geometry as overlay_geometry

    rig = make_checked_rig()
    if chain not in ("inherit", "mirrored"):
        # On wrap and NAMED (drawn) and on flip, wrap's parent.
        for name in ("flip", "wrap", NAMED):
            bone = rig.data.bones[name]
            if chain == "inherit_rotation_off":
                bone.use_inherit_rotation = False
            elif chain == "local_location_off":
                bone.use_local_location = False
            else:
                bone.inherit_scale = chain[len("inherit_scale_"):]
        scenes.key_bone(rig, "root", "scale", [1, 21], [[1, 1, 1], [1.5, 2.0, 0.5]])
        scenes.key_bone(rig, "wrap", "location", [1, 21], [[0, 0, 0], [0.2, 0.3, -0.1]])
    rig.location, rig.scale = (1.0, -2.0, 0.5), (2.0, 2.0, 2.0)
    if chain == "mirrored":
        rig.scale = (-2.0, 2.0, 2.0)     # a mirrored rig: its triads stay right-handed
    rig.rotation_euler = (0.3, 0.0, 1.0)
    scenes.key_bone(rig, "root", "rotation_quaternion", [1, 21], [[1, 0, 0, 0], [H, 0, H, 0]])
    scenes.key_bone(rig, "root", "location", [1, 21], [[0, 0, 0], [0.5, 0, 1]])
    scenes.key_bone(rig, "flip", "scale", [1, 21], [[1, 1, 1], [1.5, 1.5, 1.5]])
    for b in rig.data.bones:
        versions.select_bone(rig, b.name, b.name in ("wrap", NAMED))
    scenes.select_only(rig)
    bpy.context.view_layer.update()     # matrix_world follows the new location and scale
    drawn = overlay_geometry.overlay_objects(bpy.context.view_layer)
    assert [t.display_name for t in drawn] == ["Rig: wrap", f"Rig: {NAMED}"]
    cache: dict = {}
    for t in drawn:
        frames, ours, blender, positions, rot_keys, length = overlay_geometry.bone_samples(
            t, "SLERP", cache)
        assert length == pytest.approx(rig.data.bones[t.bone_name].length * 2.0, rel=1e-6)
        for f in frames[[0, frames.size // 3, 2 * frames.size // 3, -1]]:
            bpy.context.scene.frame_set(int(f))
            world = rig.matrix_world @ rig.pose.bones[t.bone_name].matrix
            i = int(np.searchsorted(frames, f))
            # Float32 matrices down a 3-bone chain, scaled by 2: 1e-5 units and rad.
            np.testing.assert_allclose(positions[i], np.array(world.translation), atol=1e-5)
            # The triad's convention (docs/bones.md): the bone's Y axis exactly, X made
            # square to it, Z = X x Y; built here with mathutils from Blender's matrix.
            y = world.col[1].xyz.normalized()
            x = (world.col[0].xyz - world.col[0].xyz.project(y)).normalized()
            axes = mathutils.Matrix((x, y, x.cross(y))).transposed()
            expected = np.array(axes.to_quaternion(), dtype=np.float64)[None]
            assert angle_rad(blender[i][None], expected)[0] < 1e-5
    geometry = overlay_geometry.build(bpy.context.view_layer, bpy.context.scene.quatbake)
    assert geometry.legend.objects == ["Rig: wrap", f"Rig: {NAMED}"]
    assert not geometry.legend.problems


@pytest.mark.parametrize("output", ['KEEP', 'QUATERNION'])
@pytest.mark.parametrize("mode", ['QUATERNION', 'XYZ', 'XZY', 'YXZ', 'YZX', 'ZXY', 'ZYX',
                                  'AXIS_ANGLE'])
def test_every_rotation_mode_of_a_bone_bakes_to_slerp_and_reverts(clean_blender, mode, output):
    rig = scenes.make_rig("Rig", [("b", None, (0, 0, 0), (0, 0, 1))])
    turn = [mathutils.Quaternion((1, 0, 0, 0)), mathutils.Quaternion((0.2, 0.9, 0.3, -0.2))]
    turn[1].normalize()
    if mode == 'QUATERNION':
        values = [list(q) for q in turn]
    elif mode == 'AXIS_ANGLE':
        values = [[q.angle, *q.axis] for q in turn]
    else:
        values = [list(q.to_euler(mode)) for q in turn]
    path = animdata.ROTATION_PATHS[mode][0]
    scenes.key_bone(rig, "b", path, [1, 21], values, mode=mode)
    before = evaluated_snapshot()
    bake.bake_objects([transform.AnimatedTransform(rig, "b")],
                      bake.BakeSettings(method='SLERP', output_mode=output))
    assert rig.pose.bones["b"].rotation_mode == (mode if output == 'KEEP' else 'QUATERNION')
    frames = np.arange(1.0, 22.0)
    ref = slerp_reference([1, 21], np.array([list(q) for q in turn]), frames)
    assert angle_rad(scenes.bone_world_quats(rig, "b", frames), ref).max() < REPLAY_RAD
    bake.revert_objects([rig])
    scenes.assert_same_snapshot(before, evaluated_snapshot())


def test_bone_location_bakes_linear_at_constant_speed(clean_blender):
    rig = scenes.make_rig("Rig", [("b", None, (0, 0, 0), (0, 0, 1))])
    scenes.key_bone(rig, "b", "rotation_quaternion", [1, 11, 21], [[1, 0, 0, 0], [H, 0, 0, H],
                                                                   [0, 0, 0, 1]])
    scenes.key_bone(rig, "b", "location", [1, 11, 21], [[0, 0, 0], [1, 0, 0], [11, 0, 0]])
    before = evaluated_snapshot()
    bake.bake_objects([rig], bake.BakeSettings(location_method='LINEAR', constant_speed=True))
    xs = []
    for f in range(1, 22):
        bpy.context.scene.frame_set(f)
        xs.append(rig.pose.bones["b"].location[0])
    # 11 units in 20 frames at constant speed: 0.55 per frame (float32 keys: 1e-5).
    np.testing.assert_allclose(np.diff(xs), 0.55, atol=1e-5)
    bake.revert_objects([rig])
    scenes.assert_same_snapshot(before, evaluated_snapshot())


def test_analyze_in_pose_mode_reports_the_selected_bones_only(clean_blender):
    rig = make_checked_rig()
    enter_pose_mode(rig, ["wrap", NAMED])
    try:
        assert bpy.ops.quatbake.analyze(method='SLERP') == {'FINISHED'}
    finally:
        bpy.ops.object.mode_set(mode='OBJECT')
    assert set(report_results.results(bpy.context.scene)) == {"Rig: wrap", f"Rig: {NAMED}"}


def test_stepped_bone_keys_stay_stepped_and_a_tolerance_bake_thins_bone_keys(clean_blender):
    """Main's turns/steps and tolerance machinery reach bones: a bone keyed with CONSTANT
    keys plays after the bake exactly as Blender played it before (held, then the jump on
    the key's frame), and a tolerance bake writes fewer keys for a bone that slerps."""
    rig = scenes.make_rig("Rig", [("root", None, (0, 0, 0), (0, 0, 1)),
                                  ("step", "root", (0, 0, 1), (0, 0, 2)),
                                  ("glide", "root", (0, 0, 1), (1, 0, 1))])
    step_keys = ([1, 11, 21], [[1, 0, 0, 0], [H, 0, 0, H], [0, 0, 0, 1]])
    scenes.key_bone(rig, "step", "rotation_quaternion", *step_keys, interpolation='CONSTANT')
    glide_keys = ([1, 41], [[1, 0, 0, 0], [H, H, 0, 0]])
    scenes.key_bone(rig, "glide", "rotation_quaternion", *glide_keys, interpolation='LINEAR')
    frames = np.arange(1.0, 42.0)
    played_before = scenes.bone_world_quats(rig, "step", frames)
    result = bake.bake_objects([rig], bake.BakeSettings(method='SLERP', tolerance_deg=0.1))
    # Float32 F-curve values (~6e-8 relative) through the quaternion -> matrix round trip.
    assert angle_rad(scenes.bone_world_quats(rig, "step", frames), played_before).max() \
        < REPLAY_RAD
    assert any(n.bone == "step" and "stepped" in n.message for n in result.notes)
    # Integer frames alone cannot tell a step from a ramp: each hold is one CONSTANT key,
    # as keyed (a triage: a LINEAR key at its start and a CONSTANT one on its last frame),
    # and half a frame before each jump the channel still holds the key's value.
    prefix = transform.bone_path_prefix("step")
    for fc in animdata.object_fcurves(rig):
        if fc.data_path.startswith(prefix):
            held = {float(k.co[0]): k.interpolation for k in fc.keyframe_points}
            assert held == {1.0: 'CONSTANT', 11.0: 'CONSTANT', 21.0: held[21.0]}, held
            for start, end in ((1, 11), (11, 21)):
                value = step_keys[1][step_keys[0].index(start)][fc.array_index]
                assert fc.evaluate(end - 0.5) == pytest.approx(value, abs=1e-6)
    # The gliding bone: Slerp between its two keys within the 0.1 deg tolerance (plus the
    # float32 replay margin), from far fewer keys than the 41 of a dense bake.
    reference = slerp_reference(glide_keys[0], key_quats('QUATERNION', glide_keys[1]), frames)
    played = scenes.bone_world_quats(rig, "glide", frames)
    assert np.degrees(angle_rad(played, reference).max()) < 0.1 + np.degrees(REPLAY_RAD)
    glide = bone_fcurves(rig, "glide")
    assert glide and all(co.shape[0] < 41 for co in glide.values())
    assert result.keys_written < result.keys_dense


@pytest.mark.parametrize("timing", ['EVEN', 'KEYED'])
def test_a_keyed_bone_spin_is_kept_and_keyed_timing_keeps_the_ease(clean_blender, timing):
    """The keyed-intent settings (issue 11) reach bones: an Euler bone keyed 0 -> 360 ->
    720 deg about Z keeps both turns (Turns Auto). Timing Even turns 18 deg a frame; Timing
    Keyed plays what Blender played before (one Euler channel: Blender's rotation is about
    Z by the F-curve's value, ease and all)."""
    rig = scenes.make_rig("Rig", [("wheel", None, (0, 0, 0), (0, 0, 1))])
    scenes.key_bone(rig, "wheel", "rotation_euler", [1, 21, 41],
                    np.radians([[0, 0, 0], [0, 0, 360], [0, 0, 720]]), mode='XYZ')
    frames = np.arange(1.0, 42.0)
    played_before = scenes.bone_world_quats(rig, "wheel", frames)
    half = np.radians(18.0 * (frames - 1.0)) / 2.0
    even = np.stack([np.cos(half), 0.0 * half, 0.0 * half, np.sin(half)], axis=1)
    # The keys' Bezier ease: the two timings are told apart (by degrees, not float noise).
    assert np.degrees(angle_rad(played_before, even).max()) > 1.0
    result = bake.bake_objects([rig], bake.BakeSettings(method='SLERP', timing=timing))
    played = scenes.bone_world_quats(rig, "wheel", frames)
    expected = even if timing == 'EVEN' else played_before
    # Against what Blender played before, the original Euler channel's float32 counts
    # too: one ulp at 4 pi rad is 9.5e-7 rad and its Bezier evaluation is off by a few
    # (measured 2.9e-6 rad in all); 5e-6 rad. Even is against float64 here: REPLAY_RAD.
    tolerance = REPLAY_RAD if timing == 'EVEN' else 5e-6
    assert angle_rad(played, expected).max() < tolerance
    spins = [n.message for n in result.notes if n.bone == "wheel" and "keyed spin" in n.message]
    assert len(spins) == 2, [n.message for n in result.notes]


def test_cli_report_lists_an_armature_keyed_only_in_nla_clips_under_skipped(clean_blender,
                                                                            tmp_path):
    """Its bones are not analysed from a clip (README, docs/report.md): the report says so
    under ``skipped``, reports the other objects and exits 0."""
    rig = make_checked_rig()
    action = animdata.get_action(rig)
    track = rig.animation_data.nla_tracks.new()
    strip = track.strips.new("Stash", 1, action)
    if animdata.is_slotted(action) and strip.action_slot is None:
        strip.action_slot = action.slots[0]
    track.mute = True
    action.use_fake_user = True
    animdata.assign_action(rig, None, "")
    scenes.make_animated_object("Cube", 'XYZ', [1, 11], np.radians([[0, 0, 0], [0, 0, 90]]))
    scene = tmp_path / "stashed rig.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(scene), copy=True)
    out = tmp_path / "r.json"
    assert cli.main(["report", str(scene), "--json", str(out), "--quiet"]) == cli.EXIT_OK
    report = load_report(out)
    assert [r["name"] for r in report["objects"]] == ["Cube"]
    (skipped,) = report["skipped"]
    assert skipped["object"] == "Rig"
    assert "pose bones are keyed only in NLA clips (4 bones)" in skipped["message"]
    assert "active action" in skipped["message"]


def _wound_up_rig(with_partner: bool):
    """A bone whose two keys are 25 deg apart about X but whose free Bezier handles
    wind the playback more than two turns in between (w dips below zero, x swings),
    and, with ``with_partner``, a second bone keyed on the same frames the long way."""
    rig = scenes.make_rig("Rig", [("odd", None, (0, 0, 0), (0, 0, 1)),
                                  ("flip", None, (1, 0, 0), (1, 0, 1))])
    fcs = scenes.key_bone(rig, "odd", "rotation_quaternion", [1, 20],
                          [[1, 0, 0, 0], [0.9, 0.43, 0, 0]])
    for fc, (h1, h2) in ((fcs[0], (-1.0, -0.5)), (fcs[1], (2.0, -2.0))):
        k0, k1 = fc.keyframe_points
        for k in (k0, k1):
            k.handle_left_type = k.handle_right_type = 'FREE'
        k0.handle_right, k1.handle_left = (7.0, h1), (14.0, h2)
        fc.update()
    if with_partner:
        scenes.key_bone(rig, "flip", "rotation_quaternion", [1, 20],
                        [[1, 0, 0, 0], [-0.9, -0.1, -0.3, 0]])
    return rig, fcs


@pytest.mark.parametrize("with_partner", [False, True])
def test_a_wound_up_bone_is_tracked_alone_as_beside_other_bones(clean_blender, with_partner):
    """Keys close together do not prove the playback stays close (free handles can wind
    it up): the turn kept by Turns: Keyed is the one Blender plays, and the same whether
    or not other bones are baked in the same call (they are tracked together). The
    oracle: Blender's own w and x curves (y = z = 0, a turn about X) sampled densely
    with fc.evaluate, the angle 2 atan2(x, w) unwrapped by numpy."""
    rig, (w_fc, x_fc, _y, _z) = _wound_up_rig(with_partner)
    dense = np.linspace(1.0, 20.0, 20_001)
    w = np.array([w_fc.evaluate(f) for f in dense])
    x = np.array([x_fc.evaluate(f) for f in dense])
    keyed_deg = np.degrees(2.0 * np.unwrap(np.arctan2(x, w)))[-1]
    assert abs(keyed_deg) > 720.0                         # more than two whole turns
    result = bake.bake_objects([rig], bake.BakeSettings(turns='KEYED'))
    (note,) = [n.message for n in result.notes if n.bone == "odd"]
    turned = float(re.search(r"Blender turns (\d+) deg", note).group(1))
    # The note rounds to whole degrees; the oracle's sampling is 1e-3 frames.
    assert turned == pytest.approx(abs(keyed_deg), abs=1.0), note
    # Baked along that turn (slerp at even speed about X): at frame 10, 9/19 of the way,
    # the baked rotation is 9/19 of the keyed turn, whole turns included (float32 keys).
    baked = scenes.bone_world_quats(rig, "odd", [10])[0]
    angle = np.degrees(2.0 * np.arctan2(baked[1], baked[0])) % 360.0
    assert angle == pytest.approx((keyed_deg * 9.0 / 19.0) % 360.0, abs=0.01)


def test_overlay_of_two_rigs_with_the_same_bone_names_draws_each_where_it_poses(
        clean_blender):
    """The overlay shares the parents' matrices between a rig's bones (one cache for the
    view layer): two rigs with the same bone names and key frames must not share them.
    Checked against frame_set + each armature's matrix_world @ pose_bone.matrix."""
    from quatbake.addon.overlay import geometry as overlay_geometry

    rigs = [make_checked_rig("RigA"), make_checked_rig("RigB")]
    rigs[1].location = (3.0, 0.0, 0.0)
    # Only RigB's root turns: its "wrap" swings, RigA's stays where its own keys put it.
    scenes.key_bone(rigs[1], "root", "rotation_quaternion", [1, 21],
                    [[1, 0, 0, 0], [H, 0, H, 0]])
    for rig in rigs:
        for b in rig.data.bones:
            versions.select_bone(rig, b.name, b.name == "wrap")
    scenes.select_only(*rigs)
    bpy.context.view_layer.update()
    drawn = overlay_geometry.overlay_objects(bpy.context.view_layer)
    assert sorted(t.display_name for t in drawn) == ["RigA: wrap", "RigB: wrap"]
    cache: dict = {}
    for t in drawn:
        frames, _ours, _blender, positions, _keys, _length = overlay_geometry.bone_samples(
            t, "SLERP", cache)
        for f in frames[[0, frames.size // 2, -1]]:
            bpy.context.scene.frame_set(int(f))
            world = t.owner.matrix_world @ t.owner.pose.bones["wrap"].matrix
            i = int(np.searchsorted(frames, f))
            # Float32 matrices down a 3-bone chain: 1e-5 units.
            np.testing.assert_allclose(positions[i], np.array(world.translation), atol=1e-5)
