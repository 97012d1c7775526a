# SPDX-License-Identifier: GPL-3.0-or-later
"""Step 1 of a bake: check one transform and read its keys (``read_transform``).

Each check is its own step, in the order a user would fix things: the transform
itself (registered, local, not in tweak mode, an action with a slot), its rotation
channels (keys, drivers, NLA blending), the keys' values, the location path, and
the frames to bake. A check that refuses stops the reading of that transform only.
A transform with nothing to bake (no rotation keys, its keys only in NLA clips, no
animation) is skipped, not refused: its one sentence has severity 'SKIPPED' and the
engine bakes the others. One keyed on location only is read for a location bake when
Location is Linear or Catmull-Rom (``Reading.location_only``). Reads Blender, changes
nothing.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ...core import quat
from ...core.words import either
from .. import animdata, keyed
from ..animdata import turn_inputs
from ..record import (
    derived_paths,
    edited_since_bake,
    original_channels,
    original_slot,
    owner_record_of,
    record_of,
)
from .settings import (
    LOCATION_FLOAT32_WARN,
    BakeIssue,
    BakeSettings,
    output_mode_for,
    path_samples,
    verb,
)


@dataclass
class Source:
    action: object
    slot: str
    mode: str
    rebake: bool     # True: the object shows a QuatBake bake; `action` is its original
    clip: bool = False   # True: `action` is an NLA clip, not the active action
    # True: `action` is the bake playing now, not its original (a conversion keeps what
    # plays); the record keeps the original, `original`, which Revert puts back.
    playing: bool = False
    original: object = None
    # A conversion of a bake edited since (record.edited_since_bake): the data path, noted
    # again after it, so that a later bake still says it replaces the edits.
    edited: str | None = None
    # A bake of a transform whose owner plays a bake (``rebake``): that baked action and its
    # slot. Only the bake's own channels (``derived``: record.derived_paths) come from
    # ``action``, the original; every other channel is the animator's as it is now, in
    # ``current``: keys added or changed after the bake (a bone keyed since, the scale)
    # are baked and kept, not taken back to the keys before the bake.
    current: object = None
    current_slot: str = ""
    derived: frozenset = frozenset()


def source_of(obj, playing: bool = False) -> Source:
    """Where the keys to bake come from: the original action if QuatBake baked the owner
    (the object, or the armature of a bone), so that baking again never bakes a bake.
    ``playing`` (a conversion): the keys that play now, a bake's included; converting a
    bake's keys must keep the bake's motion, not go back to the keys before it."""
    rec = owner_record_of(obj)
    current = animdata.get_action(obj)
    if (rec is not None and rec.original_action is not None and rec.baked_action is not None
            and current is not None and current == rec.baked_action):
        if playing:
            return Source(current, animdata.get_slot_identifier(obj), obj.rotation_mode, True,
                          playing=True, original=rec.original_action)
        if getattr(obj, "bone_name", ""):
            bone_rec = obj.quatbake
            mode = (bone_rec.original_rotation_mode if bone_rec.baked else "") or \
                obj.rotation_mode
        else:
            mode = (rec.original_rotation_mode if not rec.bones_only else "") or \
                obj.rotation_mode
        return Source(rec.original_action, original_slot(rec), mode, True, current=current,
                      current_slot=animdata.get_slot_identifier(obj),
                      derived=frozenset(derived_paths(obj)))
    return Source(current, animdata.get_slot_identifier(obj), obj.rotation_mode, False)


def _channel_key_issues(obj, fcurves: Sequence, union_keys: bool, what: str,
                        known: dict | None = None) -> tuple[list[BakeIssue], np.ndarray]:
    """NaN keys and mismatched key frames on ``fcurves`` (None skipped).

    Returns (issues, sorted union of key frames). ``known`` collects the arrays read
    ({fc.as_pointer(): ...}, animdata.KEY_FIELDS), so the deviation need not read them again.
    """
    name, who, bone = obj.name, animdata.subject(obj), getattr(obj, "bone_name", "")
    issues = []
    frames_per_channel = []
    for fc in fcurves:
        if fc is None:
            continue
        if known is None:
            data = animdata.read_keyframe_arrays(fc, ("co", "handle_left", "handle_right"))
        else:
            data = known[fc.as_pointer()] = animdata.read_keyframe_arrays(fc, animdata.KEY_FIELDS)
        co = data["co"]
        # One sum first (any NaN or inf makes it non-finite; an overflow only takes the
        # slower exact look below): hundreds of bones' channels are checked per bake.
        label = animdata.channel_label(fc.data_path, fc.array_index)
        if not np.isfinite(co.sum() + data["handle_left"].sum() + data["handle_right"].sum()):
            finite = np.isfinite(np.concatenate((co, data["handle_left"], data["handle_right"]),
                                                axis=1)).all(axis=1)
            if not finite.all():
                row = int(np.argmin(finite))
                frame = float(co[row, 0]) if np.isfinite(co[row, 0]) else None
                where = f"at frame {animdata.frame_label(frame)}" if frame is not None else \
                    f"(key number {row + 1})"
                issues.append(BakeIssue(
                    'ERROR', name, label, frame,
                    f"{who}: channel {label} has a key {where} whose value or handle "
                    "is not a number. Fix or delete that key, then run it again.", bone))
                continue
        # Subframe keys (a 30 fps clip imported at 24 fps) are fine: the bake adds
        # them to its frames, so it passes through every key (bake_frames).
        frames_per_channel.append((label, co[:, 0]))
        cut = animdata.cut_in_keys(obj, fc, co)
        if cut is not None:
            issues.append(BakeIssue('ERROR', name, label, cut.frame, str(cut), bone))
    if issues or not frames_per_channel:
        return issues, np.zeros(0)
    first = frames_per_channel[0][1]
    if all(f.shape == first.shape and (f == first).all() for _, f in frames_per_channel):
        return issues, np.unique(first)   # the usual case: every channel on the same frames
    union = np.unique(np.concatenate([f for _, f in frames_per_channel]))
    if not union_keys:
        for label, frames in frames_per_channel:
            missing = np.setdiff1d(union, frames)
            if missing.size:
                frame = float(missing[0])
                keyed = next(lab for lab, fr in frames_per_channel if frame in fr)
                issues.append(BakeIssue(
                    'ERROR', name, label, frame,
                    f"{who}: {what} channels are keyed on different frames: "
                    f"{keyed} has a key at frame {animdata.frame_label(frame)} but {label} "
                    "does not. Key all of them on the same frames, or turn on "
                    "\"Merge Key Frames\" (command line: --merge-keys) to bake from the "
                    "union of their keys.", bone))
                break
    return issues, union


def _modifier_warnings(who: str, fcurves: Sequence, warn, kept=(), why_not=None,
                       frames: np.ndarray | None = None) -> None:
    """One warning for the channels of a transform whose F-curve modifiers the bake
    replaces (a walk: four lines for each quaternion bone of a cycled walk). ``kept``: the
    modifiers (animdata.common_stepped, common_cycles) the bake puts on the channels it
    writes, whose look therefore stays; ``why_not``: {modifier type: why one dropped could
    not be kept} (their reasons); ``frames``: those baked, named where they reach past the
    keys (a conversion of what turns on beyond them, over the scene's frames)."""
    kept_types = {m.type for m in kept}
    why_not = why_not or {}
    dropped = {}
    for fc in fcurves:
        if fc is None or not len(fc.modifiers):
            continue
        mods = [m for m in fc.modifiers if m.type not in kept_types or m.mute]
        if mods:
            dropped[animdata.channel_label(fc.data_path, fc.array_index)] = mods
    if not dropped:
        return
    labels = list(dropped)
    playing = {m.type for mods in dropped.values() for m in mods if not m.mute}
    muted = {m.type for mods in dropped.values() for m in mods if m.mute}
    kinds = ", ".join(sorted(t.title() for t in playing))
    channels = (f"channel {labels[0]} has" if len(labels) == 1 else
                f"channels {', '.join(labels)} have")
    quiet = ", ".join(sorted(t.title() for t in muted))
    if not playing:
        # A walk: a muted Noise modifier was said to be baked in and dropped, as a playing
        # one is; it changes nothing Blender plays.
        warn(f"{who}: {channels} muted F-curve modifiers ({quiet}), which change nothing "
             "Blender plays; the baked channels go without them (the original action keeps "
             "them).", labels[0])
        return
    keys = [fc.range() for fc in fcurves if fc is not None and len(fc.keyframe_points)]
    past = frames is not None and frames.size and keys and (
        frames[0] < min(k[0] for k in keys) or frames[-1] > max(k[1] for k in keys))
    where = (f"frames {animdata.frame_span(frames[0], frames[-1])}" if past else
             "the keyed range")
    text = (f"{who}: {channels} F-curve modifiers ({kinds}). The bake interpolates the "
            f"values they give at the key frames over {where} and drops the "
            "modifiers (the original action keeps them)")
    if muted:
        text += f"; the muted ones ({quiet}) change nothing Blender plays"
    if 'STEPPED' in playing:
        text += (f"; the Stepped modifier's held poses go with it, since "
                 f"{why_not.get('STEPPED', animdata.HELD_UNALIKE)} (to keep a stepped look, "
                 "give every channel the same Stepped modifier with the keys on its steps, "
                 "and the bake keeps it; or key the poses with Constant interpolation, whose "
                 "steps a bake keeps)")
    if 'CYCLES' in playing:
        why = why_not.get('CYCLES', animdata.CYCLES_UNALIKE)
        text += (f"; past {'those frames' if past else 'the keys'} the motion no longer "
                 f"cycles, since {why}"
                 + ("" if why.endswith(")") else
                    " (give every channel the same Cycles modifier, on keys that start and "
                    "end together, and a bake of their whole range keeps it)"))
    if kept:
        names = " and ".join(sorted(m.type.title() for m in kept))
        text += f"; their {names} modifier stays on the baked channels"
    warn(text + ".", labels[0])


def _settle_modifiers(issues: _Issues, fcurves: Sequence, kept: list, why_not: dict,
                      frames: np.ndarray, keys) -> tuple[list, np.ndarray]:
    """(the modifiers of ``kept`` (kept_modifiers) the bake keeps now that its ``frames``
    are known, the frames it must bake for them), its warning said (once, true: a review
    found "their Cycles modifier stays" beside "its Cycles modifier is dropped"):

    - Cycles only when the frames span exactly the ``keys`` it repeats (a Custom Range,
      or a location keyed longer, would be another cycle);
    - Stepped with every step start between the first and last frame baked: the frames
      the steps hold are read there, so a start the frames miss (a Step of 4 over steps of
      2, steps offset half a frame) is baked too (a review: without, the held frames
      played the Linear keys' in-betweens, and the figure compared nothing there)."""
    keep, why_not, extra = [], dict(why_not), np.zeros(0)
    for modifier in kept:
        if modifier.type == 'CYCLES' and keys is not None and (
                frames[0] != keys[0] or frames[-1] != keys[-1]):
            span = animdata.frame_span(keys[0], keys[-1])
            why_not['CYCLES'] = (
                f"the bake covers frames {animdata.frame_span(frames[0], frames[-1])} and the "
                f"keys it repeats span {span}"
                + (", and it bakes the keys, not the repeats: the frames of the range past "
                   "them hold the keys' end pose where the cycle played on"
                   if frames[0] < keys[0] or frames[-1] > keys[-1] else "")
                + f" (bake the keys' range, {span}, to keep the cycle)")
            continue
        if modifier.type == 'STEPPED':
            # The starts every quarter frame plays (a step of half a frame from 0.5 starts
            # on 9.5, which no whole frame plays: a review found it neither baked nor
            # measured, 0.23 deg off at 9.75).
            grid = np.arange(np.ceil(frames[0] * 4.0), np.floor(frames[-1] * 4.0) + 1.0) / 4.0
            starts = np.unique(animdata.stepped_time(modifier, grid))
            starts = starts[(starts >= frames[0]) & (starts <= frames[-1])]
            # A frame within float32 rounding of a start is that start: no near-duplicate
            # key beside it.
            extra = np.union1d(extra, starts[~animdata.near_frames(starts, frames)])
        keep.append(modifier)
    _modifier_warnings(issues.who, fcurves, issues.warn, keep, why_not, frames)
    return keep, extra


def kept_modifiers(fcurves: Sequence) -> tuple[list, dict]:
    """(modifiers, why_not): the Stepped and Cycles modifiers every channel of
    ``fcurves`` shares (animdata.common_stepped, common_cycles), in the order the first
    channel holds them, which a bake puts on the channels it writes; and, by modifier
    type, why one that is there could not be kept."""
    held, held_why = animdata.common_stepped(fcurves)
    cycled, cycled_why = animdata.common_cycles(fcurves)
    kept = [m for m in (held, cycled) if m is not None]
    first = next((fc for fc in fcurves if fc is not None), None)
    if first is not None and len(kept) > 1:
        # Both are the first channel's own (common_stepped and common_cycles return its).
        order = list(first.modifiers)
        kept.sort(key=order.index)
    return kept, {t: why for t, why in (('STEPPED', held_why), ('CYCLES', cycled_why)) if why}


def _keyed(fcurves: Sequence) -> list:
    """The F-curves that hold keys (an empty F-curve animates nothing)."""
    return [fc if fc is not None and len(fc.keyframe_points) else None for fc in fcurves]


def _clip_source(obj, clip_name: str) -> tuple[Source | None, str, bool]:
    """The source for a bake of the clip ``clip_name`` (an action of ``obj``'s NLA), or
    (None, sentence, missing): ``missing`` when ``obj`` has no such clip (it is then left
    as it is while the objects that have it are baked)."""
    rec = owner_record_of(obj)   # a bone's clip is its armature's action
    current = source_of(obj)
    clips = animdata.object_clips(obj)
    # A bone the bake left out is on a rig that plays it: it shows no bake of its own (a
    # walk: "2 bones ("Hips", "Spine"): each shows a QuatBake bake of "Run"", which keyed
    # no Spine).
    shows = "its armature plays" if obj.bone_name and not record_of(obj).baked else "it shows"
    if not any(c.name == clip_name for c in clips) and not (
            current.rebake and rec.original_action.name == clip_name):
        names = ", ".join(f"\"{c.name}\"" for c in clips) or "none"
        baked = (f" {shows.capitalize()} a QuatBake bake of \"{rec.original_action.name}\": "
                 "revert it before baking another clip." if current.rebake else "")
        return None, (f"{animdata.subject(obj)} has no clip \"{clip_name}\" (its clips: "
                      f"{names}), so it is left as it is. Name one of its actions, in the NLA "
                      "editor or the Action editor, or clear the Clip to bake its active "
                      f"action.{baked}"), True
    if current.rebake:
        if rec.original_action.name == clip_name:
            return current, "", False
        # One bake record per object: a second clip would lose the first bake's original.
        return None, (f"{animdata.subject(obj)}: {shows} a QuatBake bake of "
                      f"\"{rec.original_action.name}\"; revert it before baking the clip "
                      f"\"{clip_name}\"."), False
    clip = next(c for c in clips if c.name == clip_name)
    if clip.active:
        return Source(clip.action, clip.slot, obj.rotation_mode, False), "", False
    return Source(clip.action, clip.slot, obj.rotation_mode, False, clip=True), "", False


def _blend_issue(obj, src: Source, paths: set) -> str:
    """A sentence when NLA strips play together with the baked action on ``paths``; a
    strip of the action baked (or of its original, for a conversion of a bake) that the
    active action fully replaces plays nothing."""
    baked = {src.action.name} | ({src.original.name} if src.original is not None else set())
    blends = [b for b in animdata.blending_strips(obj, paths)
              if not (b[2] in baked and _replaces_fully(obj))]
    if not blends:
        return ""
    track, strip, action, channels = blends[0]
    who = (f"{animdata.subject(obj)}: NLA track \"{track}\", strip \"{strip}\" (action "
           f"\"{action}\")")
    soloed = [t.name for t in obj.animation_data.nla_tracks if t.is_solo]
    if soloed:
        # Only the soloed track plays: the action (or the clip) does not, so no keying of
        # it helps (a review: "a blend of it and the action (a track is soloed)"), and
        # muting the track neither (a walk: a soloed track plays muted, and the clip's
        # bake was refused again with "is not muted").
        baked_one = f"the clip \"{src.action.name}\"" if src.clip else "the action"
        return (f"{who} plays alone, since track \"{soloed[0]}\" is soloed: {baked_one} "
                "does not play at all. Turn Solo off (the star beside the track in the NLA "
                f"editor) to bake {baked_one}, or bake the NLA into one action first "
                "(Object > Animation > Bake Action).")
    if src.clip:
        # A clip's bake: what plays is the strips together, not an active action.
        return (f"{who} is not muted and also animates {', '.join(channels)}, so what plays "
                f"is a blend of it and the clip \"{src.action.name}\", which QuatBake does "
                "not compute. Mute that track (its checkbox in the NLA editor) to bake the "
                "clip alone, or bake the NLA into one action first (Object > Animation > "
                "Bake Action).")
    return (f"{who} is not muted and also animates {', '.join(channels)}, so what plays "
            f"is a blend of it and the action{_blend_reason(obj)}, which QuatBake does not "
            "compute. Mute that track (its checkbox in the NLA editor) to bake the action "
            "alone, key those channels (unmuted) in the action with its blend at Replace, "
            "influence 1 and Hold, or bake the NLA into one action first (Object > "
            "Animation > Bake Action).")


def _blend_reason(obj) -> str:
    """Why the active action does not replace the strips below it, in a few words ("" when
    its settings do, and only unkeyed channels let them through)."""
    ad = obj.animation_data
    why = []
    if ad.action_blend_type != 'REPLACE':
        why.append(f"its blend is {ad.action_blend_type.replace('_', ' ').title()}")
    if ad.action_influence < 1.0:
        why.append(f"its influence {ad.action_influence:.3g}")
    if ad.action_extrapolation != 'HOLD':
        why.append(f"its extrapolation {ad.action_extrapolation.replace('_', ' ').title()}")
    return f" ({', '.join(why)})" if why else ""


def _replaces_fully(obj) -> bool:
    ad = obj.animation_data
    return (ad is not None and ad.action_blend_type == 'REPLACE' and ad.action_influence >= 1.0
            and ad.action_extrapolation == 'HOLD')


def bake_frames(start: float, end: float, step: int, keys: np.ndarray) -> np.ndarray:
    """Whole frames from start to end every ``step`` (the end always included), plus every
    key frame in [start, end] on a subframe, or further than ``step`` frames from a key
    beside it, so the bake passes through those keys too: the animator's poses stay keys
    (a workflow walk: Step 4 cut a key at frame 1011 off the grid, 17.5 deg off its pose),
    while keys with keys as close as the step on both sides, inside a dense run (a mocap
    clip's on every frame; keys on twos with Step 2, which would otherwise fill every frame
    between the grid's), are what the step thins. One close key is not a run: a snap keyed
    at 10 and 10.5 kept 10.5 and lost the key at 10, 60 deg off its pose (a walk)."""
    first, last = float(np.ceil(start)), float(np.floor(end))
    grid = np.arange(first, last + 1, step, dtype=np.float64) if last >= first else np.zeros(0)
    if grid.size and grid[-1] != last:
        grid = np.append(grid, last)   # always land on the last key / range end
    keys = np.asarray(keys, dtype=np.float64)
    gaps = np.diff(keys)
    apart = (np.r_[np.inf, gaps] > step) | (np.r_[gaps, np.inf] > step)
    sub = keys[(keys >= start) & (keys <= end) & ((keys != np.round(keys)) | apart)]
    ends = [v for v in (start, end) if not float(v).is_integer()]
    return np.union1d(np.union1d(grid, sub), np.asarray(ends, dtype=np.float64))


def _values_at_own_keys(fcurves: Sequence, frames: np.ndarray, known: dict | None,
                        defaults: np.ndarray) -> np.ndarray | None:
    """The channels' values at ``frames`` straight from their keys, when every keyed
    channel has a key on exactly those frames and no modifier: Blender's evaluation at a
    key's own frame is that key's value (fc.evaluate returns it unchanged), and a rig's
    bones then need no fc.evaluate call at all. None when that does not hold."""
    if known is None:
        return None
    out = np.empty((frames.shape[0], len(fcurves)))
    for i, fc in enumerate(fcurves):
        if fc is None:
            out[:, i] = defaults[i]
            continue
        keys = known.get(fc.as_pointer())
        key_frames = keys["co"][:, 0] if keys is not None else None
        if (keys is None or len(fc.modifiers) or key_frames.shape != frames.shape
                or not (key_frames == frames).all()):
            return None
        out[:, i] = keys["co"][:, 1]
    return out


def _transform_fcurves(obj, src: Source, cache: dict | None) -> list:
    """The F-curves of ``src`` that animate the transform ``obj``: on a re-bake, the bake's
    own channels (``src.derived``) from the original, the others from the bake playing.

    A bone's are looked up once per action for every bone of the rig (``cache``),
    so planning 200 bones does not search every F-curve of the action 200 times.
    """
    if cache is None:
        cache = {}
    fcurves = _action_fcurves(obj, src.action, src.slot, cache)
    if src.current is None:
        return fcurves
    derived = {obj.path_prefix + p for p in src.derived}
    return [fc for fc in fcurves if fc.data_path in derived] + [
        fc for fc in _action_fcurves(obj, src.current, src.current_slot, cache)
        if fc.data_path not in derived]


def _action_fcurves(obj, action, slot: str, cache: dict) -> list:
    key = (action.as_pointer(), slot)
    if key not in cache:
        fcurves = animdata.action_fcurves(action, slot)
        cache[key] = (fcurves, animdata.fcurves_by_bone(fcurves))
    fcurves, by_bone = cache[key]
    if obj.bone_name:
        return by_bone.get(obj.bone_name, [])
    return fcurves


@dataclass
class Reading:
    """What ``read_transform`` found of one transform: checked, keys read, frames chosen.
    ``plan_reading`` computes the bake from it once the keyed turns are tracked."""

    obj: object
    src: Source
    fcurves: list
    rot_fcs: list
    delta_fcs: list
    into_delta: bool         # only the delta rotation is keyed: the bake writes there
    delta_keyed: bool
    out_mode: str
    target_path: str
    rot_path: str
    out_path: str
    delta_paths: set
    bake_location: bool
    loc_frames: np.ndarray | None
    loc_points: np.ndarray | None
    loc_into_delta: bool
    rot_frames: np.ndarray
    key_quats: np.ndarray
    key_raw: np.ndarray | None   # the keyed channels' values at rot_frames (the delta ones
    #                              when into_delta; None: not read yet, see track_request)
    frames: np.ndarray
    start: float
    end: float
    issues: list             # warnings found while reading
    location_only: bool = False   # no rotation keys: only the location is baked (key_quats
    #                               None, rot_frames the location keys)
    # The Stepped and Cycles F-modifiers every keyed rotation (location) channel has alike,
    # which the bake puts on the channels it writes (kept_modifiers).
    kept_rotation: list = field(default_factory=list)
    kept_location: list = field(default_factory=list)
    # Per location axis, (h, 2) (start, end) frames where its keys hold (CONSTANT keys: a
    # blocking pass), which the location bake keeps held (plan._positions).
    loc_holds: list = field(default_factory=list)
    # A conversion of QuatBake's keys playing now (src.playing): the rotation key frames
    # before its first bake or conversion (the animator's poses; keys_before_quatbake).
    poses_before: np.ndarray | None = None
    # The same for the half the bake leaves (delta_location under a keyed location): its
    # jumps at the ends of its holds are its own, kept out of the path (plan._jumps).
    other_holds: list = field(default_factory=list)

    def track_request(self, settings: BakeSettings) -> turn_inputs.TrackRequest:
        """What turn_inputs needs to follow Blender's playback of the keyed channels."""
        if self.key_raw is None:
            # Read once: the turns' tracking and their kinds both ask (bake.turns).
            keyed_fcs = self.delta_fcs if self.into_delta else self.rot_fcs
            defaults = (animdata.delta_rotation_defaults(self.obj, self.src.mode)
                        if self.into_delta else animdata.rotation_defaults(self.obj, self.src.mode))
            self.key_raw = animdata.evaluate_channels_exact(keyed_fcs, defaults, self.rot_frames)
        # Timing: Keyed samples Blender's progress wherever the path is computed.
        extra = path_samples(self.frames, settings) if settings.timing == 'KEYED' else None
        return turn_inputs.TrackRequest(self.obj, self.src.mode, self.fcurves, self.rot_frames,
                                        self.key_quats, self.key_raw, extra)


class _Refused(Exception):
    """A check failed: the transform is not baked (its issues say why)."""


class _Issues:
    """The issues found while reading one transform, each naming it (and its bone)."""

    def __init__(self, obj) -> None:
        self.name, self.who, self.bone = obj.name, animdata.subject(obj), obj.bone_name
        self.found: list[BakeIssue] = []

    def err(self, message, channel="", frame=None) -> None:
        self.found.append(BakeIssue('ERROR', self.name, channel, frame, message, self.bone))

    def warn(self, message, channel="", frame=None) -> None:
        self.found.append(BakeIssue('WARNING', self.name, channel, frame, message, self.bone))

    def refuse(self, message, channel="", frame=None):
        self.err(message, channel, frame)
        raise _Refused

    def skip(self, message, channel="", frame=None, done=""):
        """Nothing to bake here: leave the transform as it is, say why, bake the others.
        ``done``: why there is nothing to do (``BakeIssue.done``)."""
        self.found.append(BakeIssue('SKIPPED', self.name, channel, frame, message, self.bone,
                                    done))
        raise _Refused

    def refuse_if_any(self) -> None:
        if any(i.severity == 'ERROR' for i in self.found):
            raise _Refused


def read_transform(obj, settings: BakeSettings, fcurve_cache: dict | None = None
                   ) -> tuple[Reading | None, list[BakeIssue]]:
    """Check one transform (an object or a pose bone), read its keys and choose the frames
    to bake. Changes nothing. Returns (None, issues) when a check refuses it."""
    issues = _Issues(obj)
    try:
        src = _checked_source(obj, settings, issues)
        if settings.clip and not src.rebake:
            _clip_strip_warning(obj, src, issues)
        if src.rebake and not src.playing:
            _edited_since_bake(obj, issues)
        elif src.playing:
            src.edited = edited_since_bake(obj)
        fcurves = _transform_fcurves(obj, src, fcurve_cache)
        channels = _rotation_channels(obj, src, fcurves, settings, issues)
        location_only = channels.pop("location_only")
        known = fcurve_cache.setdefault("keys", {}) if fcurve_cache is not None else None
        if location_only:
            location = _location_keys(obj, fcurves, settings, issues)
            rot_frames, key_quats, raw = location["loc_frames"], None, None
        else:
            rot_frames, key_quats, raw = _rotation_keys(obj, src, fcurves, channels, settings,
                                                        known, issues)
            location = _location_keys(obj, fcurves, settings, issues)
        def pose(times, obj=obj, fcurves=fcurves, mode=src.mode,
                 moved=location["bake_location"]):
            """What the bake writes plays at ``times``: (orientations, positions or None)."""
            return (animdata.evaluate_orientation(obj, times, mode, fcurves, exact=True),
                    animdata.evaluate_full_location(obj, times, fcurves, exact=True)
                    if moved else None)

        # A Cycles modifier the bake keeps on what it writes repeats it beyond the keys as
        # it repeated the keys: no frame beyond them is baked (a review: a walk cycle
        # converted over the scene's 250 frames lost its modifier, 161 keys a channel).
        # Only one that repeats both ways without end: one limited to some repeats, or
        # none before, leaves the keys' own extrapolation to play (a review: 120 deg off).
        keeps_cycle = any(m.type == 'CYCLES' and 'NONE' not in (m.mode_before, m.mode_after)
                          and m.cycles_before == 0 and m.cycles_after == 0
                          and not m.use_restricted_range
                          for m in channels["rotation_modifiers"][1])
        frames, start, end = _frames_to_bake(obj, settings, rot_frames, location["loc_frames"],
                                             fcurve_cache, issues, pose,
                                             widen=not keeps_cycle)
        if location["bake_location"]:
            _extrapolated_ends(obj, fcurves, location, frames)
        channels["kept_rotation"], held_rot = _settle_modifiers(
            issues, *channels.pop("rotation_modifiers"), frames, rot_frames)
        location["kept_location"], held_loc = _settle_modifiers(
            issues, *location.pop("location_modifiers", ([], [], {})), frames,
            location["loc_frames"])
        if held_rot.size or held_loc.size:
            # A new array only then: a rig's bones share one frames array, by which the
            # bake groups their evaluation (deviation.set_deviations).
            frames = np.union1d(frames, np.union1d(held_rot, held_loc))
    except _Refused:
        return None, issues.found
    reading = Reading(obj=obj, src=src, fcurves=fcurves, **channels, **location,
                      rot_frames=rot_frames, key_quats=key_quats, key_raw=raw, frames=frames,
                      start=start, end=end, issues=issues.found, location_only=location_only,
                      poses_before=None if location_only else keys_before_quatbake(obj, src))
    return reading, issues.found


def keys_before_quatbake(obj, src: Source) -> np.ndarray | None:
    """The rotation key frames ``obj`` had before QuatBake's first bake or conversion
    (the original action's, in the rotation mode of then), when a conversion reads the keys
    of such a bake playing now (``src.playing``); None otherwise or when it had none. The
    keys playing are then QuatBake's fit, and these the animator's poses."""
    if not src.playing:
        return None
    found = original_channels(obj)
    if found is None:
        return None
    fcurves, mode = found
    frames = [animdata.read_keyframe_arrays(fc, ("co",))["co"].reshape(-1, 2)[:, 0]
              for fc in animdata.rotation_fcurves(obj, mode, fcurves) if fc is not None]
    frames = [f for f in frames if f.size]
    if not frames:
        return None
    return np.unique(np.concatenate(frames)).astype(np.float64)


def _clip_strip_warning(obj, src: Source, issues: _Issues) -> None:
    """Warn when the NLA strip that plays the clip changes it (influence, blending, scale,
    repeat, reversed, moved): the bake keys the clip's action as keyed, at its own frames,
    and makes it the active action, so what plays after the bake is the action's keys, not
    the strip's (a walk: a strip at influence 0.5 played 90 deg away after the bake)."""
    found = animdata.clip_strip_changes(obj.owner, src.action)
    if found:
        track, strip, changes = found[0]
        issues.warn(f"{animdata.subject(obj)}: the clip \"{src.action.name}\" plays in NLA strip "
                    f"\"{strip}\" of track \"{track}\" with {', '.join(changes)}. The bake keys "
                    "the action as keyed, at its own frames, without the strip's changes, so "
                    "what plays after it differs; Revert puts the strip's playback back.")


def _edited_since_bake(obj, issues: _Issues) -> None:
    """Warn when keys the last bake wrote were changed since (a key moved, a handle
    dragged): a bake of a baked transform starts again from the keys before its first
    bake, so it replaces those changes. The bake goes on: Ctrl+Z brings them back."""
    path = edited_since_bake(obj)
    if path is not None:
        issues.warn(f"{animdata.subject(obj)}: its baked {path} keys were changed since "
                    "the bake. A bake starts again from the keys before the first bake, so "
                    "this one replaced those changes (Ctrl+Z brings them back).", path)


def _checked_source(obj, settings: BakeSettings, issues: _Issues) -> Source:
    """Where the keys come from, after the checks that need no keys: registered, local,
    not in NLA tweak mode, the bone still there, an action (or the named clip) with a slot."""
    who, bone = issues.who, issues.bone
    if record_of(obj) is None:
        issues.refuse("QuatBake is not registered, so it cannot record what it bakes. Enable "
                      "the add-on first.")
    if animdata.linked_sentence(obj):
        issues.refuse(animdata.linked_sentence(obj))
    tweak, _strips = animdata.nla_state(obj)
    if tweak:
        track, strip = animdata.tweaked_strip(obj)
        where = (f" (editing strip \"{strip}\" on track \"{track}\")" if strip else
                 f" (editing track \"{track}\")" if track else "")
        issues.refuse(f"{who} is in NLA tweak mode{where}. Leave tweak mode (Tab in the NLA "
                      "editor) first; QuatBake then bakes the active action (or the clip you "
                      "name) and leaves the NLA strips as they are.")
    if bone and not obj.exists:
        issues.refuse(f"{who} is not in the armature any more (renamed or deleted). Select the "
                      "bone again.")
    if settings.clip:
        src, message, missing = _clip_source(obj, settings.clip)
        if src is None:
            if missing:
                issues.skip(message)
            issues.refuse(message)
    else:
        src = source_of(obj, playing=settings.keep_playback)
    if src.action is None:
        every = animdata.object_clips(obj)
        # Only a clip with rotation keys (or location keys, for a location bake) is worth
        # naming: a walk was told to name a clip that keys only scale.
        clips = [c.name for c in every if keyed.has_rotation_keys(obj, c.fcurves()) or (
            settings.location_method != 'KEEP' and keyed.has_location_keys(obj, c.fcurves()))]
        if clips:
            issues.skip(f"{who} has no active action; its animation lives in NLA clips "
                        f"({', '.join(clips)}), so it is left as it is. "
                        f"{_name_a_clip(settings)}")
        if animdata.bone_key_count(obj):
            issues.skip(keyed.bones_only_in_clips(obj, _bones_clip_verb(settings)))
        # These three move nothing: a run that finds nothing else to do succeeds (a
        # walk: an unkeyed mesh selected with a rig already in the mode refused the
        # conversion, "none of the 2 transforms has keys QuatBake can convert").
        if every:
            issues.skip(f"{who} has no active action, and its NLA clips "
                        f"({', '.join(c.name for c in every)}) key no rotation, so there is "
                        f"nothing to {verb(settings)}.", done="idle")
        idle = _idle_cache(obj)
        if idle:
            # A walk: a muted Transform Cache (or one with no file) was told "has no
            # animation ... Key its rotation on two frames or more".
            issues.skip(f"{who} has no keys, and {idle}, so it moves nothing: there is "
                        f"nothing to {verb(settings)}.", done="idle")
        if settings.keep_playback:
            then = ("convert: Blender's Rotation Mode menu (Object or Bone properties) "
                    "converts an unkeyed rotation itself.")
        else:
            then = "bake. Key its rotation on two frames or more, then bake."
        issues.skip(f"{who} has no animation, so there is nothing to {then}", done="idle")
    if animdata.is_read_only(src.action):
        where = (f"is linked from the library \"{src.action.library.filepath}\""
                 if src.action.library is not None else "is a library override")
        issues.refuse(f"{who}: its action \"{src.action.name}\" {where}, not the file's own, "
                      "so QuatBake does not bake it. Make the action local first (the Action "
                      "editor's button beside its name).")
    if animdata.slot_missing(src.action, src.slot):
        # None of its keys play: nothing to bake, as the report skips it (a walk: the bake
        # refused the whole selection where the report went on with the others).
        issues.skip(f"{who}: its action \"{src.action.name}\" has no slot assigned to this "
                      "object, so none of its keys animate it. Pick the object's slot in the "
                      f"Action editor (or the Object > Animation panel), then "
                      f"{verb(settings)}.")
    return src


def _rotation_channels(obj, src: Source, fcurves: list, settings: BakeSettings,
                       issues: _Issues) -> dict:
    """The keyed rotation channels and the paths the bake reads and writes (Reading's
    fields of the same names, and ``location_only``); skipped without rotation keys
    (unless a location bake applies), refused with a driver or an NLA blend on what it
    would write."""
    who = issues.who
    rot_path = animdata.ROTATION_PATHS[src.mode][0]
    rot_all = animdata.rotation_fcurves(obj, src.mode, fcurves)
    delta_all = animdata.delta_rotation_fcurves(obj, src.mode, fcurves)
    sampled = animdata.sampled_sentence(obj, rot_all + delta_all)
    if sampled:
        issues.refuse(sampled, rot_path)
    rot_fcs, delta_fcs = _keyed(rot_all), _keyed(delta_all)
    regular_keyed = any(fc is not None for fc in rot_fcs)
    delta_keyed = any(fc is not None for fc in delta_fcs)
    location_only = False
    if not regular_keyed and not delta_keyed:
        if animdata.bone_key_count(obj) and not getattr(obj, "bone_name", "") \
                and not animdata.fcurves_by_bone(fcurves):
            issues.skip(keyed.bones_only_in_clips(obj, _bones_clip_verb(settings)), rot_path)
        location_only = settings.location_method != 'KEEP' and _location_key_count(
            obj, fcurves) >= 2
        if not location_only:
            idle = not any(keyed.has_rotation_keys(obj, clip.fcurves())
                           for clip in animdata.object_clips(getattr(obj, "owner", obj)))
            issues.skip(_nothing_to_bake(obj, src, fcurves, settings), rot_path,
                        done="idle" if idle else "")
    # BVH object imports key only the delta channels: the bake then writes there.
    into_delta = delta_keyed and not regular_keyed
    # Which modifiers the bake keeps is settled, and said, once its frames are known.
    modifiers = (rot_fcs + delta_fcs, *(([], {}) if location_only else
                                        kept_modifiers(rot_fcs + delta_fcs)))
    if location_only:
        out_mode = src.mode    # the rotation is left as it is
    else:
        out_mode, note = output_mode_for(obj, src.mode, fcurves, rot_fcs + delta_fcs, settings)
        if note is not None:
            issues.found.append(note)
        if settings.output_mode == 'KEEP' and out_mode != obj.rotation_mode:
            # A bake of a bake starts from the keys before it, in their own mode: said, as
            # it turns a transform converted (or baked to Quaternion) back.
            issues.found.append(BakeIssue(
                'INFO', obj.name, rot_path, None,
                f"{who} played in {obj.rotation_mode}, from an earlier bake or conversion; "
                f"Output: Object's Mode bakes the keys before it in their own mode, "
                f"{out_mode} (Output: Quaternion, or Convert Rotation Mode after the bake, "
                "for another).", getattr(obj, "bone_name", "")))
        if settings.keep_playback and out_mode == src.mode and settings.output_mode == 'AUTO':
            # Auto chose from the keys' playback: a key that is not a number chose nothing
            # (a walk: "already in XYZ, the Euler order farthest from gimbal lock here",
            # exit 0, where every other mode refused the key).
            issues.found += _channel_key_issues(obj, rot_fcs + delta_fcs, True, "rotation")[0]
            issues.refuse_if_any()
        if settings.keep_playback and out_mode == src.mode:
            # A walk: a rig converted to Quaternion re-fitted the bones already in it
            # (4 keys became 7, 0.008 deg moved), and again on every conversion after.
            why = (", the Euler order farthest from gimbal lock here"
                   if settings.output_mode == 'AUTO' else "")
            issues.skip(f"{who} is already in {out_mode}{why}: there is nothing to convert, "
                        "and its keys are left as they are.", rot_path, done="mode")
    if into_delta and out_mode not in animdata.DELTA_ROTATION_PATHS:
        issues.refuse(f"{who}: only its delta rotation is keyed, and Blender has no delta "
                      f"channels for {out_mode}; convert to another mode.", rot_path)
    out_path = animdata.ROTATION_PATHS[out_mode][0]
    target_path = animdata.DELTA_ROTATION_PATHS[out_mode][0] if into_delta else out_path
    delta_paths = {animdata.DELTA_ROTATION_PATHS[m][0] for m in (src.mode, out_mode)
                   if m in animdata.DELTA_ROTATION_PATHS}
    location_paths = ({"location", "delta_location"} if settings.location_method != 'KEEP'
                      else set())
    # A location bake leaves the rotation as it is: only the location is written.
    driven_paths = location_paths if location_only else \
        {rot_path, out_path} | delta_paths | location_paths
    if not location_only and out_mode != src.mode:
        # The mode itself keyed or driven sets it back on playback, and the keys written in
        # the new mode never play (a convert walk: 107 deg off, FINISHED, nothing said).
        driven_paths = driven_paths | {"rotation_mode"}
        mode_path = animdata.path_prefix(obj) + "rotation_mode"
        if any(fc.data_path == mode_path and len(fc.keyframe_points) and not fc.mute
               for fc in fcurves):
            issues.err(f"{who}: its rotation mode is keyed, and on playback those keys set it "
                       f"back to {src.mode}, so keys written in {out_mode} would never play. "
                       "Delete the rotation mode's keys (or mute that channel) first.",
                       "rotation_mode")
    for label in animdata.driver_channels(obj, driven_paths):
        issues.err(f"{who}: channel {label} has a driver, which overrides any keys "
                   "QuatBake writes. Remove the driver (or bake it to keys) first.", label)
    # Locked channels are the animator's "leave these alone" (a convert walk: locked
    # rotation curves were replaced, 3 keys by 8, and came back unlocked). Those the bake
    # rewrites: what it writes, and on a change of mode the old mode's and the deltas (a
    # review: a locked delta beside a same-mode bake, which leaves it, was refused); the
    # location's are checked where the location bake knows what it writes.
    if not location_only:
        _refuse_locked(obj, fcurves, {target_path} | (
            {rot_path} | delta_paths if out_mode != src.mode else set()), issues)
    blend = _blend_issue(obj, src, driven_paths)
    if blend:
        issues.err(blend)
    issues.refuse_if_any()
    if location_only:
        target_path, delta_paths = "", set()
    return dict(rot_fcs=rot_fcs, delta_fcs=delta_fcs, into_delta=into_delta,
                delta_keyed=delta_keyed, out_mode=out_mode, target_path=target_path,
                rot_path=rot_path, out_path=out_path, delta_paths=delta_paths,
                location_only=location_only, rotation_modifiers=modifiers)


def _refuse_locked(obj, fcurves: list, paths: set, issues: _Issues) -> None:
    """An error naming the keyed channels of ``paths`` locked in the Graph Editor."""
    prefix = animdata.path_prefix(obj)
    locked = [animdata.channel_label(fc.data_path, fc.array_index) for fc in fcurves
              if fc.lock and fc.data_path.startswith(prefix)
              and fc.data_path[len(prefix):] in paths and len(fc.keyframe_points)]
    if locked:
        n = len(locked)
        issues.err(f"{issues.who}: {either(n, 'channel', 'channels')} {', '.join(locked)} "
                   f"{either(n, 'is', 'are')} locked (the Graph Editor's lock), which "
                   "QuatBake would replace. Unlock them first.", locked[0])


def _location_key_count(obj, fcurves: list) -> int:
    """How many frames ``obj``'s location and delta location channels are keyed on."""
    return int(animdata.key_frames(_keyed(animdata.location_fcurves(obj, fcurves))
                                   + _keyed(animdata.delta_location_fcurves(obj, fcurves))).size)


def _bones_clip_verb(settings: BakeSettings) -> str | None:
    """What naming a clip does for bones keyed only in clips: a bake bakes them; a
    conversion takes no clip (keyed.bones_only_in_clips then says so)."""
    return None if settings.keep_playback else "bake its bones"


def _name_a_clip(settings: BakeSettings) -> str:
    """What to do with a clip in the NLA: a bake is given the clip by name; a conversion
    (keep_playback) reads the active action only, so the clip must become it."""
    if settings.keep_playback:
        return ("Convert reads the active action only: assign the clip's action to it "
                "(the Action Editor's action menu), then convert.")
    return "Name the clip to bake it (Clip in the Re-bake panel; command line: --clips NAME)."


def _nothing_to_bake(obj, src: Source, fcurves: list, settings: BakeSettings) -> str:
    """Why a transform without rotation keys is left as it is (keyed.nothing_to_rotate),
    with what would bake it: a location bake, or the NLA clip holding its rotation."""
    then = ""
    if keyed.has_location_keys(obj, fcurves):
        if _location_key_count(obj, fcurves) < 2:
            then = "its location has a single key, so there is no path to re-bake either"
        elif settings.location_method == 'KEEP' and not settings.keep_playback:
            # (A conversion changes the rotation only: it has no Location option.)
            then = ("Location: Linear or Catmull-Rom re-bakes its location; command line: "
                    "--location linear")
    # A clip's bake (settings.clip) reads that clip: the sentence is about it, and the
    # active action is named as such (a real-file walk: "Object "Cube" ... Its NLA clips
    # CubeRotation have rotation keys", CubeRotation being its active action).
    sentence = keyed.nothing_to_rotate(obj, src.mode, fcurves, then, clip=settings.clip)
    rotating = [c for c in animdata.object_clips(obj) if c.action != src.action
                and keyed.has_rotation_keys(obj, c.fcurves(), src.mode)]
    active = [c.name for c in rotating if c.active]
    clips = [c.name for c in rotating if not c.active]
    if active:
        sentence += (f" Its active action {active[0]} has rotation keys: bake it with no Clip "
                     "named.")
    if clips:
        sentence += (f" Its NLA clips {', '.join(clips)} have rotation keys. "
                     f"{_name_a_clip(settings)}")
    return sentence


def _rotation_keys(obj, src: Source, fcurves: list, channels: dict, settings: BakeSettings,
                   known: dict | None, issues: _Issues) -> tuple:
    """(key frames, orientations there, the keyed channels' values there or None)."""
    rot_fcs, delta_fcs = channels["rot_fcs"], channels["delta_fcs"]
    key_fcs = rot_fcs + delta_fcs
    key_issues, rot_frames = _channel_key_issues(obj, key_fcs, settings.union_keys, "rotation",
                                                 known)
    if key_issues:
        issues.found += key_issues
        raise _Refused
    # It holds one pose: nothing to interpolate, as with location keys only, so a bake
    # leaves it as it is and bakes the rest (three of a Maya rig's joints must not stop
    # the rig: maya_dq_weights). A conversion writes that pose in the new mode, one key
    # (core.bezier_keys: one sample, one key): a walk found the rig's three joints left
    # QUATERNION, the rig in two modes. Unless Blender turns it away from its key: then
    # one key cannot play it, and the conversion leaves it too (a review: a camera shake,
    # one key under Noise, converted to a still camera, 66 deg off).
    if rot_frames.size < 2:
        moves = _single_key_moves(key_fcs) if settings.keep_playback else ""
        if moves or not settings.keep_playback:
            first = next(fc for fc in key_fcs if fc is not None)
            label = animdata.channel_label(first.data_path, first.array_index)
            at = f"{issues.who} has a single rotation key (frame " \
                 f"{animdata.frame_label(rot_frames[0])})"
            if moves:
                why = (f"{at}, and {moves} turns it away from that pose, so one key in another "
                       f"mode cannot play it: it is left in {src.mode}. Key the motion on two "
                       "frames or more to convert it.")
            else:
                why = (f"{at}: it holds that pose, so there is nothing to interpolate and it is "
                       "left as it is (add a second key to bake it).")
                if src.rebake and obj.rotation_mode != src.mode:
                    # A plain Re-bake after a conversion starts again from the keys before
                    # it, in their mode: the rig would be left in two (a triage: three of a
                    # Maya rig's joints stayed XYZ beside three back in QUATERNION).
                    why += (f" It stays in {obj.rotation_mode}, where this bake starts again "
                            f"from the keys in {src.mode}: Revert it to put its own "
                            f"{src.mode} key back.")
            issues.skip(why, label, float(rot_frames[0]))
    try:
        # The keys' own values are the orientation only when no delta (keyed or static)
        # composes with them: Blender plays delta @ rotation.
        plain = not channels["delta_keyed"] and animdata.is_identity_delta(
            animdata.delta_rotation_defaults(obj, src.mode), src.mode)
        raw = None if not plain else _values_at_own_keys(
            rot_fcs, rot_frames, known, animdata.rotation_defaults(obj, src.mode))
        if raw is not None:
            key_quats = animdata.rotation_values_to_quat(raw, src.mode, rot_frames, obj.name,
                                                         channels["rot_path"], issues.who)
        else:
            key_quats = animdata.evaluate_orientation(obj, rot_frames, src.mode, fcurves,
                                                      exact=True)
    except animdata.ChannelError as exc:
        issues.refuse(str(exc), exc.channel, exc.frame)
    return rot_frames, key_quats, raw


def _idle_cache(obj) -> str:
    """Why ``obj``'s Transform Cache constraint plays nothing, said to be fixed ("" when it
    has none): muted, at no influence, or reading no file or object."""
    from ..animdata import cache as anim_cache

    for con in anim_cache.cache_constraints(obj):
        name = f"its Transform Cache \"{con.name}\""
        if con.mute:
            return f"{name} is muted (unmute it to bake the cache)"
        if con.influence <= 0.0:
            return f"{name} has influence 0 (set it to 1 to bake the cache)"
        if con.cache_file is None or not con.object_path:
            return (f"{name} reads no {'file' if con.cache_file is None else 'object path'} "
                    "(pick one in the constraint to bake the cache)")
    return ""


def _single_key_moves(fcurves: list) -> str:
    """What moves a channel keyed once away from its key (a modifier other than Stepped or
    Cycles, which hold one key still; Linear extrapolation along a Bezier key's handles),
    named for a sentence, or "" when each channel holds its key's value."""
    for fc in fcurves:
        if fc is None:
            continue
        label = animdata.channel_label(fc.data_path, fc.array_index)
        # At influence 0 a modifier changes nothing (a review: such a Noise was refused).
        moving = [m for m in fc.modifiers if not m.mute and m.type not in ('STEPPED', 'CYCLES')
                  and not (m.use_influence and m.influence == 0.0)]
        if moving:
            # Blender's own name ("Built-In Function", where .title() read "Fngenerator").
            kind = moving[0].bl_rna.properties["type"].enum_items[moving[0].type].name
            return f"the {kind} modifier on {label}"
        if any(animdata.extrapolated_slopes(fc)):
            return f"Linear extrapolation along its handles ({label})"
    return ""


def _location_keys(obj, fcurves: list, settings: BakeSettings, issues: _Issues) -> dict:
    """The location path for a location bake and for constant speed (Reading's
    bake_location, loc_frames, loc_points, loc_into_delta): location + delta_location,
    written back into the one that is keyed."""
    found = dict(bake_location=settings.location_method != 'KEEP', loc_frames=None,
                 loc_points=None, loc_into_delta=False, loc_holds=[], other_holds=[])
    if not found["bake_location"]:
        return found
    who = issues.who
    loc_all = animdata.location_fcurves(obj, fcurves)
    dloc_all = animdata.delta_location_fcurves(obj, fcurves)
    sampled = animdata.sampled_sentence(obj, loc_all + dloc_all)
    if sampled:
        issues.refuse(sampled, animdata.LOCATION_PATH[0])
    loc_fcs, dloc_fcs = _keyed(loc_all), _keyed(dloc_all)
    found["loc_into_delta"] = not any(loc_fcs) and any(dloc_fcs)
    loc_issues, loc_frames = _channel_key_issues(obj, loc_fcs + dloc_fcs, settings.union_keys,
                                                 "location")
    if loc_issues:
        issues.found += loc_issues
        raise _Refused
    if loc_frames.size < 2:
        keys = "one location key" if loc_frames.size else "no location keys"
        message = f"{who} has {keys}, so there is no path"
        if settings.constant_speed:
            # Not broken input: a setting that does not apply to this one (a rig's FK
            # bones beside its keyed IK controls). Its rotation is baked all the same.
            issues.warn(message + " to travel at constant speed: its rotation is baked at "
                        "the method's own timing and its location left as it is. Key its "
                        "location on two frames or more to retime it too.", "location")
        else:
            issues.warn(message + " to re-bake; its location is left as it is.", "location")
        found["bake_location"] = False
        return found
    _refuse_locked(obj, fcurves, {"delta_location" if found["loc_into_delta"] else "location"},
                   issues)
    issues.refuse_if_any()
    modifiers = (loc_fcs + dloc_fcs, *kept_modifiers(loc_fcs + dloc_fcs))
    loc_points = animdata.evaluate_full_location(obj, loc_frames, fcurves, exact=True)
    big = float(np.abs(loc_points).max())
    if big > LOCATION_FLOAT32_WARN:
        issues.warn(f"{who}: location reaches {big:.3g} units, where Blender's "
                    f"float32 keys are only {float(np.spacing(np.float32(big))):.2g} apart; "
                    "slow moves there will stutter. Move the scene closer to the origin.",
                    "location")
    found.update(loc_frames=loc_frames, loc_points=loc_points, location_modifiers=modifiers,
                 loc_holds=_holds(loc_fcs if any(loc_fcs) else dloc_fcs),
                 other_holds=_holds(dloc_fcs) if any(loc_fcs) else [])
    return found


def _holds(fcurves: list) -> list:
    """Per channel (None: not keyed), the (h, 2) start and end frames of its CONSTANT
    segments: Blender holds the key's value from its frame until the next key's."""
    constant = animdata.enum_value("interpolation", "CONSTANT")
    out = []
    for fc in fcurves:
        spans = np.zeros((0, 2))
        if fc is not None and len(fc.keyframe_points) >= 2:
            keys = animdata.read_keyframe_arrays(fc, ("co", "interpolation"))
            held = np.flatnonzero(keys["interpolation"][:-1] == constant)
            spans = np.column_stack((keys["co"][held, 0], keys["co"][held + 1, 0]))
        out.append(spans)
    return out


def _extrapolated_ends(obj, fcurves: list, location: dict, frames: np.ndarray) -> None:
    """Where the bake runs past the location keys (the rotation keyed longer) and a
    location channel moves on there (Linear extrapolation), Blender's positions at the
    bake's ends join the path's points: the path holds beyond its points, and a car keyed
    at frames 10-30 stopped there in a bake of 1-40 where Blender drove it on (a walk: 1.8
    units off at frame 1)."""
    loc_frames = location["loc_frames"]
    ends = [f for f in (float(frames[0]), float(frames[-1]))
            if f < loc_frames[0] or f > loc_frames[-1]]
    keyed = [fc for fc in animdata.location_fcurves(obj, fcurves)
             + animdata.delta_location_fcurves(obj, fcurves) if fc is not None]
    if not ends or any(len(fc.modifiers) for fc in keyed) or not any(
            any(animdata.extrapolated_slopes(fc)) for fc in keyed):
        return
    loc_frames = np.union1d(loc_frames, ends)
    location["loc_frames"] = loc_frames
    location["loc_points"] = animdata.evaluate_full_location(obj, loc_frames, fcurves, exact=True)


def _say_keys_left_out(issues: _Issues, keys: np.ndarray, start: float, end: float,
                       pose=None) -> None:
    """Warn when a Custom Range leaves out keys: the bake holds the range's first and last
    pose beyond it, as nla.bake's action does, so those keys' poses are gone from what
    plays (a walk: Custom Range 5-25 dropped the poses at 1, 31 and 41, 81 deg off, with
    no word). Not a key whose pose the range's end holds anyway (a Rigify walk: a Constant
    key at 1 held through frame 20, the start of 20-100, was said to be gone): ``pose``,
    read_transform's, tells (_pose_differs)."""
    before, after = keys[keys < start], keys[keys > end]
    if pose is not None:
        before = before[_pose_differs(pose, before, start)]
        after = after[_pose_differs(pose, after, end)]
    if not before.size and not after.size:
        return
    said = " and ".join(f"{_key_run(run)} {where}" for run, where in (
        (before, "before it"), (after, "after it")) if run.size)
    first, last = animdata.frame_label(start), animdata.frame_label(end)
    issues.warn(f"{issues.who}: the Custom Range {animdata.frame_span(start, end)} leaves out "
                f"the keys at {said}; the bake holds frame {first}'s pose before the range and "
                f"frame {last}'s after it, so what those keys play is gone. Widen the range to "
                "keep them (Revert brings them back).", "",
                float(before[0] if before.size else after[0]))


# Closer than this (radians, scene units), two poses are one: float32 channels give the
# same pose to ~1e-7 from another key's numbers (-q, a whole turn more).
SAME_POSE = 1e-6


def _pose_differs(pose, keys: np.ndarray, at: float) -> np.ndarray:
    """(k,) bool: whether Blender plays another pose than at frame ``at`` somewhere from
    ``at`` to each of ``keys`` (all on one side of it), at the keys and every frame between
    (``pose(times)``: orientations and positions or None). A key held Constant from the
    range's end plays nothing lost, and a quaternion key and its negative, an angle and a
    whole turn more, are one pose (a review: compared channel by channel, they were said to
    be lost); a whole turn keyed between them is lost motion (a second review: a turntable
    keyed 360 -> 720 after the range went unsaid, 180 deg off)."""
    if not keys.size:
        return np.ones(0, dtype=bool)
    far = keys[-1] if keys[-1] > at else keys[0]
    step = 1.0 if far > at else -1.0
    times = np.union1d(keys, np.arange(at + step, far, step))
    times = times[np.argsort(np.abs(times - at))]      # outward from ``at``
    quats, places = pose(np.append(times, at))
    differs = quat.angle_between(quats[:-1], quats[-1]) > SAME_POSE
    if places is not None:
        differs |= np.abs(places[:-1] - places[-1]).max(axis=1) > SAME_POSE
    by_then = np.logical_or.accumulate(differs)
    return by_then[np.searchsorted(np.abs(times - at), np.abs(keys - at))]


def _key_run(frames: np.ndarray) -> str:
    """Key frames in words: each of a few ("1, 31"), else the span and the count ("1-99,
    99 keys": a mocap clip's bones each listed five of hundreds, 'and 418 more')."""
    if frames.size <= 4:
        return ", ".join(animdata.frame_label(f) for f in frames)
    return f"{animdata.frame_span(frames[0], frames[-1])} ({frames.size} keys)"


# Frames of a playback range beyond the keys looked at for motion, at most (spread evenly,
# the range's ends and the frames next to the keys among them).
MOVING_SAMPLES = 64


def _moving_range(start: float, end: float, playback: tuple, pose) -> tuple[float, float]:
    """(start, end) widened to each end of ``playback`` where ``pose`` (what Blender plays:
    orientations, positions) moves there beyond the keyed ``start`` .. ``end`` (Linear
    extrapolation, a Cycles, Generator or Noise modifier): a convert walk found a
    turntable keyed 1-20 still from frame 21 on, 139 deg off at frame 48 of the scene."""
    first, last = (float(v) for v in playback)
    widened = [start, end]
    for side, at, far in ((0, start, min(first, start)), (1, end, max(last, end))):
        if far == at:
            continue
        step = 1.0 if far > at else -1.0
        beyond = np.arange(at + step, far + step / 2, step)
        if beyond.size > MOVING_SAMPLES:
            beyond = beyond[np.unique(np.linspace(0, beyond.size - 1, MOVING_SAMPLES)
                                      .round().astype(int))]
        quats, places = pose(np.append(beyond, at))
        moves = quat.angle_between(quats[:-1], quats[-1]) > SAME_POSE
        if places is not None:
            moves |= np.abs(places[:-1] - places[-1]).max(axis=1) > SAME_POSE
        if moves.any():
            widened[side] = far
    return widened[0], widened[1]


def _frames_to_bake(obj, settings: BakeSettings, rot_frames: np.ndarray,
                    loc_frames: np.ndarray | None, fcurve_cache: dict | None,
                    issues: _Issues, pose=None, widen: bool = True
                    ) -> tuple[np.ndarray, float, float]:
    """(frames, start, end): the custom range or the keyed one (``widen``: to
    settings.playback_range where the pose moves there beyond the keys), every step frame
    plus the keys; refused past keyed.MAX_FRAMES."""
    if settings.frame_range is not None:
        start, end = (float(v) for v in settings.frame_range)
    else:
        start, end = float(rot_frames[0]), float(rot_frames[-1])
        if loc_frames is not None:
            start, end = min(start, float(loc_frames[0])), max(end, float(loc_frames[-1]))
        if settings.playback_range is not None and pose is not None and widen:
            start, end = _moving_range(start, end, settings.playback_range, pose)
    step = int(settings.frame_step)
    message = keyed.span_too_long(issues.who, start, end, step)
    if message:
        issues.refuse(message, "", start)
    all_keys = rot_frames if loc_frames is None else np.union1d(rot_frames, loc_frames)
    if settings.frame_range is not None:
        _say_keys_left_out(issues, all_keys, start, end, pose)
    # Rig bones keyed on the same frames share one frame grid (and one evaluation later).
    grid_key = (start, end, step, all_keys.tobytes())
    grids = fcurve_cache.setdefault("grids", {}) if fcurve_cache is not None else {}
    if grid_key not in grids:
        grids[grid_key] = bake_frames(start, end, step, all_keys)
    return grids[grid_key], start, end

