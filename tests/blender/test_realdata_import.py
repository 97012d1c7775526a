"""Real files from other tools, imported with Blender's own importers, against the oracles.

Every file in tests/data/realdata/ is imported from factory settings with
``bpy.ops.import_scene.gltf`` / ``bpy.ops.import_anim.bvh`` (or opened, for a
.blend), and Blender's evaluated orientation at the file's key times is compared
with an independent reading of the file (tests/oracles: the glTF 2.0 spec's
sampler evaluation, the BVH channels composed in the file's channel order).
This proves the files, the oracles and the importers' conversions together:

- glTF nodes -> objects: ``matrix_basis`` rotation == C R_gltf(t) C^-1 with C the
  Y-up -> Z-up turn (+90 deg about X), at time t = frame / fps.
- glTF joints -> pose bones: the importer gives each bone a constant rest
  correction K (its bone heuristic), so the bone's world rotation is
  C G(t) C^-1 K, G the joint's global glTF rotation. K must be the same at every
  key of every clip.
- BVH joints -> pose bones: ``matrix_basis`` rotation == Rb^-1 C R_file C^-1 Rb,
  Rb the bone's rest rotation (``bone.matrix_local``), frame i at frame 1 + i.
- .blend: Blender's playback of the saved keys == the glTF that Blender's
  exporter wrote from the same scene (the glTF-Blender-IO round-trip pair).

Runs with the bpy module (5.0.1) and inside Debian's Blender 3.4.1, whose glTF
importer needs import_shading='SMOOTH' with Debian's numpy and whose BVH importer
needs open(..., 'rU') to work (see the helpers below).

The helpers are public so other Blender tests can reuse the importer knowledge
(``from test_realdata_import import import_gltf, blender_node_name,
blender_action, play_only, run_bvh_import, import_bvh, angle_deg``).
"""
import builtins
import contextlib
import math
import pathlib

import bpy
import numpy as np
import pytest

from quatbake.addon import animdata

from oracles import bvh_reference as br
from oracles import gltf_reference as gr

pytestmark = pytest.mark.bpy

REALDATA = pathlib.Path(__file__).resolve().parents[1] / "data" / "realdata"
GLTF_FILES = sorted(p.name for p in (REALDATA / "gltf").iterdir()
                    if p.suffix in (".gltf", ".glb"))
BVH_FILES = sorted(p.name for p in (REALDATA / "bvh").glob("*.bvh"))
BLEND_FILES = sorted(p.name for p in (REALDATA / "blend").glob("*.blend"))
# Each .blend is checked against the glTF that Blender's exporter wrote from it.
BLEND_ORACLES = {"06_parent-inverse-anim.blend": "06_parent-inverse-anim.gltf"}

C = gr.YUP_TO_ZUP          # glTF / BVH Y-up -> Blender Z-up, both importers' default

# Tolerances, in degrees, measured on bpy 5.0.1 and stated with their reason:
# - F-curves store float32 (~6e-8 relative): a quaternion or Euler key read back and
#   turned into a matrix is off by ~1e-5 deg; 1e-4 deg leaves a margin of 10.
KEY_TOL_DEG = 1e-4
# - Bones compose float32 rest and pose matrices down a chain (Fox: 8 deep), and the
#   BVH importer converts each frame's matrix to Euler (measured up to 1e-4 deg near
#   gimbal lock on test_mocapbank): 1e-3 deg.
CHAIN_TOL_DEG = 1e-3
# Joint positions are float32 too, with magnitudes up to ~100 file units and chains of
# up to 10 offsets: measured 5e-5 units; 1e-3 units.
POS_TOL = 1e-3
# An animation that turns less than this is not evidence that anything was compared.
MIN_MOTION_DEG = 1.0


def rotation_part(m) -> np.ndarray:
    """The rotation of a 4x4 or 3x3 T*R*S matrix: its 3x3 with unit columns."""
    a = np.array(m, dtype=float)[:3, :3]
    return a / np.linalg.norm(a, axis=0)


