# SPDX-License-Identifier: GPL-3.0-or-later
"""The overlay's geometry: sample the objects to draw and build float32 line arrays.

The other half of :mod:`.overlay`, which owns the handlers, the cache, the
draw callback and the panel. Split off because this half needs the
interpolation engine (``core.interp``, ``core.triads``, ``animdata``) and
registering the add-on must not load it: ``overlay`` imports this module on
its first rebuild, i.e. when the overlay is switched on (measured in
benchmarks/bench_register.py). No GPU here: everything runs headless.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core import interp, triads
from . import animdata
from .overlay import Legend

# More samples than this per object is a mistake (a key at frame 1e6), not a path to draw.
MAX_SAMPLES = 100_000

# The line sets of every object, in the order build_overlay returns them; the
# current frame's triad is picked separately (current_arrays).
LINE_SETS = ("ghosts", "long_arc", "kept", "path", "triads")


@dataclass
class Samples:
    """One object's per-frame samples, kept to re-pick the current frame's triad."""

    frames: np.ndarray
    quats: np.ndarray
    positions: np.ndarray
    matrix: np.ndarray | None


@dataclass
class Geometry:
    """What one rebuild produces: the arrays to upload, the samples, the legend."""

    arrays: dict[str, tuple[np.ndarray, np.ndarray]]  # per line set: float32 (N, 3), (N, 4)
    samples: list[Samples]
    legend: Legend


def _is_pinned(obj) -> bool:
    record = getattr(obj, "quatbake", None)
    return bool(record is not None and record.overlay_pinned)


def overlay_objects(view_layer) -> list:
    """Selected or pinned objects of the view layer that have rotation or location keys."""
    if view_layer is None:
        return []
    found = []
    for obj in view_layer.objects:
        if not (obj.select_get(view_layer=view_layer) or _is_pinned(obj)):
            continue
        fcurves = (animdata.rotation_fcurves(obj) + animdata.location_fcurves(obj)
                   + animdata.delta_rotation_fcurves(obj) + animdata.delta_location_fcurves(obj))
        if any(fc is not None and len(fc.keyframe_points) for fc in fcurves):
            found.append(obj)
    return found


def _sample_frames(keys: np.ndarray) -> np.ndarray:
    """Every whole frame across the keyed range, plus subframe keys themselves."""
    start, end = np.floor(keys[0]), np.ceil(keys[-1])
    if end - start + 1 > MAX_SAMPLES:
        raise ValueError(
            f"the keys span {end - start:.0f} frames (frames {start:.0f} to {end:.0f}); "
            f"the overlay draws at most {MAX_SAMPLES} frames. Delete the stray key."
        )
    return np.union1d(np.arange(start, end + 1.0), keys)


def _original_channels(obj):
    """(fcurves, rotation mode) of the action a QuatBake bake replaced, or None.

    Only while the baked action is the one playing: after a revert, or if the
    user assigned another action, the object is treated as not baked.
    """
    record = getattr(obj, "quatbake", None)
    if record is None or record.original_action is None or record.baked_action is None:
        return None
    if animdata.get_action(obj) != record.baked_action:
        return None
    fcurves = animdata.action_fcurves(record.original_action, record.original_slot)
    return fcurves, record.original_rotation_mode or obj.rotation_mode


def interval_kinds(obj, frames, playing, rot_keys, mode=None, fcurves=None) -> tuple | None:
    """(core.turns kinds of ``obj``'s key intervals, their tracking), or None with
    fewer than two keys. ``playing``: the orientations at ``frames`` (keys included)."""
    from ..core import turns
    from . import turn_inputs

    if rot_keys.size < 2:
        return None
    mode = mode or obj.rotation_mode
    # The keyed channels: the regular ones, or the delta ones when only those move
    # (a BVH object import); their values decide spin against wrap, and steps.
    keyed_fcs = animdata.rotation_fcurves(obj, mode, fcurves)
    defaults = animdata.rotation_defaults(obj, mode)
    if not animdata.has_keys(keyed_fcs):
        keyed_fcs = animdata.delta_rotation_fcurves(obj, mode, fcurves)
        defaults = animdata.delta_rotation_defaults(obj, mode)
    key_raw = animdata.evaluate_channels(keyed_fcs, defaults, rot_keys)
    key_quats = playing[np.searchsorted(frames, rot_keys)]
    tracking = turn_inputs.track(obj, mode, fcurves, rot_keys, key_quats, key_raw)
    stepped = turn_inputs.stepped_intervals(keyed_fcs, rot_keys)
    return turns.classify(mode, key_raw, tracking.differs, stepped), tracking


def object_samples(obj, method: str, turns: str = "AUTO", timing: str = "EVEN"):
    """(frames, ours, Blender's, positions, rotation key frames) of one object: see
    object_samples_with_kinds, which also returns the key intervals' kinds."""
    return object_samples_with_kinds(obj, method, turns, timing)[:5]


def object_samples_with_kinds(obj, method: str, turns: str = "AUTO", timing: str = "EVEN"):
    """(frames, ours, Blender's, positions, rotation key frames, interval kinds).

    Not baked: "ours" is ``method`` applied to the orientations at the rotation
    keys (a preview of the bake), "Blender's" the action as it plays.
    Baked by QuatBake: "ours" is the action as it plays (QuatBake's keys,
    replayed exactly) and "Blender's" is Blender's own interpolation of the
    original keys, which are also the key poses drawn larger. The preview
    follows ``turns`` and ``timing`` as a bake would (kept spins, steps).
    """
    from ..core import turn_interp

    original = _original_channels(obj)
    # Orientations are what Blender composes: delta rotation @ rotation.
    if original is None:
        rot_keys = animdata.orientation_key_frames(obj)
    else:
        fcurves, mode = original
        rot_keys = animdata.orientation_key_frames(obj, mode, fcurves)
    loc_keys = animdata.key_frames(animdata.location_fcurves(obj)
                                   + animdata.delta_location_fcurves(obj))
    frames = _sample_frames(np.union1d(rot_keys, loc_keys))
    positions = animdata.evaluate_full_location(obj, frames)
    playing = animdata.evaluate_orientation(obj, frames)
    if original is not None:
        fcurves, mode = original
        blender = animdata.evaluate_orientation(obj, frames, mode, fcurves)
        found = interval_kinds(obj, frames, blender, rot_keys, mode, fcurves)
        return frames, playing, blender, positions, rot_keys, found and found[0]
    kinds = None
    if rot_keys.size:
        # The samples include every key frame: the orientations at the keys are
        # already evaluated, no second pass over the F-curves.
        key_quats = playing[np.searchsorted(frames, rot_keys)]
        found = interval_kinds(obj, frames, playing, rot_keys)
        if found is None:
            ours = interp.interpolate(rot_keys, key_quats, frames, method=method.lower())
        else:
            kinds, tracking = found
            if timing == "KEYED":
                tracking = _with_frames(obj, rot_keys, key_quats)
            ours = turn_interp.interpolate_keys(rot_keys, key_quats, tracking, kinds, turns,
                                                method.lower(), frames, timing, playing)
    else:
        ours = playing
    return frames, ours, playing, positions, rot_keys, kinds


def _with_frames(obj, rot_keys, key_quats):
    """Tracking that includes every whole frame (Timing: Keyed looks progress up there)."""
    from . import turn_inputs

    key_raw = animdata.evaluate_rotation_raw(obj, rot_keys)
    return turn_inputs.track(obj, obj.rotation_mode, None, rot_keys, key_quats, key_raw,
                             extra=_sample_frames(rot_keys))


def long_arc_mask(obj, frames: np.ndarray, blender: np.ndarray, rot_keys: np.ndarray):
    """Per key interval, whether Blender turns the long way, with the spins between
    neighbouring keys sampled (animdata.far_turn_subframes); None when there are none,
    and triads.build_overlay's own check on the per-frame samples is exact."""
    keys = rot_keys[(rot_keys >= frames[0]) & (rot_keys <= frames[-1])] if frames.size else rot_keys
    original = _original_channels(obj)
    fcurves, mode = original if original is not None else (None, None)
    extra = animdata.far_turn_subframes(obj, keys, mode, fcurves)
    extra = extra[~np.isin(extra, frames)]
    if extra.size == 0:
        return None
    t = np.concatenate([frames, extra])
    q = np.concatenate([blender, animdata.evaluate_orientation(obj, extra, mode, fcurves)])
    order = np.argsort(t, kind="stable")
    return triads.long_arc_intervals(t[order], q[order], keys)


def _world_matrix(obj) -> np.ndarray | None:
    """The parent's transform applied to the channels (None when unparented)."""
    if obj.parent is None:
        return None
    return np.array(obj.parent.matrix_world @ obj.matrix_parent_inverse, dtype=np.float64)


def _float32_arrays(lines: list[triads.LineSet]) -> tuple[np.ndarray, np.ndarray]:
    """Join line sets into the contiguous float32 (points, colours) the GPU batch takes."""
    joined = triads.LineSet.join(lines)
    return (
        np.ascontiguousarray(joined.points, dtype=np.float32),
        np.ascontiguousarray(joined.colors, dtype=np.float32),
    )


def build(view_layer, settings) -> Geometry:
    """Sample every object to draw and build the line arrays and the legend.

    ``settings`` is ``scene.quatbake`` (None: nothing to draw). An object whose
    keys cannot be read is skipped and named in ``Legend.problems``.
    """
    legend = Legend()
    parts: dict[str, list[triads.LineSet]] = {name: [] for name in LINE_SETS}
    samples: list[Samples] = []
    if settings is None:
        return Geometry({key: _float32_arrays(lines) for key, lines in parts.items()}, samples, legend)
    collected = []
    masks = {}
    for obj in overlay_objects(view_layer):
        try:
            frames, ours, blender, positions, rot_keys, kinds = object_samples_with_kinds(
                obj, settings.method, settings.turns, settings.timing)
            masks[obj.name] = long_arc_mask(obj, frames, blender, rot_keys)
        except ValueError as exc:  # ChannelError is a ValueError: a broken key
            legend.problems.append(f"{obj.name}: {exc}")
            continue
        collected.append((obj.name, frames, ours, blender, positions, rot_keys, kinds,
                          _world_matrix(obj)))
    # One legend for all objects, so equal colours mean equal speeds.
    speeds = [triads.angular_speed(c[2], c[1]) for c in collected if c[1].size > 1]
    speed_max = max((triads.legend_max(s) for s in speeds), default=triads.MIN_LEGEND_SPEED)
    step = max(1, int(settings.overlay_step))
    for name, frames, ours, blender, positions, rot_keys, kinds, matrix in collected:
        geometry = triads.build_overlay(
            frames, ours, positions, rot_keys,
            step=step, size=float(settings.overlay_size),
            ghost_quats=blender if settings.overlay_show_ghost else None,
            long_arc_quats=blender, speed_max=speed_max, interval_kinds=kinds,
            long_arc_mask=masks.get(name),
        )
        for key in LINE_SETS:
            lines = getattr(geometry, key)
            parts[key].append(lines if matrix is None else lines.transformed(matrix))
        legend.long_arc_count += geometry.long_arc_count
        legend.spin_count += geometry.spin_count
        legend.step_count += geometry.step_count
        legend.objects.append(name)
        samples.append(Samples(frames, ours, positions, matrix))
    legend.speed_max = speed_max if collected else 0.0
    return Geometry({key: _float32_arrays(lines) for key, lines in parts.items()}, samples, legend)


def current_arrays(samples: list[Samples], frame: float, size: float) -> tuple[np.ndarray, np.ndarray]:
    """Float32 (points, colours) of every object's emphasised triad at ``frame`` (frames, may be fractional)."""
    lines = []
    for s in samples:
        cur = triads.current_triad(s.frames, s.quats, s.positions, frame, size)
        lines.append(cur if s.matrix is None else cur.transformed(s.matrix))
    return _float32_arrays(lines)

