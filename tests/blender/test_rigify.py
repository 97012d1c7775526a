"""A Rigify rig animated as animators do (issue 21), generated inside the test with the
Rigify add-on Blender bundles, from its human metarig, under bpy 5.x and inside
Blender 3.4.1.

The controls are keyed with ``keyframe_insert`` (Bezier keys, as the I key makes them):
FK bones on rotation (``upper_arm_fk.L`` quaternion with its middle key stored with the
sign flipped, ``forearm_fk.L`` Euler wrapping from 170 to -170 deg, ``head`` quaternion),
the IK controls ``hand_ik.L`` and ``torso`` on location only, the IK/FK switches
(``upper_arm_parent.L["IK_FK"]``, ``thigh_parent.L["IK_FK"]``) as custom properties; the
bone collection (3.4: the layer) holding ``hand_ik.L`` is hidden; the MCH/ORG/DEF bones
Rigify makes, driven by constraints, are left unkeyed.

Checked independently of QuatBake: Blender's own playback (``frame_set`` and each pose
bone's ``matrix_basis`` / ``matrix``) against scipy's Slerp of the key orientations
(Blender 3.4.1's Python has no scipy: there the glTF specification's slerp of
tests/oracles), and every bone the bake did not rewrite sampled before and after.
"""
from __future__ import annotations

import json
import math
import pathlib
import subprocess
import sys

import addon_utils
import bpy
import mathutils
import numpy as np
import pytest
from operator_sweep import assert_no_traceback, drive_every_operator

import quatbake
from quatbake.addon import cli, transform, versions
from quatbake.addon.analyze import entries
from quatbake.addon.overlay import geometry

import scenes
from oracles import gltf_reference
from report_schema import load_report

pytestmark = pytest.mark.bpy

FRAMES = (1, 21, 41)
ALL_FRAMES = np.arange(1.0, 42.0)
X_AXIS = (1.0, 0.0, 0.0)
Z_AXIS = (0.0, 0.0, 1.0)
# The FK upper arm: 0 -> 70 -> 140 deg about X, the middle key stored as -q (the same
# orientation; Blender's per-channel curves then turn the long way round).
UPPER_ARM_KEYS = [mathutils.Quaternion(X_AXIS, 0.0),
                  -mathutils.Quaternion(X_AXIS, math.radians(70.0)),
                  mathutils.Quaternion(X_AXIS, math.radians(140.0))]
# The FK forearm in Euler XYZ: an Euler wrap between its first two keys.
FOREARM_KEYS = [(0.0, 0.0, math.radians(170.0)), (0.0, 0.0, math.radians(-170.0)),
                (math.radians(30.0), 0.0, math.radians(-150.0))]
HEAD_KEYS = [mathutils.Quaternion(Z_AXIS, 0.0), mathutils.Quaternion(Z_AXIS, math.radians(40.0)),
             mathutils.Quaternion(Z_AXIS, math.radians(80.0))]
# Location only, with segments moving at speeds 9x apart (a finding of the analysis).
HAND_IK_KEYS = [(0.0, 0.0, 0.0), (0.1, 0.0, 0.0), (1.0, 0.0, 0.0)]
TORSO_KEYS = [(0.0, 0.0, 0.0), (0.0, 0.02, 0.0), (0.0, 0.2, 0.0)]
SWITCH_KEYS = {"upper_arm_parent.L": (1.0, 1.0, 1.0), "thigh_parent.L": (0.0, 0.5, 1.0)}

ROTATION_KEYED = {"upper_arm_fk.L", "forearm_fk.L", "head"}
LOCATION_ONLY = {"hand_ik.L", "torso"}
PROPERTY_ONLY = set(SWITCH_KEYS)
KEYED = ROTATION_KEYED | LOCATION_ONLY | PROPERTY_ONLY
HIDDEN_CONTROL = "hand_ik.L"

