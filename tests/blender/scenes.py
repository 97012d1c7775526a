"""Scenes built in code for Blender tests, on every Blender version (3.4 .. 5.x).

Keys are written in bulk (``keyframe_points.add`` + ``foreach_set``), through
``quatbake.addon.animdata`` so the same helper makes ``action.fcurves`` on 3.4
and a slotted action on 4.4+. Snapshot helpers capture every keyframe of every
action in the file so a test can assert that "nothing changed" value by value.
"""
from __future__ import annotations

import bpy
import numpy as np

from quatbake.addon import animdata

# Every rotation mode an object or pose bone can have, as Blender's rotation_mode lists them
# (not taken from QuatBake), for tests that go through all of them.
ROTATION_MODES = ('QUATERNION', 'XYZ', 'XZY', 'YXZ', 'YZX', 'ZXY', 'ZYX', 'AXIS_ANGLE')


def _enum(prop: str, identifier: str) -> int:
    return bpy.types.Keyframe.bl_rna.properties[prop].enum_items[identifier].value


def add_keys(fc, frames, values, interpolation: str = 'BEZIER') -> None:
    """Append keys (frames[i], values[i]) to an empty F-curve ``fc`` in bulk."""
    frames = np.asarray(frames, dtype=np.float64).ravel()
    values = np.asarray(values, dtype=np.float64).ravel()
    n = frames.shape[0]
    kps = fc.keyframe_points
    kps.add(n)
    co = np.empty(2 * n, dtype=np.float32)
    co[0::2] = frames
    co[1::2] = values
    kps.foreach_set("co", co)
    kps.foreach_set("handle_left", co)
    kps.foreach_set("handle_right", co)
    kps.foreach_set("interpolation", np.full(n, _enum("interpolation", interpolation), np.int32))
    # New keys are AUTO_CLAMPED on every version (handle types cannot be bulk-set
    # on 3.4, see animdata.HANDLE_TYPE_ENUMS); update() places their handles.
    fc.update()


def new_object(name: str, mode: str = 'XYZ', data=None):
    """An object linked to the scene's collection (an empty unless ``data`` is given)."""
    obj = bpy.data.objects.new(name, data)
    bpy.context.scene.collection.objects.link(obj)
    obj.rotation_mode = mode
    return obj


def link_from_library(obj, library_path: str):
    """Write ``obj`` to the .blend file ``library_path``, delete it here and link it back
    from that file into the scene: the linked (library) object of the same name."""
    name = obj.name
    bpy.data.libraries.write(library_path, {obj})
    bpy.data.objects.remove(obj)
    with bpy.data.libraries.load(library_path, link=True) as (_, data_to):
        data_to.objects = [name]
    linked = data_to.objects[0]
    bpy.context.scene.collection.objects.link(linked)
    return linked


def select_only(*objects) -> None:
    """Select exactly ``objects`` in the view layer, the first one active (as a click
    then shift-clicks do); with none, nothing is selected and the active object stays."""
    for obj in bpy.context.view_layer.objects:
        obj.select_set(False)
    for obj in objects:
        obj.select_set(True)
    if objects:
        bpy.context.view_layer.objects.active = objects[0]


def ensure_action(obj, action_name: str | None = None):
    """The object's action, made (with a slot on 4.4+) and assigned if missing."""
    action = animdata.get_action(obj)
    if action is None:
        action, slot = animdata.new_action_for(obj, action_name or f"{obj.name}Action")
        animdata.assign_action(obj, action, slot)
    return action


def key_channels(obj, data_path: str, frames, values, interpolation: str = 'BEZIER',
                 indices=None) -> list:
    """Key ``obj.<data_path>[i]`` for each column i of ``values`` (n, k) at ``frames`` (n,).

    ``indices`` picks which array indices get the columns (default 0..k-1).
    Returns the new F-curves.
    """
    action = ensure_action(obj)
    slot = animdata.get_slot_identifier(obj)
    values = np.asarray(values, dtype=np.float64)
    if values.ndim == 1:
        values = values[:, None]
    indices = range(values.shape[1]) if indices is None else indices
    made = []
    for column, index in enumerate(indices):
        fc = animdata.new_fcurve(action, slot, data_path, index)
        add_keys(fc, frames, values[:, column], interpolation)
        made.append(fc)
    return made


