# SPDX-License-Identifier: GPL-3.0-or-later
"""NLA: clips (the actions an object's strips and stashes hold) and blending."""
from __future__ import annotations

from typing import Iterable

from .actions import action_fcurves, get_slot_identifier, strip_slot_identifier
from .paths import path_prefix


def nla_state(obj) -> tuple[bool, int]:
    """(in NLA tweak mode, number of NLA strips) for ``obj``."""
    ad = obj.animation_data
    if ad is None:
        return False, 0
    strips = sum(len(track.strips) for track in ad.nla_tracks)
    return bool(ad.use_tweak_mode), strips


class Clip:
    """One action that can animate an object: its active action or one in its NLA.

    ``name`` is the action's name (what the report calls the clip); ``slot``
    the slot identifier that animates the object (4.4+, "" before); ``track``
    and ``strip`` name where it was found ("" for the active action alone).
    """

    def __init__(self, action, slot: str, active: bool, track: str = "", strip: str = ""):
        self.action = action
        self.name = action.name
        self.slot = slot
        self.active = active
        self.track = track
        self.strip = strip

    def fcurves(self) -> list:
        return action_fcurves(self.action, self.slot)


def _action_strips(strips):
    for strip in strips:
        if strip.type == 'META':
            yield from _action_strips(strip.strips)
        elif strip.action is not None:
            yield strip


def nla_strips(obj) -> list:
    """(track, strip) for every action strip of ``obj``'s NLA, meta strips opened."""
    ad = obj.animation_data
    if ad is None:
        return []
    return [(track, strip) for track in ad.nla_tracks for strip in _action_strips(track.strips)]


def clip_time(obj, clip_name: str, time: float) -> float:
    """The NLA time at which ``obj``'s first playing strip of the action ``clip_name``
    plays that action's ``time`` (its first repeat; a reversed strip from its end), or
    ``time`` itself where the action is the active one or no strip plays it. A clip is
    analysed in its action's own time: a walk's Jump to Worst went to frame 5, before a
    strip placed at 101 with scale 2, where another pose played (21.9 deg away). Only
    tracks that play count: the soloed one when a track is soloed, else the unmuted."""
    ad = obj.animation_data
    if ad is None or (ad.action is not None and ad.action.name == clip_name):
        return time
    for strip in (s for track in _playing_tracks(ad) for s in _action_strips(track.strips)):
        if strip.action.name != clip_name or strip.mute:
            continue
        start, end = strip.action_frame_start, strip.action_frame_end
        at = min(max(time, start), end)
        offset = (end - at) if strip.use_reverse else (at - start)
        if offset >= end - start and strip.repeat > 1.0:
            # The first repeat's last frame plays the next repeat's first: the action's end
            # (its start, reversed) plays as such at the strip's end only (a review: the
            # jump landed 20 deg off).
            return strip.frame_end
        return strip.frame_start + offset * strip.scale
    return time


def object_clips(obj) -> list[Clip]:
    """The active action first (if any), then each other action in the NLA, once each."""
    ad = obj.animation_data
    clips, seen = [], set()
    if ad is not None and ad.action is not None:
        clips.append(Clip(ad.action, get_slot_identifier(obj), True))
        seen.add((ad.action.as_pointer(), clips[0].slot))
    for track, strip in nla_strips(obj):
        slot = strip_slot_identifier(strip)
        key = (strip.action.as_pointer(), slot)
        if key in seen:
            continue
        seen.add(key)
        clips.append(Clip(strip.action, slot, False, track.name, strip.name))
    return clips


def strip_changes(strip) -> list[str]:
    """What ``strip`` does to its action beyond playing its keys at their own frames, in
    words ("influence 0.5", "scale 2"): a bake of the clip writes the keys as they are, so
    none of it is in what the bake plays."""
    said = []
    # ``influence`` counts only when animated (use_animated_influence); otherwise a strip
    # plays at full influence whatever the value reads (often 0).
    if strip.use_animated_influence:
        said.append("animated influence")
    if strip.use_animated_time:
        said.append("animated strip time")
    # Auto Blend In/Out sets blend_in and blend_out from the strips around it: none, and it
    # blends nothing (a review: a lone strip with it on was said to blend).
    if strip.blend_in > 1e-6 or strip.blend_out > 1e-6:
        said.append("blending in and out" if strip.use_auto_blend else
                    f"blend in {strip.blend_in:g} / out {strip.blend_out:g} frames")
    # Combine onto nothing (no strip plays under it) is the strip's own values: Blender
    # combines onto each channel's default (location and Euler 0, the identity
    # quaternion and axis-angle, scale 1). A review: a lone Combine strip was said to change
    # what its keys play. Add, Subtract and Multiply onto those defaults change it.
    if strip.blend_type != 'REPLACE' and not (strip.blend_type == 'COMBINE'
                                              and _over_nothing(strip)):
        said.append(f"blending {strip.blend_type.replace('_', ' ').title()}")
    if abs(strip.scale - 1.0) > 1e-6:
        said.append(f"scale {strip.scale:g}")
    if abs(strip.repeat - 1.0) > 1e-6:
        said.append(f"repeat {strip.repeat:g}")
    if strip.use_reverse:
        said.append("reversed")
    offset = strip.frame_start - strip.action_frame_start
    if abs(offset) > 1e-6:
        said.append(f"moved {offset:+g} frames")
    return said