# Baked keys are float32 and Blender builds the pose in float32: the bake plays the
# slerp within ~1e-5 deg; 1e-3 deg is the bound.
SLERP_DEG = 1e-3
# Bones the bake does not touch evaluate from identical data: Blender gives the same
# float32 matrices (1e-6 allows for nothing but float32 rounding of the comparison).
SAME_MATRIX = 1e-6


# --------------------------------------------------------------------------
# The rig: generated once per module (about 12 s), reopened for each test
# --------------------------------------------------------------------------

def _enable_rigify() -> None:
    """The bundled Rigify add-on: ``rigify`` on 3.4 (scripts/addons) and on 4.2+ (a core
    add-on, scripts/addons_core)."""
    names = {m.__name__ for m in addon_utils.modules()}
    if "rigify" not in names:
        pytest.skip("this Blender ships no Rigify add-on")
    addon_utils.enable("rigify", default_set=True)


def _key_bone(rig, name: str, path: str, values, mode: str | None = None) -> None:
    """Key ``path`` of the pose bone at FRAMES the way the I key does (keyframe_insert)."""
    pbone = rig.pose.bones[name]
    if mode is not None:
        pbone.rotation_mode = mode
    for frame, value in zip(FRAMES, values):
        if path.startswith("["):
            pbone[path[2:-2]] = value
        else:
            setattr(pbone, path, value)
        assert pbone.keyframe_insert(path, frame=frame, group=name)


def _hide_collection_of(rig, bone_name: str) -> None:
    """Hide the bone collections (4.0+) or armature layers (3.4) that hold ``bone_name``."""
    bone = rig.data.bones[bone_name]
    if hasattr(bone, "collections"):
        for collection in bone.collections:
            collection.is_visible = False
    else:
        for index, on in enumerate(bone.layers):
            if on:
                rig.data.layers[index] = False


def _build_rig(path) -> None:
    bpy.ops.wm.read_factory_settings(use_empty=True)
    _enable_rigify()
    bpy.ops.object.armature_human_metarig_add()
    bpy.ops.pose.rigify_generate()
    rig = bpy.data.objects["rig"]
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = FRAMES[0], FRAMES[-1]
    _key_bone(rig, "upper_arm_fk.L", "rotation_quaternion", UPPER_ARM_KEYS, 'QUATERNION')
    _key_bone(rig, "forearm_fk.L", "rotation_euler", FOREARM_KEYS, 'XYZ')
    _key_bone(rig, "head", "rotation_quaternion", HEAD_KEYS, 'QUATERNION')
    _key_bone(rig, "hand_ik.L", "location", HAND_IK_KEYS)
    _key_bone(rig, "torso", "location", TORSO_KEYS)
    for name, values in SWITCH_KEYS.items():
        _key_bone(rig, name, '["IK_FK"]', values)
    _hide_collection_of(rig, HIDDEN_CONTROL)
    scenes.select_only(rig)
    bpy.ops.wm.save_as_mainfile(filepath=str(path), copy=True)


def _disable_rigify() -> None:
    """Disable Rigify again, and drop the file-load handlers it leaves behind (bpy 5.0.1's
    ``versioning_5_0`` stays in load_post after disabling and then fails on every file
    opened, printing a traceback that is Rigify's, not QuatBake's)."""
    addon_utils.disable("rigify")
    for handlers in (bpy.app.handlers.load_post, bpy.app.handlers.load_pre):
        for handler in list(handlers):
            if "rigify" in getattr(handler, "__module__", ""):
                handlers.remove(handler)


# _build_rig in a process of its own: the module's tests then open the saved file.
# Then out at once (os._exit): bpy 4.2.23's module segfaults in its exit handlers after
# Rigify was enabled (freeing its registered classes), with the file already saved.
_BUILD_APART = ("import sys; sys.path[:0] = {paths!r}; sys.path += {more!r}; "
                "import os, runpy, bpy, pathlib; runpy.run_path({conftest!r}); "
                "import test_rigify; "
                "test_rigify._build_rig(pathlib.Path({path!r})); sys.stdout.flush(); "
                "os._exit(0)")


