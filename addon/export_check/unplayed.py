# SPDX-License-Identifier: GPL-3.0-or-later
"""NLA clips Blender does not play but the exporter writes (Blender's glTF importer
stashes every animation of a file on a muted track): which glTF animations come from
them, node by node, and the sentences that say they are left out of the comparison."""

from __future__ import annotations

import bpy

from ...core.words import either
from .. import animdata


def _clip_names(clip) -> set:
    """The names the glTF exporter may give the animation of an NLA clip: the action's
    (io_scene_gltf2 4.x/5.x, ACTIONS mode) or its track's (3.x, and NLA_TRACKS mode)."""
    return {clip.name, clip.track} - {""}


def _animation_owner(doc, node: int, joints: set, parents: list):
    """The Blender object a node is exported from: the node's own name, or for a joint
    (a bone) the armature above it."""
    while node in joints and parents[node] >= 0:
        node = parents[node]
    return bpy.data.objects.get(doc.nodes[node].name)


def _why_not_played(obj, clip) -> str:
    """Where the clip sits and why it does not play: 'the muted track "X"' ..."""
    ad = obj.animation_data
    track = ad.nla_tracks.get(clip.track) if ad is not None and clip.track else None
    if track is None:
        return "the NLA"
    strip = track.strips.get(clip.strip) if clip.strip else None
    if not ad.use_nla:
        return f"track \"{track.name}\" (the object's NLA is switched off)"
    if track.mute:
        return f"the muted track \"{track.name}\""
    if strip is not None and strip.mute:
        return f"the muted strip \"{strip.name}\" of track \"{track.name}\""
    return f"track \"{track.name}\" (another track is solo)"


def animations(doc) -> tuple[dict, dict]:
    """({node: names}, {node: [(clip, where)]}): per node, the glTF animations that come
    from NLA clips its Blender object does not play (``animdata.unplayed_clips``), and
    those clips with where they sit.

    Blender's glTF importer stashes every animation of a file on a muted NLA track, and
    the exporter writes muted clips out again, one animation each: a player has them,
    Blender plays none of them. Comparing one with Blender's playback would blame the
    object for a clip Blender does not play; the check leaves them out instead. A name
    that is also one of the object's played clips (its active action) is never left out.
    """
    joints = {j for skin in doc.json.get("skins", []) for j in skin.get("joints", [])}
    parents = doc.parents()
    names: dict = {}
    clips: dict = {}
    cache: dict = {}
    for i in range(len(doc.nodes)):
        obj = _animation_owner(doc, i, joints, parents)
        if obj is None:
            continue
        if obj.name not in cache:
            unplayed = animdata.unplayed_clips(obj)
            played = set()
            for clip in animdata.object_clips(obj):
                if all(clip.action != c.action for c in unplayed):
                    played |= _clip_names(clip)
            left = set()
            for clip in unplayed:
                left |= _clip_names(clip)
            cache[obj.name] = (left - played, [(c, _why_not_played(obj, c)) for c in unplayed])
        left, unplayed = cache[obj.name]
        if left:
            names[i], clips[i] = left, unplayed
    return names, clips


def left_out(doc, node: int, skip: dict) -> list:
    """Names of the animations with channels on ``node`` that ``skip`` leaves out."""
    return sorted({a.name for a in doc.animations if a.name in skip.get(node, ())
                   and any(ch.node == node for ch in a.channels)})


def _clip_words(clips, names) -> str:
    """``"CubeAction" on the muted track "CubeAction"`` for the clips behind ``names``."""
    return "; ".join(f"\"{clip.name}\" on {where}" for clip, where in clips
                     if _clip_names(clip) & set(names))


def _quoted(names) -> str:
    return ", ".join(f"\"{n}\"" for n in names)


def _number(names, one: str, many: str) -> str:
    """``one`` for a single animation name, ``many`` for several (a walk: 'The glTF
    animation "Idle", "Run" also drives it; it comes from ...')."""
    return either(len(names), one, many)


def skipped_sentence(obj, names, clips) -> str:
    """Why an object driven in the file only by clips Blender does not play is not compared."""
    first = next((c.name for c, _w in clips if _clip_names(c) & set(names)), names[0])
    return (f"Object \"{obj.name}\" is not compared: the glTF "
            f"{_number(names, 'animation', 'animations')} {_quoted(names)} that "
            f"{_number(names, 'drives', 'drive')} it {_number(names, 'comes', 'come')} from "
            f"the NLA {_number(names, 'clip', 'clips')} {_clip_words(clips, names)}, which "
            f"Blender does not play (a player plays {_number(names, 'it', 'them')} only when "
            "asked to). To check a clip, make it the object's active action (Action editor, "
            f"or quatbake bake --clips {first}) and check again.")


