"""What Blender plays, and the independent references the cache tests hold it to.

Shared by test_cache.py (caches QuatBake's tests write with Blender's exporters) and
test_cache_realdata_abc.py (real Alembic files from other programs).
"""
from __future__ import annotations

import math

import bpy
import numpy as np
import pytest


def angle_deg(a, b) -> np.ndarray:
    """Geodesic angle (degrees) between (n, 4) quaternions, sign-agnostic (atan2 form)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    a = a / np.linalg.norm(a, axis=-1, keepdims=True)
    b = b / np.linalg.norm(b, axis=-1, keepdims=True)
    w = np.abs(np.sum(a * b, axis=-1))
    cross = np.linalg.norm(a[..., :1] * b[..., 1:] - b[..., :1] * a[..., 1:]
                           + np.cross(a[..., 1:], b[..., 1:]), axis=-1)
    return np.degrees(2.0 * np.arctan2(cross, w))


def scipy_slerp(key_frames, key_quats, frames) -> np.ndarray:
    """scipy's Slerp of (w, x, y, z) key orientations, evaluated at ``frames``: (n, 4)."""
    tr = pytest.importorskip("scipy.spatial.transform")
    keys = tr.Rotation.from_quat(np.asarray(key_quats)[:, [1, 2, 3, 0]])
    out = tr.Slerp(np.asarray(key_frames, dtype=np.float64), keys)(frames).as_quat()
    return out[:, [3, 0, 1, 2]]


def playback(obj, frames) -> tuple[np.ndarray, np.ndarray]:
    """(n, 4) world orientations and (n, 3) locations, by frame_set + matrix_world."""
    scene = bpy.context.scene
    quats, locs = [], []
    for f in np.asarray(frames, dtype=np.float64):
        whole = math.floor(f)
        scene.frame_set(int(whole), subframe=float(f - whole))
        quats.append(tuple(obj.matrix_world.to_quaternion()))
        locs.append(tuple(obj.matrix_world.translation))
    scene.frame_set(1)
    return np.array(quats, dtype=np.float64), np.array(locs, dtype=np.float64)
