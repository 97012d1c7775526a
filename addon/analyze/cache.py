# SPDX-License-Identifier: GPL-3.0-or-later
"""The Difference Report of a transform a Transform Cache constraint moves (USD and
Alembic imports): Blender's playback of the cache compared with the method's
interpolation of the cache's own samples.

The keys are the file's samples (``animdata.cache.sample_frames``); the
orientations are what Blender plays there and in between, read with
``frame_set`` + ``matrix_world``, less the parent's part (the object's own space, as its
channels play; subframes included: every quarter frame, and the middle of every sample
interval). ``core.analysis`` then
compares the two as for keyed channels, so the result reads like any other
object's (panel, JSON, HTML, command line), with ``cache`` saying where the
samples came from (JSON ``transform_cache``).
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np

from ...core.words import counted

if TYPE_CHECKING:
    from ...core import analysis as core_analysis

# Frames and subframes Blender is asked to play for one report (frame_set costs
# ~0.15 ms on an empty scene, more on a real one): about half a minute.
MAX_PLAYBACK_FRAMES = 200_000

# Between the samples the playback is compared at this spacing (frames), and at
# the middle of every sample interval (samples on quarter frames already).
SUBFRAME_STEP = 0.25


def compared_frames(samples: np.ndarray) -> np.ndarray:
    """The samples, every quarter frame between the first and the last, and the middle of
    each sample interval: where Blender's playback and the method are compared."""
    samples = np.asarray(samples, dtype=np.float64)
    if samples.size < 2:
        return samples.copy()
    start, end = samples[0], samples[-1]
    grid = np.arange(np.ceil(start / SUBFRAME_STEP), np.floor(end / SUBFRAME_STEP) + 1.0)
    mids = 0.5 * (samples[:-1] + samples[1:])
    return np.unique(np.concatenate((samples, grid * SUBFRAME_STEP, mids)))


def playback_cap(who: str, first: float, last: float, count: int) -> str:
    """Why a cache spanning ``first``..``last`` (``count`` frames to play) is refused, or
    ""."""
    if count <= MAX_PLAYBACK_FRAMES:
        return ""
    from .. import animdata

    return (f"{who}: its Transform Cache spans frames {animdata.frame_label(first)} to "
            f"{animdata.frame_label(last)}, {count:,} frames and subframes to play, more "
            f"than the {MAX_PLAYBACK_FRAMES:,} QuatBake plays for one object. Shorten the "
            "scene's range or the cache (Cache File: frame offset, or a shorter export).")


def describe(samples, compared: int) -> str:
    """The finding that says where the keys come from."""
    from .. import animdata

    frames = samples.frames
    span = (f"frames {animdata.frame_label(frames[0])} to {animdata.frame_label(frames[-1])}"
            if frames.size > 1 else f"frame {animdata.frame_label(frames[0])}")
    steps = np.unique(np.round(np.diff(frames), 6)) if frames.size > 1 else np.zeros(0)
    every = (f", every {steps[0]:g} frame{'' if steps[0] == 1 else 's'}"
             if steps.size == 1 else "")
    text = (f"Plays Transform Cache \"{samples.constraint}\" ({os.path.basename(samples.path)}"
            f", {samples.format} {samples.object_path}): {counted(frames.size, 'sample')}, {span}"
            f"{every}; Blender's playback of the cache is compared with the method at "
            f"{compared} frames and subframes")
    if samples.how != "file":
        text += f" ({samples.how})"
    return text


