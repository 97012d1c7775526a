# SPDX-License-Identifier: GPL-3.0-or-later
"""Where a glTF player puts each node over time: local TRS and world matrices.

Combines ``gltf_read`` (what the file holds) with ``gltf_sampler`` (how a
player interpolates it): a node's local matrix is T * R * S (spec 3.5.3) of
its animated channels (or its static values), its world matrix the product
of its ancestors' local matrices. Matrices are (m, 4, 4) float64 for column
vectors (v' = M @ v), one per sample time (seconds). Quaternions returned
here are in Blender's order (w, x, y, z).
"""

from __future__ import annotations

import numpy as np

from . import rotation
from .gltf_read import Channel, Document
from .gltf_sampler import evaluate_sampler


def xyzw_to_wxyz(q) -> np.ndarray:
    """glTF's (x, y, z, w) quaternions as (w, x, y, z), shape (..., 4)."""
    q = np.asarray(q, dtype=np.float64)
    return np.concatenate((q[..., 3:4], q[..., 0:3]), axis=-1)


def channel_map(doc: Document, animations=None, skip=None) -> dict:
    """(node, path) -> Channel for the animations named (default: all of them).

    A player that plays several animations at once lets each drive its own
    targets; where two animations target the same node and path, the first
    one listed in ``animations`` (or in the file) wins. ``skip``: {node: names
    of animations whose channels on that node are left out}.
    """
    wanted = None if animations is None else list(animations)
    order = (
        doc.animations
        if wanted is None
        else [a for name in wanted for a in doc.animations if a.name == name]
    )
    found: dict = {}
    skip = skip or {}
    for anim in order:
        for ch in anim.channels:
            if anim.name not in skip.get(ch.node, ()):
                found.setdefault((ch.node, ch.path), ch)
    return found


def _channel_values(
    ch: Channel | None, static: np.ndarray, times: np.ndarray, what: str
) -> np.ndarray:
    if ch is None:
        return np.broadcast_to(static, (times.shape[0], static.shape[0])).copy()
    return evaluate_sampler(ch.sampler, times, ch.path, what=what)


def local_trs(
    doc: Document, node: int, times, channels: dict
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(translation (m, 3), rotation (m, 4) w-first, scale (m, 3)) of ``node`` at ``times``.

    A node given by ``matrix`` cannot be animated (spec 3.5.2); its matrix is
    returned by ``local_matrices`` instead.
    """
    times = np.asarray(times, dtype=np.float64).ravel()
    n = doc.nodes[node]
    label = f"node {node} ({n.name})"
    t = _channel_values(
        channels.get((node, "translation")), n.translation, times, f"{label} translation"
    )
    r = _channel_values(channels.get((node, "rotation")), n.rotation, times, f"{label} rotation")
    s = _channel_values(channels.get((node, "scale")), n.scale, times, f"{label} scale")
    return t, xyzw_to_wxyz(r), s


def local_matrices(doc: Document, node: int, times, channels: dict) -> np.ndarray:
    """Local matrices (m, 4, 4) of ``node``: T * R * S, or its static ``matrix``."""
    times = np.asarray(times, dtype=np.float64).ravel()
    n = doc.nodes[node]
    has_channels = any((node, p) in channels for p in ("translation", "rotation", "scale"))
    if n.matrix is not None and not has_channels:
        return np.broadcast_to(n.matrix, (times.shape[0], 4, 4)).copy()
    t, q, s = local_trs(doc, node, times, channels)
    out = np.zeros((times.shape[0], 4, 4), dtype=np.float64)
    out[:, :3, :3] = rotation.quat_to_matrix(q) * s[:, None, :]
    out[:, :3, 3] = t
    out[:, 3, 3] = 1.0
    return out


def world_matrices(doc: Document, nodes, times, channels: dict) -> dict:
    """node index -> world matrices (m, 4, 4) for each of ``nodes`` (ancestors computed once)."""
    parents = doc.parents()
    cache: dict = {}

    def world(i: int) -> np.ndarray:
        if i not in cache:
            local = local_matrices(doc, i, times, channels)
            p = parents[i]
            cache[i] = local if p < 0 else world(p) @ local
        return cache[i]

    return {i: world(i) for i in nodes}


def rotation_and_location(matrices) -> tuple[np.ndarray, np.ndarray]:
    """(unit quaternions (m, 4) w-first, locations (m, 3)) of affine matrices (m, 4, 4).

    Scale is divided out of the columns. A mirrored matrix (negative
    determinant: an odd number of negative scales) is negated first, so the
    same matrix always yields the same rotation; comparing two tracks made
    this way is consistent even for mirrored objects.
    """
    m = np.asarray(matrices, dtype=np.float64)
    basis = m[:, :3, :3]
    mirrored = np.linalg.det(basis) < 0.0
    basis = np.where(mirrored[:, None, None], -basis, basis)
    return rotation.matrix_to_quat(basis), m[:, :3, 3].copy()