def make_animated_object(name: str, mode: str, frames, values, interpolation: str = 'BEZIER',
                         location=None, data=None):
    """An object in rotation ``mode`` keyed at ``frames`` (n,) with rotation ``values``.

    ``values``: (n, 3) radians for Euler modes, (n, 4) (w, x, y, z) for
    'QUATERNION', (n, 4) (angle, x, y, z) for 'AXIS_ANGLE'. ``location``:
    optional (n, 3) keyed at the same frames. ``interpolation``: 'BEZIER',
    'LINEAR' or 'CONSTANT' for every key. Works on Blender 3.4 .. 5.x.
    """
    obj = new_object(name, mode, data)
    path, _count = animdata.ROTATION_PATHS[mode]
    key_channels(obj, path, frames, values, interpolation)
    if location is not None:
        key_channels(obj, "location", frames, location, interpolation)
    return obj


# --------------------------------------------------------------------------
# Snapshots: "nothing changed" checks, value by value
# --------------------------------------------------------------------------

def fcurve_snapshot(fc) -> dict:
    data = animdata.read_keyframe_arrays(fc)
    data["extrapolation"] = fc.extrapolation
    data["modifiers"] = [m.type for m in fc.modifiers]
    return data


def action_snapshot(action) -> dict:
    """{(slot identifier, data_path, index): keyframe arrays} for every F-curve of ``action``."""
    out = {}
    if animdata.is_slotted(action):
        slots = [slot.identifier for slot in action.slots]
    else:
        slots = [""]
    for slot in slots:
        for fc in animdata.action_fcurves(action, slot):
            out[(slot, fc.data_path, fc.array_index)] = fcurve_snapshot(fc)
    return out


def scene_snapshot() -> dict:
    """Every action's keyframes and every object's action, slot, rotation mode, rotation,
    delta transforms and NLA strips."""
    return {
        "actions": {a.name: action_snapshot(a) for a in bpy.data.actions},
        "fake_users": {a.name: a.use_fake_user for a in bpy.data.actions},
        "objects": {
            o.name: (
                getattr(animdata.get_action(o), "name", None),
                animdata.get_slot_identifier(o),
                o.rotation_mode,
                tuple(o.rotation_quaternion), tuple(o.rotation_euler),
                tuple(o.rotation_axis_angle), tuple(o.location),
                tuple(o.delta_rotation_quaternion), tuple(o.delta_rotation_euler),
                tuple(o.delta_location),
                # NLA strips and the actions they play (the importer's stashes).
                tuple((t.name, t.mute, s.name, getattr(s.action, "name", None), s.mute)
                      for t in (o.animation_data.nla_tracks if o.animation_data else ())
                      for s in t.strips),
            )
            for o in bpy.data.objects
        },
        # Pose bones: rotation mode and static values (a revert must put them back too).
        "bones": {
            (o.name, b.name): (b.rotation_mode, tuple(b.rotation_quaternion),
                               tuple(b.rotation_euler), tuple(b.rotation_axis_angle),
                               tuple(b.location))
            for o in bpy.data.objects if o.type == 'ARMATURE' and o.pose is not None
            for b in o.pose.bones
        },
    }


def part_of(snapshot: dict, names) -> dict:
    """``snapshot`` of the objects ``names`` alone (their bones, the actions they play):
    what a bake of the others must leave exactly as it was."""
    actions = {snapshot["objects"][n][0] for n in names} - {None}
    return {"objects": {n: snapshot["objects"][n] for n in names},
            "bones": {k: v for k, v in snapshot["bones"].items() if k[0] in names},
            "fake_users": {a: snapshot["fake_users"][a] for a in actions},
            "actions": {a: snapshot["actions"][a] for a in actions}}


def assert_same_snapshot(before: dict, after: dict) -> None:
    """Fail with the first difference between two ``scene_snapshot`` results."""
    assert before["objects"] == after["objects"]
    assert before.get("bones") == after.get("bones")
    assert before["fake_users"] == after["fake_users"]
    assert sorted(before["actions"]) == sorted(after["actions"])
    for name, channels in before["actions"].items():
        other = after["actions"][name]
        assert sorted(channels) == sorted(other), f"action {name}: channels differ"
        for key, arrays in channels.items():
            for field, value in arrays.items():
                if isinstance(value, np.ndarray):
                    np.testing.assert_array_equal(value, other[key][field],
                                                  err_msg=f"{name} {key} {field}")
                else:
                    assert value == other[key][field], f"{name} {key} {field}"