def left_out_note(names, clips) -> str:
    """The note of an object whose file also holds animations of clips Blender does not play."""
    return (f"The glTF {_number(names, 'animation', 'animations')} {_quoted(names)} also "
            f"{_number(names, 'drives', 'drive')} it; {_number(names, 'it comes', 'they come')} "
            f"from the NLA {_number(names, 'clip', 'clips')} {_clip_words(clips, names)}, which "
            f"Blender does not play, so {_number(names, 'it is', 'they are')} left out of this "
            "comparison.")


# The transform channels whose NLA blend the check looks for (an armature's bones' too).
_TRANSFORM_PATHS = ("location", "rotation_euler", "rotation_quaternion",
                    "rotation_axis_angle", "scale")


def _has_nla_tracks_mode() -> bool:
    from .exporter import exporter_properties

    prop = exporter_properties().get("export_animation_mode")
    return prop is not None and "NLA_TRACKS" in {i.identifier for i in prop.enum_items}


def nla_plays_sentence(obj, mode: str) -> str:
    """Why ``obj`` is not compared when Blender plays its NLA with (or instead of) the
    active action while the exporter writes each action on its own (``mode``, the
    exporter's animation mode: all but SCENE): a soloed track, or an unmuted strip that
    keys a channel the action does not replace. "" otherwise. A game-rig walk: with Run's
    track soloed, Blender played Run and the check compared the file's Walk, "key_mismatch
    176.9 deg, bake the object"; with it unmuted, Head turned 150 deg and went unmentioned."""
    found = _playing_strip(obj, mode)
    if found is None:
        return ""
    track, strip, action, changes = found
    ad = obj.animation_data
    soloed = any(t.is_solo for t in ad.nla_tracks)
    how = ("is soloed, so Blender plays it instead of the active action"
           if soloed and ad.action else "is soloed, so Blender plays it" if soloed else
           "is not muted, so Blender plays it with the active action" if ad.action else
           "is not muted, so Blender plays it")
    if changes:
        how += f" with {', '.join(changes)}"
    return (f"Object \"{obj.name}\" is not compared: its NLA track \"{track}\" (strip "
            f"\"{strip}\", action \"{action}\") {how}, which the exporter writes as an "
            "animation of its own: no one glTF animation plays what Blender plays. "
            + ("Mute the track (or turn Solo off) to check the active action, or bake"
               if ad.action else "Export in NLA_TRACKS mode, which writes each track as its "
               "strips place it, or bake" if _has_nla_tracks_mode() else "Bake")
            + " the NLA into one action first (Object > Animation > Bake Action).")


def _playing_strip(obj, mode: str):
    """(track, strip, action, changes) of the first NLA strip Blender plays on a transform
    channel of ``obj`` beside (or instead of) what the exporter writes in ``mode``; None
    when there is none. ``changes``: what a lone strip does to its action's keys, for
    the sentence."""
    ad = obj.animation_data
    if mode == "SCENE" or ad is None or not ad.use_nla:
        return None
    keyed = {fc.data_path for clip in animdata.object_clips(obj) if not clip.active
             for fc in clip.fcurves() if fc.data_path.rsplit(".", 1)[-1] in _TRANSFORM_PATHS}
    blends = animdata.blending_strips(obj, sorted(keyed)) if keyed else []
    if not blends:
        return None
    track, strip, action, _paths = blends[0]
    if len(blends) > 1 or _keys_transforms(obj):
        return track, strip, action, []
    # One strip and no active action over it (pushed down, an NLA-only import): the
    # exporter writes its action, which plays what Blender plays where the strip keeps
    # the action's frames (a review: such an object went unchecked).
    found = next(s for t, s in animdata.nla_strips(obj) if t.name == track
                 and s.name == strip)
    if _plays_as_keyed(found, found.action):
        return None
    return track, strip, action, _changes(found)


class TracksExport:
    """What the exporter's NLA_TRACKS mode writes of an object, against what Blender plays.

    That mode writes one animation per NLA track, named after the track and timed as its
    strips place their actions in the scene, muted tracks included, and never the active
    action. ``animation``: the file's animation that holds what Blender plays (None: the
    usual choice, the animation named after the action). ``skip``: why the object is not
    compared. ``missing_fix``: the advice where the file holds none of what Blender plays.
    A game-rig walk: Fox.glb's importer stashes each clip on a track whose strip starts a
    frame after its keys; the check compared the track with the active action and blamed
    the one-frame shift on the keys ("key_mismatch, bake the object")."""

    def __init__(self, animation: str | None = None, skip: str = "", missing_fix: str = "",
                 shift: float = 0.0, note: str = ""):
        self.animation = animation
        self.skip = skip
        self.missing_fix = missing_fix
        self.shift = shift      # frames the file's animation plays later than Blender
        self.note = note        # the report's time_note sentence on that shift


def _changes(strip) -> list[str]:
    """What ``strip`` does to its action's keys besides moving them (animdata's words:
    "blend in 10 / out 0 frames", "animated influence", "scale 2" ...)."""
    return [c for c in animdata.strip_changes(strip) if not c.startswith("moved")]


