# SPDX-License-Identifier: GPL-3.0-or-later
"""The demo scene: built in code, it shows every classic pitfall. ``python -m quatbake
demo`` builds, reports, re-bakes and saves it (cli/demo.py); in Blender, the
operator ``quatbake.demo_scene`` (Load Demo Scene) adds it un-baked as a scene of
its own, in any supported Blender version.

Objects (each one a pitfall from the seed articles):

- FlipCam: camera with quaternion keys, one key stored with its sign flipped
  (q and -q are the same orientation): Blender's channels go the long way.
- EulerCam: camera whose Z angle is keyed 170 -> -170 deg: the channel turns
  340 deg instead of 20.
- Turn170: a 170 deg turn on LINEAR quaternion channels: per-component lerp,
  so the quaternion shrinks mid-way and the speed is uneven (nlerp).
- Dolly: a long multi-segment dolly, 1 m then 10 m in the same number of
  frames (timed by frame count, not distance: ten times the speed).
- FollowCam: keys recorded from ``current = lerp(current, target, 0.08)``
  every frame: it creeps towards the target and never arrives.

"""
from __future__ import annotations

import bpy
import numpy as np

from . import animdata
from .ui import translations
from .ui.guard import guarded
from .ui.texts import one_line_tooltips


def _axis_quat(axis, deg) -> np.ndarray:
    axis = np.asarray(axis, dtype=np.float64)
    axis = axis / np.linalg.norm(axis)
    half = np.radians(np.asarray(deg, dtype=np.float64)) / 2.0
    return np.concatenate([np.cos(half)[..., None], np.sin(half)[..., None] * axis], axis=-1)


def _enum(identifier: str) -> int:
    return bpy.types.Keyframe.bl_rna.properties["interpolation"].enum_items[identifier].value


def key(obj, data_path: str, frames, values, interpolation: str = 'BEZIER') -> None:
    """Key obj.<data_path>[i] with column i of ``values`` (n, k) at ``frames`` (n,), in bulk."""
    action = animdata.get_action(obj)
    if action is None:
        action, slot = animdata.new_action_for(obj, f"{obj.name}Action")
        animdata.assign_action(obj, action, slot)
    slot = animdata.get_slot_identifier(obj)
    frames = np.asarray(frames, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64).reshape(len(frames), -1)
    for index in range(values.shape[1]):
        fc = animdata.new_fcurve(action, slot, data_path, index)
        n = len(frames)
        fc.keyframe_points.add(n)
        co = np.empty(2 * n, dtype=np.float32)
        co[0::2] = frames
        co[1::2] = values[:, index]
        fc.keyframe_points.foreach_set("co", co)
        fc.keyframe_points.foreach_set("handle_left", co)
        fc.keyframe_points.foreach_set("handle_right", co)
        fc.keyframe_points.foreach_set("interpolation", np.full(n, _enum(interpolation), np.int32))
        fc.update()          # auto-clamped handles, as keys inserted by hand get


def _camera(scene, name: str, mode: str):
    obj = bpy.data.objects.new(name, bpy.data.cameras.new(name))
    scene.collection.objects.link(obj)
    obj.rotation_mode = mode
    return obj


# Cameras look down their local -Z; this base orientation makes them look
# along +Y (level), so turning about world Z is a pan.
_LEVEL = _axis_quat([1, 0, 0], 90.0)


def _pan(deg) -> np.ndarray:
    from ..core import quat

    return quat.multiply(_axis_quat([0, 0, 1], deg), _LEVEL)


def build_scene() -> dict[str, str]:
    """Build the demo objects in an empty file (factory settings); returns {object name:
    the pitfall it shows}. ``python -m quatbake demo`` and the tests start here."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    return build_objects(bpy.context.scene)


def build_objects(scene) -> dict[str, str]:
    """The five demo objects, un-baked, in ``scene`` (its frame range set to 1-120);
    returns {object name (Blender may add .001 to a name already taken): the pitfall}."""
    scene.frame_start, scene.frame_end = 1, 120

    flip = _camera(scene, "FlipCam", 'QUATERNION')
    keys = _pan([0.0, 50.0, 100.0, 140.0])
    keys[2] *= -1.0                                  # same orientation, opposite sign
    key(flip, "rotation_quaternion", [1, 40, 80, 120], keys)
    key(flip, "location", [1, 40, 80, 120], [[0, -8, 1.6], [3, -6, 1.6], [5, -2, 1.8], [5, 2, 2]])

    euler = _camera(scene, "EulerCam", 'XYZ')
    key(euler, "rotation_euler", [1, 60, 100],
        np.radians([[80.0, 0.0, 150.0], [85.0, 0.0, 170.0], [85.0, 0.0, -170.0]]))
    key(euler, "location", [1, 60, 100], [[-4, 0, 1.7], [-4, 2, 1.7], [-4, 4, 1.7]])

    turn = bpy.data.objects.new("Turn170", None)
    scene.collection.objects.link(turn)
    turn.empty_display_type = 'ARROWS'
    turn.rotation_mode = 'QUATERNION'
    key(turn, "rotation_quaternion", [1, 60], _axis_quat([0, 0, 1], [0.0, 170.0]), 'LINEAR')

    dolly = _camera(scene, "Dolly", 'XYZ')
    frames = [1, 50, 100]
    key(dolly, "location", frames, [[6, -5, 1.5], [6, -4, 1.5], [6, 6, 1.5]], 'LINEAR')
    key(dolly, "rotation_euler", frames, np.radians([[90, 0, 10], [90, 0, 20], [90, 0, 40]]),
        'LINEAR')

    follow = _camera(scene, "FollowCam", 'QUATERNION')
    # current += (target - current) * 0.08 at each recorded step, a step every other
    # frame (a key every frame reads as a capture, where filter advice never fires).
    angles = 90.0 * (1.0 - 0.92 ** np.arange(30))
    key(follow, "rotation_quaternion", np.arange(1, 61, 2), _pan(angles), 'LINEAR')

    return {
        flip.name: "flipped-sign quaternion key",
        euler.name: "Euler wrap 170 -> -170 deg",
        turn.name: "170 deg turn on linear quaternion channels",
        dolly.name: "1 m then 10 m in equal frame counts",
        follow.name: "lerp(current, target, dt) used as a filter",
    }


# A scene of its own, so loading the demo never touches the user's scenes.
DEMO_SCENE_NAME = "QuatBake Demo"


class QUATBAKE_OT_demo_scene(bpy.types.Operator):
    """Add a scene with five objects, each showing one classic rotation pitfall (not
    baked), and switch to it. Your own scenes stay as they are"""

    bl_idname = "quatbake.demo_scene"
    bl_label = "Load Demo Scene"
    bl_options = {'REGISTER', 'UNDO'}

    @guarded("Load Demo Scene")
    def execute(self, context):
        scene = bpy.data.scenes.new(DEMO_SCENE_NAME)
        if context.window is not None:
            context.window.scene = scene
        problems = build_objects(scene)
        for layer_object in scene.objects:
            layer_object.select_set(layer_object.name in problems)
        view_layer = scene.view_layers[0]
        view_layer.objects.active = scene.objects[next(iter(problems))]
        scene.frame_set(1)
        self.report({'INFO'}, translations.report(
            "Scene \"{}\": {:d} objects, each one pitfall, selected and not baked. Press "
            "Analyze to see what Blender plays, then Re-bake.").format(scene.name, len(problems)))
        return {'FINISHED'}


register, unregister = bpy.utils.register_classes_factory(
    one_line_tooltips(QUATBAKE_OT_demo_scene))