def _build_rig_apart(path) -> None:
    """_build_rig(path) in a new process, as a user's rig comes from another session.

    Generated in the test's own process, the rig left bpy 4.2.23's heap corrupted now and
    then: opening the saved file and exporting glTF from it then crashed that process
    ("double free or corruption" rebuilding the depsgraph, or a segfault in frame_set),
    in 1 of 4-6 runs without any QuatBake operator and in 3-5 of 6 after a Re-bake; the
    same file generated in another process and opened, baked and exported: 0 of 10.
    Blender 3.4.1 once died of a bus error in frame_set after opening it (Makefile)."""
    here = pathlib.Path(__file__).resolve().parent
    paths = [str(here), str(here.parent)]
    # tests/conftest.py makes the checkout importable as quatbake where it is not
    # installed (the Blender program), as it does for the test process.
    conftest = str(here.parent / "conftest.py")
    if bpy.app.binary_path:     # inside the Blender program: the same Blender, headless
        # After its own path, the test process's (where this Blender found pytest).
        code = _BUILD_APART.format(paths=paths, more=[p for p in sys.path if p],
                                   conftest=conftest, path=str(path))
        command = [bpy.app.binary_path, "-b", "--factory-startup", "--python-exit-code", "1",
                   "--python-expr", code]
    else:                       # the bpy module: the same Python (bpy's own paths come
        # with bpy: put first, its scripts' "bpy" package would hide the module)
        code = _BUILD_APART.format(paths=paths, more=[], conftest=conftest, path=str(path))
        command = [sys.executable, "-c", code]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900)
    if done.returncode != 0 or not pathlib.Path(path).exists():
        raise RuntimeError(f"building the Rigify rig failed ({done.returncode}):\n"
                           f"{done.stdout[-2000:]}\n{done.stderr[-3000:]}")


@pytest.fixture(scope="module")
def rig_file(tmp_path_factory):
    """The rig, generated and animated once and saved, in a process of its own
    (_build_rig_apart); Rigify stays enabled while the module's tests open the file (its
    load handler expects its own properties)."""
    path = tmp_path_factory.mktemp("rigify") / "rigify_animated.blend"
    try:
        _enable_rigify()
        _build_rig_apart(path)
        yield path
    finally:
        if "rigify" in {m.__name__ for m in addon_utils.modules()}:
            _disable_rigify()


@pytest.fixture
def rig(rig_file):
    """The animated Rigify rig, freshly opened, selected and active in Object Mode, with
    QuatBake registered."""
    bpy.ops.wm.open_mainfile(filepath=str(rig_file), load_ui=False)
    quatbake.register()
    try:
        rig = bpy.data.objects["rig"]
        scenes.select_only(rig)
        bpy.context.scene.frame_set(1)
        yield rig
    finally:
        if bpy.context.mode != 'OBJECT':
            bpy.ops.object.mode_set(mode='OBJECT')
        quatbake.unregister()


# --------------------------------------------------------------------------
# Independent checks
# --------------------------------------------------------------------------

def _slerp(key_quats, frames) -> np.ndarray:
    """(n, 4) w-first: the short-arc slerp of the key orientations at ``frames`` (scipy's
    Slerp; inside Blender 3.4.1, which has no scipy, the glTF specification's formula)."""
    keys = np.asarray(FRAMES, dtype=np.float64)
    q = np.asarray(key_quats, dtype=np.float64)
    try:
        from scipy.spatial.transform import Rotation, Slerp
    except ImportError:
        seg = np.clip(np.searchsorted(keys, frames, side="right") - 1, 0, keys.size - 2)
        u = (frames - keys[seg]) / (keys[seg + 1] - keys[seg])
        return np.array([gltf_reference.slerp_short_arc(q[i], q[i + 1], float(t))
                         for i, t in zip(seg, u)])
    xyzw = Slerp(keys, Rotation.from_quat(q[:, [1, 2, 3, 0]]))(frames).as_quat()
    return xyzw[:, [3, 0, 1, 2]]