def angle_deg(ra: np.ndarray, rb: np.ndarray) -> float:
    """Angle of the rotation between two rotation matrices (atan2: exact near 0)."""
    m = ra.T @ rb
    s = 0.5 * math.sqrt((m[2, 1] - m[1, 2]) ** 2 + (m[0, 2] - m[2, 0]) ** 2
                        + (m[1, 0] - m[0, 1]) ** 2)
    c = 0.5 * (np.trace(m) - 1.0)
    return math.degrees(math.atan2(s, c))


def set_frame(scene, frame: float) -> None:
    """``scene.frame_set`` for a fractional frame (whole part + subframe)."""
    whole = math.floor(frame)
    scene.frame_set(int(whole), subframe=float(frame - whole))


def gltf_import_options() -> dict:
    """The importer's defaults, except where an old importer cannot run them.

    Blender 3.4.1's importer guesses flat faces with ``np.bool`` under its default
    ``import_shading='NORMALS'``; numpy 1.24 removed that name, so with Debian's
    numpy every file with normals fails there. 'SMOOTH' skips that code and only
    changes face shading, never animation. Newer importers have no such option.
    """
    props = bpy.ops.import_scene.gltf.get_rna_type().properties
    if bpy.app.version < (4, 0, 0) and "import_shading" in props:
        return {"import_shading": 'SMOOTH'}
    return {}


def import_gltf(name: str, fps: int):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base = fps, 1.0
    path = REALDATA / "gltf" / name
    result = bpy.ops.import_scene.gltf(filepath=str(path), **gltf_import_options())
    assert result == {'FINISHED'}, f"Blender's glTF importer did not load {name}: {result}"
    return gr.load_gltf(path), scene


def blender_node_name(doc, index: int) -> str:
    """The object / bone name Blender's glTF importer gives node ``index``.

    Measured on 5.0.1 and 3.4.1: the node's name; an unnamed node with an unnamed
    mesh is "Mesh_<mesh>", any other unnamed node "Node_<index>".
    """
    node = doc.nodes[index]
    if "name" in node:
        return node["name"]
    if "mesh" in node:
        return doc.json["meshes"][node["mesh"]].get("name", f"Mesh_{node['mesh']}")
    return f"Node_{index}"


def find_action(doc, anim_index: int, owner):
    """The action Blender's glTF importer made for animation ``anim_index`` on ``owner``.

    Measured: 4.4+ makes one slotted action per animation, named as the animation
    ("Anim_<index>" when unnamed); 3.4.1 makes one per animation and object, named
    "<animation>_<object>". None when there is none.
    """
    name = doc.json["animations"][anim_index].get("name", f"Anim_{anim_index}")
    for candidate in (f"{name}_{owner.name}", name):
        action = bpy.data.actions.get(candidate)
        if action is not None:
            return action
    return None


def blender_action(doc, anim_index: int, owner) -> "bpy.types.Action":
    """:func:`find_action`, failing with the actions there are when there is none."""
    action = find_action(doc, anim_index, owner)
    if action is None:
        name = doc.json["animations"][anim_index].get("name", f"Anim_{anim_index}")
        raise AssertionError(f"{doc.path.name}: no action {name!r} for {owner.name} after "
                             f"import; actions are {sorted(a.name for a in bpy.data.actions)}")
    return action


def play_only(owner, action) -> None:
    """Make ``action`` the one animation ``owner`` plays: its NLA tracks muted."""
    for track in owner.animation_data.nla_tracks:
        track.mute = True
    slot = ""
    if animdata.is_slotted(action):
        wanted = [s.identifier for s in action.slots if s.identifier == "OB" + owner.name]
        slot = wanted[0] if wanted else action.slots[0].identifier
    animdata.assign_action(owner, action, slot)


# Cameras and lights look down their local -Z in glTF and in Blender; after the
# Y-up -> Z-up change of basis glTF's -Z is Blender's +Y, so the importer turns
# them +90 deg about their own X (derived here; Blender adds it on every key).
VIEW_CORRECTION = np.array([[1.0, 0.0, 0.0],
                            [0.0, 0.0, -1.0],
                            [0.0, 1.0, 0.0]])


