# SPDX-License-Identifier: GPL-3.0-or-later
"""Difference report inside Blender: read an object's channels, run core.analysis.

``analyze_object(obj, method)`` is the one entry point used by the operator
``quatbake.analyze``, its panel and the command line (``addon.cli``). It reads
the F-curves through ``animdata`` (no ``frame_set``: the scene and the current
frame are never touched) and hands arrays to ``core.analysis``.
"""
from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

import bpy
import numpy as np
from bpy.props import EnumProperty, StringProperty
from bpy.types import Operator, Panel

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


def analyze_object(obj, method: str = "slerp", clip=None) -> core_analysis.ObjectAnalysis:
    """Compare Blender's interpolation of ``obj``'s rotation with ``method``.

    ``clip`` (an ``animdata.Clip``) analyses that action's channels instead of
    the active action's, in the action's own time (no NLA strip mapping).
    The orientation is what Blender composes: delta rotation @ rotation.
    Raises NoRotationKeys when neither the rotation nor the delta rotation
    channels of the object's rotation mode have keys, RangeTooLong when they
    span more than bake.MAX_BAKE_FRAMES frames, animdata.ChannelError for a
    value that is no rotation.
    """
    from ..core import analysis as core_analysis
    from ..core import quat as core_quat
    from . import animdata

    # The bake's cap, so both refuse the same stray key (a frame typed as
    # 5000001): every whole frame is evaluated and compared, ~7 s per
    # million frames, with several float64 arrays per frame.
    from .bake import MAX_BAKE_FRAMES

    fcurves = clip.fcurves() if clip is not None else None
    mode = obj.rotation_mode
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

    result = core_analysis.analyze_object(
        obj.name, mode, frames, quats, keys, quats[at_keys], method,
        raw_values=raw, key_raw=raw[at_keys], positions=positions,
        key_positions=key_positions, location_key_frames=location_keys,
        extra_frames=extra if extra.size else None, extra_quats=extra_quats)
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


def summary(a: core_analysis.ObjectAnalysis) -> dict:
    return {
        "method": a.method,
        "max_deviation_deg": a.max_deviation_deg,
        "worst_frame": a.worst_frame,
        "long_arc_segments": [list(s) for s in a.long_arc_segments],
        "advice": a.advice,
        "error": "",
    }


def results(scene) -> dict[str, dict]:
    """Per object name: the last analysis summary in ``scene`` (empty before any run)."""
    return _RESULTS.get(scene.name, {})


class QUATBAKE_OT_analyze(Operator):
    """Compare Blender's own rotation interpolation of the selected objects with the chosen method"""

    bl_idname = "quatbake.analyze"
    bl_label = "Analyze"
    bl_options = {'REGISTER'}

    method: EnumProperty(
        name="Method", items=METHOD_ITEMS, default='SLERP',
        description="Interpolation to compare Blender's with (default: the scene's QuatBake method)",
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
        from . import animdata

        # Left out, the method comes from the scene settings (as for quatbake.bake).
        method = (self.method if self.properties.is_property_set("method")
                  else context.scene.quatbake.method).lower()
        from .ops_bake import selected_items
        from .transform import as_transforms

        found: dict[str, dict] = {}
        for item in [t for obj in as_transforms(selected_items(context))
                     for t in analysis_targets(obj)]:
            obj, clip = item if isinstance(item, tuple) else (item, None)
            label = result_label(obj, clip)
            try:
                a = analyze_object(obj, method, clip=clip)
            except (NoRotationKeys, animdata.ChannelError, ValueError) as exc:
                found[label] = {"error": str(exc)}
                self.report({'WARNING'}, str(exc))
                continue
            found[label] = summary(a)
            found[label]["object"], found[label]["bone"] = obj.name, a.bone
        _RESULTS[context.scene.name] = _bones_worst_first(found)
        done = {n: s for n, s in found.items() if not s.get("error")}
        if not done:
            self.report({'ERROR'}, "None of the selected objects has rotation keys to analyze.")
            return {'CANCELLED'}
        name, worst = max(done.items(), key=lambda item: item[1]["max_deviation_deg"])
        self.report({'INFO'}, f"Analyzed {len(done)} object(s): largest deviation "
                    f"{worst['max_deviation_deg']:.2f} deg ({name}, frame {worst['worst_frame']:g}).")
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
        if not result or result.get("error"):
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


class _AnalyzePanel:
    bl_region_type = 'UI'
    bl_category = "QuatBake"
    bl_label = "Difference Report"

    def draw(self, context):
        layout = self.layout
        layout.operator(QUATBAKE_OT_analyze.bl_idname, icon='GRAPH')
        found = results(context.scene)
        if not found:
            layout.label(text="Select animated objects and press Analyze.")
            return
        for name, s in found.items():
            box = layout.box()
            if s.get("error"):
                box.label(text=name, icon='ERROR')
                for line in textwrap.wrap(s["error"], _WRAP_CHARS):
                    box.label(text=line)
                continue
            bad = bool(s["long_arc_segments"])
            box.label(text=name, icon='ERROR' if bad else 'CHECKMARK')
            col = box.column(align=True)
            col.label(text=f"Max deviation: {s['max_deviation_deg']:.2f} deg")
            arcs = ", ".join(f"{a:g}-{b:g}" for a, b in s["long_arc_segments"]) or "none"
            col.label(text=f"Long way round: {arcs}")
            # Panels do not wrap labels: one label per line of the advice.
            for line in textwrap.wrap(f"Advice: {s['advice']}", _WRAP_CHARS):
                col.label(text=line)
            op = box.operator(QUATBAKE_OT_jump_to_worst.bl_idname,
                              text=f"Jump to Worst Frame ({s['worst_frame']:g})", icon='TIME')
            op.object_name = name


class QUATBAKE_PT_analyze(_AnalyzePanel, Panel):
    bl_idname = "QUATBAKE_PT_analyze"
    bl_space_type = 'VIEW_3D'
    bl_parent_id = "QUATBAKE_PT_main"


class QUATBAKE_PT_analyze_graph(_AnalyzePanel, Panel):
    bl_idname = "QUATBAKE_PT_analyze_graph"
    bl_space_type = 'GRAPH_EDITOR'
    bl_parent_id = "QUATBAKE_PT_main_graph"


classes = (QUATBAKE_OT_analyze, QUATBAKE_OT_jump_to_worst, QUATBAKE_PT_analyze,
           QUATBAKE_PT_analyze_graph)
_register_classes, _unregister_classes = bpy.utils.register_classes_factory(classes)


def register() -> None:
    _register_classes()


def unregister() -> None:
    _unregister_classes()
    _RESULTS.clear()
