# SPDX-License-Identifier: GPL-3.0-or-later
"""Export objects with Blender's own glTF exporter and check what a player will play.

1. ``bpy.ops.export_scene.gltf`` writes the scene (or the objects asked for)
   as ``GLTF_SEPARATE`` into a temporary folder, with the exporter's defaults
   or the options given.
2. ``core.gltf_read`` reads the file back; ``core.gltf_pose`` evaluates every
   node per the glTF 2.0 spec at each frame (time = frame / fps, when
   Blender plays it; see ``exporter_seconds_per_frame`` for fps_base != 1)
   and composes world matrices through the node tree.
3. ``core.gltf_axes`` maps them back into Blender's Z-up space (undoing
   ``export_yup`` and the exporter's 90-degree turn of cameras and lights),
   and ``core.export_compare`` compares them with Blender's own playback
   (``scene.frame_set`` + ``matrix_world``: drivers, constraints, NLA and
   parents included), frame by frame, and names the cause per key interval.

Objects whose rotation keys are Bezier are compared at every quarter frame
too (what motion blur samples, and what a tolerance bake with ``--keys
bezier`` guarantees): the exporter writes them as CUBICSPLINE from the
handles' slopes alone (sampling off) or samples them into a key per frame,
and the check says, with the figures of both, when Linear keys would play
better in the engine (``core.export_compare.linear_alternative``).

Comparing world matrices makes "what the engine shows" the measure: a child
follows its parent in both. Its causes are found on its own motion, relative to
the node above it on both sides, so a parent that plays off is blamed once
(``inherited`` below it). An armature's keyed pose bones are compared at the
joint nodes the exporter writes them as. The exported file never touches the .blend;
the current frame and the selection are put back afterwards.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from dataclasses import dataclass, replace

import bpy
import numpy as np

from ...core import export_compare, gltf_axes, gltf_pose, gltf_read, interp, quat
from ...core.frames import label
from ...core.words import counted
from ...report.export_check_report import SCHEMA
from .. import animdata, record
from ..transform import AnimatedTransform, keyed_bone_names
from . import timing, unplayed
from .exporter import (
    ExportCheckError,
    default_options,
    export_gltf,
    exporter_properties,
    exporter_version,
    negative_frames,
    written_bytes,
)

# frame_set per frame evaluates the whole scene: cap the range like a bake.
MAX_CHECK_FRAMES = 100_000

# Exported key times are float32 seconds: k / fps comes back a few 1e-8
# frames off k; key frames are rounded to this many decimals.
KEY_FRAME_DECIMALS = 4


# --------------------------------------------------------------------------
# Blender's playback


def check_frames(scene, key_frames) -> np.ndarray:
    """Whole frames covering the scene's range and every exported key."""
    start, end = scene.frame_start, scene.frame_end
    if len(key_frames):
        start = min(start, int(np.floor(min(key_frames))))
        end = max(end, int(np.ceil(max(key_frames))))
    if end - start + 1 > MAX_CHECK_FRAMES:
        raise ExportCheckError(
            f"The frames to check run from {start} to {end}, more than "
            f"{MAX_CHECK_FRAMES:,} frames; shorten the scene's frame range or "
            "the keys."
        )
    return np.arange(start, end + 1, dtype=np.float64)


def blender_world(scene, transforms, frames) -> dict:
    """display name ("Cube", "Rig: arm") -> Blender's world matrices (m, 4, 4) at
    ``frames`` of ``transforms`` (``transform.AnimatedTransform``: objects and pose bones;
    frame_set, frame restored)."""
    out = {t.display_name: np.empty((frames.shape[0], 4, 4)) for t in transforms}
    frame, subframe = scene.frame_current, scene.frame_subframe
    try:
        for i, f in enumerate(frames):
            scene.frame_set(int(f))
            for t in transforms:
                out[t.display_name][i] = t.world_matrix()
    finally:
        scene.frame_set(frame, subframe=subframe)
    return out


def blender_world_at(scene, transform, frames) -> np.ndarray:
    """Blender's world matrices (n, 4, 4) of ``transform`` (an object's or a pose bone's
    ``AnimatedTransform``) at (sub)frames (frame_set; restored)."""
    out = np.empty((len(frames), 4, 4))
    frame, subframe = scene.frame_current, scene.frame_subframe
    try:
        for i, f in enumerate(frames):
            whole = int(np.floor(f))
            scene.frame_set(whole, subframe=float(f - whole))
            out[i] = transform.world_matrix()
    finally:
        scene.frame_set(frame, subframe=subframe)
    return out


# Bezier rotation keys are compared at this many samples per frame (quarter
# frames: motion blur's samples, and what a Bezier tolerance bake guarantees).
BEZIER_SAMPLES_PER_FRAME = 4


def bezier_keys_of(obj):
    """(keys, [(co, handle_left, handle_right)], constant spans) of the object's rotation
    F-curves when any of their keys is BEZIER, else None. Arrays (k, 2): frame,
    value; constant spans: (start, end) frames of every CONSTANT key (Blender holds
    it until the next key's frame)."""

    try:
        # The delta rotation's too: Blender plays delta @ rotation, and the BVH importer
        # keys objects on delta_rotation_euler (a pipeline walk: its in-frame wraps were
        # judged at whole frames only, "plays as in Blender", where rotation_euler's read
        # turn_lost, 180 deg off).
        curves = [fc for fc in animdata.rotation_fcurves(obj)
                  + animdata.delta_rotation_fcurves(obj) if fc is not None]
    except (KeyError, AttributeError):
        return None
    if not curves or not any(k.interpolation == 'BEZIER' for fc in curves
                             for k in fc.keyframe_points):
        return None
    channels = []
    spans = set()
    for fc in curves:
        n = len(fc.keyframe_points)
        arrays = []
        for name in ("co", "handle_left", "handle_right"):
            buf = np.empty(2 * n, dtype=np.float32)
            fc.keyframe_points.foreach_get(name, buf)
            arrays.append(buf.reshape(n, 2).astype(np.float64))
        channels.append(tuple(arrays))
        co = arrays[0]
        for i, kp in enumerate(fc.keyframe_points):
            if kp.interpolation == 'CONSTANT' and i + 1 < n:
                spans.add((float(co[i, 0]), float(co[i + 1, 0])))
    return max(len(fc.keyframe_points) for fc in curves), channels, sorted(spans)


