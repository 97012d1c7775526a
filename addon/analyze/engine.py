# SPDX-License-Identifier: GPL-3.0-or-later
"""Difference report inside Blender: read an object's channels, run core.analysis.

``analyze_many(requests, method)`` analyses many transforms in one batched pass (the
panel's entries, analyze.entries, and the command line's report); ``analyze_object``
is it for one (a shot of the batch, the demo). It reads the F-curves through ``animdata`` (no
``frame_set``: the scene and the current frame are never touched) and hands
arrays to ``core.analysis``. A transform a Transform Cache moves (USD, Alembic
imports) is analysed from Blender's playback instead (``analyze.cache``: frame_set,
the current frame put back).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

# core.analysis and animdata are imported where an analysis runs: registering
# must not load them (measured in benchmarks/bench_register.py).
if TYPE_CHECKING:
    from ...core import analysis as core_analysis


class NoRotationKeys(ValueError):
    """The object has no keyed rotation channel in its rotation mode. Not an error of the
    file: the report lists such a transform under ``skipped`` (``skipped_transform``)."""


@dataclass
class Skipped:
    """A transform the analysis leaves out, with its reason (the report's ``skipped``).

    ``findings``: what its location keys show (segment speeds, float32 steps) when it is
    keyed on location, the same sentences an object's analysis gives for its location."""

    name: str                  # the object (the armature, for a bone)
    message: str               # one sentence: why, and what its keys animate instead
    bone: str = ""
    clip: str = ""
    findings: list = field(default_factory=list)
    location_keys: list = field(default_factory=list)   # frames of its location keys


class RangeTooLong(ValueError):
    """The rotation keys span more frames than an analysis compares (a stray key)."""


def analysis_frames(keys: np.ndarray) -> np.ndarray:
    """Whole frames from the first to the last key, plus the key frames themselves."""
    whole = np.arange(np.ceil(keys[0]), np.floor(keys[-1]) + 1.0)
    return np.unique(np.concatenate([whole, keys]))


def analysis_targets(obj, clips="active") -> list:
    """What to analyse of ``obj``: ``obj`` itself (its active action) or (transform, Clip) pairs.

    ``clips``: 'active' - the active action, or the object's NLA clips with
    rotation keys when the active action has none (so an object animated only
    by stashed clips, as glTF imports leave all but the first, is still
    reported); 'all' - every clip of the object (its active action and each
    action in its NLA strips and stashes, once each); a list of names - those
    clips, if the object has them. With 'all' or names, an armature object
    means the transforms each clip keys (``clip_transforms``: its bones keyed in
    that clip, whatever its active action keys); a pose bone (``--bones``) stays
    that bone.
    """
    from .. import animdata, keyed

    owner = getattr(obj, "owner", obj)
    all_clips = animdata.object_clips(owner)
    if clips == "active":
        if keyed.has_rotation_keys(obj) or not all_clips:
            return [obj]
        stashed = [(obj, c) for c in all_clips
                   if not c.active and keyed.has_rotation_keys(obj, c.fcurves())]
        return stashed or [obj]
    wanted = all_clips if clips == "all" else [c for c in all_clips if c.name in clips]
    bone = bool(getattr(obj, "bone_name", ""))
    found = [(t, c) for c in wanted for t in ([obj] if bone else clip_transforms(owner, c))]
    if clips == "all":
        # Each entry names its clip, the active action's included; an object with
        # no clip holding rotation keys is analysed as itself (to say why not).
        return [(t, c) for t, c in found if keyed.has_rotation_keys(t, c.fcurves())] or [obj]
    return found


def clip_transforms(obj, clip) -> list:
    """The transforms ``clip`` keys on ``obj``: for an armature each pose bone keyed in the
    clip (bone order) and the armature itself when its own channels are keyed there;
    otherwise the object."""
    from ..transform import AnimatedTransform, keyed_bone_names, object_is_keyed

    fcurves = clip.fcurves()
    bones = [AnimatedTransform(obj, name) for name in keyed_bone_names(obj, fcurves)]
    if not bones or object_is_keyed(obj, fcurves):
        return [AnimatedTransform(obj)] + bones
    return bones


def clip_option(name: str) -> str:
    """``--clips Walk``: the option that bakes the clip ``name`` (quoted for the shell when
    the name needs it)."""
    import shlex

    return f"--clips {shlex.quote(name)}"


def result_label(obj, clip=None) -> str:
    """How results name an analysis: "Cube", "Rig: spine" (a pose bone's transform), or
    "Cube / Walk" for a clip."""
    name = getattr(obj, "display_name", obj.name)
    return f"{name} / {clip.name}" if clip is not None else name


def no_keys_sentence(obj, mode: str, fcurves=None) -> str:
    """Why ``obj`` has nothing to compare: bones keyed, clips only in the NLA, or no
    rotation keys (and what its keys animate instead: location, scale, custom properties)."""
    from .. import animdata, keyed

    if animdata.bone_key_count(obj) and not getattr(obj, "bone_name", "") and not \
            animdata.fcurves_by_bone(animdata.object_fcurves(obj) if fcurves is None
                                     else fcurves):
        return keyed.bones_only_in_clips(obj, "compare its bones", panel_takes_clip=False)
    then = "its location keys are checked on their own" if keyed.has_location_keys(
        obj, fcurves) else ""
    return keyed.nothing_to_rotate(obj, mode, fcurves, then, so="there is no rotation to compare")


def location_findings(obj, fcurves=None) -> tuple[list[str], np.ndarray]:
    """(findings, location key frames) of a transform keyed on location and not on
    rotation: what ``core.analysis`` says about an object's location (segment speeds,
    float32 steps), from the same analysis run on a still orientation, whose rotation
    comparison then finds nothing. ``fcurves``: a clip's channels instead of the
    active action's. No findings with fewer than two location keys."""
    from ...core import analysis as core_analysis
    from .. import animdata
    from ..keyed import MAX_FRAMES

    if fcurves is None:
        fcurves = animdata.object_fcurves(obj)
    keys = animdata.key_frames(animdata.location_fcurves(obj, fcurves)
                               + animdata.delta_location_fcurves(obj, fcurves))
    if keys.size < 2 or not np.isfinite(keys).all():
        return [], keys
    span = int(np.floor(keys[-1]) - np.ceil(keys[0])) + 1
    if span > MAX_FRAMES:
        raise RangeTooLong(
            f"{animdata.subject(obj)}: its location keys span frames "
            f"{animdata.frame_label(keys[0])} to {animdata.frame_label(keys[-1])} "
            f"({span:,} frames), more than the {MAX_FRAMES:,} frames an analysis compares. "
            "Delete or move the stray key.")
    frames = analysis_frames(keys)
    positions = animdata.evaluate_full_location(obj, frames, fcurves)
    key_positions = animdata.evaluate_full_location(obj, keys, fcurves)
    still = np.tile(np.array([1.0, 0.0, 0.0, 0.0]), (frames.size, 1))
    result = core_analysis.analyze_object(
        obj.name, obj.rotation_mode, frames, still, keys, still[:keys.size], "slerp",
        positions=positions, key_positions=key_positions, location_key_frames=keys)
    return list(result.findings), keys


def skipped_transform(obj, message: str, clip=None) -> Skipped:
    """The ``Skipped`` entry of ``obj`` (a transform without rotation keys to compare, as
    ``NoRotationKeys`` said in ``message``), with its location findings."""
    fcurves = clip.fcurves() if clip is not None else None
    findings, keys = location_findings(obj, fcurves)
    return Skipped(obj.name, message, getattr(obj, "bone_name", ""),
                   clip.name if clip is not None else "", findings,
                   [float(k) for k in keys])


@dataclass
class _Prepared:
    """What one analysis reads from Blender, before ``core.analysis`` compares it."""

    obj: object
    clip: object
    path: str
    frames: np.ndarray
    keys: np.ndarray
    sampled: object            # core.analysis.Sampled
    channels: list
    dense_times: np.ndarray | None = None   # playback samples per interval it needs
                                            # (_count_playback, for its whole group)
    played_at: object = None           # times -> Blender's orientation, sign flips followed
    extra_frames: np.ndarray | None = None   # subframes where its channels may spin
    oriented_at: object = None         # times -> Blender's orientation there
    original: bool = False             # the keys a QuatBake bake replaced
    rotation_curves: list = field(default_factory=list)   # its rotation and delta ones
    fcurves: list = field(default_factory=list)   # every curve the transform's channels are in
    # The part of extra_frames where its channels may turn far (the rest only measures
    # how far the playback strays from slerp): what core.turns follows.
    turn_frames: np.ndarray | None = None


def analyze_object(obj, method: str = "slerp", clip=None, turns: str = "AUTO",
                   timing: str = "EVEN", original: bool = False) -> core_analysis.ObjectAnalysis:
    """Compare Blender's interpolation of ``obj``'s rotation with ``method``.

    ``turns`` and ``timing`` build the method's path as the bake would with
    those settings (kept spins, steps followed, the keys' ease).

    ``clip`` (an ``animdata.Clip``) analyses that action's channels instead of
    the active action's, in the action's own time (no NLA strip mapping).
    ``original``: analyse the keys a QuatBake bake replaced (what the object
    played before the bake; NoRotationKeys when it plays no bake).
    The orientation is what Blender composes: delta rotation @ rotation.
    Raises NoRotationKeys when neither the rotation nor the delta rotation
    channels of the object's rotation mode have keys, RangeTooLong when they
    span more than keyed.MAX_FRAMES frames, animdata.ChannelError for a
    value that is no rotation.
    """
    found = analyze_many([(obj, clip, original)], method, turns, timing)[0]
    if isinstance(found, BaseException):
        raise found
    return found


# Transforms x frames compared in one analyze_group call at most: a 60-bone rig's 1,000
# frames in one, 200 bones x 10,000 frames in ten, so that the group's (bones, frames, 4)
# arrays stay near 10 MB each (the analysis peaked at 1.5 GB in one call).
_GROUP_SAMPLES = 200_000


def analyze_many(requests, method: str = "slerp", turns: str = "AUTO",
                 timing: str = "EVEN", known: dict | None = None,
                 keep: dict | None = None) -> list:
    """:func:`analyze_object` of each ``(obj, clip, original)`` in ``requests``, batched:
    every transform is read, then those analysed on the same frames and keyed on the
    same frames (a rig's bones, the bones of a bake) are compared in one
    ``core.analysis.analyze_group`` call. Returns, per request in order, its
    ObjectAnalysis or the exception analyze_object would raise for it (one
    transform's problem never stops the others).

    ``known``: analyses an earlier call kept, by ``reuse.digest`` of their inputs; a
    request whose inputs have one of those digests is handed a copy of it, worded for
    now, and not analysed again. ``keep``: filled with every analysis this call made or
    reused, by digest, for a later call's ``known``."""
    from .. import animdata

    with animdata.read_once():
        return _analyze_many(requests, method, turns, timing, known or {}, keep)


def _analyze_many(requests, method: str, turns: str, timing: str, known: dict,
                  keep: dict | None) -> list:
    from ...core import analysis as core_analysis
    from . import reuse

    out: list = [None] * len(requests)
    groups: dict = {}
    prepared: dict = {}
    located: list = []
    digests: dict = {}
    for obj, clip, original in requests:
        try:
            located.append(_locate(obj, method, clip, turns, timing, original))
        except Exception as exc:   # handed back: the caller says what, for this transform
            located.append(exc)
    if keep is not None or known:
        for i, found in enumerate(located):
            if isinstance(found, _Located):
                try:
                    digest = reuse.digest(found, (method, turns, timing))
                except Exception:   # analysed as new, where it meets its own error
                    digest = None
                digests[i] = digest
                analysed = known.get(digest) if digest is not None else None
                if analysed is not None:
                    # The same inputs as then: the same analysis, worded for now.
                    out[i] = _finish(found, reuse.kept(analysed))
                    located[i] = None
                    if keep is not None:
                        keep[digest] = analysed
    _evaluate_ahead(located)
    for i, found in enumerate(located):
        if found is None:
            continue               # reused above
        try:
            if isinstance(found, BaseException):
                raise found
            if isinstance(found, _Located):
                found = _read(found)
        except Exception as exc:   # handed back: the caller says what, for this transform
            out[i] = exc
            continue
        if isinstance(found, _Prepared):
            prepared[i] = found
            groups.setdefault((found.frames.tobytes(), found.keys.tobytes()), []).append(i)
        else:
            out[i] = found         # a Transform Cache's analysis, already made
    for members in _chunks(groups.values(), prepared):
        for i, exc in _subframes(prepared, members).items():
            out[i] = exc
        members = [i for i in members if out[i] is None]
        for i, exc in _count_playback(prepared, members).items():
            out[i] = exc
        members = [i for i in members if out[i] is None]
        for i, exc in _sample_between(prepared, members).items():
            out[i] = exc
        members = [i for i in members if out[i] is None]
        if not members:
            continue
        first = prepared[members[0]]
        items = [prepared[i].sampled for i in members]
        try:
            results = core_analysis.analyze_group(first.frames, first.keys, items, method,
                                                  turns, timing)
        except Exception:
            # One bad transform must not take the group with it: one by one, so each
            # gets its own result or its own error.
            results = []
            for i in members:
                try:
                    results.append(core_analysis.analyze_group(
                        first.frames, first.keys, [prepared[i].sampled], method, turns,
                        timing)[0])
                except Exception as exc:
                    results.append(exc)
        for i, result in zip(members, results):
            # Its inputs are let go as soon as it is analysed: a 200-bone rig's would
            # otherwise all stay until the last group.
            read = prepared.pop(i)
            if isinstance(result, BaseException):
                out[i] = result
                continue
            if keep is not None and digests.get(i) is not None:
                keep[digests[i]] = reuse.kept(result)   # as core made it, before _finish
            out[i] = _finish(read, result)
    return out


def _chunks(groups, prepared: dict) -> list:
    """Each group's members cut into runs of at most _GROUP_SAMPLES transforms x frames."""
    out = []
    for members in groups:
        size = max(1, _GROUP_SAMPLES // prepared[members[0]].frames.size)
        out += [members[start:start + size] for start in range(0, len(members), size)]
    return out


@dataclass
class _Located:
    """Where one analysis' channels are, and the frames it compares (``_locate``)."""

    obj: object
    clip: object
    original: bool
    fcurves: list
    mode: str
    path: str
    rot_fcurves: list
    delta_fcurves: list
    keys: np.ndarray
    frames: np.ndarray
    loc_fcurves: list          # location then delta location, None where not animated

    def rotation_curves(self) -> list:
        """The keyed rotation and delta rotation channels."""
        return [fc for fc in self.rot_fcurves + self.delta_fcurves if fc is not None]

    @property
    def channels(self) -> list:
        """The keyed rotation data paths, the transform's prefix left out (a bone's
        ``pose.bones["..."].``): ``rotation_quaternion``, ``delta_rotation_euler`` ..."""
        from .. import animdata

        prefix = animdata.path_prefix(self.obj)
        return sorted({fc.data_path[len(prefix):] for fc in self.rotation_curves()
                       if len(fc.keyframe_points)})

    def location_curves(self) -> list:
        """The keyed location and delta location channels (``_read`` evaluates them at
        ``frames`` and at their own keys)."""
        return [fc for fc in self.loc_fcurves if fc is not None]


def _evaluate_ahead(located: list) -> None:
    """Blender's playback of every channel of the transforms compared on the same frames,
    in one evaluation per set of frames (``animdata.evaluate_ahead``): a rig's bones keyed
    together share one solve of the Bezier timing, where one evaluation per bone solved it
    sixty times."""
    from .. import animdata

    by_frames: dict = {}
    for found in located:
        if isinstance(found, _Located):
            location = found.location_curves()
            by_frames.setdefault(found.frames.tobytes(), (found.frames, []))[1].extend(
                found.rotation_curves() + location)
            # The locations at their own keys (the segment speeds), likewise.
            if location:
                keys = animdata.key_frames(location)
                by_frames.setdefault(keys.tobytes(), (keys, []))[1].extend(location)
    for frames, curves in by_frames.values():
        animdata.evaluate_ahead(curves, frames)


def _locate(obj, method: str, clip, turns: str, timing: str, original: bool):
    """Where one analysis' channels are and the frames it compares (``_Located``), or the
    finished analysis of a transform a Transform Cache moves. Raises as analyze_object
    documents."""
    from .. import animdata, record

    # The bake's cap, so both refuse the same stray key (a frame typed as 5000001).
    from ..keyed import MAX_FRAMES

    if clip is None:
        # A Transform Cache moves it (a USD or Alembic import), or did before a bake.
        from .cache import cache_analysis
        found = cache_analysis(obj, method, turns, timing, original)
        if found is not None:
            return _with_bake(obj, found, original)
    fcurves = clip.fcurves() if clip is not None else None
    mode = obj.rotation_mode
    if original:
        found = record.original_channels(obj)
        if found is None:
            raise NoRotationKeys(f"Object \"{obj.name}\" plays no QuatBake bake: there are no "
                                 "original keys to compare.")
        fcurves, mode = found
    if fcurves is None:
        # Found once: every lookup below would otherwise scan the whole action again
        # (a rig's action holds every bone's curves).
        fcurves = animdata.object_fcurves(obj)
    path, _count = animdata.ROTATION_PATHS[mode]
    rot_fcurves = animdata.rotation_fcurves(obj, mode, fcurves)
    delta_fcurves = animdata.delta_rotation_fcurves(obj, mode, fcurves)
    sampled = animdata.sampled_sentence(obj, rot_fcurves + delta_fcurves)
    if sampled:
        raise animdata.ChannelError(sampled, obj.name)
    keys = animdata.key_frames(rot_fcurves + delta_fcurves)
    if keys.size == 0:
        # The active action's channels are found again there (a bone's custom properties
        # are not under its prefix); a clip's or the original's are these.
        given = fcurves if clip is not None or original else None
        raise NoRotationKeys(no_keys_sentence(obj, mode, given))
    span = int(np.floor(keys[-1]) - np.ceil(keys[0])) + 1   # whole frames analysed
    if span > MAX_FRAMES:
        first, last = animdata.frame_label(keys[0]), animdata.frame_label(keys[-1])
        raise RangeTooLong(
            f"{animdata.subject(obj)}: its {path} keys span frames {first} to {last} "
            f"({span:,} frames), more than the {MAX_FRAMES:,} frames an analysis "
            "compares. Delete or move the stray key.")
    loc_fcurves = animdata.location_fcurves(obj, fcurves) + \
        animdata.delta_location_fcurves(obj, fcurves)
    return _Located(obj, clip, original, fcurves, mode, path, rot_fcurves, delta_fcurves,
                    keys, analysis_frames(keys), loc_fcurves)


def _read(found: _Located):
    """The arrays of one analysis (``_Prepared``). Raises as analyze_object documents."""
    from ...core import analysis as core_analysis
    from ...core import quat as core_quat
    from .. import animdata
    from ..animdata import turn_inputs

    obj, clip, original, fcurves, mode = (found.obj, found.clip, found.original,
                                          found.fcurves, found.mode)
    path, rot_fcurves, delta_fcurves = found.path, found.rot_fcurves, found.delta_fcurves
    keys, frames = found.keys, found.frames
    cut = animdata.keys_on_one_frame(obj, rot_fcurves + delta_fcurves)
    if cut is not None:
        raise cut
    raw = animdata.evaluate_rotation_raw(obj, frames, mode, fcurves)
    at_keys = np.searchsorted(frames, keys)
    try:
        played = animdata.played_between_keys(raw, mode, frames, keys)
        quats = animdata.rotation_values_to_quat(played, mode, frames, obj.name, path,
                                                 animdata.subject(obj))
        delta_keyed = animdata.has_keys(delta_fcurves)
        if delta_keyed or not animdata.is_identity_delta(
                animdata.delta_rotation_defaults(obj, mode), mode):
            quats = core_quat.multiply(
                animdata.evaluate_delta_rotation(obj, frames, mode, fcurves), quats)
    except animdata.ChannelError as exc:
        # Name the broken key, not the first frame its NaN spreads to.
        raise animdata.key_error(obj, mode, fcurves, exc) from None
    if delta_keyed and not animdata.has_keys(rot_fcurves):
        # Only the delta channels move (a BVH object import): Euler wraps and
        # gimbal lock are read from them.
        raw = animdata.evaluate_channels(delta_fcurves, animdata.delta_rotation_defaults(obj, mode),
                                         frames)
    # Where to sample between the frames is found for its whole group (_subframes).

    positions = key_positions = location_keys = None
    loc_fcurves = found.loc_fcurves
    if any(fc is not None for fc in loc_fcurves):
        positions = animdata.evaluate_full_location(obj, frames, fcurves)
        location_keys = animdata.key_frames(loc_fcurves)
        key_positions = animdata.evaluate_full_location(obj, location_keys, fcurves)

    stepped = None
    if keys.size >= 2:
        keyed_fcs = rot_fcurves if animdata.has_keys(rot_fcurves) else delta_fcurves
        stepped = turn_inputs.stepped_intervals(keyed_fcs, keys)
    composed = delta_keyed or not animdata.is_identity_delta(
        animdata.delta_rotation_defaults(obj, mode), mode)

    def played_at(times: np.ndarray) -> np.ndarray:
        """Blender's orientation at ``times``, as it plays (delta @ rotation), the
        channels' sign flips followed (for core.turns)."""
        dense_raw = animdata.evaluate_rotation_raw(obj, times, mode, fcurves)
        # A key and its sign-flipped twin: the channels can pass through zero.
        dense_raw = animdata.as_played(dense_raw, mode)
        played = animdata.rotation_values_to_quat(dense_raw, mode, times, obj.name, path,
                                                  animdata.subject(obj))
        if composed:
            played = core_quat.multiply(
                animdata.evaluate_delta_rotation(obj, times, mode, fcurves), played)
        return played

    sampled = core_analysis.Sampled(
        obj.name, mode, quats, quats[at_keys], raw_values=raw, key_raw=raw[at_keys],
        positions=positions, key_positions=key_positions, location_key_frames=location_keys,
        stepped=stepped)
    return _Prepared(obj, clip, path, frames, keys, sampled, found.channels, None,
                     played_at, None,
                     lambda times: animdata.evaluate_orientation(obj, times, mode, fcurves),
                     original, found.rotation_curves(), fcurves)


def _subframes(prepared: dict, members: list) -> dict:
    """Each member's ``extra_frames`` and ``turn_frames``: where its channels may spin or
    stray from slerp between two keys (a 359.9 deg Euler wrap from one frame to the
    next happens between the whole frames), for the whole group in one
    animdata.subframes_many call (the members share their keys). Returns the members
    whose channels could not be read, with the error."""
    from .. import animdata

    if not members:
        return {}
    keys = prepared[members[0]].keys
    found = animdata.subframes_many(
        [(prepared[i].obj, prepared[i].sampled.rotation_mode, prepared[i].fcurves,
          prepared[i].sampled.key_raw) for i in members], keys)
    failed = {}
    for i, answer in zip(members, found):
        if isinstance(answer, BaseException):
            failed[i] = answer
            continue
        extra, turning = answer
        prepared[i].extra_frames = extra if extra.size else None
        prepared[i].turn_frames = turning
    return failed


def _count_playback(prepared: dict, members: list) -> dict:
    """Each member's ``dense_times``: the samples between its keys that following its
    keyed turns needs (core.turns wants samples well under 180 deg apart), for the whole
    group in one turn_inputs.playback_counts_many call (the members share their keys).
    Returns the members whose channels could not be bounded, with the error, each
    counted alone to find it."""
    from ..animdata import turn_inputs

    if not members:
        return {}
    keys = prepared[members[0]].keys

    def item(i):
        p = prepared[i]
        return p.obj, p.sampled.rotation_mode, p.fcurves, p.sampled.key_raw

    try:
        found = turn_inputs.playback_counts_many([item(i) for i in members], keys)
    except Exception:
        found = None
    failed = {}
    for row, i in enumerate(members):
        if found is not None:
            prepared[i].dense_times = found[row]
            continue
        obj, mode, fcurves, key_raw = item(i)
        try:
            prepared[i].dense_times = turn_inputs.playback_counts(obj, mode, fcurves, keys,
                                                                  key_raw)
        except Exception as exc:   # its own error, as analyze_object raises it
            failed[i] = exc
    return failed


def _sample_between(prepared: dict, members: list) -> dict:
    """Blender's playback between the frames, for the ``members`` (indices into
    ``prepared``, one group) that need it, each kind at one set of times for all of
    them, so that core tracks them together (one core.turns.track_many call):

    - subframes of the key intervals whose channels jump (far_turn_subframes): the
      union of every member's;
    - samples for keyed turns the frames cannot follow: per interval the most any
      member needs.

    More samples never change what a tracking finds (only the float sum of its steps,
    by ~1e-12 deg), so a transform's analysis does not depend on its neighbours.
    Returns the members whose channels could not be read, with the error."""
    from .. import animdata
    from ..animdata import turn_inputs

    failed = {}
    spinning = [i for i in members if prepared[i].extra_frames is not None]
    if spinning:
        extra = np.unique(np.concatenate([prepared[i].extra_frames for i in spinning]))
        # Where the keyed turns are followed: their own subframes, not the stray bound's
        # sixteenths (more samples never change what a tracking finds; a capture's report
        # tracked 16 samples a frame, 0.15 s of its 0.7 s analysis).
        turning = np.unique(np.concatenate([prepared[i].turn_frames for i in spinning]))
        # All of them at these times in one evaluation (the curves share their timing).
        animdata.evaluate_ahead([fc for i in spinning for fc in prepared[i].rotation_curves],
                                extra)
        for i in spinning:
            try:
                prepared[i].sampled.extra_frames = extra
                prepared[i].sampled.own_extra_frames = prepared[i].extra_frames
                prepared[i].sampled.turn_extra_frames = turning
                prepared[i].sampled.extra_quats = prepared[i].oriented_at(extra)
            except Exception as exc:   # its own error, as analyze_object raises it
                failed[i] = exc
    wanting = [i for i in members if prepared[i].dense_times is not None and i not in failed]
    if wanting:
        times = turn_inputs.shared_playback_times(prepared[wanting[0]].keys,
                                                  [prepared[i].dense_times for i in wanting])
        animdata.evaluate_ahead([fc for i in wanting for fc in prepared[i].rotation_curves],
                                times)
        for i in wanting:
            try:
                prepared[i].sampled.turn_samples = (times, prepared[i].played_at(times))
            except Exception as exc:
                failed[i] = exc
    return failed


def _finish(read, result: core_analysis.ObjectAnalysis) -> core_analysis.ObjectAnalysis:
    """What the add-on adds to core's analysis (``read``: its ``_Prepared``, or the
    ``_Located`` of an analysis reused): the bone, the channels, and the advice of clips,
    NLA blending and the bake the transform plays."""
    from ...core import findings as core_findings
    from .. import animdata, record

    obj, clip = read.obj, read.clip
    result.bone = getattr(obj, "bone_name", "")
    result.channels = read.channels
    if clip is not None:
        result.clip = clip.name
        if not clip.active:
            # A bake without a clip's name bakes active actions only (cli bake leaves
            # this one out, with a note): the advice says how this one is baked.
            hint = (" (an NLA clip, not the active action: bake it by name, "
                    f"{clip_option(clip.name)})")
            result.findings = [f + hint if "bake" in f else f for f in result.findings]
            if "bake" in result.advice:
                result.advice += hint
    else:
        # What plays may not be what is compared: say so (the bake refuses this case).
        mode = result.rotation_mode
        paths = {read.path} | ({animdata.DELTA_ROTATION_PATHS[mode][0]}
                               if mode in animdata.DELTA_ROTATION_PATHS else set())
        ad = getattr(getattr(obj, "owner", obj), "animation_data", None)
        soloed = [t.name for t in ad.nla_tracks if t.is_solo] if ad is not None else []
        blends = [f"NLA track \"{track}\", strip \"{strip}\" (action \"{action}\") also "
                  f"animates {', '.join(channels)} and is not muted: "
                  + (f"track \"{soloed[0]}\" is soloed, so it plays alone, not the action"
                     if soloed else "what plays blends it with the action")
                  + ", and this report compares the action alone"
                  for track, strip, action, channels in animdata.blending_strips(obj, paths)]
        if blends:
            # It decides what plays, as a driver does: first, and the advice (a report
            # walk: the summary said "timing only" of the action, the strip came last).
            result.findings[:0] = blends
            result.advice = blends[0]
        _with_bake(obj, result, read.original)
        from ..transform import AnimatedTransform

        # A rig's IK map once per block of transforms (memo.current, inside read_once()).
        transform = obj if isinstance(obj, AnimatedTransform) else AnimatedTransform(obj)
        acting = transform.acting_constraints(animdata.memo.current)
        overriding = transform.overriding_constraints(animdata.memo.current)
        if overriding:
            # Its keys never play: first, and the advice, as a driver's (no re-bake helps).
            names = ", ".join(f"\"{name}\"" for name in overriding)
            found = (f"{OVERRIDDEN} ({names}) at full influence, whatever its keys: they "
                     "never play, so this comparison of them is not seen, and a bake "
                     "changes nothing seen either (mute the constraint, or lower its "
                     "influence, to see the keys)")
            result.findings.insert(0, found)
            result.advice = found
        elif acting:
            names = ", ".join(f"\"{name}\"" for name in acting)
            result.findings.append(
                f"constraints ({names}) move it on top of its keys: what plays is not the "
                "keys alone, which this report compares (a bake bakes the keys, and the "
                "constraints still act)")
            asks = core_findings.to_do(result)
            result.advice = asks[0]      # not "nothing to do" beside it
        compared = [fc for path in sorted(paths) for fc in animdata.find_fcurves(obj, path, 4)]
        held, step = animdata.stepped_channels(compared)
        if held:
            # It explains the whole difference (holds against a smooth path): first.
            kept, why_not = animdata.common_stepped(
                fc for fc in compared if fc is not None and len(fc.keyframe_points))
            found = (f"{STEPPED} {', '.join(held)} (a pose every {step:g} frames, held): the "
                     "report compares those holds with the method's smooth path"
                     + (", and a bake keeps the modifier on the channels it writes, so the "
                        "held look stays" if kept is not None else
                        f", and a bake drops the modifier and the held look with it, since "
                        f"{why_not} (give each channel the same Stepped modifier with the "
                        "keys on its steps and a bake keeps it, or key the poses with "
                        "Constant interpolation: a bake keeps those steps)"))
            result.findings.insert(0, found)
            result.advice = found
        # A bake would leave it as it is until then (a docs walk: the report advised a
        # Re-bake that then left the object, its channel locked). Once baked, a Re-bake
        # reads the keys from before it, not these.
        first = _before_a_bake(compared, read.path) if _REBAKE.search(result.advice) and \
            not record.is_baked(transform) else ""
        if first:
            result.findings.insert(0, first)
            result.advice = f"{first}; then {result.advice}"
        drivers = animdata.driver_channels(obj, paths)
        if drivers:
            # It decides what plays, whatever the keys: first, and the advice.
            found = (f"{DRIVEN} {', '.join(drivers)}, which overrides its keys: what plays "
                     "is the driver's value, and this report compares the keys alone (a "
                     "bake refuses it: remove the driver, or bake it to keys first)")
            result.findings.insert(0, found)
            result.advice = found
    return result


# Advice that asks for a bake ("re-bake with SLERP", "bake with a Key Tolerance ..."), not
# one that only speaks of one ("a bake changes nothing seen", "a bake drops the modifier").
_REBAKE = re.compile(r"\bbake with\b")


def _before_a_bake(compared: list, rotation_path: str) -> str:
    """What to do before a Re-bake of the compared curves (None where a channel is not
    keyed) takes them, in a few words, each thing the bake would refuse: unlock the
    rotation channels (``rotation_path``) the Graph Editor locks, which the bake replaces
    (a locked delta it keeps, in the same mode), and merge the key frames of channels
    keyed on different frames; "" when nothing. The bake's own refusals say the same
    (bake/read.py)."""
    from .. import animdata

    keyed = [fc for fc in compared if fc is not None and len(fc.keyframe_points)]
    todo = []
    locked = [animdata.channel_label(fc.data_path, fc.array_index) for fc in keyed
              if fc.lock and fc.data_path.rsplit(".", 1)[-1] == rotation_path]
    if locked:
        todo.append(f"unlock {', '.join(locked)} (the Graph Editor's lock), which a bake "
                    "would replace and so leaves as it is")
    frames = [animdata.read_keyframe_arrays(fc, ("co",))["co"][:, 0] for fc in keyed]
    if any(f.shape != frames[0].shape or (f != frames[0]).any() for f in frames[1:]):
        todo.append("its rotation channels are keyed on different frames, which a bake "
                    "leaves as they are: turn on Merge Key Frames (command line: "
                    "--merge-keys) to bake from the union of their keys")
    return "; and ".join(todo)


# How the finding of a driver on a compared channel starts.
DRIVEN = "a driver drives"
# How the finding of a constraint that replaces the rotation starts.
OVERRIDDEN = "constraints set its rotation"
# How the finding of a Stepped F-modifier on a compared channel starts.
STEPPED = "a Stepped F-modifier holds"


def _interpolation(obj) -> str:
    """The interpolation of the first rotation key ``obj`` plays ("BEZIER", "LINEAR" ...;
    a Key Tolerance bake writes one kind), "" without one."""
    from .. import animdata

    for fc in animdata.rotation_fcurves(obj) + animdata.delta_rotation_fcurves(obj):
        if fc is not None and len(fc.keyframe_points):
            return fc.keyframe_points[0].interpolation
    return ""


def _with_bake(obj, result, original: bool):
    """``result`` told which QuatBake bake ``obj`` plays (record.bake_made), so its advice
    never asks for that bake again: ``original`` analyses the keys the bake replaced."""
    from ...core import analysis as core_analysis
    from .. import record

    made = record.bake_made(obj)
    if made is not None:
        # set_bake words core's findings again; the NLA notes added here come after them.
        extra = [f for f in result.findings if f.startswith("NLA track ")]
        method, tolerance, keys = made
        edited = not original and record.edited_since_bake(obj) is not None
        core_analysis.set_bake(result, "before" if original else "after", method,
                               tolerance, keys, edited, record.bake_path(obj),
                               _interpolation(obj) if tolerance > 0.0 and not original
                               else "")
        result.findings += extra
    return result
