# SPDX-License-Identifier: GPL-3.0-or-later
"""Blender's Z-up space and the Y-up space Blender's glTF exporter writes.

The exporter's ``export_yup`` (on by default) swizzles every node's values:
location (x, y, z) -> (x, z, -y), rotation (w, x, y, z) -> (w, x, z, -y),
scale (x, y, z) -> (x, z, y) (io_scene_gltf2 ``gltf2_blender_math.swizzle_yup_*``).
That is a change of basis ``v_gltf = C @ v_blender`` with C a -90 degree
turn about X, so every local and world matrix becomes ``C @ M @ C^-1``.

Cameras and lights look down -Z in Blender and in glTF, but with Y-up the
exporter right-multiplies their matrix by a -90 degree turn about X
(``Quaternion((sqrt(1/2), -sqrt(1/2), 0, 0))``, exporter ``tree.py``) so they
still look the same way. It turns the joints it writes pose bones as by the same
-90 degrees (a joint's world matrix is the bone's times that turn on every frame:
measured with Blender 3.4.1's and 5.0.1's exporters, tests/blender/test_export_check.py),
so ``corrected`` serves them too. Undoing both gives back the matrix Blender plays.
"""

from __future__ import annotations

import numpy as np

# v_gltf = YUP_FROM_ZUP @ v_blender.
YUP_FROM_ZUP = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]])

# The exporter's camera/light correction: -90 degrees about X, as a matrix.
CAMERA_CORRECTION = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]])


def _as_4x4(m: np.ndarray) -> np.ndarray:
    out = np.zeros((4, 4))
    out[:3, :3] = m
    out[3, 3] = 1.0
    return out


def blender_world_from_gltf(matrices, yup: bool = True, corrected: bool = False) -> np.ndarray:
    """Blender world matrices (m, 4, 4) from a glTF node's world matrices (m, 4, 4).

    ``yup``: the file was written with ``export_yup`` (undo C); ``corrected``:
    the node is a camera or light the exporter turned (undo its correction).
    """
    m = np.asarray(matrices, dtype=np.float64)
    if yup:
        c = _as_4x4(YUP_FROM_ZUP)
        m = c.T @ m @ c  # C is a rotation: C^-1 = C^T
    if yup and corrected:  # the exporter turns cameras and lights only for Y-up
        m = m @ _as_4x4(CAMERA_CORRECTION).T
    return m