def quarter_frames(frames) -> np.ndarray:
    """Every quarter frame from the first of ``frames`` to the last (whole frames included)."""
    step = 1.0 / BEZIER_SAMPLES_PER_FRAME
    return np.arange(frames[0], frames[-1] + 0.5 * step, step)


def blender_world_quarters(scene, objects, frames, whole_m: dict) -> tuple[np.ndarray, dict]:
    """(samples, name -> world matrices there): Blender's playback of ``objects`` at every
    quarter frame, the whole frames taken from ``whole_m`` (``blender_world`` on
    ``frames``), the subframes by one pass of frame_set (frame restored)."""
    samples = quarter_frames(frames)
    on_whole = np.searchsorted(frames, samples)
    whole = np.abs(samples - np.round(samples)) < 1e-9
    out = {}
    for o in objects:
        m = np.empty((samples.shape[0], 4, 4))
        m[whole] = whole_m[o.display_name][on_whole[whole]]
        out[o.display_name] = m
    sub = np.flatnonzero(~whole)
    frame, subframe = scene.frame_current, scene.frame_subframe
    try:
        for i in sub:
            f = samples[i]
            base = int(np.floor(f))
            scene.frame_set(base, subframe=float(f - base))
            for o in objects:
                out[o.display_name][i] = o.world_matrix()
    finally:
        scene.frame_set(frame, subframe=subframe)
    return samples, out


def _key_deviation(obj, node, doc, channels, key_times, fps, exporter_spf: float, yup,
                   corrected, parent: "Parent | None" = None) -> np.ndarray | None:
    """Deviation (degrees) of each exported key (its own time in the file, ``key_times``)
    from Blender's pose at the frame the exporter wrote it for (time / ``exporter_spf``),
    when the keys fall between Blender's frames as an engine plays them (relative to
    ``parent``'s node on both sides, when given).

    A player plays the key itself there, so a deviation is a wrong key value. Where the
    engine's clock is not the exporter's (29.97 fps: io_scene_gltf2 writes f / (fps *
    fps_base)), the keys are still the right poses, at other times: timing, not a wrong
    key (a walk read every interval there as 'key_mismatch').
    On whole frames the per-frame comparison already has it (None).
    """
    played_frames = key_times * fps
    if np.all(np.abs(played_frames - np.round(played_frames)) < export_compare.KEY_FRAME_MATCH):
        return None
    scene = bpy.context.scene
    key_frames = np.round(key_times / exporter_spf, KEY_FRAME_DECIMALS)
    blender = blender_world_at(scene, obj, key_frames)
    player = _played(doc, node, key_times, channels, yup, corrected)
    if parent is not None:
        blender, collapsed_b = _relative(blender_world_at(scene, parent.entity, key_frames),
                                         blender)
        player, collapsed_p = _relative(_played(doc, parent.node, key_times, channels,
                                                yup, parent.corrected), player)
        blender[collapsed_b | collapsed_p] = player[collapsed_b | collapsed_p] = np.eye(4)
    if not np.isfinite(blender).all():
        return None
    qb, qp, _lb, _lp = _orientations(blender, player)
    return np.degrees(quat.angle_between(qb, qp))


# --------------------------------------------------------------------------
# The check


def _object_channels(doc, node: int, action_name: str | None, skip: dict) -> tuple[dict, str]:
    """The channels that drive ``node``: the animation named after the object's action first.

    ``skip`` ({node: animation names}, ``unplayed.animations``) leaves out, on each
    node, the animations of NLA clips Blender does not play there.
    """
    names = [a.name for a in doc.animations]
    order = ([action_name] if action_name in names else []) + [n for n in names if n != action_name]
    channels = gltf_pose.channel_map(doc, order, skip)
    anim = next(
        (
            name
            for name in order
            if name not in skip.get(node, ())
            and any(ch.node == node for a in doc.animations if a.name == name for ch in a.channels)
        ),
        "",
    )
    return channels, anim


def _tolerance_of(obj) -> tuple[float, str]:
    """(Key Tolerance in degrees, 'bake' or 'default'): the tolerance the object's QuatBake
    bake was made with, else export_compare.DEFAULT_TOLERANCE_DEG."""
    made = record.bake_made(obj)
    if made is not None and made[1] > 0.0:
        return made[1], "bake"
    return export_compare.DEFAULT_TOLERANCE_DEG, "default"


def _interval_rows(comparison) -> list:
    return [
        {
            "frames": list(iv.frames),
            "cause": iv.cause,
            "max_deviation_deg": iv.max_deviation_deg,
            "worst_frame": iv.worst_frame,
            "blender_turn_deg": iv.blender_turn_deg,
            "player_turn_deg": iv.player_turn_deg,
            "key_angle_deg": iv.key_angle_deg,
        }
        for iv in comparison.intervals
    ]


def _cause_counts(comparison) -> dict:
    causes: dict = {}
    for iv in comparison.intervals:
        causes[iv.cause] = causes.get(iv.cause, 0) + 1
    return causes


