# SPDX-License-Identifier: GPL-3.0-or-later
"""The bake engine: re-bake objects' rotation (and location) keys with QuatBake's
interpolation, non-destructively, all objects or none.

Flow (data goes one way, see CONVENTIONS.md):

1. Validate every object and the settings; any error -> BakeError, nothing changed.
2. Read each object's key orientations (what Blender evaluates at the key
   frames) from its ORIGINAL action, interpolate them with ``core`` and convert
   them to the output rotation mode. Pure numpy; still nothing changed.
3. Write: per object a NEW action (a copy of the object's own channels of the
   original, minus the channels being replaced, plus the baked ones as LINEAR
   keys), assigned to the object. The original keeps a fake user and is never
   edited. If any object fails, every object written so far in this call is
   put back and the half-made actions are deleted.

What a bake changed is recorded on the object (``obj.quatbake``, see props.py)
so a second bake starts again from the original keys and ``revert_objects``
restores them. Blender-version differences stay in ``animdata``.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

import bpy
import numpy as np

from ..core import interp, keyreduce, path, quat, rotation, turn_interp, turns
from . import animdata, turn_inputs
from .transform import AnimatedTransform, as_transforms, bone_path_prefix

METHODS = ('LERP', 'NLERP', 'SLERP', 'SQUAD')
LOCATION_METHODS = ('KEEP', 'LINEAR', 'CATMULL_ROM')
OUTPUT_MODES = ('KEEP', 'QUATERNION')
TURNS = turns.TURN_SETTINGS          # 'AUTO' | 'SHORTEST' | 'KEYED' (core/turns.py)
TIMINGS = turns.TIMING_SETTINGS      # 'EVEN' | 'KEYED'
BAKED_SUFFIX = ".quatbake"

# Beyond this |location| (units) float32 keys are spaced ~1e-3 apart: a slow
# move visibly stutters whatever the interpolation does (BLENDER_API.md).
LOCATION_FLOAT32_WARN = 1.0e4
# Beyond this |angle| (radians, ~20 turns) float32 Euler/axis-angle keys are
# spaced more than 1e-5 rad apart, so the baked rotation is that coarse.
ANGLE_FLOAT32_WARN = 128.0
# Keys per channel beyond which a bake is refused: Blender stores ~72 bytes per
# key, so 2 million frames x 7 channels is already ~1 GB; a typo in the range
# (or keys a billion frames apart) must not exhaust memory.
MAX_BAKE_FRAMES = 2_000_000
# Turn notes named per object; more are counted in one line (a mocap clip can
# wrap on hundreds of key intervals).
MAX_TURN_NOTES = 10


@dataclass
class BakeSettings:
    """What to bake. Frames are whole scene frames."""

    method: str = 'SLERP'            # 'LERP' | 'NLERP' | 'SLERP' | 'SQUAD'
    location_method: str = 'KEEP'    # 'KEEP' | 'LINEAR' | 'CATMULL_ROM'
    constant_speed: bool = False     # retime by arc length (needs a location method)
    frame_step: int = 1              # a key every this many frames (>= 1)
    frame_range: tuple[int, int] | None = None   # None = the keyed range
    output_mode: str = 'KEEP'        # 'KEEP' (object's own rotation mode) | 'QUATERNION'
    union_keys: bool = False         # channels keyed on different frames: refuse unless True
    turns: str = 'AUTO'              # 'AUTO' | 'SHORTEST' | 'KEYED': whole turns (core/turns.py)
    timing: str = 'EVEN'             # 'EVEN' | 'KEYED': constant speed, or the keys' ease
    tolerance_deg: float = 0.0       # > 0: keep only the keys both Blender (LINEAR) and a glTF
    #                                  player (slerp) need to stay this close (core.keyreduce)
    location_tolerance: float = 1e-4  # with tolerance_deg > 0: location error allowed, units
    clip: str = ""                   # bake this NLA clip (an action's name) instead of the active


@dataclass
class BakeIssue:
    """One problem found by a bake: an ERROR refuses the bake, a WARNING does not."""

    severity: str        # 'ERROR' | 'WARNING' | 'INFO' (a note: how turns were baked)
    object_name: str     # "" when not about one object
    channel: str         # e.g. "rotation_quaternion[2]"; "" when not about a channel
    frame: float | None  # the frame concerned, if any
    message: str         # a full sentence: what is wrong, where, and what to do
    bone: str = ""       # the pose bone concerned ("" for an object's own channels)


class BakeError(Exception):
    """The bake was refused or undone; ``issues`` lists why. Nothing in the file changed."""

    def __init__(self, issues: Sequence[BakeIssue]):
        self.issues = list(issues)
        super().__init__(self.issues[0].message if self.issues else "The bake failed.")


@dataclass
class BakeResult:
    objects: list[str]           # names of the baked objects, in the order given
    frames_written: int          # keyed frames written, summed over objects (range / step;
    #                              fewer with a tolerance)
    max_deviation_deg: float     # largest difference from Blender's own interpolation, all objects
    warnings: list[BakeIssue] = field(default_factory=list)
    # 'INFO' notes: every interval baked with another turn than Blender plays,
    # every kept spin, and the stepped intervals kept stepped.
    notes: list[BakeIssue] = field(default_factory=list)
    frames_per_object: dict[str, int] = field(default_factory=dict)   # name: baked frames
    deviation_per_object: dict[str, float] = field(default_factory=dict)   # name: degrees
    keys_dense: int = 0          # keys a dense bake writes per channel, summed over objects
    keys_written: int = 0        # keys written per channel, summed (< keys_dense with a tolerance)


# --------------------------------------------------------------------------
# Internal records
# --------------------------------------------------------------------------

@dataclass
class _Source:
    action: object
    slot: str
    mode: str
    rebake: bool     # True: the object shows a QuatBake bake; `action` is its original
    clip: bool = False   # True: `action` is an NLA clip, not the active action


@dataclass
class _Plan:
    obj: object
    source: _Source
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
    deviation_rad: float = 0.0           # set by _write_owner (Blender's evaluation)
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


_RECORD_FIELDS = ("original_action", "original_slot", "original_rotation_mode",
                  "original_fake_user", "baked_action",
                  # the static values before the first bake (see QUATBAKE_PG_object)
                  "original_rotation_quaternion", "original_rotation_euler",
                  "original_rotation_axis_angle", "original_location", "location_baked",
                  "static_recorded",
                  "original_delta_rotation_quaternion", "original_delta_rotation_euler",
                  "original_delta_location", "delta_recorded",
                  "clip_baked", "previous_action", "previous_slot", "bones_only", "baked_paths")
# A record after revert (or before any bake): the property defaults.
_EMPTY_RECORD = (None, "", "", False, None,
                 (1.0, 0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, 1.0, 0.0), (0.0, 0.0, 0.0),
                 False, False,
                 (1.0, 0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), False,
                 False, None, "", False, "")
_BONE_RECORD_FIELDS = ("baked", "baked_name", "baked_paths", "original_rotation_mode",
                       "original_rotation_quaternion", "original_rotation_euler",
                       "original_rotation_axis_angle", "original_location", "location_baked")


def _record(obj):
    return getattr(obj, "quatbake", None)


def _fields(rec) -> tuple:
    return _BONE_RECORD_FIELDS if hasattr(rec, "baked_name") else _RECORD_FIELDS


def _get_record(obj) -> tuple:
    """A copy of the bake record of ``obj`` (an object, or a transform: the bone's record)."""
    rec = obj.quatbake
    # tuple(): a vector property is a live view of the record, not a copy.
    return tuple(v if isinstance(v, (str, bool)) or v is None or hasattr(v, "name")
                 else tuple(v) for v in (getattr(rec, name) for name in _fields(rec)))


def _set_record(obj, values: tuple) -> None:
    rec = obj.quatbake
    for name, value in zip(_fields(rec), values):
        setattr(rec, name, value)


def _clear_bone_record(rec) -> None:
    for name in _BONE_RECORD_FIELDS:
        rec.property_unset(name)


def _paths(text: str) -> list[str]:
    return [p for p in text.split("\n") if p]


def _rotation_props(obj) -> tuple:
    return (tuple(obj.rotation_quaternion), tuple(obj.rotation_euler),
            tuple(obj.rotation_axis_angle))


def _delta_props(obj) -> tuple:
    return (tuple(obj.delta_rotation_quaternion), tuple(obj.delta_rotation_euler),
            tuple(obj.delta_location))


def _restore_delta_props(obj, saved: tuple) -> None:
    obj.delta_rotation_quaternion, obj.delta_rotation_euler, obj.delta_location = saved


def _set_rotation_mode(obj, mode: str) -> None:
    """Set rotation_mode without Blender's value conversion touching the stored rotations.

    Assigning rotation_mode converts the current rotation into the new mode's
    property; an unkeyed channel would then silently change, so all three
    rotation properties are put back afterwards.
    """
    if obj.rotation_mode == mode:
        return
    saved = _rotation_props(obj)
    obj.rotation_mode = mode
    _restore_rotation_props(obj, saved)


def _restore_rotation_props(obj, saved: tuple) -> None:
    obj.rotation_quaternion, obj.rotation_euler, obj.rotation_axis_angle = saved


def _owner_record(obj):
    return getattr(obj, "owner_record", None) if isinstance(obj, AnimatedTransform) \
        else _record(obj)


def _source(obj) -> _Source:
    """Where the keys to bake come from: the original action if QuatBake baked the owner
    (the object, or the armature of a bone)."""
    rec = _owner_record(obj)
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
        return _Source(rec.original_action, rec.original_slot, mode, True)
    return _Source(current, animdata.get_slot_identifier(obj), obj.rotation_mode, False)


def can_revert(obj) -> bool:
    """True when ``obj`` (an object, or a transform: its owner) shows a QuatBake bake whose
    original action is still there."""
    if isinstance(obj, AnimatedTransform):
        if obj.bone_name and not (obj.exists and obj.quatbake.baked):
            return False
        obj = obj.owner
    rec = _record(obj)
    if rec is None or rec.original_action is None or rec.baked_action is None:
        return False
    if animdata.is_read_only(obj):
        return False
    current = animdata.get_action(obj)
    return current is not None and current == rec.baked_action


# --------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------

def _is_whole(value) -> bool:
    if isinstance(value, bool):
        return False
    try:
        return float(value).is_integer()
    except (TypeError, ValueError, OverflowError):
        return False


def _settings_issues(settings: BakeSettings) -> list[BakeIssue]:
    issues = []

    def err(message):
        issues.append(BakeIssue('ERROR', "", "", None, message))

    if settings.method not in METHODS:
        err(f"Unknown method {settings.method!r}: use one of {', '.join(METHODS)}.")
    if settings.location_method not in LOCATION_METHODS:
        err(f"Unknown location method {settings.location_method!r}: use one of "
            f"{', '.join(LOCATION_METHODS)}.")
    if settings.output_mode not in OUTPUT_MODES:
        err(f"Unknown output mode {settings.output_mode!r}: use 'KEEP' or 'QUATERNION'.")
    if not _is_whole(settings.frame_step) or settings.frame_step < 1:
        err(f"Step must be a whole number of frames, 1 or more (got {settings.frame_step!r}).")
    if settings.turns not in TURNS:
        err(f"Unknown turns setting {settings.turns!r}: use one of {', '.join(TURNS)}.")
    if settings.timing not in TIMINGS:
        err(f"Unknown timing {settings.timing!r}: use one of {', '.join(TIMINGS)}.")
    if settings.constant_speed and settings.timing == 'KEYED':
        err("Timing: Keyed keeps the ease of the keys, Constant Speed retimes the move by "
            "arc length: they contradict each other. Turn one of them off.")
    for label, value in (("Key tolerance", settings.tolerance_deg),
                         ("Location tolerance", settings.location_tolerance)):
        if not isinstance(value, (int, float)) or not 0.0 <= value < float("inf"):
            err(f"{label} must be a finite number, 0 or more (got {value!r}); 0 keeps a key on "
                "every step frame.")
    if settings.constant_speed and settings.location_method == 'KEEP':
        err("Constant speed retimes the move along the location path, so it needs Location "
            "set to Linear or Catmull-Rom (or turn Constant Speed off).")
    if settings.frame_range is not None:
        rng = tuple(settings.frame_range)
        if len(rng) != 2 or not all(_is_whole(v) for v in rng):
            err(f"Frame range must be two whole frames (start, end); got {settings.frame_range!r}.")
        elif rng[1] < rng[0]:
            err(f"Frame range {int(rng[0])}..{int(rng[1])} is empty: the end frame must not be "
                "before the start frame.")
    return issues


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
        label = animdata.channel_label(fc.data_path, fc.array_index)
        if known is None:
            data = animdata.read_keyframe_arrays(fc, ("co", "handle_left", "handle_right"))
        else:
            data = known[fc.as_pointer()] = animdata.read_keyframe_arrays(fc, animdata.KEY_FIELDS)
        co = data["co"]
        # One sum first (any NaN or inf makes it non-finite; an overflow only takes the
        # slower exact look below): hundreds of bones' channels are checked per bake.
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


def _clip_source(obj, clip_name: str) -> tuple[_Source | None, str]:
    """The source for a bake of the clip ``clip_name`` (an action of ``obj``'s NLA), or
    (None, sentence) when ``obj`` has no such clip."""
    rec = _record(obj)
    current = _source(obj)
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
                return _Source(clip.action, clip.slot, obj.rotation_mode, False), ""
            return _Source(clip.action, clip.slot, obj.rotation_mode, False, clip=True), ""
    names = ", ".join(f"\"{c.name}\"" for c in animdata.object_clips(obj)) or "none"
    return None, (f"{animdata.subject(obj)} has no clip \"{clip_name}\" (its clips: {names}). "
                  "Name one of its actions, in the NLA editor or the Action editor.")


def _blend_issue(obj, src: _Source, paths: set) -> str:
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


def _transform_fcurves(obj, src: _Source, cache: dict | None) -> list:
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
class _Reading:
    """What ``_read_transform`` found of one transform: checked, keys read, frames chosen.
    ``_plan_reading`` computes the bake from it once the keyed turns are tracked."""

    obj: object
    src: _Source
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
    key_raw: np.ndarray | None   # the keyed channels' values at rot_frames (None: not read)
    frames: np.ndarray
    start: float
    end: float
    issues: list             # warnings found while reading

    def track_request(self, settings: BakeSettings) -> turn_inputs.TrackRequest:
        """What turn_inputs needs to follow Blender's playback of the keyed channels."""
        keyed_fcs = self.delta_fcs if self.into_delta else self.rot_fcs
        key_raw = self.key_raw
        if key_raw is None:
            defaults = (animdata.delta_rotation_defaults(self.obj, self.src.mode)
                        if self.into_delta else animdata.rotation_defaults(self.obj, self.src.mode))
            key_raw = animdata.evaluate_channels_exact(keyed_fcs, defaults, self.rot_frames)
        extra = self.frames if settings.timing == 'KEYED' else None
        return turn_inputs.TrackRequest(self.obj, self.src.mode, self.fcurves, self.rot_frames,
                                        self.key_quats, key_raw, extra)


def _read_transform(obj, settings: BakeSettings, fcurve_cache: dict | None = None
                    ) -> tuple[_Reading | None, list[BakeIssue]]:
    """Check one transform (an object or a pose bone), read its keys and choose the frames
    to bake. Changes nothing."""
    name, who, bone = obj.name, animdata.subject(obj), obj.bone_name
    issues: list[BakeIssue] = []

    def err(message, channel="", frame=None):
        issues.append(BakeIssue('ERROR', name, channel, frame, message, bone))

    def warn(message, channel="", frame=None):
        issues.append(BakeIssue('WARNING', name, channel, frame, message, bone))

    if _record(obj) is None:
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
        src = _source(obj)
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
    reading = _Reading(obj, src, fcurves, rot_fcs, delta_fcs, into_delta, delta_keyed, out_mode,
                       target_path, rot_path, out_path, delta_paths, bake_location, loc_frames,
                       loc_points, loc_into_delta, rot_frames, key_quats, raw, frames, start, end,
                       issues)
    return reading, issues


def _plan_reading(reading: _Reading, keyed: "_KeyedTurns | None", settings: BakeSettings,
                  fcurve_cache: dict | None = None) -> tuple[_Plan | None, list[BakeIssue]]:
    """Compute the bake of one transform from its reading (numpy only). ``keyed``: its
    keyed turns when tracked with the others (``_track_all``), None to track them here.
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
            keyed = _keyed_turns(r, settings)
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
        # later with every other bone keyed on the same frames (_interpolate_pending).
        pending = (fcurve_cache is not None and not bake_location and not into_delta
                   and not delta_keyed and not settings.constant_speed
                   and _plain_turns(keyed, settings)
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
            else:
                reference = animdata.evaluate_rotation_raw(obj, rot_frames[:1], src.mode,
                                                           fcurves, exact=True)[0]
        values = None if pending else rotation.quat_to_mode_values_continuous(
            target, out_mode, reference)
        # Blender's own playback at the baked frames, for the "largest difference"
        # figure, when the delta half makes the per-channel evaluation of
        # _set_deviations insufficient (delta @ rotation).
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

    issues += _turn_notes(obj, rot_frames, keyed, settings)
    if into_delta:
        drop = delta_paths
    else:
        drop = {rot_path, out_path} | (delta_paths - {animdata.DELTA_ROTATION_PATHS.get(
            out_mode, ("",))[0]} if out_mode != src.mode else set())
    location_path = "delta_location" if loc_into_delta else "location"
    if bake_location:
        drop = drop | {location_path}
    plan = _Plan(obj, src, out_mode, frames, values, location_values, drop, quats,
                 animdata.rotation_defaults(obj, src.mode), [fc is not None for fc in rot_fcs],
                 target_path=target_path, location_path=location_path, blender_quats=composed,
                 source_fcurves=rot_fcs)
    plan.constant_keys = _constant_keys(frames, rot_frames, keyed.stepped)
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


def _interpolate_pending(plans: list) -> list[BakeIssue]:
    """Finish the plans ``_plan_reading`` left pending: interpolate every group keyed on the
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


@dataclass
class _KeyedTurns:
    tracking: turns.Tracking
    kinds: list              # per key interval: "short" | "flip" | "wrap" | "spin" | "step"
    stepped: np.ndarray      # (k-1,) bool


def _keyed_turns(reading: _Reading, settings: BakeSettings,
                 tracking: turns.Tracking | None = None, known: dict | None = None
                 ) -> _KeyedTurns:
    """What Blender's playback of the keys does between them (core/turns.py): the kinds
    of the intervals, from ``tracking`` (computed here when None)."""
    request = reading.track_request(settings)
    if tracking is None:
        tracking = turn_inputs.track_many([request], known)[0]
    keyed_fcs = reading.delta_fcs if reading.into_delta else reading.rot_fcs
    stepped = turn_inputs.stepped_intervals(keyed_fcs, reading.rot_frames, known)
    return _KeyedTurns(tracking, turns.classify(reading.src.mode, request.key_raw,
                                                tracking.differs, stepped), stepped)


def _track_all(readings: list, settings: BakeSettings, known: dict | None) -> list:
    """The keyed turns of every reading, the rig's bones tracked together
    (turn_inputs.track_many). On a channel that cannot be tracked, None for all: each is
    then tracked on its own, so the error names its transform."""
    try:
        requests = [r.track_request(settings) for r in readings]
        found = turn_inputs.track_many(requests, known)
        return [_keyed_turns(r, settings, t, known) for r, t in zip(readings, found)]
    except (animdata.ChannelError, ValueError):
        return [None] * len(readings)


def _plain_turns(keyed: _KeyedTurns, settings: BakeSettings) -> bool:
    """True when ``turn_interp.interpolate_keys`` would give plain ``interp.interpolate``:
    no kept whole turn (per turns.choose, and the 180 deg ties it follows), no stepped
    interval and even timing. Only then may a bone join the batched interpolation."""
    if keyed.stepped.any() or settings.timing != 'EVEN':
        return False
    keep = turns.choose(settings.turns, keyed.kinds)
    if settings.turns != "SHORTEST":
        keep = keep | np.array([k == "short" for k in keyed.kinds], dtype=bool)
    return not (np.where(keep, keyed.tracking.whole, 0) != 0).any()


def _turn_notes(obj, rot_frames, keyed: _KeyedTurns,
                settings: BakeSettings) -> list[BakeIssue]:
    """INFO notes (and a warning for turns too fast for the Step) about the turns baked."""
    name, who, bone = obj.name, animdata.subject(obj), obj.bone_name
    keep = turns.choose(settings.turns, keyed.kinds)
    named = [i for i, kind in enumerate(keyed.kinds) if kind in ("flip", "wrap", "spin")]
    sentences = turns.describe(rot_frames, keyed.kinds, keyed.tracking, keep, settings.turns)
    out = [BakeIssue('INFO', name, "", float(rot_frames[i]), f"{who}: {text}", bone)
           for i, text in zip(named, sentences)]
    if len(out) > MAX_TURN_NOTES:
        # A mocap clip can wrap on hundreds of frames: name the first ones, count the rest.
        rest = Counter(keyed.kinds[i] for i in named[MAX_TURN_NOTES:])
        what = ", ".join(f"{count} {kind}" for kind, count in sorted(rest.items()))
        out = out[:MAX_TURN_NOTES] + [BakeIssue(
            'INFO', name, "", None,
            f"{who}: {len(named) - MAX_TURN_NOTES} more key intervals like these "
            f"({what}); the report (Analyze, or python -m quatbake report) lists them all.", bone)]
    steps = int(keyed.stepped.sum())
    if steps:
        out.append(BakeIssue(
            'INFO', name, "", None,
            f"{who}: {steps} stepped interval(s) (CONSTANT keys) kept stepped: "
            "held until the next key, then the jump on that key's frame, as Blender plays "
            "them.", bone))
    # Baked keys are LINEAR: a kept turn of more than 180 deg between two baked
    # frames would be written the wrong way round.
    gaps = np.diff(rot_frames)
    per_frame = keyed.tracking.keyed_deg / gaps
    fast = np.flatnonzero(keep & (per_frame * settings.frame_step >= 180.0))
    if fast.size:
        i = int(fast[0])
        out.append(BakeIssue(
            'WARNING', name, "", float(rot_frames[i]),
            f"{who}: keys {animdata.frame_label(rot_frames[i])}-"
            f"{animdata.frame_label(rot_frames[i + 1])} turn {per_frame[i]:.0f} deg per frame, "
            f"{per_frame[i] * settings.frame_step:.0f} deg per baked step: the baked keys "
            "cannot show that turn. Lower Step (or space the keys further apart).", bone))
    return out


def _constant_keys(frames, rot_frames, stepped) -> np.ndarray | None:
    """(n,) bool: the last baked frame before the end of each step, written CONSTANT so
    the jump happens exactly on the key's frame (and not ramped in between)."""
    if not stepped.any():
        return None
    mask = np.zeros(frames.shape[0], dtype=bool)
    starts, ends = rot_frames[:-1][stepped], rot_frames[1:][stepped]
    last = np.searchsorted(frames, ends) - 1
    ok = (last >= 0) & (frames[np.maximum(last, 0)] >= starts)
    mask[last[ok]] = True
    return mask


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


def _set_deviations(plans: list, known: dict | None = None) -> None:
    """``deviation_rad`` of each plan: the largest geodesic angle (radians) between
    Blender's own interpolation of the source rotation channels and the bake, at the baked
    frames.

    Blender's side comes from ``animdata.evaluate_channels`` (Blender's curves in numpy,
    to float32 precision; fc.evaluate for anything it does not cover), every plan on the
    same frames in one call, so a rig's bones keyed on the same frames share one solve.
    """
    groups: dict = {}
    for plan in plans:
        if plan.blender_quats is None:   # delta channels: composed in _plan_reading
            groups.setdefault(id(plan.frames), []).append(plan)
    raws = {}
    for group in groups.values():
        raw = animdata.evaluate_channels([fc for p in group for fc in p.source_fcurves],
                                         np.concatenate([p.source_defaults for p in group]),
                                         group[0].frames, known)
        column = 0
        for p in group:
            count = len(p.source_fcurves)
            raws[id(p)] = raw[:, column:column + count]
            column += count
    blender = []
    for plan in plans:
        if plan.blender_quats is not None:
            blender.append(plan.blender_quats)
            continue
        raw = raws[id(plan)]
        if plan.source.mode == 'QUATERNION':
            # Between a key and its sign-flipped neighbour Blender's per-channel curves
            # can pass through (0, 0, 0, 0); its normalize_qt() then shows (0, 1, 0, 0).
            raw = raw.copy()
            raw[quat.norm(raw) < animdata.ZERO_QUATERNION_NORM] = (0.0, 1.0, 0.0, 0.0)
            blender.append(raw)
        else:
            blender.append(rotation.mode_values_to_quat(raw, plan.source.mode))
    if not plans:
        return
    if len(plans) == 1:
        plans[0].deviation_rad = float(quat.angle_between(blender[0], plans[0].quats).max())
        return
    # Many transforms (a rig): for unit quaternions the angle grows as |dot| shrinks, so
    # find each one's worst frame by |dot| (one einsum for all) and take the exact
    # atan2 angle there. Float64 dots order angles to ~3e-8 rad, far below what the
    # figure (degrees, 3 decimals) shows.
    ours = np.concatenate([p.quats for p in plans])
    theirs = np.concatenate(blender)
    theirs = theirs / quat.norm(theirs)[:, None]
    ours_unit = ours / quat.norm(ours)[:, None]
    dots = np.abs(np.einsum("ij,ij->i", theirs, ours_unit))
    starts = np.cumsum([0] + [b.shape[0] for b in blender[:-1]])
    ends = np.append(starts[1:], dots.shape[0])
    for plan, lo, hi in zip(plans, starts, ends):
        at = lo + int(np.argmin(dots[lo:hi]))
        plan.deviation_rad = float(quat.angle_between(theirs[at], ours[at]))


# --------------------------------------------------------------------------
# Writing: one new action per owner (an object, or an armature with its bones)
# --------------------------------------------------------------------------

def _step_keys(constant_keys) -> np.ndarray | None:
    """Keys a tolerance bake keeps around each step: the CONSTANT key and the one after it
    (Blender holds, then jumps; the LINEAR check between kept keys would not know)."""
    if constant_keys is None:
        return None
    fixed = np.array(constant_keys, dtype=bool)
    fixed[1:] |= fixed[:-1]
    return fixed


def _reduce_keys(plans: list, settings: BakeSettings) -> None:
    """Set each plan's ``keep``: the fewest keys within the tolerance (all objects at once)."""
    tracks = [keyreduce.Track(p.frames, p.quats, p.rotation_values, p.out_mode, p.location_values,
                              fixed=_step_keys(p.constant_keys)) for p in plans]
    for plan, keep in zip(plans, keyreduce.select_keys_many(
            tracks, settings.tolerance_deg, settings.location_tolerance)):
        plan.keep = keep



@dataclass
class _TransformState:
    transform: object
    rotation_mode: str
    rotation_props: tuple
    delta_props: tuple
    location: tuple
    record: tuple


@dataclass
class _Undo:
    owner: object                # the object whose action the bake replaced
    action: object
    slot: str
    owner_record: tuple
    states: list                 # _TransformState of each transform baked
    source_action: object
    source_fake_user: bool
    new_action: object = None


def _state(t) -> _TransformState:
    return _TransformState(t, t.rotation_mode, _rotation_props(t), _delta_props(t),
                           tuple(t.location), _get_record(t))


def _baked_bones(owner) -> list:
    """The pose bones of ``owner`` that its current bake rewrote."""
    if owner.type != 'ARMATURE' or owner.pose is None:
        return []
    return [b for b in owner.pose.bones
            if getattr(b, "quatbake", None) is not None and b.quatbake.baked]


def _renamed_bone_issues(owner) -> list[BakeIssue]:
    """A bone baked under one name and renamed since: the original action still keys the old
    name, so neither a re-bake nor a revert could put its keys back."""
    rec = _record(owner)
    if rec is None or rec.baked_action is None or animdata.get_action(owner) != rec.baked_action:
        return []
    issues = []
    for pbone in _baked_bones(owner):
        old = pbone.quatbake.baked_name
        if old and old != pbone.name:
            issues.append(BakeIssue(
                'ERROR', owner.name, "", None,
                f"Armature \"{owner.name}\", bone \"{pbone.name}\" was baked as \"{old}\" and "
                f"renamed since; the original action \"{rec.original_action.name}\" still keys "
                f"\"{old}\". Rename the bone back to \"{old}\", then revert (or bake) again.",
                pbone.name))
    return issues


def _carried(owner, plans) -> list[tuple[str, str, list[str]]]:
    """(prefix, group, paths) of an earlier bake of ``owner``'s transforms that this bake does
    not redo: copied as they are from the current baked action into the new one."""
    rec = _record(owner)
    if rec is None or rec.baked_action is None or animdata.get_action(owner) != rec.baked_action:
        return []
    planned = {p.obj.bone_name for p in plans}
    carry = []
    if not rec.bones_only and "" not in planned and rec.baked_paths:
        carry.append(("", animdata.TRANSFORM_GROUP, _paths(rec.baked_paths)))
    for pbone in _baked_bones(owner):
        if pbone.name not in planned:
            carry.append((bone_path_prefix(pbone.name), pbone.name,
                          _paths(pbone.quatbake.baked_paths)))
    return carry


def _compose_action(owner, original, slot: str, current, drop: set, carry: list):
    """A copy of ``original`` without ``drop`` and with ``carry`` copied from ``current``."""
    for prefix, _group, paths in carry:
        drop = drop | {prefix + p for p in paths}
    new, _samples = animdata.copy_action_for(owner, original, slot,
                                             original.name + BAKED_SUFFIX, drop)
    try:
        if carry:
            fcurves = animdata.action_fcurves(current, animdata.get_slot_identifier(owner))
            for prefix, group, paths in carry:
                wanted = {prefix + p for p in paths}
                animdata.copy_linear_fcurves(new, slot, [fc for fc in fcurves
                                                         if fc.data_path in wanted], group)
    except BaseException:
        animdata.remove_action(new)
        raise
    return new


def _write_owner(owner, plans: list, fake_users: "_FakeUsers",
                 known: dict | None = None) -> _Undo:
    """Give ``owner`` one baked action holding every plan's channels (all of an armature's
    bones live in one action). On failure put everything back, then raise."""
    src = plans[0].source
    undo = _Undo(owner, animdata.get_action(owner), animdata.get_slot_identifier(owner),
                 _get_record(owner), [_state(p.obj) for p in plans], src.action,
                 src.action.use_fake_user)
    try:
        _set_deviations(plans, known)
        drop = set()
        for plan in plans:
            drop |= {plan.obj.path_prefix + p for p in plan.drop_paths}
        new = _compose_action(owner, src.action, src.slot, undo.action, drop,
                              _carried(owner, plans))
        undo.new_action = new
        make = animdata.fcurve_maker(new, src.slot)
        for plan in plans:
            prefix = plan.obj.path_prefix
            group = plan.obj.bone_name or animdata.TRANSFORM_GROUP
            out_path = plan.target_path or animdata.ROTATION_PATHS[plan.out_mode][0]
            frames, rotation_values, location_values, constant = plan.written()
            for i in range(rotation_values.shape[1]):
                fc = make(prefix + out_path, i, group)
                if constant is None:
                    animdata.write_keys(fc, frames, rotation_values[:, i])
                else:
                    animdata.write_keys(fc, frames, rotation_values[:, i], constant=constant)
            if location_values is not None:
                for i in range(3):
                    animdata.write_keys(make(prefix + plan.location_path, i, group),
                                        frames, location_values[:, i])
        animdata.assign_action(owner, new, src.slot)
        rec = owner.quatbake
        if not src.rebake:
            # The action-level record, and the object's static values before this (first)
            # bake, which Blender overwrites with baked values once it evaluates the bake.
            object_state = next((st for st in undo.states if not st.transform.bone_name), None)
            props = object_state.rotation_props if object_state else _rotation_props(owner)
            deltas = object_state.delta_props if object_state else _delta_props(owner)
            _set_record(owner, (src.action, src.slot, src.mode if object_state else
                                owner.rotation_mode, fake_users.original(src.action),
                                None, *props, tuple(owner.location), False, True,
                                *deltas, True,
                                src.clip, undo.action if src.clip else None,
                                undo.slot if src.clip else "", object_state is None, ""))
        for plan, state in zip(plans, undo.states):
            t = plan.obj
            _set_rotation_mode(t, plan.out_mode)
            t_rec = t.quatbake
            if t.bone_name:
                if not t_rec.baked:
                    t_rec.baked = True
                    t_rec.original_rotation_mode = plan.source.mode
                    (t_rec.original_rotation_quaternion, t_rec.original_rotation_euler,
                     t_rec.original_rotation_axis_angle) = state.rotation_props
                t_rec.baked_name = t.bone_name
            elif src.rebake and rec.bones_only:
                # The armature's own channels, baked after some of its bones.
                rec.original_rotation_mode = plan.source.mode
                (rec.original_rotation_quaternion, rec.original_rotation_euler,
                 rec.original_rotation_axis_angle) = state.rotation_props
                rec.bones_only = False
            if plan.location_values is not None and not t_rec.location_baked:
                # The first bake that writes location: its static value is the original's.
                t_rec.original_location = state.location
                t_rec.location_baked = True
            t_rec.baked_paths = "\n".join(sorted(plan.drop_paths))
        rec.baked_action = new
        src.action.use_fake_user = True
    except BaseException:
        _undo(undo)
        raise
    return undo


def _undo(undo: _Undo) -> None:
    """Put one owner back as it was before ``_write_owner`` and delete the half-made action."""
    animdata.assign_action(undo.owner, undo.action, undo.slot)
    for state in reversed(undo.states):
        t = state.transform
        if t.rotation_mode != state.rotation_mode:
            t.rotation_mode = state.rotation_mode
        _restore_rotation_props(t, state.rotation_props)
        _restore_delta_props(t, state.delta_props)
        _set_record(t, state.record)
    _set_record(undo.owner, undo.owner_record)
    undo.source_action.use_fake_user = undo.source_fake_user
    if undo.new_action is not None:
        animdata.remove_action(undo.new_action)
        undo.new_action = None


def _key(item) -> tuple:
    if isinstance(item, AnimatedTransform):
        return item.key
    return (item.name, "")


def _unique(objects: Iterable) -> list:
    seen, out = set(), []
    for obj in objects:
        if obj is not None and _key(obj) not in seen:
            seen.add(_key(obj))
            out.append(obj)
    return out


def _by_owner(items) -> dict:
    groups: dict = {}
    for item in items:
        owner = item.owner if isinstance(item, AnimatedTransform) else item
        groups.setdefault(owner.name, (owner, []))[1].append(item)
    return groups


def bake_objects(objects, settings: BakeSettings,
                 progress: Callable[[int, int], None] | None = None) -> BakeResult:
    """Re-bake the rotation (and location) keys of ``objects`` with ``settings``.

    ``objects``: objects, and/or ``transform.AnimatedTransform`` values (pose
    bones). An armature object stands for every keyed bone, plus its own
    channels when those are keyed (``transform.transforms_of_objects``).
    Validates every transform first and raises BakeError (nothing changed) on
    any error; then writes every owner's new action or, if one fails, none
    (BakeError again, the owners already written put back). The bones of one
    armature share one new action. ``progress(done, total)`` is called as
    transforms are computed and written (total = 2 * number of transforms).
    Returns a BakeResult (``objects``: "Cube", "Rig: spine" ...); warnings
    (e.g. constraints not baked) are in it.
    """
    transforms = _unique(as_transforms(_unique(objects)))
    issues = _settings_issues(settings)
    if not transforms:
        issues.insert(0, BakeIssue('ERROR', "", "", None,
                                   "No objects to bake: select the animated objects or cameras "
                                   "first."))
    if any(i.severity == 'ERROR' for i in issues):
        raise BakeError([i for i in issues if i.severity == 'ERROR'])

    total = 2 * len(transforms)
    plans, warnings, errors, notes = [], [], [], []
    fcurve_cache: dict = {}
    readings = []
    for obj in transforms:
        reading, obj_issues = _read_transform(obj, settings, fcurve_cache)
        if reading is None:
            errors += [i for i in obj_issues if i.severity == 'ERROR']
            warnings += [i for i in obj_issues if i.severity == 'WARNING']
        else:
            readings.append(reading)
    keyed_all = _track_all(readings, settings, fcurve_cache.get("keys")) if not errors \
        else [None] * len(readings)
    for k, (reading, keyed) in enumerate(zip(readings, keyed_all)):
        obj = reading.obj
        plan, obj_issues = _plan_reading(reading, keyed, settings, fcurve_cache)
        errors += [i for i in obj_issues if i.severity == 'ERROR']
        warnings += [i for i in obj_issues if i.severity == 'WARNING']
        notes += [i for i in obj_issues if i.severity == 'INFO']
        if plan is not None:
            plans.append(plan)
            if len(obj.constraints):
                kinds = ", ".join(f"\"{c.name}\"" for c in obj.constraints)
                warnings.append(BakeIssue(
                    'WARNING', obj.name, "", None,
                    f"{animdata.subject(obj)} has constraints ({kinds}); QuatBake baked its "
                    "keys only, so the constraints still act on top of the baked rotation.",
                    obj.bone_name))
        if progress is not None:
            progress(k + 1, total)
    if not errors:
        warnings += _interpolate_pending(plans)
    groups = _by_owner(p.obj for p in plans)
    for owner, _items in groups.values():
        errors += _renamed_bone_issues(owner)
    if errors:
        raise BakeError(errors)
    if settings.tolerance_deg > 0.0:
        _reduce_keys(plans, settings)

    owner_plans = [(owner, [p for p in plans if p.obj.owner == owner])
                   for owner, _items in groups.values()]
    done: list[_Undo] = []
    fake_users = _FakeUsers()
    plans_written = 0
    try:
        for owner, group in owner_plans:
            done.append(_write_owner(owner, group, fake_users, fcurve_cache.get("keys")))
            plans_written += len(group)
            if progress is not None:
                progress(len(transforms) + plans_written, total)
    except Exception as exc:
        for undo in reversed(done):
            _undo(undo)
        failed = owner_plans[len(done)][0].name
        raise BakeError([BakeIssue(
            'ERROR', failed, "", None,
            f"Writing the bake of object \"{failed}\" failed ({exc}); every object was put "
            "back as it was before the bake.")]) from exc

    # A re-bake replaced an earlier bake: drop that action unless someone else uses it.
    for undo in done:
        previous = undo.owner_record[4]
        baked = undo.owner.quatbake.baked_action
        if previous is not None and previous != baked and previous.users == 0:
            animdata.remove_action(previous)
            baked.name = undo.source_action.name + BAKED_SUFFIX   # free again: drop ".001"

    written = int(sum(p.written()[0].shape[0] for p in plans))
    return BakeResult(
        objects=[p.obj.display_name for p in plans],
        frames_written=written,
        keys_dense=int(sum(p.frames.shape[0] for p in plans)),
        keys_written=written,
        max_deviation_deg=float(np.degrees(max((p.deviation_rad for p in plans),
                                               default=0.0))),
        warnings=warnings,
        notes=notes,
        # Keyed by display name: a rig's bones each get their own line ("Rig: spine").
        frames_per_object={p.obj.display_name: int(p.frames.shape[0]) for p in plans},
        deviation_per_object={p.obj.display_name: float(np.degrees(p.deviation_rad))
                              for p in plans},
    )


def _restore_bone(owner, pbone) -> None:
    """Put a baked bone's rotation mode and static values back and clear its record."""
    t = AnimatedTransform(owner, pbone.name)
    brec = pbone.quatbake
    saved = (tuple(brec.original_rotation_quaternion), tuple(brec.original_rotation_euler),
             tuple(brec.original_rotation_axis_angle))
    if brec.original_rotation_mode and t.rotation_mode != brec.original_rotation_mode:
        t.rotation_mode = brec.original_rotation_mode
    _restore_rotation_props(t, saved)
    if brec.location_baked:
        t.location = tuple(brec.original_location)
    _clear_bone_record(brec)


def _revert_owner_fully(obj, originals: Counter) -> None:
    """Put back the owner's original action, its static values and every baked bone's."""
    rec = obj.quatbake
    original, baked = rec.original_action, rec.baked_action
    slot, mode, fake = rec.original_slot, rec.original_rotation_mode, rec.original_fake_user
    # The static values before the first bake: once Blender has evaluated the
    # bake it has written baked values into them, and the ones the original
    # action does not animate (rotation_quaternion of an Euler object baked
    # to QUATERNION) would keep those. A record from an older QuatBake has
    # none: keep the current values (and stop the mode switch converting them).
    saved = _rotation_props(obj)
    if rec.static_recorded:
        saved = (tuple(rec.original_rotation_quaternion), tuple(rec.original_rotation_euler),
                 tuple(rec.original_rotation_axis_angle))
    location = tuple(rec.original_location) if rec.location_baked else None
    deltas = None
    if rec.delta_recorded:
        deltas = (tuple(rec.original_delta_rotation_quaternion),
                  tuple(rec.original_delta_rotation_euler), tuple(rec.original_delta_location))
    bones = _baked_bones(obj)
    if rec.clip_baked:
        # A clip bake made the baked clip the active action: put back what was
        # active before (possibly nothing); the clip stays where it was, in the NLA.
        animdata.assign_action(obj, rec.previous_action, rec.previous_slot)
    else:
        animdata.assign_action(obj, original, slot)
    if not rec.bones_only:
        if mode and obj.rotation_mode != mode:
            obj.rotation_mode = mode
        _restore_rotation_props(obj, saved)
        if deltas is not None:
            _restore_delta_props(obj, deltas)
        if location is not None:
            obj.location = location
    for pbone in bones:
        _restore_bone(obj, pbone)
    _set_record(obj, _EMPTY_RECORD)
    originals[original.as_pointer()] -= 1
    if originals[original.as_pointer()] <= 0:   # no other bake keeps it as its original
        original.use_fake_user = fake
    if baked.users == 0:
        animdata.remove_action(baked)


def _revert_bones(obj, names: set) -> None:
    """Revert some baked bones of ``obj`` and keep the rest of its bake: a new copy of the
    original action with the other baked channels carried over."""
    rec = obj.quatbake
    original, current, slot = rec.original_action, rec.baked_action, rec.original_slot
    keep = [b for b in _baked_bones(obj) if b.name not in names]
    carry = [(bone_path_prefix(b.name), b.name, _paths(b.quatbake.baked_paths)) for b in keep]
    if not rec.bones_only and rec.baked_paths:
        carry.append(("", animdata.TRANSFORM_GROUP, _paths(rec.baked_paths)))
    new = _compose_action(obj, original, slot, current, set(), carry)
    animdata.assign_action(obj, new, slot)
    for pbone in _baked_bones(obj):
        if pbone.name in names:
            _restore_bone(obj, pbone)
    rec.baked_action = new
    if current.users == 0:
        animdata.remove_action(current)
        new.name = original.name + BAKED_SUFFIX


def revert_objects(objects) -> list[str]:
    """Undo QuatBake's bake of ``objects``: objects (the whole bake: an armature's bones
    too) and/or pose-bone transforms (only those bones; the armature's other baked bones
    stay baked).

    A whole revert puts back the original action (and slot, rotation mode) and
    the static rotation values (and location, if baked) from before the first
    bake. Items without a bake are skipped; raises BakeError when none can be
    reverted, or (nothing changed) when a baked bone was renamed since. The
    baked action is deleted unless something else uses it. Returns the names
    reverted ("Cube", "Rig: spine").
    """
    items = _unique(objects)
    candidates = []
    for owner, group in _by_owner(items).values():
        if not can_revert(owner):
            continue
        whole = any(not getattr(i, "bone_name", "") for i in group)
        baked = {b.name for b in _baked_bones(owner)}
        names = baked if whole else {i.bone_name for i in group} & baked
        if whole or names:
            candidates.append((owner, whole, names))
    if not candidates:
        shown = [getattr(o, "display_name", None) or o.name for o in items]
        names = ", ".join(f"\"{n}\"" for n in shown[:3])
        subject = f"object {names}" if len(items) == 1 else \
            (f"objects {names}" + (" ..." if len(items) > 3 else "") if items else "selection")
        raise BakeError([BakeIssue(
            'ERROR', items[0].name if len(items) == 1 else "", "", None,
            f"Nothing to revert: the {subject} shows no QuatBake bake. Select baked objects "
            "(a bake made after any manual change of action).")])
    issues = [i for owner, _w, _n in candidates for i in _renamed_bone_issues(owner)]
    if issues:
        raise BakeError(issues)
    reverted = []
    originals = _recorded_originals()
    for obj, whole, names in candidates:
        rec = obj.quatbake
        remaining = (set(b.name for b in _baked_bones(obj)) - names) or \
            (not whole and not rec.bones_only)
        if whole or not remaining:
            if not rec.bones_only:
                reverted.append(obj.name)
            _revert_owner_fully(obj, originals)
        else:
            _revert_bones(obj, names)
        reverted += [f"{obj.name}: {n}" for n in sorted(names)]
    return reverted


class _FakeUsers:
    """Whether each original action had a fake user before QuatBake gave it one.

    When another object sharing the action was baked first (in this call or an
    earlier one), the action's fake user is QuatBake's, and that object's record
    holds the user's own setting. The records are scanned at most once per bake,
    and only when an action already has a fake user, so a bake's time does not
    grow with the number of objects in the file.
    """

    def __init__(self):
        self._seen: dict = {}          # this call's answers, by action pointer
        self._recorded: dict | None = None   # from earlier bakes' records, scanned lazily

    def original(self, action) -> bool:
        key = action.as_pointer()
        if key in self._seen:
            return self._seen[key]
        flag = False
        if action.use_fake_user:
            if self._recorded is None:
                self._recorded = {}
                for obj in bpy.data.objects:
                    rec = _record(obj)
                    if rec is not None and rec.original_action is not None \
                            and rec.baked_action is not None:
                        self._recorded.setdefault(rec.original_action.as_pointer(),
                                                  rec.original_fake_user)
            flag = self._recorded.get(key, True)
        self._seen[key] = flag
        return flag


def _recorded_originals() -> "Counter[int]":
    """How many objects' bake records keep each action (by pointer) as their original."""
    counts: Counter = Counter()
    for obj in bpy.data.objects:
        rec = _record(obj)
        if rec is not None and rec.original_action is not None:
            counts[rec.original_action.as_pointer()] += 1
    return counts
