"""Scenes for the glTF export checks (issue 15), built in code on Blender 3.4 .. 5.x.

The three empties of the issue, each a classic way a glTF player parts from
Blender when the exporter writes the keys as they are (no sampling):

- Windmill: LINEAR Euler Z 0 -> 360 deg (the exported keys are one rotation);
- Swing: Bezier Euler Z 100 -> 170 -> -170 -> -100 deg (Blender swings the long
  way through the wrap, 340 deg in one interval);
- Flip: Bezier quaternion 0 -> 40 -> 80 deg about Z, the last key stored as -q.

Plus a camera (LINEAR Euler turn and a Bezier move) for the exporter's
90-degree camera correction. Frames 1..25 at 24 fps.

And a rig for the pose bones' check (``build_flipped_rig``).
"""

import math

import bpy
import numpy as np

from scenes import key_bone, make_animated_object, make_rig, quats_about_z

FRAMES = (1, 25)


def _about_z(deg):
    h = math.radians(deg) / 2
    return [math.cos(h), 0.0, 0.0, math.sin(h)]


def build_three_empties(with_camera: bool = True) -> list:
    """The objects above in the current (empty) scene, sorted by name."""
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = FRAMES
    scene.render.fps, scene.render.fps_base = 24, 1.0
    made = [
        make_animated_object(
            "Windmill", 'XYZ', [1, 25], [[0, 0, 0], [0, 0, 2 * math.pi]], 'LINEAR'
        ),
        make_animated_object(
            "Swing",
            'XYZ',
            [1, 9, 17, 25],
            np.radians([[0, 0, 100], [0, 0, 170], [0, 0, -170], [0, 0, -100]]),
        ),
        make_animated_object(
            "Flip",
            'QUATERNION',
            [1, 13, 25],
            [_about_z(0), _about_z(40), [-c for c in _about_z(80)]],
        ),
    ]
    if with_camera:
        cam = make_animated_object(
            "Cam",
            'XYZ',
            [1, 25],
            [[1.2, 0.0, 0.3], [1.2, 0.0, 1.4]],
            'LINEAR',
            data=bpy.data.cameras.new("Cam"),
        )
        from scenes import key_channels

        key_channels(cam, "location", [1, 25], [[1.0, 2.0, 3.0], [4.0, -5.0, 6.0]])
        made.append(cam)
    return sorted(made, key=lambda o: o.name)


def build_flipped_rig():
    """Rig (placed and turned): root turns 0 -> 90 -> 170 deg about Z, arm (its child)
    0 -> 80 -> 160 deg about X with the middle key's sign flipped, so that Blender's
    channels take the long way there; hand, unkeyed, follows. Linear quaternion keys on
    frames 1, 11, 21, the scene's range."""
    rig = make_rig("Rig", [("root", None, (0, 0, 0), (0, 0, 1)),
                           ("arm", "root", (0, 0, 1), (1, 0, 1.5)),
                           ("hand", "arm", (1, 0, 1.5), (1.5, 0.5, 1.5))])
    frames = [1, 11, 21]
    key_bone(rig, "root", "rotation_quaternion", frames, quats_about_z([0, 90, 170]),
             'QUATERNION', 'LINEAR')
    half = np.radians([0.0, 80.0, 160.0]) / 2.0
    arm = np.stack([np.cos(half), np.sin(half), 0 * half, 0 * half], axis=1)
    arm[1] *= -1.0
    key_bone(rig, "arm", "rotation_quaternion", frames, arm, 'QUATERNION', 'LINEAR')
    rig.rotation_euler, rig.location = (0.3, 0.2, 0.5), (1.0, 2.0, 3.0)
    bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, 21
    return rig