def _bezier_entry(obj, bezier, comparison, qb, interpolation: str, key_count: int,
                  clock: float = 1.0) -> dict:
    """The ``bezier`` block of an object with Bezier rotation keys: how the exporter
    wrote them, how the engine plays them at every quarter frame (``comparison``,
    with Blender's orientations ``qb`` there), and the Linear keys that would play
    instead (computed from Blender's playback, ``export_compare.linear_alternative``,
    played on the exporter's clock: ``clock``, the keys' frame at Blender's frame 1)."""
    blender_keys, _channels, constant_spans = bezier
    how = export_compare.exported_as(interpolation, key_count, blender_keys)
    exported_bytes = key_count * export_compare.KEY_BYTES.get(interpolation, 20)
    tolerance, source = _tolerance_of(obj)
    if how == "sampled":
        comparison = export_compare.sampled_causes(comparison, constant_spans)
    causes = _cause_counts(comparison)
    out = {
        "blender_keys": int(blender_keys),
        "exported_as": how,
        "samples_per_frame": BEZIER_SAMPLES_PER_FRAME,
        "rotation_bytes": int(exported_bytes),
        "max_deviation_deg": comparison.max_deviation_deg,
        "worst_frame": comparison.worst_frame,
        "causes": causes,
        "intervals": _interval_rows(comparison),
        "tolerance_deg": float(tolerance),
        "tolerance_from": source,
        "linear": None,
        "linear_is_better": False,
        "advice": export_compare.advice(causes, comparison.max_deviation_deg,
                                        sampling_ok=how != "sampled", mode=obj.rotation_mode),
        "per_sample": {"frame": comparison.frames, "deviation_deg": comparison.deviation_deg},
    }
    try:
        written = export_compare.linear_mode(obj.rotation_mode)
        alt = export_compare.linear_alternative(comparison.frames, qb, tolerance, written,
                                                clock)
    except ValueError:
        return out
    out["linear"] = {
        "keys": alt.keys,
        "tolerance_deg": alt.tolerance_deg,
        "max_deviation_deg": alt.max_deviation_deg,
        "max_deviation_quarter_deg": alt.max_deviation_quarter_deg,
        "animation_bytes": alt.animation_bytes,
    }
    if constant_spans:
        # io_scene_gltf2 samples a channel whose keys mix interpolations (needs_baking):
        # a Linear bake keeps the stepped keys CONSTANT too, so it would be sampled alike.
        out["why_not_linear"] = (
            "Linear keys would not help: the object has stepped (Constant) keys, and the "
            "exporter samples every channel that mixes Constant keys with Linear or Bezier "
            "ones into a key per frame, whichever keys the bake writes.")
        return out
    rebake = _linear_rebake(obj, written, alt.tolerance_deg)
    if rebake is None:
        out["why_not_linear"] = (
            "Linear keys are advised for a QuatBake bake, which a Re-bake with Keys: "
            "Linear makes again: keys made by hand or converted play a motion no bake "
            "keeps (a Re-bake takes the short arcs and its own timing).")
        return out
    if export_compare.linear_is_better(how, comparison.max_deviation_deg, key_count,
                                       exported_bytes, alt):
        out["linear_is_better"] = True
        out["advice"] = export_compare.advice(
            causes, comparison.max_deviation_deg, then=export_compare.linear_advice(
                how, key_count, exported_bytes, comparison.max_deviation_deg, blender_keys,
                alt, rebake),
            sampling_ok=how != "sampled",   # sampled: it asks to export without
            mode=obj.rotation_mode)
    return out


def _linear_rebake(obj, mode: str, tolerance_deg: float) -> tuple[str, str] | None:
    """(the panel's words, the command line) of the Re-bake that writes the Linear keys
    export_compare.linear_alternative computes from what ``obj`` plays: its own QuatBake
    bake again (a re-bake starts from the keys before it), with its method, Turns, Timing
    and Constant Speed, Keys: Linear, in ``mode`` (linear_mode), for ``obj`` alone. None
    where no bake makes them: keys made by hand (a Re-bake of them takes the short arcs
    and evens the timing: another motion, 38 deg away on a review's swing), a conversion
    (it follows Blender's playback with Bezier keys, which no bake does) and a record too
    old to say how its bake was made. Reviews: the command named no object (it re-baked
    every object of the file), or a bake's Turns and Timing (its re-bake moved 177 deg)."""
    made, path = record.bake_made(obj), record.bake_path(obj).split()
    if made is None or made[0] not in interp.METHODS or len(path) < 2:
        return None     # (a conversion's method is "playback")
    method, turns, timing = made[0], path[0].lower(), path[1].lower()
    words = [f"Key Tolerance {tolerance_deg:g}", "Keys: Linear"]
    command = ["quatbake bake", _target_option(obj), f"--tolerance {tolerance_deg:g}",
               "--keys linear", f"--method {method}"]
    if (turns, timing) != ("auto", "even"):
        words.append(f"Turns: {turns.title()}, Timing: {timing.title()}")
        command += [f"--turns {turns}", f"--timing {timing}"]
    if "CONSTANT_SPEED" in path:
        words.append("Constant Speed")
        command.append("--constant-speed")
    if mode != obj.rotation_mode:
        words.append("Output: Quaternion (the exporter writes "
                     f"{obj.rotation_mode} keys wrong unsampled)")
        command.append("--rotation-mode quaternion")
    return ", ".join(words), " ".join(command)