def _over_nothing(strip) -> bool:
    """Whether no strip plays under ``strip``: no unmuted strip on a playing track below
    its own (Blender evaluates the NLA from the bottom track up)."""
    obj = strip.id_data
    ad = getattr(obj, "animation_data", None)
    if ad is None:
        return False
    tracks = list(ad.nla_tracks)
    own = next((i for i, track in enumerate(tracks)
                if any(s.as_pointer() == strip.as_pointer()
                       for s in _action_strips(track.strips))), None)
    if own is None:
        return False
    playing = {t.as_pointer() for t in _playing_tracks(ad)}
    return not any(t.as_pointer() in playing and any(not s.mute for s in t.strips)
                   for t in tracks[:own])


def clip_strip_changes(obj, action) -> list[tuple[str, str, list[str]]]:
    """(track, strip, strip_changes) of each unmuted strip of ``obj`` playing ``action``
    with some change."""
    found = [(track.name, strip.name, strip_changes(strip)) for track, strip in nla_strips(obj)
             if strip.action == action and not strip.mute and not track.mute]
    return [item for item in found if item[2]]


def unplayed_clips(obj) -> list[Clip]:
    """The clips of ``obj``'s NLA that Blender does not play, once each.

    A strip plays when the NLA is on (``use_nla``), its track plays (not muted, or
    solo when a track is solo) and the strip itself is not muted. A strip holding
    the active action is never listed: that action plays anyway. The glTF
    exporter writes every clip as an animation, muted or not (io_scene_gltf2 5.0
    skips muted strips only, not muted tracks), so these are the animations a
    player has that Blender does not play: the importer's stashes.
    """
    ad = obj.animation_data
    if ad is None:
        return []
    playing = {t.as_pointer() for t in _playing_tracks(ad)} if ad.use_nla else set()
    played = {ad.action.as_pointer()} if ad.action is not None else set()
    strips = nla_strips(obj)
    for track, strip in strips:
        if track.as_pointer() in playing and not strip.mute:
            played.add(strip.action.as_pointer())
    clips, seen = [], set()
    for track, strip in strips:
        key = strip.action.as_pointer()
        if key in played or key in seen:
            continue
        seen.add(key)
        slot = strip_slot_identifier(strip)
        clips.append(Clip(strip.action, slot, False, track.name, strip.name))
    return clips


def tweaked_strip(obj) -> tuple[str, str]:
    """(track, strip) being edited in NLA tweak mode, ("", "") if none is found.

    Blender flags the strip (``active``) when tweak mode is entered from the NLA
    editor; from a script only the track is flagged, and the strip is the one
    playing the action being tweaked (which tweak mode assigns as the action).
    """
    ad = obj.animation_data
    if ad is None:
        return "", ""
    for track in ad.nla_tracks:
        for strip in track.strips:
            if strip.active:
                return track.name, strip.name
    for track in ad.nla_tracks:
        if track.active:
            for strip in track.strips:
                if strip.action is not None and strip.action == ad.action:
                    return track.name, strip.name
            return track.name, ""
    return "", ""


def _playing_tracks(ad) -> list:
    solo = [t for t in ad.nla_tracks if t.is_solo]
    return solo if solo else [t for t in ad.nla_tracks if not t.mute]


def blending_strips(obj, data_paths: Iterable[str]) -> list[tuple[str, str, str, list[str]]]:
    """NLA strips that play together with the active action on ``data_paths``.

    (track, strip, action, [data paths]) for each unmuted strip on a playing
    track (solo respected) whose action animates one of ``data_paths``. Where the
    active action replaces what is below it fully (blend REPLACE, influence 1, HOLD
    extrapolation), a strip's channels that the action animates too play nothing: the
    importer's stash, an action pushed down and assigned again, or a new layer keyed
    over a pushed-down walk (a walk: that layer was refused, "a blend of it and the
    action", where what plays was the layer alone). Channel by channel, as Blender
    replaces them (a path and its index; a muted curve replaces nothing), and nothing
    while a track is soloed, when the active action does not play.
    """
    ad = obj.animation_data
    if ad is None or not len(ad.nla_tracks) or ad.use_nla is False:
        return []
    wanted = {path_prefix(obj) + p for p in data_paths}
    replaced = set()
    if (ad.action is not None and ad.action_blend_type == 'REPLACE'
            and ad.action_influence >= 1.0 and ad.action_extrapolation == 'HOLD'
            and not any(t.is_solo for t in ad.nla_tracks)):
        replaced = {(fc.data_path, fc.array_index)
                    for fc in action_fcurves(ad.action, get_slot_identifier(obj))
                    if fc.data_path in wanted and len(fc.keyframe_points) and not fc.mute}
    # A path the action keys in part is named by the indices it leaves to a strip
    # ("rotation_euler[2]": key it too, and the action replaces the strip).
    partly = {p for p, _i in replaced}
    found = []
    for track in _playing_tracks(ad):
        for strip in _action_strips(track.strips):
            if strip.mute:
                continue
            slot = strip_slot_identifier(strip)
            left: dict = {}
            for fc in action_fcurves(strip.action, slot):
                if (fc.data_path in wanted and len(fc.keyframe_points)
                        and (fc.data_path, fc.array_index) not in replaced):
                    left.setdefault(fc.data_path, set()).add(fc.array_index)
            paths = [label for path in sorted(left) for label in (
                [f"{path}[{i}]" for i in sorted(left[path])] if path in partly else [path])]
            if paths:
                found.append((track.name, strip.name, strip.action.name, paths))
    return found


def bone_key_count(obj) -> int:
    """How many pose bones ``obj``'s action keys (0 for non-armatures)."""
    if obj.type != 'ARMATURE':
        return 0
    bones = set()
    for clip in object_clips(obj):
        for fc in clip.fcurves():
            if fc.data_path.startswith("pose.bones[") and len(fc.keyframe_points):
                bones.add(fc.data_path.split("]")[0])
    return len(bones)


