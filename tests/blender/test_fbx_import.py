"""FBX files from Maya and MotionBuilder (issue 21), imported with Blender's own importer.

The files are the ufbx project's test data (tests/data/realdata/README.md): Maya
objects and a Maya joint chain with rotation keys, MotionBuilder files (ufbx's
binary MotionBuilder files key translation or scale only; Blender's importer keys
every transform channel anyway), and a Maya file with a light. Checked against the
file itself (tests/oracles/fbx_reference.py reads its curves), against ``frame_set``
+ ``matrix_basis`` / ``matrix_world``, and a slerp bake against scipy's Slerp of the
key orientations; never against QuatBake's own output. Runs with bpy 5.0.1 and
inside Blender 3.4.1 (no scipy there: the oracle's short-arc slerp formula instead).
"""
import pathlib

import bpy
import mathutils
import numpy as np
import pytest

from quatbake.addon import analyze as addon_analyze
from quatbake.addon import animdata, cli
from quatbake.addon.transform import AnimatedTransform

from oracles import fbx_reference as fr
from oracles import gltf_reference as gr
from report_schema import load_report
from test_realdata_import import KEY_TOL_DEG, angle_deg, rotation_part, set_frame

pytestmark = pytest.mark.bpy

FBX = pathlib.Path(__file__).resolve().parents[1] / "data" / "realdata" / "fbx"
FILES = [
    "maya_transform_animation_7500_binary.fbx",       # Maya: 3 keys, XYZ Euler on 3 axes
    "maya_extrapolate_cube_7700_binary.fbx",          # Maya: a full turn, channels apart
    "maya_split_pivot_7700_binary.fbx",               # Maya: pivots, non-uniform scale
    "maya_dq_weights_7500_binary.fbx",                # Maya: a joint chain, pre-rotations
    "motionbuilder_tangent_velocity_split_7700_binary.fbx",   # MotionBuilder: translation
    "motionbuilder_sausage_rrss_7700_binary.fbx",     # MotionBuilder: a rig, bone scale
    "maya_anim_light_7500_binary.fbx",                # Maya: a light (fails in bpy 5.0.1)
]

# The key orientations compared pairwise (rotation angle between two keys, which no
# constant correction of the importer changes): float32 keys and matrices give ~1e-5
# deg; the bones' chains of float32 rest matrices up to 1e-4: 1e-3 deg.
PAIR_TOL_DEG = 1e-3
# A slerp bake on every whole frame against scipy's Slerp of the same key orientations:
# the baked keys are float32 quaternion components: measured up to 1.9e-5 deg
# (maya_extrapolate_cube); 1e-4 deg.
SLERP_TOL_DEG = 1e-4