def _deg(a, b) -> np.ndarray:
    """Sign-blind angle (degrees) between rows of two (n, 4) quaternion arrays: of the
    relative rotation conj(a) b, 2 atan2(|xyz|, |w|), exact near 0 (no 1 - dot^2)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    aw, av = a[:, :1], -a[:, 1:]
    bw, bv = b[:, :1], b[:, 1:]
    w = aw * bw - np.einsum("ij,ij->i", av, bv)[:, None]
    v = aw * bv + bw * av + np.cross(av, bv)
    return np.degrees(2.0 * np.arctan2(np.linalg.norm(v, axis=1), np.abs(w[:, 0])))


def _sample(rig, frames=ALL_FRAMES) -> dict:
    """{bone: (basis (n, 4, 4), pose matrix (n, 4, 4))} of every pose bone, frame by frame."""
    scene = bpy.context.scene
    names = [b.name for b in rig.pose.bones]
    basis = np.empty((len(names), len(frames), 4, 4))
    pose = np.empty_like(basis)
    for j, frame in enumerate(frames):
        scene.frame_set(int(frame))
        for i, name in enumerate(names):
            pbone = rig.pose.bones[name]
            basis[i, j] = np.array(pbone.matrix_basis)
            pose[i, j] = np.array(pbone.matrix)
    return {name: (basis[i], pose[i]) for i, name in enumerate(names)}


def _played(rig, name: str, frames=ALL_FRAMES) -> np.ndarray:
    """(n, 4): the rotation of the bone's matrix_basis, frame by frame (what Blender plays)."""
    return scenes.bone_world_quats(rig, name, frames)


def _downstream(rig, baked: set) -> set:
    """Bones whose pose follows a baked bone: its children, and bones with a constraint
    aimed at a bone that follows (Rigify's ORG/DEF/MCH chains), to a fixed point."""
    affected = set(baked)
    changed = True
    while changed:
        changed = False
        for pbone in rig.pose.bones:
            if pbone.name in affected:
                continue
            parent = pbone.parent
            aims = {getattr(c, "subtarget", "") for c in pbone.constraints
                    if getattr(c, "target", None) == rig}
            aims |= {getattr(c, "pole_subtarget", "") for c in pbone.constraints
                     if getattr(c, "pole_target", None) == rig}
            if (parent is not None and parent.name in affected) or aims & affected:
                affected.add(pbone.name)
                changed = True
    return affected - set(baked)


def _baked_bones(rig) -> set:
    return {b.name for b in rig.pose.bones if b.quatbake.baked}


def _assert_untouched(rig, before: dict, after: dict, baked: set) -> None:
    """Every bone the bake did not rewrite keeps its own channels (matrix_basis) on every
    frame; those that follow no baked bone keep their whole pose (pose_bone.matrix)."""
    follows = _downstream(rig, baked)
    assert follows, "the FK chain drives ORG/DEF bones: the check below must exclude them"
    for name, (basis, pose) in before.items():
        if name in baked:
            continue
        np.testing.assert_allclose(after[name][0], basis, atol=SAME_MATRIX, err_msg=name)
        if name not in follows:
            np.testing.assert_allclose(after[name][1], pose, atol=SAME_MATRIX, err_msg=name)


def _key_orientations(name: str) -> np.ndarray:
    if name == "forearm_fk.L":
        return np.array([mathutils.Euler(v, 'XYZ').to_quaternion() for v in FOREARM_KEYS])
    keys = UPPER_ARM_KEYS if name == "upper_arm_fk.L" else HEAD_KEYS
    return np.array([q.normalized() for q in keys])


# --------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------