def view_correction(doc, index: int) -> np.ndarray:
    """The constant turn Blender's importer adds to node ``index`` (identity or +90 X)."""
    node = doc.nodes[index]
    is_light = "light" in node.get("extensions", {}).get("KHR_lights_punctual", {})
    return VIEW_CORRECTION if ("camera" in node or is_light) else np.eye(3)


def key_times(channel) -> np.ndarray:
    """Key times, plus interval midpoints for STEP (where holding is what is checked)."""
    t = channel.times
    if channel.interpolation == "STEP" and len(t) > 1:
        t = np.sort(np.concatenate([t, 0.5 * (t[:-1] + t[1:])]))
    return t


def joint_nodes(doc) -> set:
    return {j for skin in doc.json.get("skins", []) for j in skin["joints"]}


def under_a_joint(doc, index: int, joints: set) -> bool:
    """True for a joint and for any node below one (Blender parents those to bones)."""
    parents = doc.parents()
    while True:
        if index in joints:
            return True
        if index not in parents:
            return False
        index = parents[index]


def check_local_rotations(doc, scene, fps: int, anim_index: int, channels) -> tuple:
    """Objects not under a joint: matrix_basis == C R(t) C^-1 (x view correction).

    Returns (keys compared, largest turn seen in degrees).
    """
    name, anim = doc.path.name, doc.animations[anim_index]
    checked, motion = 0, 0.0
    for ch in channels:
        obj_name = blender_node_name(doc, ch.node)
        obj = bpy.data.objects.get(obj_name)
        assert obj is not None, f"{name}: node {ch.node} -> no object {obj_name!r}"
        play_only(obj, blender_action(doc, anim_index, obj))
        correction = view_correction(doc, ch.node)
        first = None
        for t in key_times(ch):
            set_frame(scene, t * fps)
            blender = rotation_part(obj.matrix_basis)
            spec = gr.quat_wxyz_to_matrix(gr.gltf_to_blender_quat(ch.evaluate(t)[0]))
            spec = spec @ correction
            err = angle_deg(blender, spec)
            assert err < KEY_TOL_DEG, (
                f"{name}, clip {anim.name!r}, {obj.type.lower()} {obj_name}: at t={t:.4f} s "
                f"(frame {t * fps:.4f}) Blender is {err:.2e} deg from the glTF spec")
            first = spec if first is None else first
            motion = max(motion, angle_deg(first, spec))
            checked += 1
    return checked, motion


def check_rig_rotations(doc, scene, fps: int, anim_index: int, channels, joints: set,
                        corrections: dict) -> tuple:
    """Joints and nodes below them: world rotation == C G(t) C^-1 K, K constant.

    Joints become pose bones with a rest correction; nodes below a joint become
    objects parented to a bone, with an offset of their own. Either way K must
    not change from key to key, nor from clip to clip (``corrections`` carries
    it across clips). Returns (keys compared, largest turn seen in degrees).
    """
    name, anim = doc.path.name, doc.animations[anim_index]
    armatures = [o for o in bpy.data.objects if o.type == 'ARMATURE']
    owners = {}                      # node -> (label, function giving the world matrix)
    for ch in channels:
        node_name = blender_node_name(doc, ch.node)
        if ch.node in joints:
            arm = next((a for a in armatures if node_name in a.pose.bones), None)
            assert arm is not None, f"{name}: joint {node_name!r} is a bone of no armature"
            owners[ch.node] = (f"bone {node_name}", arm,
                               lambda a=arm, b=node_name: a.matrix_world @ a.pose.bones[b].matrix)
        else:
            obj = bpy.data.objects.get(node_name)
            assert obj is not None, f"{name}: node {ch.node} -> no object {node_name!r}"
            owners[ch.node] = (f"object {node_name}", obj, lambda o=obj: o.matrix_world)
    for owner in {o for _, o, _ in owners.values()} | set(armatures):
        action = find_action(doc, anim_index, owner)
        if action is not None:
            play_only(owner, action)
    checked, motion = 0, 0.0
    for t in np.unique(np.concatenate([ch.times for ch in channels])):
        set_frame(scene, t * fps)
        world = doc.world_matrices(anim, t)
        for ch in channels:
            label, _, world_of = owners[ch.node]
            spec = C @ rotation_part(world[ch.node]) @ C.T
            k = spec.T @ rotation_part(world_of())
            if label not in corrections:
                corrections[label] = (k, spec)
                continue
            k0, spec0 = corrections[label]
            err = angle_deg(k0, k)
            assert err < CHAIN_TOL_DEG, (
                f"{name}, clip {anim.name!r}, {label}: at t={t:.4f} s (frame {t * fps:.4f}) "
                f"Blender is {err:.2e} deg from the glTF spec's global rotation times "
                "the constant the importer adds")
            motion = max(motion, angle_deg(spec0, spec))
            checked += 1
    return checked, motion


