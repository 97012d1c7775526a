# SPDX-License-Identifier: GPL-3.0-or-later
"""What a Transform Cache constraint plays: its samples and Blender's playback.

USD and Alembic imports (``bpy.ops.wm.usd_import``, ``bpy.ops.wm.alembic_import``)
animate an object with a Transform Cache constraint and no keys: the constraint
reads the file's transforms at the current frame, and between the file's
samples Blender interpolates (Alembic: the two samples' matrices blended,
rotation by a short-arc slerp; USD: each xformOp's values, an Euler rotateXYZ
linearly). Nothing of that is in F-curves, so it is read here:

- :func:`playing_cache`: the constraint that moves a transform now (an
  object's, enabled, with a cache file);
- :func:`sample_frames`: the scene frames of the file's samples (Alembic: the
  ``.xform`` time samplings down the object path, seconds times the scene's
  frame rate plus the cache file's frame offset, as Blender maps them; USD text:
  the ``xformOp`` time codes plus the offset; binary USD: the whole frames of the
  scene's range, said so in ``how``), from ``core.cache_times``;
- :func:`played_matrices`: Blender's own playback, ``frame_set`` (subframes
  too) and ``matrix_world``, the current frame put back afterwards.

Reads Blender and the cache file; changes nothing it does not put back.
"""
from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass

import bpy
import numpy as np

from ...core import cache_times, quat, rotation
from .paths import ChannelError

# Consecutive playback samples further apart than this (degrees) are split
# again (played_orientations): core.turns follows a turn only through samples
# under 180 degrees apart, and a USD Euler rotateXYZ interpolated linearly can
# turn any amount between two of the file's samples.
TRACK_STEP_DEG = 60.0
MAX_REFINE = 8


class CacheError(ChannelError):
    """A Transform Cache cannot be read; the message names the object and what to do (a
    ChannelError: whoever reports an unreadable channel reports this the same way)."""


@dataclass
class CacheSamples:
    constraint: str          # the constraint's name
    path: str                # the cache file, absolute
    format: str              # "Alembic" | "USD"
    object_path: str         # inside the file
    frames: np.ndarray       # (k,) scene frames of the samples, ascending
    how: str                 # "file": read from the file; else a sentence saying what was taken


def _owner(obj):
    """The object of an object transform; None for a pose bone (a bone's constraints
    are not read as caches)."""
    if getattr(obj, "bone_name", ""):
        return None
    return getattr(obj, "owner", obj)


def cache_constraints(obj) -> list:
    """Every Transform Cache constraint of ``obj`` (an object or an object's transform)."""
    owner = _owner(obj)
    if owner is None or not hasattr(owner, "constraints"):
        return []
    return [c for c in owner.constraints if c.type == 'TRANSFORM_CACHE']


def playing_cache(obj):
    """The Transform Cache constraint that moves ``obj`` now (enabled, some influence, a
    cache file and an object path), or None."""
    for con in cache_constraints(obj):
        if not con.mute and con.influence > 0.0 and con.cache_file is not None \
                and con.object_path:
            return con
    return None


def plays_cache(obj) -> bool:
    return playing_cache(obj) is not None


def constraint_named(obj, name: str):
    owner = _owner(obj)
    con = owner.constraints.get(name) if owner is not None and name else None
    return con if con is not None and con.type == 'TRANSFORM_CACHE' else None


def constraints_after(obj, con) -> list:
    """The enabled constraints that act after ``con`` on ``obj`` (on top of the cache)."""
    owner = _owner(obj)
    names = [c.name for c in owner.constraints]
    later = owner.constraints[names.index(con.name) + 1:]
    return [c for c in later if not c.mute and c.influence > 0.0]


def _who(obj) -> str:
    return f"Object \"{_owner(obj).name}\""


def _scene_fps(scene) -> float:
    return scene.render.fps / scene.render.fps_base


def cache_format(path: str) -> str:
    ext = os.path.splitext(path)[1].lower()
    return "Alembic" if ext == ".abc" else "USD"