def test_the_rig_is_rigify_with_constrained_unkeyed_helpers(rig):
    """The set-up itself: a generated Rigify rig, the flipped key really flips, and the
    MCH/ORG/DEF bones are driven by constraints and carry no keys."""
    helpers = [b for b in rig.pose.bones if b.name.startswith(("MCH-", "ORG-", "DEF-"))]
    assert len(helpers) > 100 and sum(len(b.constraints) for b in helpers) > 100
    assert set(transform.keyed_bone_names(rig)) == KEYED
    played = _played(rig, "upper_arm_fk.L")
    # Blender turns the long way between the first two keys: far from the slerp.
    assert _deg(played, _slerp(_key_orientations("upper_arm_fk.L"), ALL_FRAMES)).max() > 90.0
    assert not versions.bone_visible(rig, HIDDEN_CONTROL)
    assert versions.bone_visible(rig, "upper_arm_fk.L")


def test_object_mode_means_the_keyed_controls(rig):
    found = transform.selected_transforms(bpy.context)
    assert {t.bone_name for t in found} == KEYED
    assert all(t.owner == rig for t in found)


def test_bake_in_object_mode_bakes_the_rotation_controls_and_names_the_rest(rig):
    before = _sample(rig)
    bpy.context.scene.frame_set(1)
    snapshot = scenes.scene_snapshot()
    assert bpy.ops.quatbake.bake(method='SLERP') == {'FINISHED'}
    assert _baked_bones(rig) == ROTATION_KEYED
    notes = bpy.context.scene.quatbake.last_turn_notes
    for name in LOCATION_ONLY | PROPERTY_ONLY:
        # Named, alone ('bone "x"') or among the rig's bones said alike ('3 bones ("x", ...').
        assert f'bone "{name}"' in notes or f'"{name}"' in notes.split("bones (", 1)[-1], \
            (name, notes)
    assert "keyed on location only" in notes and "custom properties" in notes
    for name in ROTATION_KEYED:
        deviation = _deg(_played(rig, name), _slerp(_key_orientations(name), ALL_FRAMES))
        assert deviation.max() < SLERP_DEG, (name, deviation.max())
    _assert_untouched(rig, before, _sample(rig), ROTATION_KEYED)

    assert bpy.ops.quatbake.revert() == {'FINISHED'}
    bpy.context.scene.frame_set(1)
    scenes.assert_same_snapshot(snapshot, scenes.scene_snapshot())
    after = _sample(rig)
    for name, (basis, pose) in before.items():
        np.testing.assert_allclose(after[name][1], pose, atol=SAME_MATRIX, err_msg=name)


def test_location_bake_bakes_the_ik_controls_too(rig):
    """Location: Linear: the location-only IK controls are baked (their location), the
    custom-property switches still left as they are."""
    before = _sample(rig)
    key_locations = {name: np.array(keys) for name, keys in
                     (("hand_ik.L", HAND_IK_KEYS), ("torso", TORSO_KEYS))}
    assert bpy.ops.quatbake.bake(method='SLERP', location_method='LINEAR') == {'FINISHED'}
    assert _baked_bones(rig) == ROTATION_KEYED | LOCATION_ONLY
    scene = bpy.context.scene
    for name, keys in key_locations.items():
        pbone = rig.pose.bones[name]
        # The linear path through the key locations (numpy, per coordinate).
        expected = np.stack([np.interp(ALL_FRAMES, FRAMES, keys[:, i]) for i in range(3)], 1)
        played = []
        for frame in ALL_FRAMES:
            scene.frame_set(int(frame))
            played.append(np.array(pbone.location))
        # float32 keys of values below 1 unit: 1e-6 units.
        np.testing.assert_allclose(np.array(played), expected, atol=1e-6, err_msg=name)
        # Its rotation is not touched.
        np.testing.assert_allclose(_sample_basis_rotation(rig, name),
                                   before[name][0][:, :3, :3], atol=SAME_MATRIX)
    assert "thigh_parent.L" in scene.quatbake.last_turn_notes
    assert bpy.ops.quatbake.revert() == {'FINISHED'}
    assert _baked_bones(rig) == set()


