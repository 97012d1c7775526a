# SPDX-License-Identifier: GPL-3.0-or-later
"""Difference report inside Blender: read an object's channels, run core.analysis.

``analyze_object(obj, method)`` is the one entry point used by the operator
``quatbake.analyze``, its panel and the command line (``addon.cli``). It reads
the F-curves through ``animdata`` (no ``frame_set``: the scene and the current
frame are never touched) and hands arrays to ``core.analysis``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import bpy
import numpy as np
from bpy.props import EnumProperty, StringProperty
from bpy.types import Operator, Panel

from .compare import compare_method
from .messages import count_phrase, tally
from .props import METHOD_ITEMS

# core.analysis and animdata are imported where an analysis runs: registering
# must not load them (measured in benchmarks/bench_register.py).
if TYPE_CHECKING:
    from ..core import analysis as core_analysis


class NoRotationKeys(ValueError):
    """The object has no keyed rotation channel in its rotation mode."""


class RangeTooLong(ValueError):
    """The rotation keys span more frames than an analysis compares (a stray key)."""


def analysis_frames(keys: np.ndarray) -> np.ndarray:
    """Whole frames from the first to the last key, plus the key frames themselves."""
    whole = np.arange(np.ceil(keys[0]), np.floor(keys[-1]) + 1.0)
    return np.unique(np.concatenate([whole, keys]))


def has_rotation_keys(obj, fcurves=None) -> bool:
    """True when ``obj``'s rotation or delta rotation channels (of its rotation mode) have
    keys, in its active action or in ``fcurves`` (a clip's)."""
    from . import animdata

    return animdata.has_keys(animdata.rotation_fcurves(obj, None, fcurves)
                             + animdata.delta_rotation_fcurves(obj, None, fcurves))


def analysis_targets(obj, clips="active") -> list:
    """What to analyse of ``obj``: ``obj`` itself (its active action) or (obj, Clip) pairs.

    ``clips``: 'active' - the active action, or the object's NLA clips with
    rotation keys when the active action has none (so an object animated only
    by stashed clips, as glTF imports leave all but the first, is still
    reported); 'all' - every clip of the object (its active action and each
    action in its NLA strips and stashes, once each); a list of names - those
    clips, if the object has them.
    """
    from . import animdata

    all_clips = animdata.object_clips(obj)
    if clips == "active":
        if has_rotation_keys(obj) or not all_clips:
            return [obj]
        stashed = [(obj, c) for c in all_clips
                   if not c.active and has_rotation_keys(obj, c.fcurves())]
        return stashed or [obj]
    if clips == "all":
        # Each entry names its clip, the active action's included; an object with
        # no clip holding rotation keys is analysed as itself (to say why not).
        return [(obj, c) for c in all_clips if has_rotation_keys(obj, c.fcurves())] or [obj]
    return [(obj, c) for c in all_clips if c.name in clips]


def result_label(obj, clip=None) -> str:
    """How results name an analysis: "Cube", "Rig: spine" (a pose bone's transform), or
    "Cube / Walk" for a clip."""
    name = getattr(obj, "display_name", obj.name)
    return f"{name} / {clip.name}" if clip is not None else name


def no_keys_sentence(obj, path: str, mode: str) -> str:
    """Why ``obj`` has nothing to compare: bones keyed, clips only in the NLA, or no keys."""
    from . import animdata

    if animdata.bone_key_count(obj):
        return (f"Object \"{obj.name}\" is an armature whose pose bones are keyed only in "
                f"NLA clips ({animdata.bone_key_count(obj)} bone(s)). Make the clip the "
                "armature's active action to compare its bones.")
    delta = animdata.DELTA_ROTATION_PATHS.get(mode)
    also = f" or {delta[0]}" if delta else ""
    return (f"{animdata.subject(obj)} has no keys on {path}{also} (its rotation mode is "
            f"{mode}): nothing to compare.")


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
    span more than bake.MAX_BAKE_FRAMES frames, animdata.ChannelError for a
    value that is no rotation.
    """
    from ..core import analysis as core_analysis
    from ..core import quat as core_quat
    from . import animdata, bake_record, turn_inputs

    # The bake's cap, so both refuse the same stray key (a frame typed as
    # 5000001): every whole frame is evaluated and compared, ~7 s per
    # million frames, with several float64 arrays per frame.
    from .bake import MAX_BAKE_FRAMES

    fcurves = clip.fcurves() if clip is not None else None
    mode = obj.rotation_mode
    if original:
        found = bake_record.original_channels(obj)
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
    keys = animdata.key_frames(rot_fcurves + delta_fcurves)
    if keys.size == 0:
        raise NoRotationKeys(no_keys_sentence(obj, path, mode))
    span = int(np.floor(keys[-1]) - np.ceil(keys[0])) + 1   # whole frames analysed
    if span > MAX_BAKE_FRAMES:
        first, last = animdata.frame_label(keys[0]), animdata.frame_label(keys[-1])
        raise RangeTooLong(
            f"{animdata.subject(obj)}: its {path} keys span frames {first} to {last} "
            f"({span:,} frames), more than the {MAX_BAKE_FRAMES:,} frames an analysis "
            "compares. Delete or move the stray key.")
    frames = analysis_frames(keys)
    raw = animdata.evaluate_rotation_raw(obj, frames, mode, fcurves)
    try:
        quats = animdata.rotation_values_to_quat(raw, mode, frames, obj.name, path)
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
    at_keys = np.searchsorted(frames, keys)
    # Spins between neighbouring keys (a 359.9 deg Euler wrap from one frame to
    # the next) happen between the whole frames: sample them for the turn.
    extra = animdata.far_turn_subframes(obj, keys, mode, fcurves)
    extra_quats = None
    if extra.size:
        extra_quats = animdata.evaluate_orientation(obj, extra, mode, fcurves)

    positions = key_positions = location_keys = None
    loc_fcurves = animdata.location_fcurves(obj, fcurves) + \
        animdata.delta_location_fcurves(obj, fcurves)
    if any(fc is not None for fc in loc_fcurves):
        positions = animdata.evaluate_full_location(obj, frames, fcurves)
        location_keys = animdata.key_frames(loc_fcurves)
        key_positions = animdata.evaluate_full_location(obj, location_keys, fcurves)

    stepped = turn_samples = None
    if keys.size >= 2:
        keyed_fcs = rot_fcurves if animdata.has_keys(rot_fcurves) else delta_fcurves
        stepped = turn_inputs.stepped_intervals(keyed_fcs, keys)
    if keys.size >= 2 and not turn_inputs.frames_suffice(mode, keys, raw[at_keys]):
        # Blender's playback between the frames too, so fast keyed turns are
        # followed (core.turns needs samples well under 180 deg apart).
        dense = turn_inputs.playback_times(mode, keys, raw[at_keys])
        dense_raw = animdata.evaluate_rotation_raw(obj, dense, mode, fcurves)
        # A key and its sign-flipped twin: the channels can pass through zero.
        dense_raw = animdata.as_played(dense_raw, mode)
        dense_quats = animdata.rotation_values_to_quat(dense_raw, mode, dense, obj.name, path)
        if delta_keyed or not animdata.is_identity_delta(
                animdata.delta_rotation_defaults(obj, mode), mode):
            dense_quats = core_quat.multiply(
                animdata.evaluate_delta_rotation(obj, dense, mode, fcurves), dense_quats)
        turn_samples = (dense, dense_quats)

    result = core_analysis.analyze_object(
        obj.name, mode, frames, quats, keys, quats[at_keys], method,
        raw_values=raw, key_raw=raw[at_keys], positions=positions,
        key_positions=key_positions, location_key_frames=location_keys,
        extra_frames=extra if extra.size else None, extra_quats=extra_quats,
        turns_setting=turns, timing=timing, stepped=stepped, turn_samples=turn_samples)
    result.bone = getattr(obj, "bone_name", "")
    prefix = animdata.path_prefix(obj)
    result.channels = sorted({fc.data_path[len(prefix):] for fc in rot_fcurves + delta_fcurves
                              if fc is not None and len(fc.keyframe_points)})
    if clip is not None:
        result.clip = clip.name
    else:
        # What plays may not be what is compared: say so (the bake refuses this case).
        paths = {path} | ({animdata.DELTA_ROTATION_PATHS[mode][0]}
                          if mode in animdata.DELTA_ROTATION_PATHS else set())
        for track, strip, action, channels in animdata.blending_strips(obj, paths):
            result.findings.append(
                f"NLA track \"{track}\", strip \"{strip}\" (action \"{action}\") also animates "
                f"{', '.join(channels)} and is not muted: what plays blends it with the action, "
                "and this report compares the action alone")
    return result


# --------------------------------------------------------------------------
# Results shown in the panel: plain values keyed by scene and object name
# (no RNA references survive an undo; the panel looks objects up by name).
# --------------------------------------------------------------------------

_RESULTS: dict[str, dict[str, dict]] = {}

# Verdicts on a largest difference (degrees). Below FINE_DEG nobody sees it
# (core.analysis.NEGLIGIBLE_DEG: its advice is "nothing to do" there too;
# float32 keys alone give ~1e-5 deg); from there on it is "visible"; a key
# interval turned the long way round is always "long way round".
FINE_DEG = 0.1
VERDICT_FINE = "fine"
VERDICT_VISIBLE = "visible"
VERDICT_LONG_WAY = "long way round"
# Worst first: the panel sorts by this rank, then by the difference.
VERDICT_RANK = {VERDICT_LONG_WAY: 0, VERDICT_VISIBLE: 1, VERDICT_FINE: 2}

# After a bake the report is re-run on the baked objects (before and after)
# when they span at most this many frames in all (about a second of CPU on
# the 2-core test machine, benchmarks/bench_report.py); beyond it the entries
# are marked out of date, with a button to re-run.
REFRESH_FRAME_LIMIT = 100_000


def verdict(max_deviation_deg: float, long_arc_segments) -> str:
    """"fine", "visible" or "long way round" (see FINE_DEG)."""
    if long_arc_segments:
        return VERDICT_LONG_WAY
    return VERDICT_VISIBLE if max_deviation_deg >= FINE_DEG else VERDICT_FINE


def fingerprint(obj) -> list:
    """What the result of an analysis depends on, cheap enough for every redraw:
    the action playing, the rotation mode and the number of rotation and
    location keys. A bake, a revert or keying changes it."""
    from . import animdata

    action = animdata.get_action(obj)
    fcurves = animdata.rotation_fcurves(obj) + animdata.location_fcurves(obj)
    keys = sum(len(fc.keyframe_points) for fc in fcurves if fc is not None)
    return [action.name if action is not None else "", obj.rotation_mode, keys]


def summary(a: core_analysis.ObjectAnalysis) -> dict:
    # Only the probable defects (a flipped sign, an Euler wrap) count as long
    # arcs here: a kept spin turns the long way on purpose.
    spins = {tuple(iv["frames"]) for iv in a.intervals if iv.get("kind") == "spin"}
    defects = [list(s) for s in a.long_arc_segments if (s[0], s[1]) not in spins]
    return {
        "method": a.method,
        "max_deviation_deg": a.max_deviation_deg,
        "max_path_deviation_deg": a.max_path_deviation_deg,
        "worst_frame": a.worst_frame,
        "long_arc_segments": defects,
        "spins": [list(f) for f in sorted(spins)],
        "steps": sum(1 for iv in a.intervals if iv.get("kind") == "step"),
        "advice": a.advice,
        "verdict": verdict(a.max_deviation_deg, defects),
        "error": "",
    }


def _entry(obj, method: str, clip=None, turns: str = "AUTO", timing: str = "EVEN") -> dict:
    """The panel's entry for ``obj`` (or one of its NLA ``clip``s): its analysis
    now and, when it plays a QuatBake bake, the analysis of the keys before the
    bake (``before``). ``object`` names the object (the entry's key may be
    "Cube / Walk" for a clip)."""
    from . import bake_record

    entry = summary(analyze_object(obj, method, clip=clip, turns=turns, timing=timing))
    entry["before"] = (summary(analyze_object(obj, method, turns=turns, timing=timing,
                                              original=True))
                       if clip is None and bake_record.is_baked(obj) else None)
    entry["fingerprint"] = fingerprint(obj)
    entry["object"], entry["bone"] = obj.name, getattr(obj, "bone_name", "")
    return entry


def _error_entry(obj, message: str) -> dict:
    return {"error": message, "fingerprint": fingerprint(obj), "object": obj.name,
            "bone": getattr(obj, "bone_name", "")}


def _named_transform(scene, name: str):
    """The object, or the pose bone's transform, an entry ``name`` (or an object name)
    stands for; None when it is gone."""
    from .transform import AnimatedTransform

    entry = results(scene).get(name) or {}
    obj = scene.objects.get(entry.get("object", name))
    bone = entry.get("bone", "")
    if obj is None or not bone:
        return obj
    if obj.pose is None or obj.pose.bones.get(bone) is None:
        return None
    return AnimatedTransform(obj, bone)


def results(scene) -> dict[str, dict]:
    """Per object name: the last analysis summary in ``scene`` (empty before any run)."""
    return _RESULTS.get(scene.name, {})


def is_stale(scene, name: str) -> bool:
    """Whether the entry ``name`` no longer describes its object (keys, action or
    mode changed since, or it was left for a re-run after a large bake)."""
    entry = results(scene).get(name)
    obj = _named_transform(scene, name) if entry is not None else None
    if entry is None or obj is None:
        return True
    return bool(entry.get("pending")) or entry.get("fingerprint") != fingerprint(obj)


def _frames_spanned(obj) -> int:
    from . import animdata

    keys = animdata.key_frames(animdata.rotation_fcurves(obj))
    return int(keys[-1] - keys[0]) + 1 if keys.size and np.isfinite(keys).all() else 0


def analyze_into(scene, objects, method: str, replace: bool = False) -> dict[str, dict]:
    """Analyse ``objects`` and store their entries for ``scene``'s panel.

    ``replace``: the new entries replace every earlier one (an Analyze of the
    selection); otherwise they update them (a re-run, or the refresh after a
    bake). Returns the new entries by object name; an object that cannot be
    analysed gets ``{"error": sentence}``.
    """
    from . import animdata

    settings = getattr(scene, "quatbake", None)
    turns = settings.turns if settings is not None else "AUTO"
    timing = settings.timing if settings is not None else "EVEN"
    found: dict[str, dict] = {}
    for obj in objects:
        # The object itself, or its NLA clips when only they hold rotation keys.
        for item in analysis_targets(obj):
            clip = item[1] if isinstance(item, tuple) else None
            label = result_label(obj, clip)
            try:
                found[label] = _entry(obj, method, clip, turns, timing)
            except (NoRotationKeys, animdata.ChannelError, ValueError) as exc:
                found[label] = _error_entry(obj, str(exc))
    if replace:
        _RESULTS[scene.name] = _bones_worst_first(found)
    else:
        _RESULTS.setdefault(scene.name, {}).update(found)
    _sync_rows(scene)
    return found


def _sync_rows(scene) -> None:
    """Copy the entries, worst first, into ``scene.quatbake.report_rows`` (the UIList's data)."""
    settings = getattr(scene, "quatbake", None)
    if settings is None:
        return
    rows = settings.report_rows
    rows.clear()
    for name, entry in worst_first(results(scene)):
        row = rows.add()
        row.name = name
        row.verdict = entry.get("verdict", "error" if entry.get("error") else "")
        row.max_deviation_deg = float(entry.get("max_deviation_deg", 0.0))
    settings.report_index = min(settings.report_index, max(len(rows) - 1, 0))


def refresh(scene, objects, method: str) -> None:
    """After a bake or revert: re-run the report on ``objects`` so nothing stale
    is shown; when they are too long to analyse at once (REFRESH_FRAME_LIMIT),
    mark their entries out of date instead (the panel offers a re-run)."""
    objects = list(objects)
    if sum(_frames_spanned(obj) for obj in objects) <= REFRESH_FRAME_LIMIT:
        analyze_into(scene, objects, method)
        return
    stored = _RESULTS.setdefault(scene.name, {})
    for obj in objects:
        label = result_label(obj)
        stored[label] = dict(stored.get(label, {"error": ""}), pending=True, object=obj.name,
                             bone=getattr(obj, "bone_name", ""))
    _sync_rows(scene)


def before_after(entry: dict) -> str:
    """"180.0 deg -> 0.00 deg, long way round fixed" for an entry with ``before``."""
    before = entry.get("before")
    if not before:
        return ""
    text = (f"{before['max_deviation_deg']:.1f}\u00b0 -> {entry['max_deviation_deg']:.2f}\u00b0")
    was_long, is_long = bool(before["long_arc_segments"]), bool(entry["long_arc_segments"])
    if was_long and not is_long:
        return f"{text}, long way round fixed"
    if is_long:
        return f"{text}, still the long way round"
    return f"{text}, {entry['verdict']}"


def worst_first(found: dict[str, dict]) -> list[tuple[str, dict]]:
    """Entries sorted as the panel lists them: errors, then long way round,
    visible, fine; the largest difference first within each."""
    def key(item):
        name, entry = item
        if entry.get("error") or "verdict" not in entry:
            return (-1, 0.0, name)
        return (VERDICT_RANK[entry["verdict"]], -entry["max_deviation_deg"], name)

    return sorted(found.items(), key=key)


# Objects named in the status line after Analyze; more are counted.
STATUS_NAMES = 4


class QUATBAKE_OT_analyze(Operator):
    """Compare Blender's own rotation interpolation of the selected objects with the chosen
    method. Verdicts: fine (under 0.1 degrees), visible (more), long way round (a key interval
    turns more than 180 degrees where less would do)"""

    bl_idname = "quatbake.analyze"
    bl_label = "Analyze"
    bl_options = {'REGISTER'}

    method: EnumProperty(
        name="Method", items=METHOD_ITEMS, default='SLERP',
        description="Interpolation to compare Blender's with (default: the scene's QuatBake method)",
    )
    object_name: StringProperty(
        name="Object", default="", options={'SKIP_SAVE'},
        description="Analyze only this object (default: the selected objects)",
    )

    @classmethod
    def poll(cls, context) -> bool:
        if getattr(context.scene, "quatbake", None) is None:
            return False
        if not getattr(context, "selected_objects", None):
            cls.poll_message_set("Select the animated objects to analyze")
            return False
        return True

    def execute(self, context):
        # Left out, the method comes from the scene settings (as for quatbake.bake).
        method = (self.method.lower() if self.properties.is_property_set("method")
                  else compare_method(context.scene.quatbake))
        scene = context.scene
        from .transform import as_transforms, selected_items

        transforms = as_transforms(selected_items(context))
        if self.object_name:
            obj = _named_transform(scene, self.object_name)
            if obj is None:
                self.report({'ERROR'}, f"Object \"{self.object_name}\" is not in this scene.")
                return {'CANCELLED'}
            found = analyze_into(scene, [obj], method)
        else:
            found = analyze_into(scene, transforms, method, replace=True)
        for entry in found.values():
            if entry.get("error"):
                self.report({'WARNING'}, entry["error"])
        done = {n: s for n, s in found.items() if not s.get("error")}
        if not done:
            self.report({'ERROR'}, "None of the selected objects has rotation keys to analyze.")
            return {'CANCELLED'}
        # Every object named (the first few), worst first: the status line once
        # named only the worst of two.
        ordered = [(n, e) for n, e in worst_first(done)]
        parts = [f"{n} {e['max_deviation_deg']:.2f} deg ({e['verdict']})"
                 for n, e in ordered[:STATUS_NAMES]]
        more = len(ordered) - STATUS_NAMES
        if more > 0:
            parts.append(f"{more} more")
        # Objects and bones counted apart, each once (an object analysed by its NLA clips
        # has an entry per clip), in the words of the bake's report.
        count = count_phrase(*tally((e["object"], e["bone"]) for e in done.values()))
        self.report({'INFO'}, f"Analyzed {count}: " + "; ".join(parts) + ".")
        return {'FINISHED'}


def _bones_worst_first(found: dict) -> dict:
    """``found`` in its order, except that each armature's bone rows come together where
    its first one was, worst first (as in the JSON report)."""
    order: list = []
    bones: dict = {}
    for label, s in found.items():
        if not s.get("bone"):
            order.append(label)
            continue
        if s["object"] not in bones:
            bones[s["object"]] = []
            order.append(bones[s["object"]])
        bones[s["object"]].append(label)
    out = {}
    for item in order:
        if isinstance(item, list):
            for label in sorted(item, key=lambda lab: -found[lab]["max_deviation_deg"]):
                out[label] = found[label]
        else:
            out[item] = found[item]
    return out


class QUATBAKE_OT_jump_to_worst(Operator):
    """Set the current frame to the frame where this object deviates most"""

    bl_idname = "quatbake.jump_to_worst"
    bl_label = "Jump to Worst Frame"
    bl_options = {'REGISTER', 'UNDO'}

    object_name: StringProperty(name="Object", description="Object whose worst frame to show")

    def execute(self, context):
        result = results(context.scene).get(self.object_name)
        if not result or result.get("error") or "worst_frame" not in result:
            self.report({'ERROR'}, f"Object \"{self.object_name}\" has not been analyzed yet: "
                        "run Analyze first.")
            return {'CANCELLED'}
        frame = float(result["worst_frame"])
        whole = int(np.floor(frame))
        context.scene.frame_set(whole, subframe=frame - whole)
        if result.get("bone"):
            _select_bone(context, result["object"], result["bone"])
        return {'FINISHED'}


def _select_bone(context, object_name: str, bone_name: str) -> None:
    """Make the worst bone the only selected (and active) bone of its armature, so the
    Graph Editor and the overlay show it."""
    rig = bpy.data.objects.get(object_name)
    from . import animdata

    if rig is None or rig.type != 'ARMATURE' or bone_name not in rig.data.bones:
        return
    for bone in rig.data.bones:
        animdata.select_bone(rig, bone.name, bone.name == bone_name)
    rig.data.bones.active = rig.data.bones[bone_name]


# Characters per label line: the sidebar at its default width shows about 35.
_WRAP_CHARS = 32
VERDICT_ICONS = {VERDICT_LONG_WAY: 'ERROR', VERDICT_VISIBLE: 'INFO', VERDICT_FINE: 'CHECKMARK'}
PANEL_NAME = "Difference Report"
# Up to this many objects each get a box with their details; more go into a
# compact list (worst first) with the details of the one picked in it.
MAX_BOXES = 3


class QUATBAKE_UL_report(bpy.types.UIList):
    """The Difference Report's objects, worst first: verdict icon, name, degrees."""

    bl_idname = "QUATBAKE_UL_report"

    def draw_item(self, context, layout, data, item, icon, active_data, active_prop, index=0):
        from .ui_text import is_narrow

        icon = VERDICT_ICONS.get(item.verdict, 'ERROR')
        if is_narrow(context) or item.verdict not in VERDICT_ICONS:
            # Narrow: the name alone (the degrees are in the details below).
            layout.label(text=item.name, icon=icon, translate=False)
            return
        # The name gets most of the row (equal halves cut "ShotCam" to "ShotC...").
        split = layout.split(factor=0.68, align=True)
        split.label(text=item.name, icon=icon, translate=False)
        split.label(text=f"{item.max_deviation_deg:.1f}\u00b0", translate=False)


def _draw_entry(layout, context, name: str, entry: dict, stale: bool) -> None:
    from .ui_text import wrapped_label

    box = layout.box()
    if entry.get("error") and not entry.get("pending"):
        wrapped_label(box, context, name, icon='ERROR', panel=PANEL_NAME, translate=False)
        wrapped_label(box, context, entry["error"], panel=PANEL_NAME, translate=False)
        return
    row = box.row(align=True)
    if stale or "verdict" not in entry:
        row.label(text=name, icon='TIME', translate=False)
        op = row.operator(QUATBAKE_OT_analyze.bl_idname, text="Re-run", icon='FILE_REFRESH')
        # A bone's entry is found by its label ("Rig: spine"), an object's by its name.
        op.object_name = name if entry.get("bone") else entry.get("object", name)
        why = ("Not re-analysed after the bake (too long to do at once): press Re-run."
               if entry.get("pending") else "Out of date: the keys changed since this analysis.")
        wrapped_label(box, context, why, panel=PANEL_NAME)
        return
    # Name and figure on one row, then one sentence: the before -> after of a
    # bake, else the advice (which already says "long way" or "nothing to do").
    # A separate "180.0 deg at frame 90: long way round" line repeated the
    # advice and pushed the Re-bake button off a 900-pixel screen.
    split = row.split(factor=0.62, align=True)
    split.label(text=name, icon=VERDICT_ICONS[entry["verdict"]], translate=False)
    split.label(text=f"{entry['max_deviation_deg']:.1f}\u00b0", translate=False)
    op = row.operator(QUATBAKE_OT_jump_to_worst.bl_idname, text="", icon='TIME')
    op.object_name = name
    change = before_after(entry)
    if not change and entry["verdict"] != VERDICT_LONG_WAY:
        # The verdict in words ("long way" is already in that advice).
        change = f"{entry['verdict'].capitalize()}: {entry['advice']}"
    wrapped_label(box, context, change or entry["advice"], panel=PANEL_NAME, translate=False)
    # Issue 11's split, only where it says something: a visible difference
    # (how much of it is off the path, the rest being timing), kept spins, steps.
    # Fine objects get no extra line, so two results and Re-bake still fit.
    extra = []
    if entry["max_deviation_deg"] >= FINE_DEG:
        extra.append(f"Off the path: {entry['max_path_deviation_deg']:.2f}\u00b0 "
                     "(the rest is timing)")
    if entry.get("spins"):
        extra.append("Keyed spins: " + ", ".join(f"{a:g}-{b:g}" for a, b in entry["spins"]))
    if entry.get("steps"):
        extra.append(f"Stepped intervals: {entry['steps']:d}")
    if extra:
        wrapped_label(box, context, "; ".join(extra) + ".", panel=PANEL_NAME, translate=False)


class _AnalyzePanel:
    bl_region_type = 'UI'
    bl_category = "QuatBake"
    bl_label = PANEL_NAME
    bl_order = 0   # diagnose first, then Overlay (preview), then Re-bake (act)

    def draw(self, context):
        from .ui_text import is_narrow, start_panel, wrapped_label

        start_panel(PANEL_NAME)
        layout = self.layout
        settings = context.scene.quatbake
        row = layout.row(align=True)
        row.operator(QUATBAKE_OT_analyze.bl_idname, icon='GRAPH')
        row.operator("quatbake.export_report", text="", icon='EXPORT')
        col = layout.column()
        # Narrow, a split label would cut both ("C..." beside "Ba..."): the
        # choice alone, full width (its tooltip says what it is).
        col.use_property_split = not is_narrow(context)
        col.use_property_decorate = False
        col.prop(settings, "compare_method", text="Compare" if col.use_property_split else "")
        found = results(context.scene)
        found = {n: e for n, e in found.items() if e.get("object", n) in context.scene.objects}
        if not found:
            wrapped_label(layout, context, "Select animated objects and press Analyze.",
                          panel=PANEL_NAME)
            return
        ordered = worst_first(found)
        # The list's rows are written with the results; if they do not match
        # (an undo restored older rows), the boxes are drawn instead.
        if len(ordered) <= MAX_BOXES or len(settings.report_rows) != len(results(context.scene)):
            for name, entry in ordered[:MAX_BOXES]:
                _draw_entry(layout, context, name, entry, is_stale(context.scene, name))
            return
        layout.template_list(QUATBAKE_UL_report.bl_idname, "", settings, "report_rows",
                             settings, "report_index", rows=4)
        index = min(settings.report_index, len(settings.report_rows) - 1)
        name = settings.report_rows[index].name
        if name in found:
            _draw_entry(layout, context, name, found[name], is_stale(context.scene, name))


class QUATBAKE_PT_analyze(_AnalyzePanel, Panel):
    bl_idname = "QUATBAKE_PT_analyze"
    bl_space_type = 'VIEW_3D'
    bl_parent_id = "QUATBAKE_PT_main"


class QUATBAKE_PT_analyze_graph(_AnalyzePanel, Panel):
    bl_idname = "QUATBAKE_PT_analyze_graph"
    bl_space_type = 'GRAPH_EDITOR'
    bl_parent_id = "QUATBAKE_PT_main_graph"


classes = (QUATBAKE_OT_analyze, QUATBAKE_OT_jump_to_worst, QUATBAKE_UL_report,
           QUATBAKE_PT_analyze, QUATBAKE_PT_analyze_graph)
_register_classes, _unregister_classes = bpy.utils.register_classes_factory(classes)


def register() -> None:
    _register_classes()


def unregister() -> None:
    _unregister_classes()
    _RESULTS.clear()
