# SPDX-License-Identifier: GPL-3.0-or-later
"""What of a transform is keyed, and the sentences that say when nothing is.

The bake and the analysis both start here, so both explain the same cases in the
same words (no rotation keys, bones keyed only in NLA clips) and keep one frame cap
(each says in its own words what a span past it would have done).
"""
from __future__ import annotations

import math

from ..core.words import counted, either
from . import animdata

# Frames (keys per channel) beyond which a bake or an analysis is refused:
# Blender stores ~72 bytes per key, so 2 million frames x 7 channels is already
# ~1 GB; an analysis evaluates and compares every whole frame (~7 s per million
# frames, several float64 arrays per frame). A typo in the range, or a stray key
# a million frames away, must not exhaust memory.
MAX_FRAMES = 2_000_000


def has_rotation_keys(obj, fcurves=None, mode: str | None = None) -> bool:
    """True when ``obj``'s rotation or delta rotation channels (of ``mode``, by default its
    rotation mode) have keys, in its active action or in ``fcurves`` (a clip's); without
    ``fcurves``, also when
    a Transform Cache constraint moves it (a USD or Alembic import: its samples are the
    keys the report compares and the bake writes, animdata.cache)."""
    # Imported here: registering the add-on must not load the cache readers.
    from .animdata import cache

    if fcurves is None and cache.plays_cache(obj):
        return True
    return animdata.has_keys(animdata.rotation_fcurves(obj, mode, fcurves)
                             + animdata.delta_rotation_fcurves(obj, mode, fcurves))


def no_rotation_keys(obj, mode: str, clip: str = "") -> str:
    """``Object "Cube" has no keys on rotation_euler or delta_rotation_euler (its rotation
    mode is XYZ)``: the start of every sentence about a transform with nothing to rotate.
    A pose bone has no delta transform, so its sentence names its rotation channel only.
    ``clip``: the sentence is about that clip of it (``Clip "Up" of Object "Cube" ...``)."""
    path = animdata.ROTATION_PATHS[mode][0]
    delta = animdata.DELTA_ROTATION_PATHS.get(mode)
    also = f" or {delta[0]}" if delta and not getattr(obj, "bone_name", "") else ""
    who = animdata.subject(obj)
    if clip:
        who = f"Clip \"{clip}\" of {who[0].lower()}{who[1:]}"
    return f"{who} has no keys on {path}{also} (its rotation mode is {mode})"


def keyed_paths(obj, fcurves=None) -> list[str]:
    """The data paths of ``obj``'s keyed channels (F-curves with keys), relative to the
    transform: ``location``, ``scale``, ``["IK_FK"]`` (a custom property),
    ``constraints["IK"].influence`` ... A bone's prefix is taken off; an armature's own
    list leaves its bones' channels out. Sorted, each once."""
    prefix = animdata.path_prefix(obj)
    if fcurves is None:
        # A bone's custom properties (pose.bones["b"]["prop"]) are not under its prefix:
        # look through its armature's channels.
        fcurves = animdata.object_fcurves(getattr(obj, "owner", obj))
    # A bone's custom property is pose.bones["b"]["prop"]: match the prefix up to "]".
    head = prefix[:-1] if prefix else ""
    found = set()
    for fc in fcurves:
        if fc is None or not len(fc.keyframe_points):
            continue
        path = fc.data_path
        if head:
            if not path.startswith(head) or len(path) == len(head):
                continue
            rest = path[len(head):]
            if rest[0] not in ".[":
                continue
            path = rest[1:] if rest[0] == "." else rest
        elif path.startswith(animdata.BONE_PATH_START):
            continue
        found.add(path)
    return sorted(found)


_LOCATION_PATHS = ("location", "delta_location")
_SCALE_PATHS = ("scale", "delta_scale")