def _sample_basis_rotation(rig, name: str) -> np.ndarray:
    scene = bpy.context.scene
    out = []
    for frame in ALL_FRAMES:
        scene.frame_set(int(frame))
        out.append(np.array(rig.pose.bones[name].matrix_basis)[:3, :3])
    return np.array(out)


def test_pose_mode_means_the_selected_controls(rig):
    """Selected: a rotation-keyed FK control, a location-only one, an IK/FK switch and an
    unkeyed control (all visible; Blender's selection leaves hidden bones out). Only the
    first is baked, the others are named; the unselected keyed controls are untouched."""
    untouched = {n: _played(rig, n) for n in ROTATION_KEYED - {"upper_arm_fk.L"}}
    chosen = ("upper_arm_fk.L", "torso", "thigh_parent.L", "hand_fk.L")
    bpy.ops.object.mode_set(mode='POSE')
    for bone in rig.data.bones:
        versions.select_bone(rig, bone.name, bone.name in chosen or bone.name == HIDDEN_CONTROL)
    rig.data.bones.active = rig.data.bones["upper_arm_fk.L"]
    assert {t.bone_name for t in transform.selected_transforms(bpy.context)} == set(chosen)
    assert bpy.ops.quatbake.bake(method='SLERP') == {'FINISHED'}
    assert _baked_bones(rig) == {"upper_arm_fk.L"}
    notes = bpy.context.scene.quatbake.last_turn_notes
    for name in chosen[1:]:
        assert f'bone "{name}"' in notes, (name, notes)
    deviation = _deg(_played(rig, "upper_arm_fk.L"),
                     _slerp(_key_orientations("upper_arm_fk.L"), ALL_FRAMES))
    assert deviation.max() < SLERP_DEG
    for name, played in untouched.items():
        # Their keys are copied key for key: Blender plays the same float32 values.
        assert _deg(_played(rig, name), played).max() < 1e-9, name
    assert bpy.ops.quatbake.revert() == {'FINISHED'}
    assert _baked_bones(rig) == set()


def test_analyze_reports_the_rotation_controls_and_skips_the_rest(rig):
    assert bpy.ops.quatbake.analyze() == {'FINISHED'}
    found = entries.results(bpy.context.scene)
    by_bone = {e["bone"]: e for e in found.values()}
    assert set(by_bone) == KEYED
    assert by_bone["upper_arm_fk.L"]["verdict"] == entries.VERDICT_LONG_WAY
    assert by_bone["forearm_fk.L"]["verdict"] == entries.VERDICT_LONG_WAY
    for name in LOCATION_ONLY | PROPERTY_ONLY:
        assert by_bone[name]["verdict"] == entries.VERDICT_SKIPPED, name
        assert f'bone "{name}"' in by_bone[name]["skipped"]
    # What an object gets for its location: the segment speeds 9x apart.
    assert "location segments move at speeds 9.0x apart" in by_bone["hand_ik.L"]["advice"]
    assert by_bone["upper_arm_parent.L"]["findings"] == []
    # The panel's list: worst first, the skipped last.
    rows = [r.verdict for r in bpy.context.scene.quatbake.report_rows]
    assert rows[-len(LOCATION_ONLY | PROPERTY_ONLY):] == [entries.VERDICT_SKIPPED] * 4


def test_overlay_draws_the_visible_keyed_controls_only(rig):
    """Every bone selected: the overlay draws the keyed controls that move and show, not
    the one in a hidden collection, not the switches (custom properties only), not the
    unkeyed MCH/ORG/DEF bones."""
    for bone in rig.data.bones:
        versions.select_bone(rig, bone.name, True)
    drawn = geometry.build(bpy.context.view_layer, bpy.context.scene.quatbake)
    assert not drawn.legend.problems, drawn.legend.problems
    assert sorted(drawn.legend.objects) == sorted(
        f"rig: {n}" for n in (ROTATION_KEYED | LOCATION_ONLY) - {HIDDEN_CONTROL})