def _plays_as_keyed(strip, action, shift: float = 0.0) -> bool:
    """Whether ``strip`` plays all of ``action``'s keys as they are, at the action's own
    frames moved by ``shift`` frames: no blend in or out, influence, other blending, scale,
    repeat or reverse (a review: a pushed-down strip fading in over 10 frames was compared
    with its action and blamed on the keys, 7.8 deg)."""
    first, last = action.frame_range
    return (abs(strip.frame_start - strip.action_frame_start - shift) < 1e-4
            and not _changes(strip)
            and strip.action_frame_start <= first + 1e-4
            and strip.action_frame_end >= last - 1e-4)


def _keys_transforms(obj) -> bool:
    """Whether ``obj``'s active action keys a transform channel (its bones' included)."""
    return obj.animation_data.action is not None and any(
        fc.data_path.rsplit(".", 1)[-1] in _TRANSFORM_PATHS and len(fc.keyframe_points)
        and not fc.mute for fc in animdata.object_fcurves(obj))


def tracks_export(obj) -> TracksExport:
    """The NLA_TRACKS reading of ``obj`` (``TracksExport``)."""
    ad = obj.animation_data
    if ad is None:
        return TracksExport()
    action = ad.action
    own = _keys_transforms(obj)
    soloed = any(t.is_solo for t in ad.nla_tracks)
    keyed = {fc.data_path for clip in animdata.object_clips(obj) if not clip.active
             for fc in clip.fcurves() if fc.data_path.rsplit(".", 1)[-1] in _TRANSFORM_PATHS}
    playing = animdata.blending_strips(obj, sorted(keyed)) if keyed else []
    tracks = sorted({track for track, _s, _a, _p in playing})
    if own and not soloed:
        if playing:
            return TracksExport(skip=(
                f"Object \"{obj.name}\" is not compared: Blender plays its active action "
                f"\"{action.name}\" with NLA track \"{tracks[0]}\", and the exporter's "
                "NLA_TRACKS mode writes each track as an animation of its own and not the "
                "active action: no one glTF animation plays what Blender plays. Bake the NLA "
                "into one action and push it down to a track (Object > Animation > Bake "
                "Action, then Push Down), or export in ACTIONS mode."))
        slot = animdata.get_slot_identifier(obj)
        holders = [(track, strip) for track, strip in animdata.nla_strips(obj)
                   if strip.action == action
                   and (not slot or animdata.strip_slot_identifier(strip) == slot)]
        for track, strip in holders:
            if _plays_as_keyed(strip, action):
                return TracksExport(animation=track.name)
        for track, strip in holders:
            # Moved whole (Blender's glTF importer starts each stash a frame after its
            # keys): compared frame for frame with the action, the move said once.
            shift = strip.frame_start - strip.action_frame_start
            if _plays_as_keyed(strip, action, shift):
                frames = f"{abs(shift):g} frame{'' if abs(shift) == 1 else 's'}"
                return TracksExport(animation=track.name, shift=shift, note=(
                    f"The exporter's NLA_TRACKS mode writes \"{obj.name}\"'s NLA track "
                    f"\"{track.name}\", whose strip plays action \"{action.name}\" "
                    f"{frames} {'later' if shift > 0 else 'earlier'} than Blender plays it "
                    f"as the active action (the action's frame {strip.action_frame_start:g} "
                    f"at frame {strip.frame_start:g}): an engine plays it that much "
                    f"{'later' if shift > 0 else 'earlier'}; compared frame for frame with "
                    "the action."))
        if holders:
            track, strip = holders[0]
            how = ", ".join(_changes(strip)) or "cut to part of its keys"
            return TracksExport(skip=(
                f"Object \"{obj.name}\" is not compared: the exporter's NLA_TRACKS mode "
                f"writes NLA track \"{track.name}\", whose strip \"{strip.name}\" plays "
                f"action \"{action.name}\" otherwise than Blender plays it as the active "
                f"action ({how}), which no bake of the keys changes. To check the keys, "
                "export in ACTIONS mode."))
        return TracksExport(missing_fix=(
            f"the exporter's NLA_TRACKS mode writes NLA tracks only, and the active action "
            f"\"{action.name}\" is on none: push it down to a track (Action editor: Push "
            "Down), or export in ACTIONS mode"))
    if len(tracks) > 1:
        # Not "each as an animation of its own": the exporter merges a track that blends
        # Add or Combine into the one below (a review).
        return TracksExport(skip=(
            f"Object \"{obj.name}\" is not compared: Blender plays NLA tracks "
            f"{_quoted(tracks)} together, and the check compares one track's animation at "
            "a time. Bake the NLA into one action first (Object > Animation > Bake "
            "Action)."))
    return TracksExport(animation=tracks[0] if tracks else None)