def sample_frames(obj, con, scene=None) -> CacheSamples:
    """The scene frames of the samples the constraint ``con`` interpolates between.

    Raises CacheError naming the object, the constraint and the file when the file
    is missing or unreadable, or when the cache's frame is not the scene's (Override
    Frame, a file sequence).
    """
    scene = scene or bpy.context.scene
    who, cache = _who(obj), con.cache_file
    what = f"{who}: its Transform Cache \"{con.name}\""
    path = bpy.path.abspath(cache.filepath, library=cache.library)
    if cache.override_frame:
        raise CacheError(f"{what} plays cache file \"{cache.name}\" at its own Override "
                         "Frame, not at the scene's frames; turn Override Frame off (Cache "
                         "File properties), then try again.")
    if cache.is_sequence:
        raise CacheError(f"{what} reads a file sequence ({cache.filepath}), whose samples "
                         "QuatBake does not read; cache the transforms into one file.")
    if not os.path.isfile(path):
        raise CacheError(f"{what} reads {path}, which is missing; find the file (Cache File "
                         "properties) or re-import it.")
    fmt = cache_format(path)
    offset = float(cache.frame_offset)
    how = "file"
    try:
        if fmt == "Alembic":
            seconds = cache_times.alembic_sample_times(path, con.object_path)
            frames = seconds * _scene_fps(scene) + offset
        elif cache_times.usd_is_text(path):
            # Blender reads a USD transform at time code = scene frame - offset, whatever
            # the stage's timeCodesPerSecond (checked in tests/blender/test_cache.py).
            codes, _meta = cache_times.usda_sample_times(path, con.object_path)
            frames = codes + offset
        else:
            frames = np.zeros(0)
            how = (f"{os.path.basename(path)} is binary USD, whose sample times QuatBake does "
                   f"not read: the whole frames of the scene's range "
                   f"({scene.frame_start}..{scene.frame_end}) are taken as its samples")
    except (ValueError, OSError) as exc:
        raise CacheError(f"{what}: {exc}") from None
    if how == "file" and frames.size == 0:
        how = (f"{os.path.basename(path)} holds no animated transform for "
               f"{con.object_path}: the cache does not move")
        frames = np.array([float(scene.frame_start)])
    elif how != "file":
        frames = np.arange(scene.frame_start, scene.frame_end + 1, dtype=np.float64)
    # Seconds times the frame rate land next to the frame they stand for (5.999999999999999
    # for frame 6): snapped to the nearest 1/65536 frame when within a millionth of it.
    snapped = np.round(frames * 65536.0) / 65536.0
    frames = np.where(np.abs(snapped - frames) < 1e-6, snapped, frames)
    return CacheSamples(con.name, path, fmt, con.object_path, np.unique(frames), how)


def _check_in_scene(obj, scene) -> None:
    owner = _owner(obj)
    if scene.objects.get(owner.name) is None:
        raise CacheError(f"{_who(obj)} is not in the scene \"{scene.name}\", so Blender does "
                         "not play its Transform Cache there; link it to the scene first.")


def played_matrices(objects, frames, scene=None, with_parents: bool = False):
    """Blender's playback: (n, 4, 4) world matrices of each object in ``objects`` at
    ``frames`` (n,), read with ``scene.frame_set`` (subframes included) and
    ``matrix_world``. With ``with_parents``, also each object's parent part at those
    frames (its parent's world matrix times ``matrix_parent_inverse``; the identity
    without a parent): what the object's own channels are composed with.

    The current frame and subframe are put back in ``finally``. Returns a list of
    (n, 4, 4) arrays (pairs with ``with_parents``), one per object.
    """
    scene = scene or bpy.context.scene
    owners = [_owner(o) for o in objects]
    for obj in objects:
        _check_in_scene(obj, scene)
    frames = np.asarray(frames, dtype=np.float64).ravel()
    out = [np.empty((frames.size, 4, 4)) for _ in owners]
    parents = [np.empty((frames.size, 4, 4)) for _ in owners] if with_parents else None
    saved = (scene.frame_current, scene.frame_subframe)
    whole = np.floor(frames)
    try:
        for i, (f, w) in enumerate(zip(frames.tolist(), whole.tolist())):
            scene.frame_set(int(w), subframe=f - w)
            for j, owner in enumerate(owners):
                out[j][i] = np.array(owner.matrix_world, dtype=np.float64)
                if with_parents:
                    parents[j][i] = (np.array(owner.parent.matrix_world, dtype=np.float64)
                                     @ np.array(owner.matrix_parent_inverse, dtype=np.float64)
                                     if owner.parent is not None else np.eye(4))
    finally:
        scene.frame_set(saved[0], subframe=saved[1])
    return list(zip(out, parents)) if with_parents else out


def matrices_to_quats(matrices, what: str) -> np.ndarray:
    """(n, 4) unit orientations of (n, 4, 4) matrices (scale removed), each in the
    hemisphere of the previous one."""
    try:
        return quat.make_continuous(rotation.matrix_to_quat(np.asarray(matrices)[:, :3, :3]))
    except ValueError as exc:
        raise CacheError(f"{what}: the cached transform is no rotation ({exc}).") from None


def refined_times(times, quats, played) -> tuple[np.ndarray, np.ndarray]:
    """``times`` (n,) and ``quats`` (n, 4) with more playback samples (``played(t)`` ->
    (m, 4)) wherever two neighbours are more than TRACK_STEP_DEG apart, until none is
    (at most MAX_REFINE rounds)."""
    for _ in range(MAX_REFINE):
        steps = np.degrees(quat.angle_between(quats[:-1], quats[1:]))
        far = np.nonzero(steps > TRACK_STEP_DEG)[0]
        if far.size == 0:
            break
        mid = 0.5 * (times[far] + times[far + 1])
        times = np.concatenate((times, mid))
        quats = np.concatenate((quats, played(mid)))
        order = np.argsort(times, kind="stable")
        times, quats = times[order], quat.make_continuous(quats[order])
    return times, quats


@contextlib.contextmanager
def unmuted(con):
    """Play a muted constraint for the length of a ``with`` block, muted again after it."""
    was = con.mute
    con.mute = False
    try:
        yield con
    finally:
        con.mute = was
