# SPDX-License-Identifier: GPL-3.0-or-later
"""Keyed turns in a bake: what Blender's playback does between the keys (every
transform of a bake tracked together, turn_inputs.track_many), whether a
transform may join the batched interpolation, and the notes the bake shows about
kept turns, flips, wraps and steps.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from ...core import turns
from ...core.words import AND_MORE, EITHER, Phrase, listed
from .. import animdata
from ..animdata import turn_inputs
from .settings import MAX_TURN_NOTES, BakeIssue, BakeSettings, bezier_fit

# A turn note: the transform (animdata.subject), then what core.turns.describe says of it.
SUBJECT_SAYS = "{}: {}"

# The bake's other notes and warnings on turns, as str.format patterns (Phrases, which
# the operator says in the interface's language; the English is what it always was).
# Past MAX_TURN_NOTES: the transform, how many more, and how many of each kind (LIST).
MORE_LIKE_THESE = ("{}: {:d} more key interval like these ({}); the report (Analyze, or "
                   "python -m quatbake report) lists them all.",
                   "{}: {:d} more key intervals like these ({}); the report (Analyze, or "
                   "python -m quatbake report) lists them all.")
KIND_COUNTS = {"flip": "{:d} flip", "wrap": "{:d} wrap", "euler": "{:d} euler",
               "spin": "{:d} spin"}
# CONSTANT keys: the transform, then STEPPED_INTERVALS' count (one, or several).
KEPT_STEPPED = ("{}: {} (CONSTANT keys) kept stepped: held until the next key, then the "
                "jump on that key's frame, as Blender plays them.")
STEPPED_INTERVALS = ("{:d} stepped interval", "{:d} stepped intervals")
# too_fast_for_step: the transform, what turns (KEYS_TURN, or a cache's), its degrees a
# frame and a baked step, then more advice (OR_SPACE_KEYS) or "".
TOO_FAST = ("{}: {} {:.0f} deg per frame, {:.0f} deg per baked step: the baked keys cannot "
            "show that turn. Lower Step{}.")
KEYS_TURN = "keys {} turn"
OR_SPACE_KEYS = " (or space the keys further apart)"
# kept_long_way: the transform, the key spans (core.words LIST, then AND_MORE past four)
# and why (_LONG_WAY's words, EITHER).
CONVERTED_LONG_WAY = ("{}: converted as Blender plays it, the long way round between keys "
                      "{} ({}); a Re-bake with Slerp takes the short way.")


@dataclass
class KeyedTurns:
    tracking: turns.Tracking
    kinds: list              # per key interval: "short" | "flip" | "wrap" | "euler" | "spin" | "step"
    stepped: np.ndarray      # (k-1,) bool


def keyed_turns(reading, settings: BakeSettings,  # reading: a read.Reading
                 tracking: turns.Tracking | None = None, known: dict | None = None
                 ) -> KeyedTurns:
    """What Blender's playback of the keys does between them (core/turns.py): the kinds
    of the intervals, from ``tracking`` (computed here when None)."""
    request = reading.track_request(settings)
    if tracking is None:
        tracking = turn_inputs.track_many([request], known)[0]
    keyed_fcs = reading.delta_fcs if reading.into_delta else reading.rot_fcs
    stepped = turn_inputs.stepped_intervals(keyed_fcs, reading.rot_frames, known)
    return KeyedTurns(tracking, turns.classify(reading.src.mode, request.key_raw,
                                                tracking.differs, stepped), stepped)


def track_all(readings: list, settings: BakeSettings, known: dict | None) -> list:
    """The keyed turns of every reading, the rig's bones tracked together
    (turn_inputs.track_many). On a channel that cannot be tracked, None for all: each is
    then tracked on its own, so the error names its transform."""
    try:
        requests = [r.track_request(settings) for r in readings]
        found = turn_inputs.track_many(requests, known)
        return [keyed_turns(r, settings, t, known) for r, t in zip(readings, found)]
    except (animdata.ChannelError, ValueError):
        return [None] * len(readings)


def plain_turns(keyed: KeyedTurns, settings: BakeSettings) -> bool:
    """True when ``turn_interp.interpolate_keys`` would give plain ``interp.interpolate``:
    no kept whole turn (per turns.choose, and the 180 deg ties it follows), no stepped
    interval and even timing. Only then may a bone join the batched interpolation."""
    if keyed.stepped.any() or settings.timing != 'EVEN':
        return False
    return not keeps_whole_turns(keyed, settings)


def keeps_whole_turns(keyed: KeyedTurns, settings: BakeSettings) -> bool:
    """Whether the bake keeps a whole turn of these keys somewhere (per turns.choose, and
    the 180 deg ties it follows): then ``turn_interp.interpolate_keys`` with slerp and no
    stepped interval is ``turn_interp.slerp_many``'s turning path, which a group of
    transforms keyed on the same frames takes in one call."""
    keep = turns.choose(settings.turns, keyed.kinds)
    if settings.turns != "SHORTEST":
        keep = keep | np.array([k == "short" for k in keyed.kinds], dtype=bool)
    return bool((np.where(keep, keyed.tracking.whole, 0) != 0).any())


def turn_notes(obj, rot_frames, keyed: KeyedTurns, settings: BakeSettings,
               frames) -> list[BakeIssue]:
    """INFO notes (and a warning for turns too fast for the Step) about the turns baked at
    ``frames``."""
    name, who, bone = obj.name, animdata.subject(obj), obj.bone_name
    keep = turns.choose(settings.turns, keyed.kinds)
    # A Custom Range bakes only the key intervals it overlaps; beyond it the range's end
    # poses are held, and "baked the short way" would be untrue there (a pipeline walk).
    baked = np.ones(len(keyed.kinds), dtype=bool)
    if settings.frame_range is not None:
        start, end = (float(v) for v in settings.frame_range)
        baked = (rot_frames[1:] > start) & (rot_frames[:-1] < end)
    named = [i for i, kind in enumerate(keyed.kinds) if kind in ("flip", "wrap", "euler", "spin")]
    sentences = turns.describe(rot_frames, keyed.kinds, keyed.tracking, keep, settings.turns)
    # Phrases (core.words) all through: the operator says them in the interface's language.
    out = [BakeIssue('INFO', name, "", float(rot_frames[i]), Phrase(SUBJECT_SAYS, who, text), bone)
           for i, text in zip(named, sentences) if baked[i]]
    named = [i for i in named if baked[i]]
    if len(out) > MAX_TURN_NOTES:
        # A mocap clip can wrap on hundreds of frames: name the first ones, count the rest.
        rest = Counter(keyed.kinds[i] for i in named[MAX_TURN_NOTES:])
        what = listed(Phrase(KIND_COUNTS[kind], count) for kind, count in sorted(rest.items()))
        out = out[:MAX_TURN_NOTES] + [BakeIssue(
            'INFO', name, "", None,
            Phrase(MORE_LIKE_THESE[len(named) - MAX_TURN_NOTES != 1], who,
                   len(named) - MAX_TURN_NOTES, what), bone)]
    steps = int((keyed.stepped & baked).sum())
    if steps:
        out.append(BakeIssue(
            'INFO', name, "", None,
            Phrase(KEPT_STEPPED, who, Phrase(STEPPED_INTERVALS[steps != 1], steps)), bone))
    out += too_fast_for_step(
        who, name, bone, rot_frames, keyed.tracking, keyed.kinds, keep, frames, settings,
        lambda i: Phrase(KEYS_TURN, animdata.frame_span(rot_frames[i], rot_frames[i + 1])),
        Phrase(OR_SPACE_KEYS))
    return out


def too_fast_for_step(who, name, bone, rot_frames, tracking, kinds, keep, frames,
                      settings: BakeSettings, what, also: str = "") -> list[BakeIssue]:
    """A warning where the bake's path turns 180 deg or more from one baked frame
    (``frames``) to the next: LINEAR keys that far apart cannot show the turn (quaternion
    keys go the short way, Euler keys the way continuity guesses; for exactly 180 either).
    The path's turn in each key interval is the kept one where a turn is kept, else the
    short arc, taken as even across the interval (none across a stepped one, which stays
    stepped): a short arc of 90 deg a frame on every frame, baked with Step 2, is 180 deg
    per baked step too (a real-file walk: a Maya cube spinning 90 deg an Alembic sample
    played 180 deg off between the baked frames and nothing was said; keys alike, where
    only kept turns were checked). ``what(i)`` names key interval i and its verb (a
    Phrase, KEYS_TURN); ``also``: more advice after "Lower Step" (OR_SPACE_KEYS);
    ``bone``: the pose bone's name, or "" for an object's own channels. Not for a Bezier tolerance bake, whose keys go on any whole
    frame its quarter-frame check needs, whatever the Step (settings.path_samples)."""
    kinds = np.asarray(kinds)
    if bezier_fit(settings) or kinds.size == 0 or frames.size < 2:
        return []
    turn = np.where(keep | (kinds == "short"), tracking.keyed_deg, tracking.short_deg)
    turn = np.where(kinds == "step", 0.0, turn)
    along = np.interp(frames, rot_frames, np.concatenate(([0.0], np.cumsum(turn))))
    per_step = np.diff(along)
    # A hair under 180: 90 deg a frame at Step 2 is 180 to rounding.
    fast = np.flatnonzero(per_step >= 180.0 - 1e-6)
    if not fast.size:
        return []
    j = int(fast[0])
    # The fastest key interval inside that step is the one named (a review: keys turning
    # 10, 170 and 170 deg a frame were named by the first, "10 deg per frame").
    speed = turn / np.diff(rot_frames)
    lo = int(np.clip(np.searchsorted(rot_frames, frames[j], side="right") - 1, 0, kinds.size - 1))
    hi = int(np.clip(np.searchsorted(rot_frames, frames[j + 1], side="left"), lo + 1, kinds.size))
    i = lo + int(np.argmax(speed[lo:hi]))
    per_frame = speed[i]
    return [BakeIssue(
        'WARNING', name, "", float(frames[j]),
        Phrase(TOO_FAST, who, what(i), per_frame, per_step[j], also), bone)]


# What each way round the long way is, for a conversion's note (CONVERTED_LONG_WAY).
_LONG_WAY = {"flip": "a quaternion key's sign flipped", "wrap": "an Euler angle wrapping past 180 deg",
             "euler": "Euler channels interpolated one by one"}


def kept_long_way(obj, rot_frames, keyed: KeyedTurns) -> list[BakeIssue]:
    """A conversion's note where it kept the long way round, as Blender plays the keys (a
    flipped sign, an Euler wrap): it keeps the motion, so the Difference Report after it
    no longer sees those keys, and a Re-bake, which starts from the keys before it, turns
    the short way (a Rigify walk: 180 deg changed by the Re-bake, nothing said before)."""
    long = [i for i, kind in enumerate(keyed.kinds) if kind in _LONG_WAY]
    if not long:
        return []
    spans = listed(animdata.frame_span(rot_frames[i], rot_frames[i + 1]) for i in long[:4])
    if len(long) > 4:
        spans = Phrase(AND_MORE, spans, len(long) - 4)
    why = listed((Phrase(_LONG_WAY[k]) for k in sorted({keyed.kinds[i] for i in long})), EITHER)
    return [BakeIssue(
        'INFO', obj.name, "", float(rot_frames[long[0]]),
        Phrase(CONVERTED_LONG_WAY, animdata.subject(obj), spans, why), obj.bone_name)]


def constant_keys(frames, rot_frames, stepped) -> np.ndarray | None:
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