def _target_option(obj) -> str:
    """``--objects NAME`` or ``--bones RIG:BONE`` for the command line, escaped as it reads
    names (a backslash before a comma, a colon or a backslash) and quoted for the shell."""
    import shlex

    def escaped(name: str, colon: bool) -> str:
        out = name.replace("\\", "\\\\").replace(",", "\\,")
        return out.replace(":", "\\:") if colon else out

    bone = getattr(obj, "bone_name", "")
    if bone:
        return "--bones " + shlex.quote(f"{escaped(obj.owner.name, True)}:{escaped(bone, False)}")
    return "--objects " + shlex.quote(escaped(obj.name, False))


def _turned_by_exporter(doc, node: int, obj) -> bool:
    """Whether the exporter turns the node -90 deg about X with Y-up: cameras, lights and
    the joints of pose bones (measured on 3.4.1 and 5.0.1: a bone's joint node plays its
    world matrix times that turn, constant over time; core.gltf_axes)."""
    return doc.nodes[node].is_camera or doc.nodes[node].is_light \
        or obj.is_bone


@dataclass(frozen=True)
class Parent:
    """The node above a node in the file, for the comparison of its own motion: what
    Blender plays there (an object's or a pose bone's ``AnimatedTransform``), the node's
    index, Blender's world matrices of it at the frames compared, and whether the
    exporter turned it."""

    entity: object
    node: int
    blender_m: np.ndarray
    corrected: bool

    @property
    def label(self) -> str:
        """Its entry's name: "Rig", "Rig: root"."""
        return self.entity.display_name


def _played(doc, node: int, times, channels, yup: bool, corrected: bool) -> np.ndarray:
    """A player's world matrices of ``node`` at ``times`` (seconds), in Blender's space."""
    world = gltf_pose.world_matrices(doc, [node], times, channels)[node]
    return gltf_axes.blender_world_from_gltf(world, yup=yup, corrected=corrected)


def _orientations(blender_m, player_m) -> tuple:
    """(Blender's rotations, the player's, Blender's locations, the player's) of two
    tracks of matrices: export_compare.compare's inputs. Where either is collapsed (a
    part hidden by a zero scale) it has no rotation and shows nothing: both count as the
    identity there, so no deviation is made up."""
    collapsed = _collapsed(blender_m) | _collapsed(player_m)
    if collapsed.any():
        blender_m, player_m = blender_m.copy(), player_m.copy()
        blender_m[collapsed, :3, :3] = player_m[collapsed, :3, :3] = np.eye(3)
    qb, lb = gltf_pose.rotation_and_location(blender_m)
    qp, lp = gltf_pose.rotation_and_location(player_m)
    return qb, qp, lb, lp


# A 3x3 part whose determinant is this small is scaled to (almost) nothing (a prop
# hidden by a zero scale): it has no rotation, no inverse. Unit scale gives 1; a scale
# of 1e-4 on every axis, 1e-12.
COLLAPSED_DET = 1e-12