def test_command_line_report_and_bake_on_the_saved_rig(rig, rig_file, tmp_path, capsys):
    out = tmp_path / "report.json"
    assert cli.main(["report", str(rig_file), "--json", str(out), "--quiet"]) == cli.EXIT_OK
    report = load_report(out)
    assert {o["bone"] for o in report["objects"]} == ROTATION_KEYED
    assert report["errors"] == []
    skipped = {s.get("bone"): s for s in report["skipped"]}
    assert set(skipped) == LOCATION_ONLY | PROPERTY_ONLY
    assert skipped["hand_ik.L"]["location_keys"] == list(FRAMES)
    assert any("9.0x apart" in f for f in skipped["hand_ik.L"]["findings"])

    baked = tmp_path / "baked.blend"
    capsys.readouterr()
    assert cli.main(["bake", str(rig_file), "--output", str(baked)]) == cli.EXIT_OK
    err = capsys.readouterr().err
    for name in LOCATION_ONLY | PROPERTY_ONLY:
        assert f'skipped: Armature "rig", bone "{name}"' in err, err
    bpy.ops.wm.open_mainfile(filepath=str(baked), load_ui=False)   # QuatBake stays registered
    rig = bpy.data.objects["rig"]
    assert _baked_bones(rig) == ROTATION_KEYED
    deviation = _deg(_played(rig, "upper_arm_fk.L"),
                     _slerp(_key_orientations("upper_arm_fk.L"), ALL_FRAMES))
    assert deviation.max() < SLERP_DEG


@pytest.mark.parametrize("mode", ['OBJECT', 'POSE'])
def test_no_operator_shows_a_traceback_on_the_rig(rig, tmp_path, capfd, mode):
    if mode == 'POSE':
        bpy.ops.object.mode_set(mode='POSE')
        for bone in rig.data.bones:   # every bone: keyed, unkeyed, hidden
            versions.select_bone(rig, bone.name, True)
    capfd.readouterr()
    said = drive_every_operator(tmp_path, export_check=mode == 'OBJECT')
    printed = capfd.readouterr()
    assert_no_traceback(said, printed.out + printed.err)


def test_export_check_compares_the_keyed_controls_against_the_spec(rig, tmp_path):
    """The generated rig's keyed controls (FK, IK, head, torso and the IK/FK switches'
    bones) checked at their joints, sampled by the exporter: each bone's per-frame
    deviation agrees with the spec's evaluation of the file (gltf_spec_eval), and a
    sampled export of the rig plays as Blender does, constraints and all."""
    from quatbake.addon import export_check
    from quatbake.report import export_check_report

    from gltf_spec_eval import export_for_reference, reference_bone_deviation
    from report_schema import validate_export_check

    report = export_check.check_objects(bpy.context, [rig], {})
    validate_export_check(json.loads(export_check_report.dumps(report)))
    assert not report["errors"], report["errors"]
    bones = {o["bone"]: o for o in report["objects"] if o.get("bone")}
    assert {"upper_arm_fk.L", "forearm_fk.L", "head", "hand_ik.L", "torso"} <= set(bones)
    frames = np.asarray(bones["head"]["per_frame"]["frame"])
    names = sorted(bones)
    reference = reference_bone_deviation(export_for_reference(tmp_path, [rig]), rig, names,
                                         frames)
    for name in names:
        np.testing.assert_allclose(bones[name]["per_frame"]["deviation_deg"], reference[name],
                                   atol=0.05, err_msg=name)
    worst = max(bones.values(), key=lambda e: e["max_deviation_deg"])
    assert worst["max_deviation_deg"] < 0.01, (worst["bone"], worst["max_deviation_deg"])