def matrix_quat(obj) -> np.ndarray:
    """(w, x, y, z) of the rotation in ``obj.matrix_basis`` (what Blender evaluated)."""
    return np.array(obj.matrix_basis.to_quaternion(), dtype=np.float64)


def evaluated_quats(obj, frames) -> np.ndarray:
    """(n, 4): ``frame_set`` each frame, then the rotation of ``matrix_basis``."""
    scene = bpy.context.scene
    out = np.empty((len(frames), 4))
    for i, f in enumerate(frames):
        scene.frame_set(int(f))
        out[i] = matrix_quat(obj)
    return out


def make_rig(name: str, bones) -> "bpy.types.Object":
    """An armature object linked to the scene with ``bones``: (name, parent name or None,
    head (3,), tail (3,)) in armature space, made in Edit Mode and left in Object Mode."""
    arm = bpy.data.armatures.new(name)
    obj = bpy.data.objects.new(name, arm)
    bpy.context.scene.collection.objects.link(obj)
    obj.select_set(True)
    bpy.context.view_layer.objects.active = obj     # Edit Mode acts on the active object
    bpy.ops.object.mode_set(mode='EDIT')
    try:
        for bone_name, parent, head, tail in bones:
            eb = arm.edit_bones.new(bone_name)
            eb.head, eb.tail = head, tail
            if parent is not None:
                eb.parent = arm.edit_bones[parent]
    finally:
        bpy.ops.object.mode_set(mode='OBJECT')
    return obj


def bone_path(bone_name: str, data_path: str) -> str:
    """``pose.bones["name"].data_path`` with the name escaped as Blender does."""
    return f'pose.bones["{bpy.utils.escape_identifier(bone_name)}"].{data_path}'


def key_bone(rig, bone_name: str, data_path: str, frames, values, mode: str | None = None,
             interpolation: str = 'BEZIER') -> list:
    """Key ``rig.pose.bones[bone_name].<data_path>`` (columns of ``values``) at ``frames``;
    ``mode`` sets the bone's rotation mode first."""
    if mode is not None:
        rig.pose.bones[bone_name].rotation_mode = mode
    action = ensure_action(rig)
    slot = animdata.get_slot_identifier(rig)
    values = np.asarray(values, dtype=np.float64)
    if values.ndim == 1:
        values = values[:, None]
    made = []
    for index in range(values.shape[1]):
        fc = animdata.new_fcurve(action, slot, bone_path(bone_name, data_path), index,
                                 group=bone_name)
        add_keys(fc, frames, values[:, index], interpolation)
        made.append(fc)
    return made


def bone_world_quats(rig, bone_name: str, frames) -> np.ndarray:
    """(n, 4): ``frame_set`` each frame, then the rotation of the bone's ``matrix_basis``
    (its own channels, what Blender evaluated)."""
    scene = bpy.context.scene
    out = np.empty((len(frames), 4))
    pbone = rig.pose.bones[bone_name]
    for i, f in enumerate(frames):
        scene.frame_set(int(f))
        out[i] = np.array(pbone.matrix_basis.to_quaternion(), dtype=np.float64)
    return out


def quats_about_z(deg) -> np.ndarray:
    """(n, 4) WXYZ quaternions of turns of ``deg`` degrees about Z."""
    half = np.radians(np.asarray(deg, float)) / 2
    return np.stack([np.cos(half), 0 * half, 0 * half, np.sin(half)], axis=-1)


def max_deviation_from_keys(obj, method: str = "slerp") -> float:
    """Degrees: Blender's frame_set orientation against core's ``method`` of the
    orientations Blender shows at the rotation keys, over every frame from the first
    key to the last (an independent figure for the report's largest difference)."""
    from quatbake.core import interp, quat

    keys = animdata.key_frames(animdata.rotation_fcurves(obj))
    frames = np.arange(keys[0], keys[-1] + 1.0)
    blender = evaluated_quats(obj, frames)
    ours = interp.interpolate(keys, evaluated_quats(obj, keys), frames, method)
    return float(np.degrees(quat.angle_between(blender, ours)).max())