def analyze_cache(obj, method: str = "slerp", turns: str = "AUTO", timing: str = "EVEN",
                  con=None) -> core_analysis.ObjectAnalysis:
    """Compare Blender's playback of ``obj``'s Transform Cache with ``method`` on the
    cache's samples. ``con``: the constraint (the one playing when None; a muted one
    plays for the reading, the analysis of what a cache bake replaced).

    Raises animdata.cache.CacheError (an animdata.ChannelError) naming the object for a
    cache that cannot be read, or one that spans more than MAX_PLAYBACK_FRAMES.
    """
    from ...core import analysis as core_analysis
    from ...core import quat, rotation
    from .. import animdata
    from ..animdata import cache as anim_cache

    con = con if con is not None else anim_cache.playing_cache(obj)
    who = f"Object \"{obj.name}\""
    samples = anim_cache.sample_frames(obj, con)
    keys = samples.frames
    frames = compared_frames(keys)
    refused = playback_cap(who, keys[0], keys[-1], frames.size)
    if refused:
        raise anim_cache.CacheError(refused, obj.name)
    mode = obj.rotation_mode
    with anim_cache.unmuted(con):
        matrices = _basis(*anim_cache.played_matrices([obj], frames, with_parents=True)[0])
        quats = anim_cache.matrices_to_quats(matrices, who)

        def played(times):
            return anim_cache.matrices_to_quats(
                _basis(*anim_cache.played_matrices([obj], times, with_parents=True)[0]), who)

        # A USD Euler op interpolated linearly can turn far between two samples: sample
        # the playback more densely there, so core.turns follows the turn.
        dense_t, dense_q = anim_cache.refined_times(frames, quats, played)
    # The channel values a bake would write in the object's mode, continuous along
    # what Blender plays: the keyed-turn rule (core.turns.classify) and the gimbal check
    # read them. Blender plays delta @ rotation, so the channels are the delta's inverse
    # times the orientation, as the bake writes them (a review: with a delta rotation
    # the gimbal check read other angles than the bake's).
    delta = animdata.evaluate_delta_rotation(obj, dense_t, mode)
    channel_q = quat.make_continuous(quat.multiply(quat.conjugate(delta), dense_q))
    dense_raw = rotation.quat_to_mode_values_continuous(channel_q, mode)
    at_frames = np.searchsorted(dense_t, frames)
    raw = dense_raw[at_frames]
    at_keys = np.searchsorted(frames, keys)
    positions = matrices[:, :3, 3].copy()
    result = core_analysis.analyze_object(
        obj.name, mode, frames, quats, keys, quats[at_keys], method,
        raw_values=raw, key_raw=raw[at_keys], positions=positions,
        key_positions=positions[at_keys], location_key_frames=keys,
        turns_setting=turns, timing=timing,
        turn_samples=(dense_t, dense_q) if dense_t.size > frames.size else None,
        recorded=_recording(samples))
    result.bone = ""
    result.channels = []
    result.cache = {"constraint": samples.constraint, "file": os.path.basename(samples.path),
                    "format": samples.format, "object_path": samples.object_path,
                    "samples": int(keys.size), "sample_times": samples.how}
    # Where the keys come from asks for nothing: a note (a real-file walk: it alone made a
    # cache camera "to check" at 0.00 deg, its advice "nothing to do").
    found = describe(samples, int(frames.size))
    result.findings.insert(0, found)
    result.notes.insert(0, found)
    return result


# An Alembic cache sampled this often or more (per second of the file) is a recording
# whatever the scene's frame rate: a 24 Hz capture read in a 30 fps scene has its samples
# 1.25 frames apart, and was told "re-bake with Constant Speed" (a triage), where read at
# 24 fps it was not. Sparser samples (a camera cached at 8 Hz) keep the timing advice.
RECORDING_HZ = 24.0


def _recording(samples) -> bool:
    """Whether a cache's samples are a recording (core.analysis.Sampled.recorded): an
    Alembic file's at RECORDING_HZ or faster. A USD file's time codes are scene frames,
    whose spacing core judges as it does keys'."""
    if samples.format != "Alembic" or samples.frames.size < 2:
        return False
    import bpy

    fps = bpy.context.scene.render.fps / bpy.context.scene.render.fps_base
    seconds = float(np.median(np.diff(samples.frames))) / fps
    return seconds <= 1.0 / RECORDING_HZ + 1e-9


def _basis(world: np.ndarray, parent: np.ndarray) -> np.ndarray:
    """(n, 4, 4) the object's own part of its world matrices under its parent's part
    (animdata.cache.played_matrices with_parents): the orientation and place its channels
    play, delta included, as every keyed transform is analysed and as a cache bake writes
    them. In world space (a USD camera under a parent turned 90 deg) the report of a Key
    Tolerance bake compared the keys with the cache 90 deg apart, and its gimbal finding
    read the world's Euler angles, not the channels'."""
    return np.linalg.inv(parent) @ world


def cache_analysis(obj, method: str, turns: str, timing: str, original: bool):
    """``engine.analyze_object``'s hook: the analysis of ``obj``'s Transform Cache
    when one moves it (``original``: the cache a QuatBake bake turned into keys, played
    for the reading), or None when ``obj`` is analysed from its channels."""
    from .. import record
    from ..animdata import cache as anim_cache

    if original:
        name = record.cache_baked(obj)
        con = anim_cache.constraint_named(obj, name) if name else None
        if con is None or con.cache_file is None:
            return None
        return analyze_cache(obj, method, turns, timing, con)
    if not anim_cache.plays_cache(obj):
        return None
    return analyze_cache(obj, method, turns, timing)