@pytest.mark.parametrize("fps", [24, 30])
@pytest.mark.parametrize("name", GLTF_FILES)
def test_gltf_rotations_match_the_spec_at_every_key(name, fps):
    """Every rotation channel of every clip, at its keys (and STEP midpoints)."""
    doc, scene = import_gltf(name, fps)
    if "KHR_animation_pointer" in doc.json.get("extensionsUsed", []) and not bpy.data.actions:
        # Every channel of such a file is a pointer; an importer that predates the
        # extension makes no action at all (measured: 3.4.1; 4.2 reads them).
        pytest.skip(f"Blender {bpy.app.version_string}'s glTF importer does not read "
                    "KHR_animation_pointer, the only kind of channel in this file")
    joints = joint_nodes(doc)
    checked, motion = 0, 0.0
    corrections: dict = {}
    for ai, anim in enumerate(doc.animations):
        rotations = [ch for ch in anim.channels if ch.path == "rotation"]
        rig = [ch for ch in rotations if under_a_joint(doc, ch.node, joints)]
        local = [ch for ch in rotations if ch not in rig]
        n, turn = check_local_rotations(doc, scene, fps, ai, local)
        checked, motion = checked + n, max(motion, turn)
        if rig:
            n, turn = check_rig_rotations(doc, scene, fps, ai, rig, joints, corrections)
            checked, motion = checked + n, max(motion, turn)
    assert checked, f"{name}: no rotation channel was compared (add the file's case here)"
    assert motion > MIN_MOTION_DEG, f"{name}: the compared rotations never turn"


_RU_ERROR = "invalid mode: 'rU'"


@contextlib.contextmanager
def open_mode_ru_as_r():
    """Let an importer that calls ``open(path, 'rU')`` run on Python 3.11+.

    'U' (universal newlines) is what text mode always does in Python 3; 3.11
    removed the letter. Blender 3.4's BVH importer still passes it, so it works
    on the Python 3.10 that official 3.4 builds bundle and fails on Debian's
    Blender 3.4.1 (Python 3.11). Mapping 'rU' to 'r' changes nothing else.
    """
    real_open = builtins.open

    def open_without_u(file, mode="r", *args, **kwargs):
        return real_open(file, "r" if mode == "rU" else mode, *args, **kwargs)

    builtins.open = open_without_u
    try:
        yield
    finally:
        builtins.open = real_open


def run_bvh_import(name: str, **options) -> tuple:
    """Import a corpus BVH from factory settings; (oracle clip, scene).

    On Debian's Blender 3.4.1 the importer cannot open files at all (see
    test_debian_blender_34_bvh_importer_cannot_open_files_alone); there it runs
    with :func:`open_mode_ru_as_r`, so its conversions are still checked.
    """
    bpy.ops.wm.read_factory_settings(use_empty=True)
    path = REALDATA / "bvh" / name
    try:
        result = bpy.ops.import_anim.bvh(filepath=str(path), **options)
    except RuntimeError as exc:
        if _RU_ERROR not in str(exc):
            raise
        bpy.ops.wm.read_factory_settings(use_empty=True)
        with open_mode_ru_as_r():
            result = bpy.ops.import_anim.bvh(filepath=str(path), **options)
    assert result == {'FINISHED'}, f"Blender's BVH importer did not load {name}: {result}"
    return br.load_bvh(path), bpy.context.scene