def import_fbx(name: str) -> fr.FbxDocument:
    """Import ``name`` with Blender's FBX importer into an empty scene, or skip saying why
    Blender's importer cannot (the importer's own error)."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    try:
        result = bpy.ops.import_scene.fbx(filepath=str(FBX / name))
    except RuntimeError as exc:
        text = str(exc)
        if "cast_shadow" in text:
            pytest.skip(f"Blender {bpy.app.version_string}'s FBX importer fails on {name}, "
                        "which has a light: io_scene_fbx sets lamp.cycles.cast_shadow, and "
                        "'CyclesLightSettings' object has no attribute 'cast_shadow'")
        lines = [ln for ln in text.splitlines() if ln.strip()]
        pytest.skip(f"Blender {bpy.app.version_string}'s FBX importer fails on {name}: "
                    f"{lines[-1] if lines else text}")
    assert result == {'FINISHED'}, f"Blender's FBX importer did not load {name}: {result}"
    return fr.load_fbx(FBX / name)


def _rotation_fcurves(t) -> list:
    return [fc for fc in animdata.rotation_fcurves(t) if fc is not None
            and len(fc.keyframe_points)]


def keyed_models(doc) -> list:
    """(model, transform) for each model of the file with transform curves whose Blender
    object (named as the model) or pose bone (named as the model, in an armature) has
    rotation keys from the importer."""
    found = []
    for model in doc.models.values():
        if not any(k[0].startswith("Lcl ") for k in model.curves):
            continue
        obj = bpy.data.objects.get(model.name)
        if obj is not None and obj.type != 'ARMATURE':
            t = AnimatedTransform(obj)
        else:
            rig = next((o for o in bpy.data.objects if o.type == 'ARMATURE'
                        and o.pose.bones.get(model.name) is not None), None)
            if rig is None:
                continue
            t = AnimatedTransform(rig, model.name)
        if _rotation_fcurves(t):
            found.append((model, t))
    return found


def basis_matrix(t) -> np.ndarray:
    """What Blender plays: the object's or pose bone's matrix_basis, its 3x3 with unit
    columns (a mirrored one keeps its mirror: the file's cubes scaled by -1 are)."""
    return rotation_part(t.target.matrix_basis)


def basis_rotation(t) -> np.ndarray:
    """The rotation in matrix_basis: the mirror taken out with the sign of the scale
    Blender evaluated (matrix_basis = T R S)."""
    return basis_matrix(t) @ np.diag(np.sign(np.array(t.target.scale, dtype=float)))


def _at(model, prop: str, seconds: np.ndarray) -> np.ndarray:
    """(n, 3): the file's ``prop`` at ``seconds`` (its curves where it has them, else the
    static value)."""
    times, values = model.keys(prop)
    if times.size == 0:
        return np.repeat(model.vector(prop, (1.0, 1.0, 1.0) if prop == "Lcl Scaling"
                                      else (0.0, 0.0, 0.0))[None], seconds.size, axis=0)
    return np.stack([np.interp(seconds, times, values[:, i]) for i in range(3)], axis=1)


def file_frames(model, fps: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(frames of every transform key, frames where the rotation is the file's own value,
    the file's local rotation-and-mirror there (n, 3, 3): PreRotation @ R @ PostRotation^-1
    times the sign of the scale). Blender's importer keys the union of the model's Lcl
    curves' times at frame 1 + seconds x fps (its default offset)."""
    ticks = np.unique(np.concatenate([c[0] for k, c in model.curves.items()
                                      if k[0].startswith("Lcl ")]))
    frames = 1.0 + ticks / fr.KTIME_PER_SECOND * fps
    if any(k[0] == "Lcl Rotation" for k in model.curves):
        exact = model.own_key_times()
    else:
        exact = ticks / fr.KTIME_PER_SECOND          # the static Lcl Rotation throughout
    rotations = model.orientation(_at(model, "Lcl Rotation", exact))
    mirrors = np.sign(_at(model, "Lcl Scaling", exact))
    return frames, 1.0 + exact * fps, rotations * mirrors[:, None, :]


def _fps() -> float:
    render = bpy.context.scene.render
    return render.fps / render.fps_base


@pytest.mark.parametrize("name", FILES)
def test_imported_keys_are_the_files_and_the_report_reads_what_blender_plays(name):
    doc = import_fbx(name)
    doc.check_y_up()
    import quatbake

    quatbake.register()
    try:
        scene, fps = bpy.context.scene, _fps()
        items = keyed_models(doc)
        if not any(k[0].startswith("Lcl ") for m in doc.models.values() for k in m.curves):
            # The file animates no transform (maya_anim_light: the light's colour and
            # intensity only); Blender's importer keys none either (4.2 and later make
            # the light's transform F-curves, with no key on them).
            assert not any(fc.data_path in animdata.TRANSFORM_DATA_PATHS
                           and len(fc.keyframe_points)
                           for o in bpy.data.objects for fc in animdata.object_fcurves(o))
            return
        assert items, f"{name}: Blender keyed no transform of the file"
        for model, t in items:
            frames, exact, local = file_frames(model, fps)
            keys = animdata.key_frames(_rotation_fcurves(t))
            # Blender's keys are the file's key times (float32 frames: ~1e-5).
            np.testing.assert_allclose(keys, frames, atol=1e-3, err_msg=f"{name} {model.name}")
            played = []
            root = not t.is_bone and model.parent is None and model.kind not in ("Light",
                                                                                  "Camera")
            for f, want in zip(exact, local):
                set_frame(scene, f)
                played.append(basis_matrix(t))
                if root:
                    # A root object's world is the file's orientation in Z-up axes (lights
                    # and cameras get a constant turn more: checked pairwise below).
                    err = angle_deg(rotation_part(t.owner.matrix_world), fr.YUP_TO_ZUP @ want)
                    assert err < KEY_TOL_DEG, f"{name} {model.name} frame {f}: {err:.2e} deg"
            # Every pair of keys turns by the file's angle (the importer's constant
            # corrections of bones, lights and parents cancel in it).
            for i in range(1, len(exact)):
                want = angle_deg(local[0], local[i])
                got = angle_deg(played[0], played[i])
                assert abs(got - want) < PAIR_TOL_DEG, \
                    f"{name} {model.name} keys {exact[0]:g}-{exact[i]:g}: {got} vs {want} deg"
            # QuatBake's reading is Blender's playback, on every frame it compares.
            a = addon_analyze.analyze_object(t, "slerp")
            for f, q in zip(a.frames, a.blender_quats):
                set_frame(scene, float(f))
                err = angle_deg(np.array(mathutils.Quaternion(q).to_matrix()), basis_rotation(t))
                assert err < KEY_TOL_DEG, f"{name} {t.display_name} frame {f}: {err:.2e} deg"
        scene.frame_set(1)
    finally:
        quatbake.unregister()


def slerp_keys(key_frames, key_quats, frames) -> np.ndarray:
    """(n, 4) w-first: scipy's Slerp of the key orientations at ``frames``; inside Blender
    3.4.1 (no scipy) the oracle's short-arc slerp formula between the two keys around."""
    key_frames = np.asarray(key_frames, dtype=float)
    key_quats = np.asarray(key_quats, dtype=float)
    try:
        from scipy.spatial.transform import Rotation, Slerp
    except ImportError:
        out = []
        for f in frames:
            i = int(np.clip(np.searchsorted(key_frames, f, side="right") - 1, 0,
                            key_frames.size - 2))
            u = (f - key_frames[i]) / (key_frames[i + 1] - key_frames[i])
            q = gr.slerp_short_arc(key_quats[i], key_quats[i + 1], float(u))
            out.append(q / np.linalg.norm(q))
        return np.array(out)
    xyzw = Slerp(key_frames, Rotation.from_quat(key_quats[:, [1, 2, 3, 0]]))(frames).as_quat()
    return xyzw[:, [3, 0, 1, 2]]


def _quat(m) -> np.ndarray:
    q = mathutils.Matrix(m.tolist()).to_quaternion()
    return np.array([q.w, q.x, q.y, q.z])


@pytest.mark.parametrize("name", FILES)
def test_command_line_reports_and_bakes_every_rotation_keyed_transform(name, tmp_path):
    """The pipeline on a saved .blend: `report` lists every transform Blender keyed on
    rotation, `bake` re-bakes them, and each baked transform then plays, on every whole
    frame, scipy's Slerp of the orientations Blender played at its keys (Turns: Auto
    follows the short arc here: no interval of these files turns 180 deg or more)."""
    doc = import_fbx(name)
    items = keyed_models(doc)
    if not items:
        pytest.skip(f"{name}: the file animates no transform (checked in the test above)")
    import quatbake

    quatbake.register()     # cli.main registers only when it is not (and it stays)
    try:
        _report_and_bake(name, items, tmp_path)
    finally:
        quatbake.unregister()


def _report_and_bake(name, items, tmp_path):
    blend = tmp_path / "imported.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(blend), copy=True)
    scene = bpy.context.scene
    keyed = {}
    for _model, t in items:
        keys = animdata.key_frames(_rotation_fcurves(t))
        played = []
        for f in keys:
            set_frame(scene, float(f))
            played.append(_quat(basis_rotation(t)))
        keyed[(t.owner.name, t.bone_name)] = (keys, np.array(played))
    out = tmp_path / "report.json"
    assert cli.main(["report", str(blend), "--json", str(out), "--quiet"]) == cli.EXIT_OK
    rows = {(o["name"], o.get("bone", "")) for o in load_report(out)["objects"]}
    assert rows == set(keyed), name
    baked = tmp_path / "baked.blend"
    bakeable = {k: v for k, v in keyed.items() if len(v[0]) >= 2}
    # maya_dq_weights' joint1, joint3 and joint6 hold a single rotation key: the plain
    # bake of the rig leaves them as they are and bakes the others.
    args = ["bake", str(blend), "--output", str(baked), "--method", "slerp", "--quiet"]
    assert cli.main(args) == cli.EXIT_OK
    bpy.ops.wm.open_mainfile(filepath=str(baked), load_ui=False)
    scene = bpy.context.scene
    for (owner, bone), (keys, quats) in bakeable.items():
        t = AnimatedTransform(bpy.data.objects[owner], bone)
        frames = np.arange(np.ceil(keys[0]), np.floor(keys[-1]) + 1)
        expected = slerp_keys(keys, quats, frames)
        worst = 0.0
        for f, q in zip(frames, expected):
            set_frame(scene, float(f))
            worst = max(worst, angle_deg(basis_rotation(t),
                                         np.array(mathutils.Quaternion(q).to_matrix())))
        assert worst < SLERP_TOL_DEG, f"{name} {t.display_name}: {worst:.2e} deg from Slerp"
    # The single-key joints still hold the pose they held.
    for (owner, bone), (keys, quats) in keyed.items():
        if len(keys) < 2:
            t = AnimatedTransform(bpy.data.objects[owner], bone)
            set_frame(scene, float(keys[0]))
            held = angle_deg(basis_rotation(t),
                             np.array(mathutils.Quaternion(quats[0]).to_matrix()))
            assert held < SLERP_TOL_DEG, f"{name} {t.display_name}: {held:.2e} deg"
    scene.frame_set(1)


def test_convert_turns_the_single_key_joints_too(tmp_path, capsys):
    """A walk: `convert --to zxy` of maya_dq_weights left joint1, joint3 and joint6 (one
    rotation key each, as imported) QUATERNION, so the rig came out in two modes; the
    stop after named them. A single key is one pose: each is now converted to one ZXY key
    on its frame, and Blender plays the pose it played before, at its key and elsewhere
    (Constant extrapolation), checked on matrix_basis before and after."""
    name = "maya_dq_weights_7500_binary.fbx"
    doc = import_fbx(name)
    items = keyed_models(doc)
    single = sorted(t.bone_name for _m, t in items
                    if len(animdata.key_frames(_rotation_fcurves(t))) < 2)
    assert single == ["joint1", "joint3", "joint6"], single
    scene = bpy.context.scene
    frames = (float(scene.frame_start), float(scene.frame_end), 2.5)
    before = {}
    for _m, t in items:
        if t.bone_name in single:
            key = float(animdata.key_frames(_rotation_fcurves(t))[0])
            poses = []
            for f in (key,) + frames:
                set_frame(scene, f)
                poses.append(basis_rotation(t))
            before[t.bone_name] = (key, poses)
    blend, out = tmp_path / "imported.blend", tmp_path / "zxy.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(blend), copy=True)
    import quatbake

    quatbake.register()
    try:
        capsys.readouterr()
        assert cli.main(["convert", str(blend), "--to", "zxy", "--output", str(out)]) == \
            cli.EXIT_OK
        said = capsys.readouterr().err
    finally:
        quatbake.unregister()
    assert "skipped:" not in said, said
    bpy.ops.wm.open_mainfile(filepath=str(out), load_ui=False)
    scene = bpy.context.scene
    rig, = (o for o in bpy.data.objects if o.type == 'ARMATURE')
    modes = {pb.name: pb.rotation_mode for pb in rig.pose.bones}
    assert {b for b, m in modes.items() if m == 'ZXY'} == \
        {"joint1", "joint2", "joint3", "joint4", "joint5", "joint6"}, modes
    for bone, (key, poses) in before.items():
        t = AnimatedTransform(rig, bone)
        written = _rotation_fcurves(t)
        assert [fc.data_path for fc in written] == [f'pose.bones["{bone}"].rotation_euler'] * 3
        assert all([k.co[0] for k in fc.keyframe_points] == [key] for fc in written), bone
        for f, pose in zip((key,) + frames, poses):
            set_frame(scene, f)
            off = angle_deg(basis_rotation(t), pose)
            assert off < 0.01, f"{bone} at frame {f}: {off:.2e} deg from before"


def test_keys_bezier_with_a_tip_tolerance_on_a_maya_cube_says_its_keys_are_linear(capfd):
    """A walk: Keys: Bezier with only a Bone Tip Tolerance, on the Maya cube (no bone),
    wrote a LINEAR key on every frame, yet the panel's record said 'BEZIER' and the note
    only "a key on every step frame". Read from the keys Blender holds: every one LINEAR,
    and the record and note say so."""
    import quatbake

    import_fbx("maya_transform_animation_7500_binary.fbx")
    quatbake.register()
    try:
        cube = bpy.data.objects["pCube1"]
        bpy.ops.object.select_all(action='DESELECT')
        cube.select_set(True)
        bpy.context.view_layer.objects.active = cube
        settings = bpy.context.scene.quatbake
        settings.key_interpolation, settings.tolerance, settings.tolerance_tip = \
            'BEZIER', 0.0, 0.01
        capfd.readouterr()
        assert bpy.ops.quatbake.bake() == {'FINISHED'}
        printed = capfd.readouterr().out
        fcurves = _rotation_fcurves(cube)
        linear = animdata.enum_value("interpolation", 'LINEAR')
        first, last = fcurves[0].keyframe_points[0].co[0], fcurves[0].keyframe_points[-1].co[0]
        for fc in fcurves:
            kinds = np.empty(len(fc.keyframe_points), dtype=np.int32)
            fc.keyframe_points.foreach_get("interpolation", kinds)
            assert len(kinds) == int(last - first) + 1 and (kinds == linear).all()
        assert settings.last_keys_kind == ""
        assert 'Object "pCube1" (not a pose bone); so it kept a Linear key on every step ' \
            'frame' in printed, printed
    finally:
        quatbake.unregister()