def keys_in_other_modes(obj, mode: str, fcurves=None) -> list[str]:
    """Rotation data paths of other rotation modes that hold ``obj``'s keys (a transform
    keyed in Euler, then switched to Quaternion)."""
    own = {animdata.ROTATION_PATHS[mode][0]}
    delta = animdata.DELTA_ROTATION_PATHS.get(mode)
    if delta:
        own.add(delta[0])
    rotation = animdata.ROTATION_DATA_PATHS | animdata.DELTA_ROTATION_DATA_PATHS
    return [p for p in keyed_paths(obj, fcurves) if p in rotation and p not in own]


def has_location_keys(obj, fcurves=None) -> bool:
    """True when ``obj``'s location or delta location channels hold keys."""
    return animdata.has_keys(animdata.location_fcurves(obj, fcurves)
                             + animdata.delta_location_fcurves(obj, fcurves))


def _keyed_kinds(paths: list[str]) -> list[str]:
    """What ``keyed_paths`` animate, in words: location, scale, custom properties ..."""
    kinds = []

    def add(word):
        if word not in kinds:
            kinds.append(word)

    props = [p for p in paths if p.startswith("[")]
    for path in paths:
        if path in _LOCATION_PATHS:
            add("location")
        elif path in _SCALE_PATHS:
            add("scale")
        elif path.startswith("constraints["):
            add("constraint settings")
    if props:
        names = ", ".join(props[:3]) + (" ..." if len(props) > 3 else "")
        add(f"custom properties ({names})")
    others = [p for p in paths if p not in _LOCATION_PATHS and p not in _SCALE_PATHS
              and not p.startswith("[") and not p.startswith("constraints[")]
    if others:
        add(", ".join(others[:3]) + (" ..." if len(others) > 3 else ""))
    return kinds


def nothing_to_rotate(obj, mode: str, fcurves=None, then: str = "",
                      so: str = "its rotation is left as it is", clip: str = "") -> str:
    """One sentence: ``obj`` has no rotation keys in ``mode`` (its active action, or
    ``fcurves``), and what its keys animate instead, so it is left as it is.

    ``Armature "rig", bone "hand_ik.L" has no keys on rotation_quaternion (its rotation
    mode is QUATERNION): it is keyed on location only, so its rotation is left as it is.``
    ``so`` says what follows (the analysis: "there is no rotation to compare"), ``then``
    ends the sentence in brackets (what a location-keyed transform can still get); keys
    in another rotation mode's channels get the advice to switch the mode back. ``clip``:
    ``fcurves`` are that clip's, and the sentence names it.
    """
    start = no_rotation_keys(obj, mode, clip)
    other = keys_in_other_modes(obj, mode, fcurves)
    if other:
        return (f"{start}; its keys are on {', '.join(other)}. Key its rotation, or set the "
                "rotation mode the keys were made in.")
    kinds = _keyed_kinds(keyed_paths(obj, fcurves))
    if not kinds:
        rotating, in_clips = _keyed_in_clips(obj, mode) if fcurves is None else ([], "")
        if rotating:
            return (f"{start} in its active action; {_clips_words(rotating)} its rotation "
                    "keys: name the clip to compare or bake it (Clip in the Re-bake panel; "
                    "command line: --clips NAME).")
        if in_clips:
            # A real-file walk: "no other keys" of a glTF node whose clip keys its scale.
            return f"{start}, and {in_clips}: there is nothing to do for it."
        return f"{start} and no other keys: there is nothing to do for it."
    tail = f" ({then})" if then else ""
    return f"{start}: it is keyed on {_and(kinds)} only, so {so}{tail}."


def _and(words: list) -> str:
    return " and ".join(words) if len(words) <= 2 else ", ".join(words[:-1]) + " and " + words[-1]


def _clips_words(clips: list) -> str:
    """"its NLA clip Walk holds" / "its NLA clips Walk, Run hold"."""
    names = _three_names(clips)
    return f"its NLA clips {names} hold" if len(clips) > 1 else f"its NLA clip {names} holds"


