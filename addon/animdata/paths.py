# SPDX-License-Identifier: GPL-3.0-or-later
"""The data paths QuatBake reads of a transform, and how sentences name a channel.

Names only: no Blender data is touched here."""
from __future__ import annotations

from ...core.frames import label as frame_label  # noqa: F401  (animdata.frame_label)
from ...core.frames import span as frame_span  # noqa: F401  (animdata.frame_span)
from ...core.words import Phrase

# How sentences name a transform (subject; transform.Transform.label), as patterns the
# add-on's turn notes translate.
OBJECT = "Object \"{}\""
ARMATURE_BONE = "Armature \"{}\", bone \"{}\""

# rotation_mode -> (data path, channel count). Index 0 of quaternion is W and of
# axis-angle is the angle, as in Blender.
ROTATION_PATHS: dict[str, tuple[str, int]] = {
    'QUATERNION': ("rotation_quaternion", 4),
    'AXIS_ANGLE': ("rotation_axis_angle", 4),
    'XYZ': ("rotation_euler", 3),
    'XZY': ("rotation_euler", 3),
    'YXZ': ("rotation_euler", 3),
    'YZX': ("rotation_euler", 3),
    'ZXY': ("rotation_euler", 3),
    'ZYX': ("rotation_euler", 3),
}
ROTATION_DATA_PATHS = frozenset(path for path, _ in ROTATION_PATHS.values())
LOCATION_PATH: tuple[str, int] = ("location", 3)

# Blender's group for transform channels (what keyframe_insert would use).
TRANSFORM_GROUP = "Object Transforms"

class ChannelError(ValueError):
    """A channel cannot be read as a rotation. The message names object, channel, frame."""

    def __init__(self, message: str, object_name: str = "", channel: str = "",
                 frame: float | None = None):
        super().__init__(message)
        self.object_name = object_name
        self.channel = channel
        self.frame = frame


def channel_label(data_path: str, index: int) -> str:
    """``rotation_quaternion[2]``: how messages name a channel."""
    return f"{data_path}[{index}]"


def first_of(words: list, shown: int) -> str:
    """``a, b, c and 4 more``: how messages name a list that may be long."""
    more = f" and {len(words) - shown} more" if len(words) > shown else ""
    return ", ".join(words[:shown]) + more


BONE_PATH_START = 'pose.bones["'


def bone_name_from_path(data_path: str) -> str | None:
    """The bone a ``pose.bones["..."]...`` data path animates (unescaped), else None."""
    if not data_path.startswith(BONE_PATH_START):
        return None
    i = len(BONE_PATH_START)
    end = data_path.find('"', i)
    if end >= 0 and "\\" not in data_path[i:end]:
        return data_path[i:end]       # the usual name: nothing escaped
    chars = []
    while i < len(data_path):
        c = data_path[i]
        if c == "\\" and i + 1 < len(data_path):
            chars.append(data_path[i + 1])
            i += 2
            continue
        if c == '"':
            return "".join(chars)
        chars.append(c)
        i += 1
    return None

# Blender composes an object's rotation matrix as delta @ rotation
# (BKE_object_rot_to_mat3: mul_m3_m3m3(mat, dmat, rmat)), the delta in the
# object's own rotation mode (the same Euler order; delta_rotation_quaternion,
# normalised, in QUATERNION mode). Axis-angle objects use drotAxis/drotAngle,
# which RNA does not expose, so they have no delta channel here. Location is
# location + delta_location (BKE_object_to_mat4).
DELTA_ROTATION_PATHS: dict[str, tuple[str, int]] = {
    mode: ("delta_rotation_quaternion", 4) if mode == 'QUATERNION'
    else ("delta_rotation_euler", 3)
    for mode in ROTATION_PATHS if mode != 'AXIS_ANGLE'
}
DELTA_ROTATION_DATA_PATHS = frozenset(path for path, _ in DELTA_ROTATION_PATHS.values())
DELTA_LOCATION_PATH: tuple[str, int] = ("delta_location", 3)
# Every channel QuatBake reads of a transform (an armature's own, beside its bones').
TRANSFORM_DATA_PATHS = (ROTATION_DATA_PATHS | DELTA_ROTATION_DATA_PATHS
                        | {LOCATION_PATH[0], DELTA_LOCATION_PATH[0]})

def path_prefix(obj) -> str:
    """The data-path prefix of ``obj``'s channels: "" for an object, ``pose.bones["b"].``
    for a pose bone's ``transform.AnimatedTransform``."""
    return getattr(obj, "path_prefix", "")


def subject(obj) -> str:
    """How sentences name ``obj``: ``Object "Cube"`` or ``Armature "Rig", bone "spine"``."""
    return getattr(obj, "label", None) or Phrase(OBJECT, obj.name)
