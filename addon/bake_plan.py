# SPDX-License-Identifier: GPL-3.0-or-later
"""Planning a bake: check each transform, read its keys, interpolate them with
``core`` and convert them to the output rotation mode (steps 1 and 2 of the
flow in bake.py). Reads Blender, changes nothing.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ..core import interp, keyreduce, path, quat, rotation, turn_interp
from . import animdata, turn_inputs
from .bake_record import owner_record_of, record_of
from .bake_settings import (
    ANGLE_FLOAT32_WARN,
    LOCATION_FLOAT32_WARN,
    MAX_BAKE_FRAMES,
    BakeError,
    BakeIssue,
    BakeSettings,
)
from .bake_turns import KeyedTurns, constant_keys, keyed_turns, plain_turns, turn_notes


@dataclass
class Source:
    action: object
    slot: str
    mode: str
    rebake: bool     # True: the object shows a QuatBake bake; `action` is its original
    clip: bool = False   # True: `action` is an NLA clip, not the active action



@dataclass
class Plan:
    obj: object
    source: Source
    out_mode: str
    frames: np.ndarray                   # (n,) baked frames
    rotation_values: np.ndarray          # (n, 3|4) channel values in out_mode
    location_values: np.ndarray | None   # (n, 3) or None when location is kept
    drop_paths: set
    quats: np.ndarray                    # (n, 4) QuatBake's orientation at each baked frame
    source_defaults: np.ndarray          # values of the source mode's unkeyed channels
    source_keyed: list                   # per source rotation channel: has keys
    target_path: str = ""                # rotation data path written (regular or delta)
    location_path: str = "location"      # location data path written (regular or delta)
    blender_quats: np.ndarray | None = None   # Blender's orientation at `frames` (delta cases)
    deviation_rad: float = 0.0           # set by write_owner (Blender's evaluation)
    source_fcurves: list = field(default_factory=list)   # the source rotation channels
    pending: tuple | None = None   # (key frames, key quats, method, reference): see below
    constant_keys: np.ndarray | None = None  # (n,) bool: baked keys written CONSTANT (steps)
    keep: np.ndarray | None = None       # indices into frames to write (None: all of them)

    def written(self) -> tuple:
        """(frames, rotation values, location values or None, constant mask or None) to write."""
        if self.keep is None:
            return self.frames, self.rotation_values, self.location_values, self.constant_keys
        loc = None if self.location_values is None else self.location_values[self.keep]
        const = None if self.constant_keys is None else self.constant_keys[self.keep]
        return self.frames[self.keep], self.rotation_values[self.keep], loc, const


def source_of(obj) -> Source:
    """Where the keys to bake come from: the original action if QuatBake baked the owner
    (the object, or the armature of a bone)."""
    rec = owner_record_of(obj)
    current = animdata.get_action(obj)
    if (rec is not None and rec.original_action is not None and rec.baked_action is not None
            and current is not None and current == rec.baked_action):
        if getattr(obj, "bone_name", ""):
            bone_rec = obj.quatbake
            mode = (bone_rec.original_rotation_mode if bone_rec.baked else "") or \
                obj.rotation_mode
        else:
            mode = (rec.original_rotation_mode if not rec.bones_only else "") or \
                obj.rotation_mode
        return Source(rec.original_action, rec.original_slot, mode, True)
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
        if np.isfinite(co.sum() + data["handle_left"].sum() + data["handle_right"].sum()):
            frames_per_channel.append((label, co[:, 0]))
            continue
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
                "is not a number. Fix or delete that key, then bake again.", bone))
            continue
        # Subframe keys (a 30 fps clip imported at 24 fps) are fine: the bake adds
        # them to its frames, so it passes through every key (_bake_frames).
        frames = co[:, 0]
        frames_per_channel.append((label, frames))
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
                    "\"Merge Key Frames\" to bake from the union of their keys.", bone))
                break
    return issues, union


def _modifier_warnings(who: str, fcurves: Sequence, warn) -> None:
    """Warn for each channel whose F-curve modifiers will be replaced by the bake."""
    for fc in fcurves:
        if fc is not None and len(fc.modifiers):
            label = animdata.channel_label(fc.data_path, fc.array_index)
            kinds = ", ".join(sorted({m.type.title() for m in fc.modifiers}))
            warn(f"{who}: channel {label} has F-curve modifiers ({kinds}). The "
                 "bake interpolates the values they give at the key frames over the keyed range "
                 "and drops the modifiers (the original action keeps them).", label)


def _keyed(fcurves: Sequence) -> list:
    """The F-curves that hold keys (an empty F-curve animates nothing)."""
    return [fc if fc is not None and len(fc.keyframe_points) else None for fc in fcurves]


def _clip_source(obj, clip_name: str) -> tuple[Source | None, str]:
    """The source for a bake of the clip ``clip_name`` (an action of ``obj``'s NLA), or
    (None, sentence) when ``obj`` has no such clip."""
    rec = record_of(obj)
    current = source_of(obj)
    if current.rebake:
        if rec.original_action.name == clip_name:
            return current, ""
        # One bake record per object: a second clip would lose the first bake's original.
        return None, (f"{animdata.subject(obj)} shows a QuatBake bake of "
                      f"\"{rec.original_action.name}\"; revert it before baking the clip "
                      f"\"{clip_name}\".")
    for clip in animdata.object_clips(obj):
        if clip.name == clip_name:
            if clip.active:
                return Source(clip.action, clip.slot, obj.rotation_mode, False), ""
            return Source(clip.action, clip.slot, obj.rotation_mode, False, clip=True), ""
    names = ", ".join(f"\"{c.name}\"" for c in animdata.object_clips(obj)) or "none"
    return None, (f"{animdata.subject(obj)} has no clip \"{clip_name}\" (its clips: {names}). "
                  "Name one of its actions, in the NLA editor or the Action editor.")


def _blend_issue(obj, src: Source, paths: set) -> str:
    """A sentence when NLA strips play together with the baked action on ``paths``."""
    blends = [b for b in animdata.blending_strips(obj, paths)
              if not (b[2] == src.action.name and _replaces_fully(obj))]
    if not blends:
        return ""
    track, strip, action, channels = blends[0]
    return (f"{animdata.subject(obj)}: NLA track \"{track}\", strip \"{strip}\" (action "
            f"\"{action}\") is not muted and also animates {', '.join(channels)}, so what plays "
            "is a blend of it and the action, which QuatBake does not compute. Mute that track "
            "(its checkbox in the NLA editor) to bake the action alone, or bake the NLA into one "
            "action first (Object > Animation > Bake Action).")


def _replaces_fully(obj) -> bool:
    ad = obj.animation_data
    return (ad is not None and ad.action_blend_type == 'REPLACE' and ad.action_influence >= 1.0
            and ad.action_extrapolation == 'HOLD')


def _bake_frames(start: float, end: float, step: int, keys: np.ndarray) -> np.ndarray:
    """Whole frames from start to end every ``step`` (the end always included), plus every
    key frame on a subframe in [start, end], so the bake passes through those keys too."""
    first, last = float(np.ceil(start)), float(np.floor(end))
    grid = np.arange(first, last + 1, step, dtype=np.float64) if last >= first else np.zeros(0)
    if grid.size and grid[-1] != last:
        grid = np.append(grid, last)   # always land on the last key / range end
    keys = np.asarray(keys, dtype=np.float64)
    sub = keys[(keys >= start) & (keys <= end) & (keys != np.round(keys))]
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
    """The F-curves of ``src`` that animate the transform ``obj``.

    A bone's are looked up once per action for every bone of the rig (``cache``),
    so planning 200 bones does not search every F-curve of the action 200 times.
    """
    key = (src.action.as_pointer(), src.slot)
    if cache is None:
        cache = {}
    if key not in cache:
        fcurves = animdata.action_fcurves(src.action, src.slot)
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

    def track_request(self, settings: BakeSettings) -> turn_inputs.TrackRequest:
        """What turn_inputs needs to follow Blender's playback of the keyed channels."""
        if self.key_raw is None:
            # Read once: the turns' tracking and their kinds both ask (bake_turns).
            keyed_fcs = self.delta_fcs if self.into_delta else self.rot_fcs
            defaults = (animdata.delta_rotation_defaults(self.obj, self.src.mode)
                        if self.into_delta else animdata.rotation_defaults(self.obj, self.src.mode))
            self.key_raw = animdata.evaluate_channels_exact(keyed_fcs, defaults, self.rot_frames)
        extra = self.frames if settings.timing == 'KEYED' else None
        return turn_inputs.TrackRequest(self.obj, self.src.mode, self.fcurves, self.rot_frames,
                                        self.key_quats, self.key_raw, extra)


def read_transform(obj, settings: BakeSettings, fcurve_cache: dict | None = None
                    ) -> tuple[Reading | None, list[BakeIssue]]:
    """Check one transform (an object or a pose bone), read its keys and choose the frames
    to bake. Changes nothing."""
    name, who, bone = obj.name, animdata.subject(obj), obj.bone_name
    issues: list[BakeIssue] = []

    def err(message, channel="", frame=None):
        issues.append(BakeIssue('ERROR', name, channel, frame, message, bone))

    def warn(message, channel="", frame=None):
        issues.append(BakeIssue('WARNING', name, channel, frame, message, bone))

    if record_of(obj) is None:
        err("QuatBake is not registered, so it cannot record what it bakes. Enable the "
            "add-on first.")
        return None, issues
    if animdata.is_read_only(obj):
        err(f"{who} is linked from a library or overridden, so its animation "
            "cannot be changed. Make it local first (Object > Relations > Make Local).")
        return None, issues
    tweak, _strips = animdata.nla_state(obj)
    if tweak:
        track, strip = animdata.tweaked_strip(obj)
        where = (f" (editing strip \"{strip}\" on track \"{track}\")" if strip else
                 f" (editing track \"{track}\")" if track else "")
        err(f"{who} is in NLA tweak mode{where}. Leave tweak mode (Tab in the NLA "
            "editor) first; QuatBake then bakes the active action (or the clip you name) and "
            "leaves the NLA strips as they are.")
        return None, issues

    if bone and not obj.exists:
        err(f"{who} is not in the armature any more (renamed or deleted). Select the bone "
            "again.")
        return None, issues
    if bone and settings.clip:
        err(f"{who}: baking an NLA clip is done for objects only; make the clip the "
            "armature's active action (Action editor) and bake again.")
        return None, issues
    if settings.clip:
        src, message = _clip_source(obj, settings.clip)
        if src is None:
            err(message)
            return None, issues
    else:
        src = source_of(obj)
    if src.action is None:
        clips = [c.name for c in animdata.object_clips(obj)]
        if clips:
            err(f"{who} has no active action; its animation lives in NLA clips "
                f"({', '.join(clips)}). Name the clip to bake (command line: --clips NAME).")
        elif animdata.bone_key_count(obj):
            err(_bones_sentence(obj))
        else:
            err(f"{who} has no animation. Key its rotation on two frames or more, "
                "then bake.")
        return None, issues
    if animdata.is_read_only(src.action):
        err(f"{who}: its action \"{src.action.name}\" is linked from a library "
            "or overridden, so it cannot be re-baked. Make the action local first.")
        return None, issues

    if animdata.slot_missing(src.action, src.slot):
        err(f"{who}: its action \"{src.action.name}\" has no slot assigned to this "
            "object, so none of its keys animate it. Pick the object's slot in the Action "
            "editor (or the Object > Animation panel), then bake.")
        return None, issues
    fcurves = _transform_fcurves(obj, src, fcurve_cache)
    rot_path = animdata.ROTATION_PATHS[src.mode][0]
    rot_fcs = _keyed(animdata.rotation_fcurves(obj, src.mode, fcurves))
    delta_fcs = _keyed(animdata.delta_rotation_fcurves(obj, src.mode, fcurves))
    regular_keyed = any(fc is not None for fc in rot_fcs)
    delta_keyed = any(fc is not None for fc in delta_fcs)
    if not regular_keyed and not delta_keyed:
        if animdata.bone_key_count(obj):
            err(_bones_sentence(obj), rot_path)
            return None, issues
        delta = animdata.DELTA_ROTATION_PATHS.get(src.mode)
        also = f" or {delta[0]}" if delta else ""
        clips = [c.name for c in animdata.object_clips(obj) if c.action != src.action
                 and animdata.has_keys(animdata.rotation_fcurves(obj, src.mode, c.fcurves())
                                       + animdata.delta_rotation_fcurves(obj, src.mode,
                                                                         c.fcurves()))]
        hint = (f" Its NLA clips {', '.join(clips)} have rotation keys: name one to bake it "
                "(command line: --clips NAME)." if clips else "")
        err(f"{who} has no keys on {rot_path}{also} (its rotation mode is "
            f"{src.mode}). Key its rotation, or set the rotation mode the keys were made in."
            f"{hint}", rot_path)
        return None, issues
    # BVH object imports key only the delta channels: the bake then writes there.
    into_delta = delta_keyed and not regular_keyed
    key_fcs = rot_fcs + delta_fcs

    _modifier_warnings(who, key_fcs, warn)
    out_mode = src.mode if settings.output_mode == 'KEEP' else 'QUATERNION'
    out_path = animdata.ROTATION_PATHS[out_mode][0]
    target_path = animdata.DELTA_ROTATION_PATHS[out_mode][0] if into_delta else out_path
    bake_location = settings.location_method != 'KEEP'
    delta_paths = {animdata.DELTA_ROTATION_PATHS[m][0] for m in (src.mode, out_mode)
                   if m in animdata.DELTA_ROTATION_PATHS}
    location_paths = {"location", "delta_location"} if bake_location else set()
    driven_paths = {rot_path, out_path} | delta_paths | location_paths
    for label in animdata.driver_channels(obj, driven_paths):
        err(f"{who}: channel {label} has a driver, which overrides any keys "
            "QuatBake writes. Remove the driver (or bake it to keys) first.", label)
    blend = _blend_issue(obj, src, driven_paths)
    if blend:
        err(blend)
    if any(i.severity == 'ERROR' for i in issues):
        return None, issues

    known = fcurve_cache.setdefault("keys", {}) if fcurve_cache is not None else None
    key_issues, rot_frames = _channel_key_issues(obj, key_fcs, settings.union_keys, "rotation",
                                                 known)
    if key_issues:
        return None, issues + key_issues
    if rot_frames.size < 2:
        first = next(fc for fc in key_fcs if fc is not None)
        label = animdata.channel_label(first.data_path, first.array_index)
        err(f"{who} has a single rotation key (frame "
            f"{animdata.frame_label(rot_frames[0])}): there is nothing to interpolate. Add a "
            "second key.", label, float(rot_frames[0]))
        return None, issues

    try:
        # The keys' own values are the orientation only when no delta (keyed or static)
        # composes with them: Blender plays delta @ rotation.
        plain = not delta_keyed and animdata.is_identity_delta(
            animdata.delta_rotation_defaults(obj, src.mode), src.mode)
        raw = None if not plain else _values_at_own_keys(
            rot_fcs, rot_frames, known, animdata.rotation_defaults(obj, src.mode))
        if raw is not None:
            key_quats = animdata.rotation_values_to_quat(raw, src.mode, rot_frames, name,
                                                         rot_path, who)
        else:
            key_quats = animdata.evaluate_orientation(obj, rot_frames, src.mode, fcurves,
                                                      exact=True)
    except animdata.ChannelError as exc:
        err(str(exc), exc.channel, exc.frame)
        return None, issues

    # Location keys (the path for a location bake and for constant speed):
    # location + delta_location, written back into the one that is keyed.
    loc_frames = loc_points = None
    loc_into_delta = False
    if bake_location:
        loc_fcs = _keyed(animdata.location_fcurves(obj, fcurves))
        dloc_fcs = _keyed(animdata.delta_location_fcurves(obj, fcurves))
        loc_into_delta = not any(loc_fcs) and any(dloc_fcs)
        loc_issues, loc_frames = _channel_key_issues(obj, loc_fcs + dloc_fcs,
                                                     settings.union_keys, "location")
        if loc_issues:
            return None, issues + loc_issues
        if loc_frames.size < 2:
            keys = "one location key" if loc_frames.size else "no location keys"
            message = f"{who} has {keys}, so there is no path"
            if settings.constant_speed:
                err(message + " to travel at constant speed. Key its location on two frames "
                    "or more, or turn Constant Speed off.", "location")
                return None, issues
            warn(message + " to re-bake; its location is left as it is.", "location")
            bake_location = False
        else:
            _modifier_warnings(who, loc_fcs + dloc_fcs, warn)
            loc_points = animdata.evaluate_full_location(obj, loc_frames, fcurves, exact=True)
            big = float(np.abs(loc_points).max())
            if big > LOCATION_FLOAT32_WARN:
                warn(f"{who}: location reaches {big:.3g} units, where Blender's "
                     f"float32 keys are only {float(np.spacing(np.float32(big))):.2g} apart; "
                     "slow moves there will stutter. Move the scene closer to the origin.",
                     "location")

    # Frames to bake.
    if settings.frame_range is not None:
        start, end = (float(v) for v in settings.frame_range)
    else:
        start, end = float(rot_frames[0]), float(rot_frames[-1])
        if bake_location:
            start, end = min(start, float(loc_frames[0])), max(end, float(loc_frames[-1]))
    count = int((end - start) // int(settings.frame_step)) + 2
    if count > MAX_BAKE_FRAMES:
        err(f"{who}: baking frames {animdata.frame_label(start)}.."
            f"{animdata.frame_label(end)} every {int(settings.frame_step)} frame(s) would write "
            f"about {count:,} keys per channel, more than {MAX_BAKE_FRAMES:,}. Choose a "
            "shorter frame range or a larger step.", "", start)
        return None, issues
    all_keys = rot_frames if loc_frames is None else np.union1d(rot_frames, loc_frames)
    # Rig bones keyed on the same frames share one frame grid (and one evaluation later).
    grid_key = (start, end, int(settings.frame_step), all_keys.tobytes())
    grids = fcurve_cache.setdefault("grids", {}) if fcurve_cache is not None else {}
    if grid_key not in grids:
        grids[grid_key] = _bake_frames(start, end, int(settings.frame_step), all_keys)
    frames = grids[grid_key]
    reading = Reading(obj, src, fcurves, rot_fcs, delta_fcs, into_delta, delta_keyed, out_mode,
                       target_path, rot_path, out_path, delta_paths, bake_location, loc_frames,
                       loc_points, loc_into_delta, rot_frames, key_quats, raw, frames, start, end,
                       issues)
    return reading, issues


def plan_reading(reading: Reading, keyed: "KeyedTurns | None", settings: BakeSettings,
                  fcurve_cache: dict | None = None) -> tuple[Plan | None, list[BakeIssue]]:
    """Compute the bake of one transform from its reading (numpy only). ``keyed``: its
    keyed turns when tracked with the others (``track_all``), None to track them here.
    Changes nothing."""
    r = reading
    obj, src, fcurves, rot_fcs, delta_fcs = r.obj, r.src, r.fcurves, r.rot_fcs, r.delta_fcs
    into_delta, delta_keyed, out_mode = r.into_delta, r.delta_keyed, r.out_mode
    target_path, rot_path, out_path, delta_paths = (r.target_path, r.rot_path, r.out_path,
                                                    r.delta_paths)
    bake_location, loc_frames, loc_points = r.bake_location, r.loc_frames, r.loc_points
    loc_into_delta, rot_frames, key_quats = r.loc_into_delta, r.rot_frames, r.key_quats
    frames, start, end = r.frames, r.start, r.end
    name, who, bone = obj.name, animdata.subject(obj), obj.bone_name
    issues: list[BakeIssue] = list(r.issues)

    def err(message, channel="", frame=None):
        issues.append(BakeIssue('ERROR', name, channel, frame, message, bone))

    method = settings.method.lower()
    try:
        if keyed is None:
            keyed = keyed_turns(r, settings)
        if keyed.stepped.any():
            # A step jumps on its key's frame: that frame is baked whatever the Step.
            ends = rot_frames[1:][keyed.stepped]
            frames = np.union1d(frames, ends[(ends >= start) & (ends <= end)])
        times = frames
        location_values = None
        if bake_location:
            loc_method = settings.location_method.lower()
            if settings.constant_speed:
                # One time map for both: each key orientation is reached where the
                # object stands at that key, at whatever frame it now gets there.
                times = path.constant_speed_times(loc_frames, loc_points, frames, loc_method)
            location_values = path.interpolate_positions(loc_frames, loc_points, times, loc_method)
            # What the other half (delta or regular location) plays after the bake.
            if loc_into_delta:
                location_values = location_values - animdata.evaluate_location(
                    obj, frames, fcurves, exact=True)
            else:
                location_values = location_values - animdata.evaluate_channels_exact(
                    animdata.delta_location_fcurves(obj, fcurves),
                    np.array(obj.delta_location, dtype=np.float64), frames)
        blender = None
        if keyed.stepped.any():
            blender = animdata.evaluate_orientation(obj, times, src.mode, fcurves, exact=True)
        # A plain rotation bake (a rig's bones) whose keys the turns machinery interpolates
        # as plain interp.interpolate (no kept turn, no step, even timing): interpolated
        # later with every other bone keyed on the same frames (interpolate_pending).
        pending = (fcurve_cache is not None and not bake_location and not into_delta
                   and not delta_keyed and not settings.constant_speed
                   and plain_turns(keyed, settings)
                   and animdata.is_identity_delta(
                       animdata.delta_rotation_defaults(obj, out_mode), out_mode))
        quats = target = None
        if not pending:
            quats = turn_interp.interpolate_keys(rot_frames, key_quats, keyed.tracking,
                                                 keyed.kinds, settings.turns, method, times,
                                                 settings.timing, blender)
            target = _target_quats(obj, quats, frames, into_delta, out_mode, fcurves)
        reference = None
        if out_mode == src.mode:
            if into_delta:
                reference = animdata.evaluate_channels_exact(
                    delta_fcs, animdata.delta_rotation_defaults(obj, src.mode), rot_frames[:1])[0]
            elif r.key_raw is not None:
                reference = r.key_raw[0]   # the first key's own values, read already
            else:
                reference = animdata.evaluate_rotation_raw(obj, rot_frames[:1], src.mode,
                                                           fcurves, exact=True)[0]
        values = None if pending else rotation.quat_to_mode_values_continuous(
            target, out_mode, reference)
        # Blender's own playback at the baked frames, for the "largest difference"
        # figure, when the delta half makes the per-channel evaluation of
        # set_deviations insufficient (delta @ rotation).
        composed = None
        if delta_keyed or not animdata.is_identity_delta(
                animdata.delta_rotation_defaults(obj, src.mode), src.mode):
            composed = animdata.evaluate_orientation(obj, frames, src.mode, fcurves)
    except animdata.ChannelError as exc:
        err(str(exc), exc.channel, exc.frame)
        return None, issues
    except ValueError as exc:
        err(f"{who}: its keys cannot be baked ({exc}).", rot_path)
        return None, issues

    if values is not None:
        issues += _angle_warnings(obj, out_mode, target_path, values)

    issues += turn_notes(obj, rot_frames, keyed, settings)
    if into_delta:
        drop = delta_paths
    else:
        drop = {rot_path, out_path} | (delta_paths - {animdata.DELTA_ROTATION_PATHS.get(
            out_mode, ("",))[0]} if out_mode != src.mode else set())
    location_path = "delta_location" if loc_into_delta else "location"
    if bake_location:
        drop = drop | {location_path}
    plan = Plan(obj, src, out_mode, frames, values, location_values, drop, quats,
                 animdata.rotation_defaults(obj, src.mode), [fc is not None for fc in rot_fcs],
                 target_path=target_path, location_path=location_path, blender_quats=composed,
                 source_fcurves=rot_fcs)
    plan.constant_keys = constant_keys(frames, rot_frames, keyed.stepped)
    if pending:
        plan.pending = (rot_frames, key_quats, method, reference)
    return plan, issues


def _angle_warnings(obj, out_mode: str, target_path: str, values) -> list[BakeIssue]:
    if out_mode == 'QUATERNION':
        return []
    big = float(np.abs(values).max())
    if big <= ANGLE_FLOAT32_WARN:
        return []
    return [BakeIssue(
        'WARNING', obj.name, target_path, None,
        f"{animdata.subject(obj)}: the baked {target_path} reaches {big:.3g} radians, where "
        f"float32 keys are {float(np.spacing(np.float32(big))):.2g} rad apart; bake to "
        "Quaternion output for full precision.", obj.bone_name)]


def interpolate_pending(plans: list) -> list[BakeIssue]:
    """Finish the plans ``plan_reading`` left pending: interpolate every group keyed on the
    same frames (and baked on the same frames, same method) with one
    ``interp.interpolate_many`` call, then write-back values per transform."""
    groups: dict = {}
    for plan in plans:
        if plan.pending is not None:
            rot_frames, _q, method, _r = plan.pending
            key = (rot_frames.tobytes(), id(plan.frames), method)
            groups.setdefault(key, []).append(plan)
    issues = []
    for group in groups.values():
        rot_frames, _q, method, _r = group[0].pending
        stacked = np.stack([p.pending[1] for p in group])
        all_quats = interp.interpolate_many(rot_frames, stacked, group[0].frames, method)
        modes = {p.out_mode for p in group}
        refs = [p.pending[3] for p in group]
        if modes == {'QUATERNION'} and all(r is not None for r in refs) and \
                method in ("slerp", "nlerp"):
            # Slerp and nlerp of hemisphere-continuous keys are unit quaternions, each
            # within 90 deg (4D) of the previous sample, so they are already what
            # quat_to_mode_values_continuous makes of them except for the sign the
            # reference (the first key as keyed) asks for.
            flip = np.einsum("bi,bi->b", all_quats[:, 0], np.stack(refs)) < 0.0
            all_values = np.where(flip[:, None, None], -all_quats, all_quats)
        elif modes == {'QUATERNION'} and all(r is not None for r in refs):
            all_values = rotation.quat_to_mode_values_continuous_many(
                all_quats, 'QUATERNION', np.stack(refs))
        else:
            all_values = [rotation.quat_to_mode_values_continuous(q, p.out_mode, p.pending[3])
                          for q, p in zip(all_quats, group)]
        for plan, quats, values in zip(group, all_quats, all_values):
            plan.quats = quats
            plan.rotation_values = values
            plan.pending = None
            issues += _angle_warnings(plan.obj, plan.out_mode, plan.target_path or
                                      animdata.ROTATION_PATHS[plan.out_mode][0],
                                      plan.rotation_values)
    return issues


def _target_quats(obj, quats, frames, into_delta: bool, out_mode: str, fcurves) -> np.ndarray:
    """The rotation to write into the baked channel so that Blender plays ``quats``.

    Blender plays delta @ rotation (animdata.DELTA_ROTATION_PATHS). The half the
    bake does not write plays on as it is (its keys, or its static value, in the
    output mode), so the written half is that half's inverse times ``quats``.
    """
    if into_delta:
        other = animdata.evaluate_rotation(obj, frames, out_mode, fcurves, exact=True)
        return quat.multiply(quats, quat.conjugate(other))
    delta_fcs = animdata.delta_rotation_fcurves(obj, out_mode, fcurves)
    if not animdata.has_keys(delta_fcs) and animdata.is_identity_delta(
            animdata.delta_rotation_defaults(obj, out_mode), out_mode):
        return quats
    other = animdata.evaluate_delta_rotation(obj, frames, out_mode, fcurves, exact=True)
    return quat.multiply(quat.conjugate(other), quats)


def _bones_sentence(obj) -> str:
    count = animdata.bone_key_count(obj)
    return (f"{animdata.subject(obj)} is an armature whose pose bones are keyed only in NLA "
            f"clips ({count} bone(s)). Make the clip the armature's active action (Action "
            "editor), then bake its bones.")


def set_deviations(plans: list, known: dict | None = None) -> None:
    """``deviation_rad`` of each plan: the largest geodesic angle (radians) between
    Blender's own interpolation of the source rotation channels and the bake, at the baked
    frames.

    Blender's side comes from ``animdata.evaluate_channels`` (Blender's curves in numpy,
    to float32 precision; fc.evaluate for anything it does not cover), every plan on the
    same frames in one call, so a rig's bones keyed on the same frames share one solve.
    """
    groups: dict = {}
    for plan in plans:
        if plan.blender_quats is None:   # delta channels: composed in plan_reading
            key = (id(plan.frames), plan.source.mode, len(plan.source_fcurves))
            groups.setdefault(key, []).append(plan)
        else:
            _worst_frames([plan], plan.blender_quats[None], plan.quats[None])
    for (_frames, mode, _width), group in groups.items():
        try:
            theirs = _blender_playback(group, mode, known)
        except ValueError:
            # Not a rotation somewhere (an F-modifier's value, say): find whose, and say so.
            theirs = np.stack([_playback_of_one(p, mode, known) for p in group])
        _worst_frames(group, theirs, np.stack([p.quats for p in group]))


def _blender_playback(group: list, mode: str, known: dict | None) -> np.ndarray:
    """(b, n, 4): Blender's playback of the source channels of plans baked on the same
    frames, one evaluation and one conversion for all of them."""
    frames = group[0].frames
    raw = animdata.evaluate_channels([fc for p in group for fc in p.source_fcurves],
                                     np.concatenate([p.source_defaults for p in group]),
                                     frames, known)
    return animdata.played_quats_of_many(raw, mode, len(group))


def _playback_of_one(plan, mode: str, known: dict | None) -> np.ndarray:
    """``_blender_playback`` of one plan; a BakeError naming the transform, the channel
    and the frame when Blender's playback there is no rotation (nothing written yet)."""
    try:
        return _blender_playback([plan], mode, known)[0]
    except ValueError as exc:
        import re

        found = re.search(r"key (\d+)", str(exc))
        frame = float(plan.frames[int(found.group(1))]) if found and \
            int(found.group(1)) < plan.frames.size else None
        where = f" at frame {animdata.frame_label(frame)}" if frame is not None else ""
        path = animdata.ROTATION_PATHS[mode][0]
        raise BakeError([BakeIssue(
            'ERROR', plan.obj.name, path, frame,
            f"{animdata.subject(plan.obj)}: Blender's own playback of {path} is no rotation"
            f"{where} ({exc}), so the bake cannot be checked against it. Look at that "
            "channel's F-modifiers and keys; nothing was changed.", plan.obj.bone_name)]) \
            from None


def _worst_frames(plans: list, theirs: np.ndarray, ours: np.ndarray) -> None:
    """Set ``deviation_rad`` of each plan from (b, n, 4) rotations: Blender's, the bake's.

    For unit quaternions the angle grows as |dot| shrinks, so each plan's worst frame is
    found by |dot| (one einsum for all) and the exact atan2 angle taken there. Float64
    dots order angles to ~3e-8 rad, far below what the figure (degrees, 3 decimals)
    shows; a single transform gets the exact maximum.
    """
    if len(plans) == 1:
        plans[0].deviation_rad = float(quat.angle_between(theirs[0], ours[0]).max())
        return
    # Blender's side is unit already (mode_values_to_quat normalises it); the bake's is
    # not for the LERP baseline (the command line still bakes it).
    ours_unit = ours / quat.norm(ours)[..., None]
    at = np.argmin(np.abs(np.einsum("bij,bij->bi", theirs, ours_unit)), axis=1)
    rows = np.arange(len(plans))
    angles = quat.angle_between(theirs[rows, at], ours[rows, at])
    for plan, angle in zip(plans, angles):
        plan.deviation_rad = float(angle)


def _step_keys(constant_keys) -> np.ndarray | None:
    """Keys a tolerance bake keeps around each step: the CONSTANT key and the one after it
    (Blender holds, then jumps; the LINEAR check between kept keys would not know)."""
    if constant_keys is None:
        return None
    fixed = np.array(constant_keys, dtype=bool)
    fixed[1:] |= fixed[:-1]
    return fixed


def reduce_keys(plans: list, settings: BakeSettings) -> None:
    """Set each plan's ``keep``: the fewest keys within the tolerance (all objects at once)."""
    tracks = [keyreduce.Track(p.frames, p.quats, p.rotation_values, p.out_mode, p.location_values,
                              fixed=_step_keys(p.constant_keys)) for p in plans]
    for plan, keep in zip(plans, keyreduce.select_keys_many(
            tracks, settings.tolerance_deg, settings.location_tolerance)):
        plan.keep = keep