def _determinants(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """((k,) determinants, (k, 3, 3) adjugates) of the 3x3 parts of (k, 4, 4) ``m``, by
    cross products (no LAPACK: see _relative)."""
    a = m[:, :3, :3]
    c0, c1, c2 = a[:, :, 0], a[:, :, 1], a[:, :, 2]
    adjugate = np.stack([np.cross(c1, c2), np.cross(c2, c0), np.cross(c0, c1)], axis=1)
    return np.einsum("ni,ni->n", c0, adjugate[:, 0]), adjugate


def _collapsed(m: np.ndarray) -> np.ndarray:
    """(k,) bool: the 3x3 part is collapsed (COLLAPSED_DET), or not finite."""
    return ~(np.abs(_determinants(m)[0]) > COLLAPSED_DET)


def _relative(parent_m: np.ndarray, m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """((k, 4, 4) ``m`` in the space of ``parent_m``, inverse(parent) @ m per sample, for
    affine matrices; (k,) bool where the parent is collapsed (COLLAPSED_DET), the result
    the identity there). The 3x3 inverse is written out (adjugate over determinant), not
    LAPACK's: a batched np.linalg.solve took 14 s of a 16 s check of a 55-bone BVH rig
    while a package install ran on the second core (the whole check about 1 s without)."""
    det, adjugate = _determinants(parent_m)
    collapsed = ~(np.abs(det) > COLLAPSED_DET)       # NaN counts as collapsed too
    inverse = adjugate / np.where(collapsed, 1.0, det)[:, None, None]
    out = np.zeros_like(m)
    out[:, :3, :3] = np.einsum("nij,njk->nik", inverse, m[:, :3, :3])
    out[:, :3, 3] = np.einsum("nij,nj->ni", inverse, m[:, :3, 3] - parent_m[:, :3, 3])
    out[:, 3, 3] = 1.0
    out[collapsed] = np.eye(4)
    return out, collapsed


def _comparison(obj, node: int, doc, channels, frames, blender_m, fps, yup,
                exporter_spf: float, bezier=None, parent: Parent | None = None):
    """(comparison, own comparison, Blender's orientations, how far the parent plays off
    ((deg, scene units), or None)) of the engine's playback of the file with Blender's
    (``blender_m``) on ``frames``; without ``parent`` the comparison is its own.

    With ``parent`` (a pose bone's), the figures per frame are the world's (what the engine
    shows), and the causes are found on the bone's own motion, relative to the node above
    it on both sides: a bone whose parent plays off is off by as much in the world, and
    its own keys are not what to fix (``inherited``, _object_entry)."""

    bad = ~np.isfinite(blender_m).all(axis=(1, 2))
    if bad.any():
        frame = frames[int(np.argmax(bad))]
        raise ValueError(
            f"Blender's own playback of it is not finite at frame {label(frame)} (a NaN "
            "or infinite key?); `python -m quatbake report` names the broken key, "
            "fix it first"
        )
    times = frames / fps
    corrected = _turned_by_exporter(doc, node, obj)
    player_m = _played(doc, node, times, channels, yup, corrected)
    other_m = None
    if abs(exporter_spf * fps - 1.0) > 1e-12:
        # The same file on the exporter's own clock: what timing alone explains.
        other_m = _played(doc, node, frames * exporter_spf, channels, yup, corrected)
    world = parent_off = None
    if parent is not None:
        world = export_compare.compare(frames, *_orientations(blender_m, player_m))
        parent_played = _played(doc, parent.node, times, channels, yup, parent.corrected)
        parent_dev = np.degrees(quat.angle_between(
            *_orientations(parent.blender_m, parent_played)[:2]))
        parent_loc = np.linalg.norm(parent.blender_m[:, :3, 3] - parent_played[:, :3, 3], axis=1)
        parent_off = (float(parent_dev.max()) if parent_dev.size else 0.0,
                      float(parent_loc.max()) if parent_loc.size else 0.0)
        blender_m, collapsed_b = _relative(parent.blender_m, blender_m)
        player_m, collapsed_p = _relative(parent_played, player_m)
        # Where either side's parent is collapsed, its own motion counts as played right:
        # the world figures still show what the engine plays there.
        collapsed = collapsed_b | collapsed_p
        blender_m[collapsed] = player_m[collapsed] = np.eye(4)
        if other_m is not None:
            other_m, collapsed_o = _relative(_played(doc, parent.node, frames * exporter_spf,
                                                     channels, yup, parent.corrected), other_m)
            other_m[collapsed_o] = blender_m[collapsed_o]
    qb, qp, lb, lp = _orientations(blender_m, player_m)
    retimed = None
    if other_m is not None:
        retimed = np.degrees(quat.angle_between(*_orientations(blender_m, other_m)[:2]))
    rot = channels.get((node, "rotation"))
    key_frames = key_values = None
    interpolation = ""
    if rot is not None:
        key_frames = np.round(rot.sampler.input * fps, KEY_FRAME_DECIMALS)
        values = rot.sampler.output
        key_values = values[1::3] if rot.sampler.interpolation == "CUBICSPLINE" else values
        interpolation = rot.sampler.interpolation
    shares = None
    if bezier is not None and key_frames is not None and interpolation == "CUBICSPLINE":
        shares = export_compare.handle_shares(key_frames, bezier[1])
    source = None
    if key_frames is not None and obj.rotation_mode == 'QUATERNION':
        # Blender's own quaternion channels at the exported keys, un-normalised:
        # the exporter may fix a flipped sign in the file, the user's keys keep it.
        source = animdata.evaluate_rotation_raw(obj, key_frames)
    key_deviation = None
    if key_frames is not None:
        key_deviation = _key_deviation(obj, node, doc, channels, rot.sampler.input, fps,
                                       exporter_spf, yup, corrected, parent)
    comparison = export_compare.compare(
        frames,
        qb,
        qp,
        lb,
        lp,
        key_frames=key_frames,
        key_values=key_values,
        interpolation=interpolation or "LINEAR",
        source_key_quats=source,
        retimed_deviation_deg=retimed,
        key_deviation_deg=key_deviation,
        handle_share=shares,
    )
    if world is None:
        return comparison, comparison, qb, None
    # What the engine shows, with the causes of the bone's own motion.
    return replace(world, intervals=comparison.intervals), comparison, qb, parent_off


def _object_entry(
    obj, node: int, doc, channels, anim: str, frames, blender_m, fps, yup, exporter_spf: float,
    bezier=None, quarters=None, blender_q=None, parent: Parent | None = None,
    parent_q: Parent | None = None, missing_fix: str = "",
) -> dict:
    """One object's (or pose bone's) report, compared on whole ``frames``. ``bezier``
    (``bezier_keys_of``): its Bezier rotation keys, compared again on ``quarters``
    (Blender's playback ``blender_q`` there) into the ``bezier`` block. ``parent``,
    ``parent_q``: a pose bone's (``Parent``), on the frames and on the quarters.
    ``missing_fix``: the advice for channels the file has no animation for, where it is
    not the usual bake (the exporter's NLA_TRACKS mode left the action out)."""

    comparison, own, _qb, parent_off = _comparison(obj, node, doc, channels, frames,
                                                   blender_m, fps, yup, exporter_spf, bezier,
                                                   parent)
    rot = channels.get((node, "rotation"))
    interpolation = rot.sampler.interpolation if rot is not None else ""
    keys = {}
    data_bytes = 0
    seen = set()
    for (n, path), ch in channels.items():
        if n != node:
            continue
        keys[path] = int(ch.sampler.input.shape[0])
        for acc in (ch.sampler.input_accessor, ch.sampler.output_accessor):
            if acc not in seen:
                seen.add(acc)
                data_bytes += doc.accessor_bytes.get(acc, 0)
    own_causes = causes = _cause_counts(comparison)
    # A moving channel the file has no animation for: the whole clip is one pose there,
    # counted once (no interval to blame). A child's own channels: its parents move it too.
    missing = export_compare.not_exported(keys, own)
    # Off because the node above it is, where it shows: counted once, named in the advice.
    inherited = parent_off is not None and export_compare.is_off(*parent_off) \
        and export_compare.is_off(comparison.max_deviation_deg,
                                  comparison.max_location_deviation)
    if inherited:
        causes = {"inherited": 1, **causes}
    if missing:
        causes = {"not_exported": 1, **causes}
    action = animdata.get_action(obj)
    advice = export_compare.advice(own_causes, own.max_deviation_deg,
                                   mode=obj.rotation_mode) if own_causes else \
        export_compare.advice({}, comparison.max_deviation_deg)
    bezier_entry = None
    if bezier is not None and rot is not None and quarters is not None:
        fine, _own, qb_fine, _off = _comparison(obj, node, doc, channels, quarters, blender_q,
                                                fps, yup, exporter_spf, bezier, parent_q)
        bezier_entry = _bezier_entry(obj, bezier, fine, qb_fine, interpolation,
                                     keys.get("rotation", 0), 1.0 / (fps * exporter_spf))
        # Every frame and quarter frame: the Bezier block's judgement is the advice. Its
        # causes are the quarter frames'; where the entry's, the whole frames', differ,
        # the advice says which it counts (a walk read "timing in 3 interval(s)" beside
        # causes of 48).
        advice = bezier_entry["advice"]
        if bezier_entry["causes"] != own_causes:
            advice = "at quarter frames, " + advice
    if inherited and not missing:
        own_says = own_causes or (bezier_entry is not None and (
            bezier_entry.get("causes") or bezier_entry.get("linear_is_better")))
        advice = export_compare.inherited_advice(parent.label, *parent_off,
                                                 comparison.max_deviation_deg,
                                                 advice if own_says else None,
                                                 own.max_deviation_deg)
    if missing:
        # The first thing to fix, whatever else the keys do.
        advice = export_compare.not_exported_advice(missing, own, missing_fix)
    entry = {
        "name": obj.name,
        **({"bone": obj.bone_name} if obj.is_bone else {}),
        "type": obj.type,
        "rotation_mode": obj.rotation_mode,
        "action": action.name if action is not None else None,
        "node": node,
        "animation": anim,
        "interpolation": interpolation or None,
        "key_count": keys.get("rotation", 0),
        "keys": keys,
        "animation_bytes": data_bytes,
        "frames": [frames[0], frames[-1]],
        "max_deviation_deg": comparison.max_deviation_deg,
        "rms_deviation_deg": comparison.rms_deviation_deg,
        "worst_frame": comparison.worst_frame,
        "max_location_deviation": comparison.max_location_deviation,
        **({"own_max_deviation_deg": own.max_deviation_deg, "parent": parent.label}
           if parent is not None else {}),
        "causes": causes,
        "advice": advice,
        "intervals": _interval_rows(comparison),
        "per_frame": {
            "frame": comparison.frames,
            "deviation_deg": comparison.deviation_deg,
            "location_deviation": comparison.location_deviation,
        },
    }
    if bezier_entry is not None:
        entry["bezier"] = bezier_entry
    return entry


def _say_bones_unchecked(obj, entry: dict, missing: list) -> None:
    """An armature whose keyed pose bones are not all in the file (``missing``: their
    names; the exporter's Deform Bones Only leaves out the controls of a rig): its entry
    says how many were not compared, so its advice is no all-clear for them
    (docs/export-check.md)."""
    if not missing:
        return
    bones = len(missing)
    shown = ", ".join(f"\"{n}\"" for n in missing[:3]) + (" ..." if bones > 3 else "")
    said = (f"its {counted(bones, 'animated pose bone')} {shown} "
            f"{'is' if bones == 1 else 'are'} not in the exported file, so not "
            "compared (the exporter left them out: Deform Bones Only?)")
    entry["bones_not_compared"] = bones
    entry["note"] = f"{entry['note']} {said[0].upper()}{said[1:]}." if entry.get("note") \
        else f"{said[0].upper()}{said[1:]}."
    if not entry["causes"]:
        entry["advice"] = (f"The armature object plays as in Blender (within "
                           f"{max(entry['max_deviation_deg'], 0.0):.2g} deg); {said}.")


def _joints(doc) -> set:
    """Every node the file's skins list as a joint: io_scene_gltf2 (3.4 and 5.0) writes a
    skin for each exported armature, a mesh bound to it or not, listing the joints of its
    bones (only its deform bones with Deform Bones Only)."""
    return {j for skin in doc.json.get("skins", []) for j in skin.get("joints", [])}


def _object_node(doc, name: str, joints: set) -> int | None:
    """The node of the object ``name``: the first so named that is no joint (a bone may
    share an object's name); None when the file has none."""
    return next((i for i, node in enumerate(doc.nodes) if node.name == name and i not in joints),
                None)


def node_owners(doc, parents: list, joints: set) -> dict:
    """{node index: what Blender plays there}: each joint's pose bone
    (``AnimatedTransform``: the bone of its name in the armature whose node is nearest
    above it), and each other node named after an object, that object's. Joints are told
    from objects by the file's skins, not by name: an Empty parented to a rig and named
    like one of its bones is its own node beside the bone's joint. ``parents``:
    ``doc.parents()``; ``joints``: ``_joints(doc)``."""
    owners: dict = {}
    seen: set = set()
    for i, node in enumerate(doc.nodes):
        if i in joints or node.name in seen:
            continue          # (the first node of a name is the object's: _object_node)
        seen.add(node.name)
        obj = bpy.data.objects.get(node.name)
        if obj is not None:
            owners[i] = AnimatedTransform(obj)
    for j in joints:
        up = parents[j]
        while up >= 0 and up in joints:
            up = parents[up]
        armature = owners.get(up)
        name = doc.nodes[j].name
        if armature is not None and armature.type == 'ARMATURE' and armature.pose is not None \
                and armature.pose.bones.get(name) is not None:
            owners[j] = AnimatedTransform(armature.owner, name)
    return owners


def _bone_nodes(obj, owners: dict) -> tuple[list, list]:
    """([(pose bone transform, its joint node)], [names of keyed bones not in the file]) of
    the armature ``obj``: its keyed bones, each at the joint the file's skin gives it. With
    no active action, the bones its playing NLA clips key (a review: an action pushed down
    was checked as the armature object alone, "plays as in Blender", no bone compared)."""
    names = keyed_bone_names(obj)
    if not names and getattr(obj.animation_data, "action", None) is None:
        unplayed = {c.action.as_pointer() for c in animdata.unplayed_clips(obj)}
        names = keyed_bone_names(obj, [fc for c in animdata.object_clips(obj)
                                       if c.action.as_pointer() not in unplayed
                                       for fc in c.fcurves()])
    if not names:
        return [], []
    joints = {t.bone_name: n for n, t in owners.items() if t.is_bone and t.owner == obj}
    found = [(owners[joints[n]], joints[n]) for n in names if n in joints]
    return found, [n for n in names if n not in joints]


def not_evaluated(context, objects) -> list[tuple]:
    """(object, sentence) for each of ``objects`` that the view layer's depsgraph does not
    evaluate (disabled in viewports, or in a collection excluded from the view layer):
    Blender's glTF exporter samples that depsgraph, so it writes such an object's stored
    pose on every key. Its ``matrix_world`` is never evaluated either, so the file and
    Blender "agreed" and a gate passed a file whose animation was lost (a pipeline
    walk)."""
    depsgraph = context.evaluated_depsgraph_get()
    layer = context.view_layer
    out = []
    for obj in objects:
        if obj.evaluated_get(depsgraph).as_pointer() != obj.as_pointer() \
                or obj.name not in context.scene.objects:
            continue   # evaluated (what the exporter samples moves), or not in the scene
            #            (the exporter leaves it out: said as missing from the file)
        if obj.name not in layer.objects:
            where = (f"is in a collection excluded from the view layer \"{layer.name}\"",
                     "include its collection (its checkbox in the Outliner)")
        else:
            where = ("is disabled in viewports (the monitor icon, its own or its "
                     "collection's)", "enable it in viewports")
        out.append((obj, f"Object \"{obj.name}\" {where[0]}: Blender does not evaluate it, "
                         "so the glTF exporter writes its stored pose on every key and its "
                         f"animation is lost; {where[1]}, then export."))
    return out


def _animation_mode(options: dict) -> str:
    """The exporter's animation mode for ``options`` (its default when not given): ACTIONS
    writes each action on its own, SCENE what the scene plays. Blender 3.x's exporter has
    no such option: it writes actions (and NLA strips) on their own."""
    given = options.get("export_animation_mode")
    if given is not None:
        return str(given)
    prop = exporter_properties().get("export_animation_mode")
    return str(prop.default) if prop is not None else "ACTIONS"


def check_objects(
    context,
    objects,
    options: dict | None = None,
    only_these: bool = True,
    keep_folder: str | None = None,
    silence=None,
    progress=None,
) -> dict:
    """Export, read back, evaluate and compare; the ``quatbake.export-check/1`` dict.

    ``objects``: the objects to report on. ``only_these``: export only them
    (else the whole scene is exported and only they are reported).
    ``keep_folder``: export there and leave the files (default: a temporary
    folder, removed). Objects missing from the file are listed in ``errors``; objects
    driven in the file only by animations of NLA clips Blender does not play (the glTF
    importer's muted stashes, ``unplayed.animations``) in ``skipped``, with a sentence.
    ``silence``: a context manager around the exporter call (the command line
    passes one that swallows the exporter's log lines); ``progress(name)`` is
    called after each object. Raises ExportCheckError for bad options or a
    failed export.
    """
    options = default_options(objects, dict(options or {}))
    scene = context.scene
    fps = timing.scene_fps(scene)
    yup = bool(options.get("export_yup", exporter_properties()["export_yup"].default))
    with tempfile.TemporaryDirectory(prefix="quatbake-export-check-") as tmp:
        folder = keep_folder or tmp
        with silence() if silence is not None else contextlib.nullcontext():
            path = export_gltf(context, objects, folder, options, only_these)
        try:
            doc = gltf_read.load(path)
        except ValueError as exc:
            raise ExportCheckError(f"The exported file cannot be read back: {exc}") from None
        size = written_bytes(path)
    nodes, errors, skipped = {}, [], []
    unevaluated = not_evaluated(context, objects)
    errors += [{"object": obj.name, "message": message} for obj, message in unevaluated]
    objects = [o for o in objects if o.name not in {obj.name for obj, _m in unevaluated}]
    bones, missing = {}, {}      # armature name -> [(bone transform, node)] / [bone names]
    all_key_frames = []
    skip, clips_at = unplayed.animations(doc)
    parents = doc.parents()
    joints = _joints(doc)
    owners = node_owners(doc, parents, joints)
    exporter_spf = timing.exporter_seconds_per_frame(doc, scene)
    # Animation before frame 0: the exporter slides it to start at 0 s (its default) or
    # cuts it there. An engine plays the slid file from 0 s, Blender's first frame; the
    # check compares frame with frame, so the file's times are moved back (without
    # this, every interval read as a 'key_mismatch' the keys could not fix).
    before_zero = negative_frames(options)
    slides = timing.slid_frames(doc, owners, exporter_spf) if before_zero == "SLIDE" else {}
    if slides:
        doc = doc.delayed({n: s * exporter_spf for n, s in slides.items()})
    mode = _animation_mode(options)
    # The exporter's NLA_TRACKS mode writes tracks, as their strips place them: a track
    # that holds the active action moved whole is compared moved back.
    tracks = {o.name: unplayed.tracks_export(o) for o in objects} \
        if mode == "NLA_TRACKS" else {}
    moved = {n: -r.shift * exporter_spf for name, r in tracks.items() if r.shift
             for n, t in owners.items() if t.owner.name == name}
    if moved:
        doc = doc.delayed(moved)
    for obj in objects:
        node = _object_node(doc, obj.name, joints)
        blended = tracks[obj.name].skip if tracks else unplayed.nla_plays_sentence(obj, mode)
        if blended and node is not None:
            skipped.append({"object": obj.name, "message": blended})
            continue
        if node is None:
            errors.append(
                {
                    "object": obj.name,
                    "message": (
                        f"Object \"{obj.name}\" is not in the exported glTF file: the "
                        "exporter left it out (hidden, excluded from the view layer, or its "
                        "type is not exported; see --exporter-option)."
                    ),
                }
            )
            continue
        kept = [c for a in doc.animations if a.name not in skip.get(node, ())
                for c in a.channels if c.node == node]
        left_out = unplayed.left_out(doc, node, skip)
        if left_out and not kept:
            skipped.append({"object": obj.name,
                            "message": unplayed.skipped_sentence(obj, left_out, clips_at[node])})
            continue
        nodes[obj.name] = node
        # An armature's keyed pose bones, each compared at the joint node the exporter
        # writes it as (its world matrix, so a bone follows its parents in both).
        bones[obj.name], missing[obj.name] = _bone_nodes(obj, owners)
        mine = {j for _t, j in bones[obj.name]}
        for c in kept + [c for a in doc.animations for c in a.channels if c.node in mine]:
            # float32 seconds: 61 / 24 s comes back as frame 61.000002, which must not
            # pull frame 62 into the check.
            all_key_frames.extend(
                np.round(c.sampler.input[[0, -1]] * fps, KEY_FRAME_DECIMALS).tolist())
    checked = [o for o in objects if o.name in nodes]
    # Each object, then its pose bones: (object or bone transform, its node).
    targets = [(t, n) for o in checked
               for t, n in [(AnimatedTransform(o), nodes[o.name])] + bones[o.name]]
    # What is above each node in the file (a parent object, the armature above a root
    # bone, a bone's parent joint), sampled too: causes are found on each one's own
    # motion, relative to it.
    above = {t.display_name: (owners.get(parents[n]), parents[n]) for t, n in targets}
    sampled = {t.display_name: t for t, _n in targets}
    sampled.update({a.display_name: a for a, _n in above.values()
                    if a is not None and a.display_name not in sampled})
    frames = check_frames(scene, all_key_frames)
    cropped = before_zero == "CROP" and any((timing.exported_start(o) or 0) < 0 for o in checked)
    if cropped and frames[-1] >= 0.0:
        frames = frames[frames >= 0.0]      # not in the file: no engine plays them
    blender_m = blender_world(scene, list(sampled.values()), frames)
    beziers = {t.display_name: b for t, _n in targets if (b := bezier_keys_of(t)) is not None}
    quarters, blender_q = None, {}
    if beziers and frames.shape[0] >= 2:
        fine = {t.display_name: t for t, _n in targets if t.display_name in beziers}
        fine.update({a.display_name: a for name, (a, _n) in above.items()
                     if name in beziers and a is not None})
        quarters, blender_q = blender_world_quarters(scene, list(fine.values()), frames,
                                                     blender_m)
    entries = []
    last_of = {o.name: (bones[o.name][-1][1] if bones[o.name] else nodes[o.name])
               for o in checked}
    for obj, node in targets:
        action = getattr(getattr(obj, "animation_data", None), "action", None)
        reading = tracks.get(obj.name)
        compared = reading.animation if reading is not None and reading.animation else \
            action.name if action else None
        channels, anim = _object_channels(doc, node, compared, skip)
        name = obj.display_name
        parent = parent_q = None
        if above.get(name, (None, None))[0] is not None:
            a, n = above[name]
            turned = _turned_by_exporter(doc, n, a)
            parent = Parent(a, n, blender_m[a.display_name], turned)
            if a.display_name in blender_q:
                parent_q = Parent(a, n, blender_q[a.display_name], turned)
        try:
            entry = _object_entry(obj, node, doc, channels, anim, frames,
                                  blender_m[name], fps, yup, exporter_spf,
                                  bezier=beziers.get(name), quarters=quarters,
                                  blender_q=blender_q.get(name), parent=parent,
                                  parent_q=parent_q,
                                  missing_fix=reading.missing_fix if reading else "")
            if node in slides:
                entry["frame_at_0s"] = float(slides[node])
            left_out = unplayed.left_out(doc, node, skip)
            if left_out:
                entry["left_out_animations"] = left_out
                entry["note"] = unplayed.left_out_note(left_out, clips_at[node])
            if not obj.is_bone:
                _say_bones_unchecked(obj.owner, entry, missing[obj.name])
            entries.append(entry)
        except ValueError as exc:
            errors.append(
                {
                    "object": obj.name,
                    **({"bone": obj.bone_name} if obj.is_bone else {}),
                    "message": f"{obj.label} cannot be checked: {str(exc).rstrip('.')}.",
                }
            )
        if progress is not None and node == last_of.get(obj.name, node):
            progress(obj.name)      # once per object asked for: an armature after its bones
    return {
        "schema": SCHEMA,
        "blender_version": bpy.app.version_string,
        "exporter_version": exporter_version(),
        "file": os.path.basename(bpy.data.filepath) if bpy.data.filepath else "",
        "exporter_options": {
            k: (sorted(v) if isinstance(v, set) else v) for k, v in options.items()
        },
        "fps": fps,
        "exporter_fps": 1.0 / exporter_spf,
        "export_yup": yup,
        "gltf_bytes": size,
        "frames": [float(frames[0]), float(frames[-1])],
        **timing.time_note(slides, owners, cropped, frames, fps, exporter_spf,
                           [r.note for o, r in tracks.items() if r.note and o in nodes]),
        "objects": entries,
        "errors": errors,
        "skipped": skipped,
    }
