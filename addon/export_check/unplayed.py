# SPDX-License-Identifier: GPL-3.0-or-later
"""NLA clips Blender does not play but the exporter writes (Blender's glTF importer
stashes every animation of a file on a muted track): which glTF animations come from
them, node by node, and the sentences that say they are left out of the comparison."""

from __future__ import annotations

import bpy

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
    return one if len(names) == 1 else many


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


def nla_plays_sentence(obj, mode: str) -> str:
    """Why ``obj`` is not compared when Blender plays its NLA with (or instead of) the
    active action while the exporter writes each action on its own (``mode``, the
    exporter's animation mode: all but SCENE): a soloed track, or an unmuted strip that
    keys a channel the action does not replace. "" otherwise. A game-rig walk: with Run's
    track soloed, Blender played Run and the check compared the file's Walk, "key_mismatch
    176.9 deg, bake the object"; with it unmuted, Head turned 150 deg and went unmentioned."""
    ad = obj.animation_data
    if mode == "SCENE" or ad is None or not ad.use_nla:
        return ""
    keyed = {fc.data_path for clip in animdata.object_clips(obj) if not clip.active
             for fc in clip.fcurves() if fc.data_path.rsplit(".", 1)[-1] in _TRANSFORM_PATHS}
    blends = animdata.blending_strips(obj, sorted(keyed)) if keyed else []
    if not blends:
        return ""
    track, strip, action, _paths = blends[0]
    soloed = any(t.is_solo for t in ad.nla_tracks)
    how = ("is soloed, so Blender plays it instead of the active action" if soloed else
           "is not muted, so Blender plays it with the active action")
    return (f"Object \"{obj.name}\" is not compared: its NLA track \"{track}\" (strip "
            f"\"{strip}\", action \"{action}\") {how}, which the exporter writes as an "
            "animation of its own: no one glTF animation plays what Blender plays. Mute the "
            "track (or turn Solo off) to check the active action, or bake the NLA into one "
            "action first (Object > Animation > Bake Action).")