def _three_names(clips: list) -> str:
    """The clips' names, three at most, then " ..."."""
    return ", ".join(c.name for c in clips[:3]) + (" ..." if len(clips) > 3 else "")


def _keyed_in_clips(obj, mode: str) -> tuple[list, str]:
    """(the NLA clips of ``obj`` that key its rotation in ``mode``, and what the clips that
    key something else key: "its NLA clip ConeAction keys scale only", or "")."""
    clips = [c for c in animdata.object_clips(obj) if not c.active]
    rotating = [c for c in clips if has_rotation_keys(obj, c.fcurves(), mode)]
    keyed = [(c, keyed_paths(obj, c.fcurves())) for c in clips]
    keyed = [(c, paths) for c, paths in keyed if paths]
    kinds = _keyed_kinds(sorted({p for _c, paths in keyed for p in paths}))
    if not kinds:
        return rotating, ""
    names = _three_names([c for c, _p in keyed])
    n = len(keyed)
    return rotating, f"its NLA {either(n, 'clip', 'clips')} {names} " \
        f"{either(n, 'keys', 'key')} {_and(kinds)} only"


def bones_only_in_clips(obj, then: str | None, panel_takes_clip: bool = True) -> str:
    """The armature's bones are keyed, but only in NLA clips; ``then`` says what naming
    the clip does ("bake its bones"), None where nothing takes a clip's name (convert
    reads the active action only). ``panel_takes_clip`` False: only the command line
    takes the clip's name (Analyze reads the active action; a walk followed the advice
    to name the clip and found no way to in the panel)."""
    names = [c.name for c in animdata.object_clips(obj)
             if any(fc.data_path.startswith(animdata.BONE_PATH_START) for fc in c.fcurves())]
    example = f" {names[0]}" if names else " NAME"
    start = (f"{animdata.subject(obj)} is an armature whose pose bones are keyed only in NLA "
             f"clips ({counted(animdata.bone_key_count(obj), 'bone')}).")
    if then is None:
        return (f"{start} Convert reads the active action only: make the clip the armature's "
                "active action (Action editor), then convert.")
    if not panel_takes_clip:
        return (f"{start} Name the clip on the command line to {then} (--clips{example}); "
                "in Blender, make it the armature's active action (Action editor).")
    return (f"{start} Name the clip to {then} (command line: --clips{example}), or make it "
            "the armature's active action (Action editor).")


def span_too_long(who: str, start: float, end: float, step: int) -> str:
    """Why a bake of frames ``start``..``end`` every ``step`` is refused, or "" when it fits."""
    count = int((end - start) // int(step)) + 2
    if count <= MAX_FRAMES:
        return ""
    return (f"{who}: baking frames {animdata.frame_label(start)}..{animdata.frame_label(end)} "
            f"every {counted(int(step), 'frame')} would write about {count:,} keys per channel, more "
            f"than {MAX_FRAMES:,}. Choose a shorter frame range or a larger step.")


# Reading every key of a huge selection on a click would stall the UI: the
# first objects decide (the bake itself still reads them all).
KEYED_RANGE_LIMIT = 64


def keyed_range(objects) -> tuple[int, int] | None:
    """(first, last) whole frames covering the rotation and location keys of
    ``objects`` (first rounded down, last up), or None when none is keyed: where a
    custom bake range starts from."""
    first, last = math.inf, -math.inf
    for obj in list(objects)[:KEYED_RANGE_LIMIT]:
        keys = animdata.key_frames(animdata.rotation_fcurves(obj) + animdata.location_fcurves(obj))
        keys = keys[[math.isfinite(k) for k in keys]] if keys.size else keys
        if keys.size:
            first, last = min(first, float(keys[0])), max(last, float(keys[-1]))
    if not math.isfinite(first):
        return None
    return math.floor(first), math.ceil(last)