def test_debian_blender_34_bvh_importer_cannot_open_files_alone():
    """Keeps the limitation visible: users of that Blender cannot import BVH."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    path = str(REALDATA / "bvh" / BVH_FILES[0])
    try:
        result = bpy.ops.import_anim.bvh(filepath=path)
    except RuntimeError as exc:
        assert _RU_ERROR in str(exc), exc
        assert bpy.app.version < (3, 5, 0), (
            f"Blender {bpy.app.version_string}'s BVH importer fails in a new way: {exc}")
        return
    assert result == {'FINISHED'}
    pytest.skip(f"Blender {bpy.app.version_string}'s BVH importer opens files by itself")


def import_bvh(name: str, **options) -> tuple:
    """The default import (an armature); (oracle clip, armature, scene)."""
    clip, scene = run_bvh_import(name, **options)
    arm = bpy.context.object
    assert arm is not None and arm.type == 'ARMATURE', f"{name}: no armature after import"
    return clip, arm, scene


@pytest.mark.parametrize("name", BVH_FILES)
def test_bvh_pose_bones_match_the_file_channels_on_every_frame(name):
    clip, arm, scene = import_bvh(name)
    rests = {j.name: rotation_part(arm.pose.bones[j.name].bone.matrix_local)
             for j in clip.joints}
    file_rot = {j.name: clip.rotation_matrices(j.name) for j in clip.joints}
    file_pos = {j.name: clip.global_matrices(j.name)[:, :3, 3] for j in clip.joints}
    motion = 0.0
    for i in range(clip.frame_count):
        scene.frame_set(1 + i)              # the importer's default frame_start=1
        for j in clip.joints:
            pose_bone = arm.pose.bones[j.name]
            rb = rests[j.name]
            expected = rb.T @ C @ file_rot[j.name][i] @ C.T @ rb
            err = angle_deg(rotation_part(pose_bone.matrix_basis), expected)
            assert err < CHAIN_TOL_DEG, (
                f"{name}, bone {j.name} ({j.rotation_order}): file frame {i} "
                f"(scene frame {1 + i}) is {err:.2e} deg from the file's channels")
            head = np.array(arm.matrix_world @ pose_bone.head)
            assert np.abs(head - C @ file_pos[j.name][i]).max() < POS_TOL, (
                f"{name}, bone {j.name}: head at file frame {i} is {head}, the file's "
                f"joint is at {C @ file_pos[j.name][i]}")
            motion = max(motion, angle_deg(file_rot[j.name][0], file_rot[j.name][i]))
    assert motion > MIN_MOTION_DEG, f"{name}: the capture never turns"


@pytest.mark.parametrize("name", BVH_FILES)
def test_bvh_as_objects_keys_the_file_channels_one_frame_late_without_axis_conversion(name):
    """target='OBJECT': one empty per joint, ``delta_rotation_euler`` / ``delta_location``.

    Measured (bpy 5.0.1 importer): unlike the armature import it applies no axis
    conversion (its global_matrix is a TODO in the importer), and it keys a rest
    pose of zeros at frame_start, so file frame i lands on frame_start + 1 + i.
    """
    clip, scene = run_bvh_import(name, target='OBJECT')
    objects = {j.name: bpy.data.objects.get(j.name) for j in clip.joints}
    missing = [n for n, o in objects.items() if o is None]
    assert not missing, f"{name}: no object for joints {missing}"
    file_rot = {j.name: clip.rotation_matrices(j.name) for j in clip.joints}
    file_pos = {j.name: clip.global_matrices(j.name)[:, :3, 3] for j in clip.joints}
    hips = objects[clip.joints[0].name]
    keys = animdata.key_frames(animdata.object_fcurves(hips))
    assert len(keys) == clip.frame_count + 1 and keys[0] == pytest.approx(1.0, abs=1e-6)
    scene.frame_set(1)
    assert np.allclose(tuple(hips.delta_rotation_euler), 0.0, atol=1e-7)   # the rest key
    for i in range(clip.frame_count):
        scene.frame_set(2 + i)
        for j in clip.joints:
            obj = objects[j.name]
            err = angle_deg(rotation_part(obj.matrix_basis), file_rot[j.name][i])
            assert err < KEY_TOL_DEG, (
                f"{name}, object {j.name} ({obj.rotation_mode}): file frame {i} "
                f"(scene frame {2 + i}) is {err:.2e} deg from the file's channels")
            where = np.array(obj.matrix_world)[:3, 3]
            assert np.abs(where - file_pos[j.name][i]).max() < POS_TOL, (
                f"{name}, object {j.name}: at file frame {i} it is at {where}, the file "
                f"says {file_pos[j.name][i]}")


def test_bvh_at_30_fps_scaled_into_24_fps_keys_subframes_that_hold_the_capture():
    """use_fps_scale: file frame i lands on 1 + i * 24/30, a subframe (issue 12)."""
    name = "test_mocapbank.bvh"
    clip, arm, scene = import_bvh(name, use_fps_scale=True)
    assert clip.fps == pytest.approx(30.0, rel=1e-4)   # "Frame Time: 0.033333"
    scale = scene.render.fps / clip.fps
    frames = animdata.key_frames(animdata.object_fcurves(arm))
    # key frames are float32: 1e-4 frames at frame ~360
    expected = 1 + np.arange(clip.frame_count) * scale
    assert len(frames) == clip.frame_count
    assert np.allclose(frames, expected, atol=1e-4)
    assert np.any(np.abs(frames - np.round(frames)) > 0.1), "no subframe keys"
    hips = clip.joints[0].name
    rb = rotation_part(arm.pose.bones[hips].bone.matrix_local)
    rot = clip.rotation_matrices(hips)
    for i in range(0, clip.frame_count, 7):
        set_frame(scene, float(frames[i]))
        err = angle_deg(rotation_part(arm.pose.bones[hips].matrix_basis),
                         rb.T @ C @ rot[i] @ C.T @ rb)
        assert err < CHAIN_TOL_DEG, f"{name}: file frame {i} at {frames[i]:.4f}: {err:.2e} deg"


def test_every_blend_file_has_an_oracle():
    missing = [b for b in BLEND_FILES if b not in BLEND_ORACLES]
    assert not missing, f"add the independent check for {missing} to BLEND_ORACLES"


@pytest.mark.parametrize("name", BLEND_FILES)
def test_blend_playback_matches_the_gltf_blender_exported_from_it(name):
    """The saved keys (Euler, axis-angle, quaternion Bezier) against the exported glTF."""
    gltf_name = BLEND_ORACLES[name]
    bpy.ops.wm.read_factory_settings(use_empty=True)
    result = bpy.ops.wm.open_mainfile(filepath=str(REALDATA / "blend" / name), load_ui=False)
    assert result == {'FINISHED'}, f"{name} did not open: {result}"
    doc = gr.load_gltf(REALDATA / "gltf" / gltf_name)
    scene = bpy.context.scene
    fps = scene.render.fps / scene.render.fps_base
    modes = set()
    try:
        for anim in doc.animations:
            for ch in anim.channels:
                if ch.path != "rotation":
                    continue
                obj = bpy.data.objects[ch.node_name]
                modes.add(obj.rotation_mode)
                for t in ch.times:
                    # the exporter writes time 0 at the scene's first frame
                    set_frame(scene, scene.frame_start + t * fps)
                    # a glTF node's local matrix is Blender's parent inverse x basis
                    local = obj.matrix_parent_inverse @ obj.matrix_basis
                    spec = gr.quat_wxyz_to_matrix(gr.gltf_to_blender_quat(ch.evaluate(t)[0]))
                    err = angle_deg(rotation_part(local), spec)
                    assert err < KEY_TOL_DEG, (
                        f"{name}: object {obj.name} ({obj.rotation_mode}) at frame "
                        f"{scene.frame_current}: {err:.2e} deg from {gltf_name}")
    finally:
        bpy.ops.wm.read_factory_settings(use_empty=True)
    assert {'XYZ', 'AXIS_ANGLE', 'QUATERNION'} <= modes, modes
